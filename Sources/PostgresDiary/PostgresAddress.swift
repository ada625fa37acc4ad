// Built with the PostgreSQL trait only (Package.swift): without it, this module is empty.
#if PostgreSQL

import Diary
import Foundation

/// Where a PostgreSQL diary is: server, database, user and the diary's name, read from a
/// `postgres://` URL with the defaults libpq (and so `psql`) uses.
///
/// `postgres://[USER@][HOST][:PORT][/DATABASE][?diary=NAME&sslmode=MODE&host=DIR&connect_timeout=S]`
///
/// - An empty host, or one that is a folder (`?host=/run/postgresql`), is the server's Unix
///   socket in that folder (`/var/run/postgresql` by default, as Debian's server makes it).
/// - What the URL leaves out comes from `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE` and
///   `PGSSLMODE`, else the login name (user and database), port 5432 and `prefer`.
/// - The password is never part of the address: it comes from `PGPASSWORD`, else the first
///   matching line of `PGPASSFILE` or `~/.pgpass` (which must not be readable by others).
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    /// TLS as libpq's `sslmode` says it.
    public enum TLSMode: String, Sendable {
        /// Plain text only.
        case disable
        /// Encrypted when the server offers it (libpq's default); the certificate is not checked.
        case prefer
        /// Encrypted or no connection; the certificate is not checked.
        case require
        /// Encrypted, with a certificate signed by an authority this machine trusts.
        case verifyCA = "verify-ca"
        /// As `verifyCA`, and the certificate names the host.
        case verifyFull = "verify-full"
    }

    /// A host name, or the folder of the server's Unix socket when it starts with `/`.
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// Which diary of the database: each has its own entries, ids and rule.
    public var diary: String
    public var tls: TLSMode
    public var connectTimeout: Int

    /// Whether the server is reached through its Unix socket.
    public var isSocket: Bool { host.hasPrefix("/") }

    /// The address without a password (there never is one), for messages.
    public var description: String {
        let server = isSocket ? "" : host.contains(":") ? "[\(host)]" : host
        let port = port == 5432 ? "" : ":\(port)"
        let socket =
            isSocket && host != "/var/run/postgresql"
            ? "&host=" + (host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host)
            : ""
        return "postgres://\(user)@\(server)\(port)/\(database)?diary=\(diary)\(socket)"
    }

    /// Reads `url`; `environment` supplies the `PG…` defaults.
    public init(
        url: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DiaryError) {
        let shown = StoreLocation.redacted(url)
        func refuse(_ why: String) -> DiaryError { .storage("\(shown): \(why)") }
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw refuse(
                "not a PostgreSQL address; expected postgres://USER@HOST/DATABASE?diary=NAME")
        }
        if components.password != nil {
            throw refuse(
                "the address holds a password; give it in ~/.pgpass or PGPASSWORD instead")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            let known = ["diary", "sslmode", "host", "port", "user", "dbname", "connect_timeout"]
            guard known.contains(item.name) else {
                throw refuse(
                    item.name == "password"
                        ? "the address holds a password; give it in ~/.pgpass or PGPASSWORD instead"
                        : "unknown parameter '\(item.name)'; known: \(known.joined(separator: ", "))"
                )
            }
            query[item.name] = item.value ?? ""
        }
        func setting(_ fromURL: String?, _ variable: String) -> String? {
            [fromURL, environment[variable]].compactMap { $0 }.first { !$0.isEmpty }
        }
        let login =
            getpwuid(geteuid()).flatMap { String(validatingCString: $0.pointee.pw_name) }
            ?? "postgres"
        user = setting(query["user"] ?? components.user, "PGUSER") ?? login
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : ""
        database = setting(query["dbname"] ?? (path.isEmpty ? nil : path), "PGDATABASE") ?? user
        host = setting(query["host"] ?? components.host, "PGHOST") ?? "/var/run/postgresql"
        let portText = setting(query["port"] ?? components.port.map(String.init), "PGPORT")
        guard let port = Int(portText ?? "5432"), (1...65_535).contains(port) else {
            throw refuse("port '\(portText ?? "")' is not a number from 1 to 65535")
        }
        self.port = port
        let modeText = setting(query["sslmode"], "PGSSLMODE") ?? "prefer"
        guard let mode = TLSMode(rawValue: modeText) else {
            throw refuse(
                "sslmode '\(modeText)' is unknown; expected disable, prefer, require, verify-ca or verify-full"
            )
        }
        tls = mode
        let timeoutText = query["connect_timeout"] ?? environment["PGCONNECT_TIMEOUT"] ?? "10"
        guard let timeout = Int(timeoutText), timeout > 0 else {
            throw refuse("connect_timeout '\(timeoutText)' is not a number of seconds")
        }
        connectTimeout = timeout
        diary = query["diary"] ?? "default"
        guard !diary.isEmpty, diary.count <= 100,
            !diary.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw refuse("diary '\(diary)' must be a name of 1 to 100 printable characters")
        }
        if isSocket && tls.rawValue.hasPrefix("verify") {
            throw refuse("sslmode \(tls.rawValue) needs a host name, not a Unix socket")
        }
    }

    /// The password for this address: `PGPASSWORD`, else the first line of the password
    /// file (`PGPASSFILE`, else `~/.pgpass`) that matches host, port, database and user,
    /// each field `*` or equal (a socket connection matches `localhost`). A password file
    /// that group or others can read is ignored, as libpq ignores it, and `warn` hears why.
    public func password(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void = { _ in }
    ) -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let path =
            environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        if status.st_mode & 0o077 != 0 {
            warn(
                "\(path) is ignored: others can read it; make it private with chmod 600 \(path)")
            return nil
        }
        let hosts = isSocket ? ["localhost", host] : [host]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.fields(of: line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool {
                field == "*" || values.contains(field)
            }
            if matches(fields[0], hosts) && matches(fields[1], [String(port)])
                && matches(fields[2], [database]) && matches(fields[3], [user])
            {
                return fields[4]
            }
        }
        return nil
    }

    /// The `:`-separated fields of a password file line, `\:` and `\\` unescaped.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 5 {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}

#endif
