// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import ICalendar
import WebDAV
import NIOCore

/// A calendar collection on a server.
public struct RemoteCalendar: Sendable, Equatable {
    public var address: CalDAVAddress
    public var name: String?
    /// The components it takes (`VEVENT`, `VTODO` …); empty when the server does not say.
    public var components: [String]
    public var color: String?
    /// Whether it answers RFC 6578 `sync-collection` (it has a `DAV:sync-token`).
    public var syncable: Bool
}

/// A member of a calendar: its address (`href`, a path) and its ETag.
public struct RemoteObject: Sendable, Equatable {
    public var href: String
    public var etag: String?
    /// The calendar data, when it was asked for.
    public var data: [UInt8]?
}

/// What changed in a calendar since a sync token (RFC 6578).
public struct RemoteChanges: Sendable {
    /// Members added or changed, with their new ETags.
    public var changed: [RemoteObject]
    /// Members removed.
    public var removed: [String]
    /// The token to ask with next time.
    public var token: String?
    /// Whether this is every member (no token, or the old one had expired).
    public var complete: Bool
}

/// How a write went.
public enum RemoteWrite: Sendable, Equatable {
    /// Written; the server's new ETag when it gave one.
    case written(etag: String?)
    /// Refused because the object changed (or appeared, or went) since it was last seen
    /// (`412 Precondition Failed`): nothing was overwritten.
    case changedMeanwhile
}

/// A CalDAV client (RFC 4791): finding calendars, listing, reading and writing their objects,
/// and the changes since a sync token (RFC 6578). Every write is conditional: `If-None-Match:
/// *` for a new object, `If-Match: ETAG` for a known one, so nothing is overwritten blindly.
public final class CalDAVClient: Sendable {
    let dav: DAVClient

    /// A client for the servers of the addresses it is given, with credentials from
    /// `sources` and requests that may take `timeout` seconds each.
    public init(
        sources: CredentialSources = CredentialSources(), allowHTTP: Bool = false,
        timeout: Int = 60
    ) {
        dav = DAVClient(sources: sources, allowHTTP: allowHTTP, timeout: .seconds(Int64(timeout)))
    }

    // MARK: - Finding calendars

    /// The calendars at `address`: the calendar itself when it is one; else those of the
    /// calendar home it is, or that its user's principal names (found from a server's root
    /// through `current-user-principal`, or `/.well-known/caldav`, RFC 6764).
    public func calendars(at address: CalDAVAddress) throws(CalDAVError) -> [RemoteCalendar] {
        let start = try discover(address.asCollection)
        guard let here = start.resources.first else {
            throw .protocolError("\(address) answered PROPFIND with no resource")
        }
        if here.isCalendar { return [calendar(here, base: address)] }
        var home = here.hrefProperty(DAV.caldav, "calendar-home-set").map {
            address.resolving($0)
        }
        if home == nil {
            var principal = here.hrefProperty(DAV.dav, "current-user-principal").map {
                address.resolving($0)
            }
            if principal == nil, address.path == "/" {
                let known = try? propfind(
                    address.resolving("/.well-known/caldav"), depth: "0", Self.discoveryProperties)
                if let resource = known?.resources.first {
                    if resource.isCalendar { return [calendar(resource, base: address)] }
                    home = resource.hrefProperty(DAV.caldav, "calendar-home-set").map {
                        address.resolving($0)
                    }
                    principal = resource.hrefProperty(DAV.dav, "current-user-principal").map {
                        address.resolving($0)
                    }
                }
            }
            if home == nil, let principal {
                let found = try propfind(principal, depth: "0", Self.discoveryProperties)
                home = found.resources.first?.hrefProperty(DAV.caldav, "calendar-home-set").map {
                    address.resolving($0)
                }
            }
        }
        let homeAddress = home ?? address.asCollection
        let members = try propfind(homeAddress, depth: "1", Self.discoveryProperties)
        return members.resources.filter(\.isCalendar).map { calendar($0, base: homeAddress) }
            .sorted { $0.address.path < $1.address.path }
    }

