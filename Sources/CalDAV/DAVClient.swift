// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Locking
import AsyncHTTPClient
import Foundation
import WebDAV
import NIOCore
import NIOHTTP1

/// An answer of the server.
struct DAVAnswer: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data
    /// Where it came from, after redirects.
    var address: CalDAVAddress

    var etag: String? { headers.first(name: "ETag") }
}

/// The HTTP side of CalDAV: requests through AsyncHTTPClient, one at a time (the command line
/// is sequential), with HTTP Basic credentials sent only to the server they were found for
/// and only once it asked, redirects followed by hand (at most five, never from HTTPS down to
/// HTTP), and every failure said plainly, never with a password in it.
final class DAVClient: Sendable {
    private let http: HTTPClient
    private let sources: CredentialSources
    private let allowHTTP: Bool
    /// How long one request may take, all in all.
    let timeout: TimeAmount
    /// Credentials by host, found once; a host whose answer asked for them gets them from then
    /// on without asking again.
    private let known = Locked<[String: Credentials?]>([:])
    private let asked = Locked<Set<String>>([])

    /// The largest answer read (a calendar of a few hundred megabytes).
    static let maximumBody = 512 << 20
    /// The largest listing read (hrefs and ETags, no calendar data): 64 MB is some 300,000
    /// objects. A listing past it is a server gone wrong, refused before memory runs out.
    static let maximumListing = 64 << 20

