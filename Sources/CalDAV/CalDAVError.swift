// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import WebDAV

/// Why a CalDAV operation did not happen. No case ever holds a password.
public enum CalDAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The address or the options are not usable.
    case usage(String)
    /// The server cannot be reached (no connection, no answer in time, TLS refused).
    case unreachable(String)
    /// The server wants credentials taskcal does not have, or refused the ones it sent.
    case authentication(String)
    /// The server answered a request with an error status.
    case http(status: Int, String)
    /// The server's answer is not what the protocol says.
    case protocolError(String)
    /// Something on this machine: a file, the diary.
    case local(String)

    public var description: String {
        switch self {
        case .usage(let message), .unreachable(let message), .authentication(let message),
            .protocolError(let message), .local(let message):
            message
        case .http(_, let message): message
        }
    }
}

/// A CalDAV address: `https://HOST[:PORT]/PATH`. A missing scheme is `https://`; plain
/// `http://` is allowed to a loopback address only (this machine), or when asked for.
public struct CalDAVAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address, with a path that ends in `/` when it names a collection.
    public var url: URL
    /// The user name the address gives (`https://anna@host/…`), if any.
    public var user: String?

    /// Parses `text`.
    ///
    /// - Throws: ``CalDAVError/usage(_:)`` for an address with a password in it (which the
    ///   process list and the shell's history would show), another scheme, no host, or
    ///   plain HTTP to another machine without `allowHTTP`.
    public init(_ text: String, allowHTTP: Bool = false) throws(CalDAVError) {
        var text = text
        if !text.contains("://") { text = "https://" + text }
        guard var components = URLComponents(string: text) else {
            throw .usage("\(Self.redacted(text)) is not an address (https://HOST/PATH)")
        }
        if components.password != nil {
            throw .usage(
                "\(Self.redacted(text)): the address holds a password, which any user of this machine can see in the process list and which stays in the shell's history; put it in ~/.netrc, the Secret Service or a file named by TASKCAL_CALDAV_PASSWORD_FILE"
            )
        }
        guard let scheme = components.scheme?.lowercased(), ["https", "http"].contains(scheme)
        else {
            throw .usage(
                "\(text): a CalDAV address is https://HOST/PATH (or http:// to this machine)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .usage("\(text) names no server (https://HOST/PATH)")
        }
        if scheme == "http" && !allowHTTP && !Self.isLoopback(host) {
            throw .usage(
                "\(text): plain HTTP would send the password and the calendar unencrypted over the network; use https://, or --allow-http if this network is trusted"
            )
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        components.user = nil
        components.scheme = scheme
        if components.path.isEmpty { components.path = "/" }
        guard let url = components.url else {
            throw .usage("\(text) is not an address (https://HOST/PATH)")
        }
        self.url = url
    }

    init(url: URL, user: String?) {
        self.url = url
        self.user = user
    }

    public var host: String { url.host ?? "" }

    /// The path, percent-decoded, with its trailing `/` when it has one: how objects are
    /// told apart (an `href` may come encoded or not).
    public var path: String {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.path ?? url.path
    }

    /// The path as it goes on the wire, percent-encoded.
    public var encodedPath: String {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
    }

    public var description: String { url.absoluteString }

    /// The same address with its path ending in `/` (a collection).
    public var asCollection: CalDAVAddress {
        guard !path.hasSuffix("/"),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return self }
        components.percentEncodedPath += "/"
        return CalDAVAddress(url: components.url ?? url, user: user)
    }

    /// The address `href` names (an absolute path or a whole URL, percent-encoded as a
    /// server writes it) on this server.
    func resolving(_ href: String) -> CalDAVAddress {
        if let resolved = URL(string: href, relativeTo: url)?.absoluteURL {
            return CalDAVAddress(url: resolved, user: user)
        }
        return at(path: href.hasPrefix("/") ? href : asCollection.path + href)
    }

    /// The path of the object `href` names when it is a member of this collection; `nil` for
    /// the collection itself (``WebDAV/DAVMember/path(_:in:)``).
    ///
    /// - Throws: for an `href` outside the collection.
    func memberPath(_ href: String) throws(CalDAVError) -> String? {
        do {
            return try DAVMember.path(href, in: asCollection.url)
        } catch {
            throw .protocolError(error.message)
        }
    }

    /// The address of the decoded absolute `path` on this server (as ``path`` gives it).
    func at(path: String) -> CalDAVAddress {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return self
        }
        components.path = path
        components.query = nil
        components.fragment = nil
        return CalDAVAddress(url: components.url ?? url, user: user)
    }

    /// The address of the member `name` (percent-encoded) of this collection.
    public func member(_ name: String) -> CalDAVAddress {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        return asCollection.resolving(encoded)
    }

    /// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1"
            || bare.hasPrefix("127.")
    }

    /// `text` with any password in it replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let at = text.range(of: "@"), let scheme = text.range(of: "://"),
            scheme.upperBound < at.lowerBound
        else { return text }
        let userinfo = text[scheme.upperBound..<at.lowerBound]
        guard let colon = userinfo.firstIndex(of: ":") else { return text }
        return text[..<colon] + ":***" + text[at.lowerBound...]
    }
}

extension MultiStatus {
    /// The `multistatus` of a server's answer; what is wrong with it a protocol error.
    init(reply data: Data) throws(CalDAVError) {
        do {
            try self.init(data)
        } catch {
            throw .protocolError(error.message)
        }
    }
}

#endif