    private func calendar(_ resource: DAVResource, base: CalDAVAddress) -> RemoteCalendar {
        RemoteCalendar(
            address: base.resolving(resource.href).asCollection,
            name: resource.property(DAV.dav, "displayname")?.trimmed.nilIfEmpty,
            components: resource.property(DAV.caldav, "supported-calendar-component-set")?
                .all(DAV.caldav, "comp").compactMap { $0.attributes["name"] } ?? [],
            color: resource.property(DAV.apple, "calendar-color")?.trimmed.nilIfEmpty,
            syncable: resource.property(DAV.dav, "sync-token") != nil)
    }

    /// PROPFIND for the discovery properties at `address`, depth 0. DAViCal 1.1 fails (HTTP
    /// 500) on a `sync-token` asked of a resource that is not a collection, such as its root
    /// `/caldav.php/`: asked again without it, and again with it alone should the resource turn
    /// out to be a calendar.
    private func discover(_ address: CalDAVAddress) throws(CalDAVError) -> MultiStatus {
        do {
            return try propfind(address, depth: "0", Self.discoveryProperties)
        } catch .http(let status, let message) where status >= 500 {
            let without = Self.discoveryProperties.filter { $0 != "d:sync-token" }
            guard var found = try? propfind(address, depth: "0", without),
                let resource = found.resources.first
            else { throw .http(status: status, message) }
            if resource.isCalendar,
                let token = try? propfind(address, depth: "0", ["d:sync-token"]).resources.first?
                    .property(DAV.dav, "sync-token")
            {
                found.resources[0].properties[DAV.dav + " sync-token"] = token
            }
            return found
        }
    }

    private static let discoveryProperties = [
        "d:resourcetype", "d:displayname", "d:current-user-principal", "c:calendar-home-set",
        "c:supported-calendar-component-set", "d:sync-token", "ic:calendar-color",
    ]

    // MARK: - Reading

    /// Every object of `calendar` with its ETag (`PROPFIND`, depth 1).
    public func objects(in calendar: CalDAVAddress) throws(CalDAVError) -> [RemoteObject] {
        let answer = try propfind(
            calendar.asCollection, depth: "1", ["d:getetag", "d:resourcetype"])
        var objects: [RemoteObject] = []
        for resource in answer.resources {
            guard let path = try calendar.memberPath(resource.href), !resource.isCollection
            else { continue }
            objects.append(RemoteObject(href: path, etag: resource.etag))
        }
        return objects
    }

    /// What changed in `calendar` since `token` (RFC 6578 `sync-collection`; no token: every
    /// member), or `nil` when the server does not do it. An expired token gives every member.
    public func changes(in calendar: CalDAVAddress, since token: String?) throws(CalDAVError)
        -> RemoteChanges?
    {
        func ask(_ token: String?) throws(CalDAVError) -> DAVAnswer {
            let body = DAV.document(
                DAV.element(
                    "d:sync-collection",
                    [
                        DAV.element("d:sync-token", text: token ?? ""),
                        DAV.element("d:sync-level", text: "1"),
                        DAV.element("d:prop", [DAV.element("d:getetag")]),
                    ]))
            return try dav.send(
                "REPORT", calendar.asCollection, depth: "0",
                headers: [("Content-Type", "application/xml; charset=utf-8")], body: body,
                limit: DAVClient.maximumListing)
        }
        var answer = try ask(token)
        var complete = token == nil
        if token != nil, [403, 409].contains(answer.status),
            String(decoding: answer.body, as: UTF8.self).contains("valid-sync-token")
        {
            answer = try ask(nil)
            complete = true
        }
        // Not a report this server makes: the caller compares ETags instead.
        if [400, 403, 405, 415, 422, 501].contains(answer.status) { return nil }
        try check(answer, "REPORT sync-collection")
        let status = try MultiStatus(reply: answer.body)
        var changes = RemoteChanges(
            changed: [], removed: [], token: status.syncToken, complete: complete)
        for resource in status.resources {
            guard let path = try calendar.memberPath(resource.href) else { continue }
            if resource.status == 404 {
                changes.removed.append(path)
            } else if !resource.isCollection {
                changes.changed.append(RemoteObject(href: path, etag: resource.etag))
            }
        }
        return changes
    }