    init(sources: CredentialSources, allowHTTP: Bool, timeout: TimeAmount = .seconds(60)) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(15), read: timeout))
        configuration.decompression = .enabled(limit: .ratio(100))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.sources = sources
        self.allowHTTP = allowHTTP
        self.timeout = timeout
    }

    deinit { try? http.syncShutdown() }

    /// Sends `method` to `address` and returns the answer, whatever its status, after
    /// following redirects and answering a request for credentials.
    func send(
        _ method: String, _ address: CalDAVAddress, depth: String? = nil,
        headers extra: [(String, String)] = [], body: [UInt8]? = nil,
        limit: Int = maximumBody
    ) throws(CalDAVError) -> DAVAnswer {
        var target = address
        for _ in 0...5 {
            var answer = try once(
                method, target, depth: depth, headers: extra, body: body, limit: limit)
            if answer.status == 401 {
                let host = target.host
                let challenge = answer.headers[canonicalForm: "WWW-Authenticate"].joined(
                    separator: ", ")
                guard challenge.lowercased().contains("basic") || challenge.isEmpty else {
                    throw .authentication(
                        "\(host) asks for \(challenge.split(separator: " ").first ?? "another") authentication, which taskcal does not speak (it speaks HTTP Basic over HTTPS)"
                    )
                }
                func refused(_ credentials: Credentials) -> CalDAVError {
                    .authentication(
                        "\(host) refused the user name \(credentials.user) and the password from \(credentials.source) (401 Unauthorized)"
                    )
                }
                guard let credentials = try credentials(for: target) else {
                    throw .authentication(
                        "\(host) asks for a user name and password, and none was found for it: \(CredentialSources.howToGive(host: host, user: target.user))"
                    )
                }
                // Sent already (the host asked before): they are wrong.
                if asked.withLock({ $0.contains(host) }) { throw refused(credentials) }
                asked.withLock { _ = $0.insert(host) }
                answer = try once(
                    method, target, depth: depth, headers: extra, body: body, limit: limit)
                if answer.status == 401 { throw refused(credentials) }
            }
            guard [301, 302, 303, 307, 308].contains(answer.status),
                let location = answer.headers.first(name: "Location")
            else { return answer }
            let next = target.resolving(location)
            // Finding a calendar may lead to another server (a provider's well-known address
            // does); reading or writing one's objects never does: they are where it is.
            let sameServer =
                next.host.lowercased() == target.host.lowercased()
                && next.url.port == target.url.port && next.url.scheme == target.url.scheme
            if !sameServer && !["PROPFIND", "GET"].contains(method) {
                throw .protocolError(
                    "\(target) redirects \(method) to another server, \(next); not followed: a calendar's objects are read and written where the calendar is"
                )
            }
            if target.url.scheme == "https" && next.url.scheme != "https"
                && !(allowHTTP || CalDAVAddress.isLoopback(next.host))
            {
                throw .protocolError(
                    "\(target) redirects to \(next), from HTTPS to plain HTTP; not followed")
            }
            target = next
        }
        throw .protocolError("\(address) redirects more than five times; not followed")
    }

    /// One request, with credentials when its host asked for them before.
    private func once(
        _ method: String, _ address: CalDAVAddress, depth: String?,
        headers extra: [(String, String)],
        body: [UInt8]?, limit: Int
    ) throws(CalDAVError) -> DAVAnswer {
        var headers = HTTPHeaders()
        headers.add(name: "User-Agent", value: "taskcal/1.0")
        if let depth { headers.add(name: "Depth", value: depth) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        if asked.withLock({ $0.contains(address.host) }),
            let credentials = try credentials(for: address)
        {
            headers.add(name: "Authorization", value: credentials.basicAuthorization)
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: address.url.absoluteString, method: HTTPMethod(rawValue: method),
                headers: headers, body: body.map { .bytes($0) })
        } catch {
            throw .usage("\(address) cannot be asked: \(error)")
        }
        let response: HTTPClient.Response
        do {
            response = try http.execute(
                request: request,
                delegate: ResponseAccumulator(request: request, maxBodySize: limit),
                deadline: .now() + timeout
            ).wait()
        } catch {
            throw Self.describe(error, address: address, timeout: timeout, limit: limit)
        }
        let body = response.body.map { Data($0.readableBytesView) } ?? Data()
        return DAVAnswer(
            status: Int(response.status.code), headers: response.headers, body: body,
            address: address)
    }

    private func credentials(for address: CalDAVAddress) throws(CalDAVError) -> Credentials? {
        let key = address.host.lowercased() + "\u{0}" + (address.user ?? "")
        if let found = known.withLock({ $0[key] }) { return found }
        let found = try sources.credentials(host: address.host, user: address.user)
        known.withLock { $0[key] = .some(found) }
        return found
    }

    /// A transport failure said in a few words: what could not be done, never a password.
    static func describe(
        _ error: any Error, address: CalDAVAddress, timeout: TimeAmount,
        limit: Int = maximumBody
    ) -> CalDAVError {
        let host = address.host
        let tooBig = CalDAVError.protocolError(
            "\(host)'s answer is larger than \(limit >> 20) MB; not read")
        let port = address.url.port.map { ":\($0)" } ?? ""
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout:
                return .unreachable("cannot reach \(host)\(port): no connection within 15 s")
            case .deadlineExceeded, .readTimeout:
                return .unreachable(
                    "\(host)\(port) did not answer within \(timeout.nanoseconds / 1_000_000_000) s")
            case .remoteConnectionClosed:
                return .unreachable("\(host)\(port) closed the connection before answering")
            default:
                if "\(error)".contains("TooBig") { return tooBig }
            }
        }
        let text = "\(error)"
        if text.contains("ResponseTooBig") { return tooBig }
        if text.lowercased().contains("ssl") || text.lowercased().contains("tls")
            || text.contains("certificate")
        {
            return .unreachable("cannot reach \(host)\(port) securely: TLS failed (\(text))")
        }
        if text.contains("connectionRefused") || text.contains("Connection refused")
            || text.contains("ECONNREFUSED")
        {
            return .unreachable("cannot reach \(host)\(port): connection refused")
        }
        if text.contains("NIOConnectionError") || text.contains("connectFailed")
            || text.contains("resolution") || text.contains("dnsA")
        {
            return .unreachable("cannot reach \(host)\(port): \(text.prefix(200))")
        }
        return .unreachable("cannot talk to \(host)\(port): \(text.prefix(200))")
    }
}

#endif
