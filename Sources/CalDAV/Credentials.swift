// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import WebDAV

/// A user name and password for one server, and where they were found (said in messages;
/// the password never is).
public struct Credentials: Sendable {
    public var user: String
    let password: String
    /// `~/.netrc`, `the Secret Service`, `TASKCAL_CALDAV_PASSWORD_FILE`.
    public var source: String

    /// The `Authorization` header's value (HTTP Basic, RFC 7617).
    var basicAuthorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}

/// Where passwords for CalDAV servers come from, never from an argument:
///
/// 1. the file `TASKCAL_CALDAV_PASSWORD_FILE` names (its first line; the user from the
///    address or `TASKCAL_CALDAV_USER`);
/// 2. `~/.netrc` (or `$NETRC`): `machine HOST login USER password PASSWORD`, as curl and ftp
///    read it; a file others may read is not used, with a warning;
/// 3. the Secret Service, through `secret-tool lookup application taskcal server HOST user
///    USER`, when a desktop session runs one.
public struct CredentialSources: Sendable {
    public var environment: [String: String]
    /// Hears what was passed over (a `.netrc` others may read).
    public var warn: @Sendable (String) -> Void

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.environment = environment
        self.warn = warn
    }

    /// The credentials for `host`, for `user` when the address names one.
    public func credentials(host: String, user: String?) throws(CalDAVError) -> Credentials? {
        let user = user ?? environment["TASKCAL_CALDAV_USER"].flatMap { $0.isEmpty ? nil : $0 }
        if let file = environment["TASKCAL_CALDAV_PASSWORD_FILE"], !file.isEmpty {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .local(
                    "the password file \(file) (TASKCAL_CALDAV_PASSWORD_FILE) cannot be read")
            }
            let line = String(decoding: data.prefix { $0 != 10 && $0 != 13 }, as: UTF8.self)
            guard let user else {
                throw .usage(
                    "TASKCAL_CALDAV_PASSWORD_FILE gives a password but no user name: put it in the address (https://USER@\(host)/…) or in TASKCAL_CALDAV_USER"
                )
            }
            return Credentials(user: user, password: line, source: "TASKCAL_CALDAV_PASSWORD_FILE")
        }
        if let found = netrc(host: host, user: user) { return found }
        if let user, let secret = secretService(host: host, user: user) {
            return Credentials(user: user, password: secret, source: "the Secret Service")
        }
        return nil
    }

    /// Where a password could be put, for a message about a missing one.
    public static func howToGive(host: String, user: String?) -> String {
        let name = user ?? "USER"
        return
            "put it in ~/.netrc (machine \(host) login \(name) password …, mode 600), in the Secret Service (secret-tool store --label 'CalDAV \(host)' application taskcal server \(host) user \(name)), or in a file named by TASKCAL_CALDAV_PASSWORD_FILE"
    }

    // MARK: - .netrc

    private func netrc(host: String, user: String?) -> Credentials? {
        let path =
            environment["NETRC"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.netrc"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let entries = Self.parseNetrc(String(decoding: data, as: UTF8.self))
        let matches = entries.filter { entry in
            (entry.machine == nil || entry.machine?.lowercased() == host.lowercased())
                && (user == nil || entry.login == nil || entry.login == user)
                && entry.password != nil
        }
        // A machine's own entry before `default`.
        guard
            let entry = matches.first(where: { $0.machine != nil })
                ?? matches.first(where: { $0.machine == nil })
        else { return nil }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            warn(
                "\(path) may be read by others (mode \(String(status.st_mode & 0o777, radix: 8))): its password for \(host) is not used; chmod 600 \(path)"
            )
            return nil
        }
        guard let login = entry.login ?? user else {
            warn("\(path) has a password for \(host) but no login; give the user in the address")
            return nil
        }
        return Credentials(user: login, password: entry.password!, source: path)
    }

    struct NetrcEntry: Equatable {
        /// `nil` for `default`.
        var machine: String?
        var login: String?
        var password: String?
    }

    /// The entries of a `.netrc` file: `machine`/`default` blocks with `login` and
    /// `password` (quoted values as curl reads them; `macdef` bodies skipped).
    static func parseNetrc(_ text: String) -> [NetrcEntry] {
        var tokens: [String] = []
        var index = text.startIndex
        var skippingMacro = false
        while index < text.endIndex {
            if skippingMacro {
                // A macro runs to the first empty line.
                guard let end = text.range(of: "\n\n", range: index..<text.endIndex) else { break }
                index = end.upperBound
                skippingMacro = false
                continue
            }
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
                continue
            }
            if character == "#" {
                index = text[index...].firstIndex(of: "\n") ?? text.endIndex
                continue
            }
            var token = ""
            if character == "\"" {
                index = text.index(after: index)
                while index < text.endIndex, text[index] != "\"" {
                    if text[index] == "\\", text.index(after: index) < text.endIndex {
                        index = text.index(after: index)
                    }
                    token.append(text[index])
                    index = text.index(after: index)
                }
                if index < text.endIndex { index = text.index(after: index) }
            } else {
                while index < text.endIndex, !text[index].isWhitespace {
                    token.append(text[index])
                    index = text.index(after: index)
                }
            }
            if tokens.last == "macdef" {
                tokens.removeLast()
                skippingMacro = true
                continue
            }
            tokens.append(token)
        }
        var entries: [NetrcEntry] = []
        var position = 0
        while position < tokens.count {
            let token = tokens[position]
            switch token {
            case "machine":
                entries.append(
                    NetrcEntry(machine: position + 1 < tokens.count ? tokens[position + 1] : ""))
                position += 2
            case "default":
                entries.append(NetrcEntry(machine: nil))
                position += 1
            case "login", "password", "account":
                let value = position + 1 < tokens.count ? tokens[position + 1] : ""
                if !entries.isEmpty {
                    if token == "login" { entries[entries.count - 1].login = value }
                    if token == "password" { entries[entries.count - 1].password = value }
                }
                position += 2
            default:
                position += 1
            }
        }
        return entries
    }

    // MARK: - The Secret Service

    private func secretService(host: String, user: String) -> String? {
        guard environment["DBUS_SESSION_BUS_ADDRESS"].map({ !$0.isEmpty }) == true,
            let tool = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map({
                "\($0)/secret-tool"
            }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["lookup", "application", "taskcal", "server", host, "user", user]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !data.isEmpty else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

#endif