    /// The objects at `hrefs` with their data (`calendar-multiget`, a hundred at a time).
    /// One that is gone is left out.
    public func fetch(_ hrefs: [String], in calendar: CalDAVAddress) throws(CalDAVError)
        -> [RemoteObject]
    {
        var result: [RemoteObject] = []
        var start = 0
        while start < hrefs.count {
            let part = hrefs[start..<min(start + 100, hrefs.count)]
            start += part.count
            let body = DAV.document(
                DAV.element(
                    "c:calendar-multiget",
                    [
                        DAV.element(
                            "d:prop", [DAV.element("d:getetag"), DAV.element("c:calendar-data")])
                    ]
                        + part.map {
                            DAV.element("d:href", text: calendar.at(path: $0).encodedPath)
                        }))
            let answer = try dav.send(
                "REPORT", calendar.asCollection, depth: "1",
                headers: [("Content-Type", "application/xml; charset=utf-8")], body: body)
            try check(answer, "REPORT calendar-multiget")
            result += try Self.objects(MultiStatus(reply: answer.body), in: calendar)
        }
        return result
    }

    /// The objects of `calendar` with their data (`calendar-query`): all, or with
    /// `range` those of events and to-dos that touch it (RFC 4791 §9.9).
    public func query(_ calendar: CalDAVAddress, range: Range<Int64>? = nil) throws(CalDAVError)
        -> [RemoteObject]
    {
        func ask(_ filter: XMLRequestElement) throws(CalDAVError) -> [RemoteObject] {
            let body = DAV.document(
                DAV.element(
                    "c:calendar-query",
                    [
                        DAV.element(
                            "d:prop", [DAV.element("d:getetag"), DAV.element("c:calendar-data")]),
                        DAV.element("c:filter", [filter]),
                    ]))
            let answer = try dav.send(
                "REPORT", calendar.asCollection, depth: "1",
                headers: [("Content-Type", "application/xml; charset=utf-8")], body: body)
            try check(answer, "REPORT calendar-query")
            return try Self.objects(MultiStatus(reply: answer.body), in: calendar)
        }
        guard let range else {
            return try ask(DAV.element("c:comp-filter", attributes: ["name": "VCALENDAR"]))
        }
        let window = [
            "start": Self.utc(range.lowerBound), "end": Self.utc(range.upperBound),
        ]
        var seen: Set<String> = []
        var result: [RemoteObject] = []
        for kind in ["VEVENT", "VTODO"] {
            let filter = DAV.element(
                "c:comp-filter", attributes: ["name": "VCALENDAR"],
                [
                    DAV.element(
                        "c:comp-filter", attributes: ["name": kind],
                        [DAV.element("c:time-range", attributes: window)])
                ])
            for object in try ask(filter) where seen.insert(object.href).inserted {
                result.append(object)
            }
        }
        // A to-do with no date at all touches every range (RFC 4791 §9.9). DAViCal leaves it
        // out: it gives each object a creation time, its upload's when CREATED is missing. Those
        // with neither DTSTART, DUE nor COMPLETED are asked for again, and the ones without
        // CREATED kept (with CREATED, every server has judged them already).
        let undated = DAV.element(
            "c:comp-filter", attributes: ["name": "VCALENDAR"],
            [
                DAV.element(
                    "c:comp-filter", attributes: ["name": "VTODO"],
                    ["DTSTART", "DUE", "COMPLETED"].map {
                        DAV.element(
                            "c:prop-filter", attributes: ["name": $0],
                            [DAV.element("c:is-not-defined")])
                    })
            ])
        for object in try ask(undated)
        where !seen.contains(object.href) && Self.isUndatedToDo(object.data ?? []) {
            seen.insert(object.href)
            result.append(object)
        }
        return result
    }

    /// Whether `data` is a to-do with none of DTSTART, DUE, COMPLETED and CREATED: one that
    /// touches every range.
    static func isUndatedToDo(_ data: [UInt8]) -> Bool {
        let reader = ICalendarReader(bytes: data)
        var found = false
        while case .some(let item) = try? reader.next() {
            guard case .component(let component) = item else { continue }
            guard component.kind == .todo else { return false }
            for name in ["DTSTART", "DUE", "COMPLETED", "CREATED"]
            where component.firstProperty(named: name) != nil {
                return false
            }
            found = true
        }
        return found
    }

    private static func objects(_ status: MultiStatus, in calendar: CalDAVAddress)
        throws(CalDAVError) -> [RemoteObject]
    {
        var objects: [RemoteObject] = []
        for resource in status.resources {
            guard let data = resource.property(DAV.caldav, "calendar-data")?.text,
                let path = try calendar.memberPath(resource.href)
            else { continue }
            objects.append(RemoteObject(href: path, etag: resource.etag, data: Array(data.utf8)))
        }
        return objects
    }

    /// `20261201T000000Z`.
    static func utc(_ epoch: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(epoch))
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!,
            parts.hour!,
            parts.minute!, parts.second!)
    }

    // MARK: - Writing

    /// Writes `object` at `href` (a path as ``RemoteObject/href`` has it) of `calendar`: only if nothing is there (`etag` nil:
    /// `If-None-Match: *`), or only if what is there has `etag` (`If-Match`).
    public func put(
        _ object: [UInt8], at href: String, in calendar: CalDAVAddress, replacing etag: String?
    )
        throws(CalDAVError) -> RemoteWrite
    {
        let condition = etag.map { ("If-Match", $0) } ?? ("If-None-Match", "*")
        let answer = try dav.send(
            "PUT", calendar.at(path: href),
            headers: [("Content-Type", "text/calendar; charset=utf-8"), condition], body: object)
        if answer.status == 412 { return .changedMeanwhile }
        try check(answer, "PUT \(href)")
        return .written(etag: answer.etag)
    }

    /// Deletes `href` of `calendar` if it still has `etag`. One already gone is fine.
    public func delete(_ href: String, in calendar: CalDAVAddress, etag: String?)
        throws(CalDAVError)
        -> RemoteWrite
    {
        let answer = try dav.send(
            "DELETE", calendar.at(path: href), headers: etag.map { [("If-Match", $0)] } ?? [])
        if answer.status == 412 { return .changedMeanwhile }
        if answer.status == 404 { return .written(etag: nil) }
        try check(answer, "DELETE \(href)")
        return .written(etag: nil)
    }

    /// Makes a new calendar at `address` (`MKCALENDAR`, RFC 4791 §5.3.1) named `name`.
    public func makeCalendar(_ address: CalDAVAddress, name: String?) throws(CalDAVError) {
        var properties: [XMLRequestElement] = []
        if let name { properties.append(DAV.element("d:displayname", text: name)) }
        let body =
            properties.isEmpty
            ? nil
            : DAV.document(
                DAV.element(
                    "c:mkcalendar", [DAV.element("d:set", [DAV.element("d:prop", properties)])]))
        let answer = try dav.send(
            "MKCALENDAR", address.asCollection,
            headers: body == nil ? [] : [("Content-Type", "application/xml; charset=utf-8")],
            body: body)
        if answer.status == 405 || answer.status == 409 && answer.body.isEmpty {
            throw .http(
                status: answer.status,
                "\(address): the server made no calendar there (\(answer.status): something is there already, or its parent is missing)"
            )
        }
        try check(answer, "MKCALENDAR")
    }

    // MARK: - Internals

    private func propfind(_ address: CalDAVAddress, depth: String, _ properties: [String])
        throws(CalDAVError) -> MultiStatus
    {
        let body = DAV.document(
            DAV.element("d:propfind", [DAV.element("d:prop", properties.map { DAV.element($0) })]))
        let answer = try dav.send(
            "PROPFIND", address, depth: depth,
            headers: [("Content-Type", "application/xml; charset=utf-8")], body: body,
            limit: DAVClient.maximumListing)
        try check(answer, "PROPFIND")
        return try MultiStatus(reply: answer.body)
    }

    /// Throws for an answer that is not a success, saying what the server said.
    private func check(_ answer: DAVAnswer, _ what: String) throws(CalDAVError) {
        guard !(200..<300).contains(answer.status) else { return }
        let said = String(decoding: answer.body.prefix(300), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        let reason =
            switch answer.status {
            case 403: "forbidden"
            case 404: "not found"
            case 405: "not allowed there"
            case 409: "conflict"
            case 415: "unsupported media type"
            case 507: "the server has no room left"
            default: "HTTP \(answer.status)"
            }
        let failed = "\(answer.address): \(what) failed: \(reason)"
        throw .http(status: answer.status, said.isEmpty ? failed : "\(failed) (\(said))")
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

#endif
