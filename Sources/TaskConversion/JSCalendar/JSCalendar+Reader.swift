import Foundation
import ICalendar
import TaskModel

/// Reads JSCalendar `Event` and `Task` objects as task-format JSON.
struct EntryReader {
    typealias Member = JSONValue.Member
    typealias Members = JSCalendar.Members
    typealias Placement = JSCalendar.Placement

    let context: JSCalendar.Context
    /// What was left out or read for its obvious intent, by the path of the object.
    var warnings: [(path: String, message: String)] = []

    init(context: JSCalendar.Context) { self.context = context }

    /// Why a nested object (a link, a participant, an alert) cannot be read: it is left out.
    struct Skip: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// Properties read into fields.
    static let mapped: Set<String> = [
        "@type", "uid", "title", "description", "locale", "start", "timeZone", "duration",
        "showWithoutTime", "due", "estimatedDuration", "progress", "status", "freeBusyStatus",
        "privacy", "keywords", "color", "locations", "links", "participants", "replyTo",
        "alerts", "recurrenceRules", "recurrenceOverrides", "recurrenceId",
        "recurrenceIdTimeZone", "relatedTo", "sequence", "priority", "created",
        JSCalendar.fieldsKey,
    ]
    /// Properties that say nothing a record keeps: taskcal writes them itself.
    static let ignored: Set<String> = ["updated", "prodId", "method", "useDefaultAlerts"]

    /// The records of one object: the object's own, then one per changed occurrence in its
    /// `recurrenceOverrides`.
    mutating func read(_ value: JSONValue, path: String) -> [JSCalendar.Entry] {
        var problems: [Problem] = []
        var overrides: [(key: String, patch: [Member])] = []
        let task = fields(of: value, path: path, problems: &problems, overrides: &overrides)
        var entries = [
            JSCalendar.Entry(
                task: task.members, needsID: task.needsID, path: path, problems: problems)
        ]
        guard problems.isEmpty, let object = JSCalendar.members(value) else { return entries }
        for (key, patch) in overrides {
            let at = path + (path.isEmpty ? "" : ".") + "recurrenceOverrides.\(key)"
            var occurrence = Members(
                list: object.filter {
                    ![
                        "recurrenceRules", "recurrenceOverrides", "excludedRecurrenceRules",
                        JSCalendar.fieldsKey,
                    ].contains($0.name)
                })
            occurrence.set("recurrenceId", .string(key))
            occurrence.set("start", .string(key))
            var patched = JSONValue.object(occurrence.list)
            var failed: Problem?
            for member in patch where member.name != "excluded" && member.name != "@type" {
                guard let result = Self.apply(member.value, at: member.name, to: patched) else {
                    failed = Problem(
                        field: "recurrenceOverrides.\(key).\(member.name)",
                        "the patch names no property of the object")
                    break
                }
                patched = result
            }
            if let failed {
                entries.append(
                    JSCalendar.Entry(task: [], needsID: false, path: path, problems: [failed]))
                continue
            }
            for var entry in read(patched, path: at).prefix(1) {
                entry.isPatch = true
                entries.append(entry)
            }
        }
        return entries
    }

    /// `value` set at the JSON pointer `pointer` (RFC 6901, without its leading `/`, as
    /// RFC 8984 PatchObject keys are) of `object`; `null` removes. `nil` when the path's
    /// parent is not there.
    static func apply(_ value: JSONValue, at pointer: String, to object: JSONValue) -> JSONValue? {
        let path = pointer.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        func set(_ target: JSONValue, _ names: ArraySlice<String>) -> JSONValue? {
            guard let name = names.first, let list = JSCalendar.members(target) else { return nil }
            var members = Members(list: list)
            if names.count == 1 {
                if value == .null { members.remove(name) } else { members.set(name, value) }
                return .object(members.list)
            }
            guard let child = members[name], let changed = set(child, names.dropFirst()) else {
                return nil
            }
            members.set(name, changed)
            return .object(members.list)
        }
        return set(object, path[...])
    }

    // MARK: - The object's fields

    private mutating func fields(
        of value: JSONValue, path: String, problems: inout [Problem],
        overrides: inout [(key: String, patch: [Member])]
    ) -> (members: [Member], needsID: Bool) {
        guard let list = JSCalendar.members(value) else {
            problems.append(Problem(field: "", "expected a JSCalendar object (an Event or a Task)"))
            return ([], false)
        }
        var fields = ObjectFields(list, context: context)
        let isRecord = fields.read()
        problems.append(contentsOf: fields.problems)
        warnings.append(contentsOf: fields.warnings.map { (path, $0) })
        overrides = fields.overrides
        return isRecord ? (fields.task.list, fields.needsID) : ([], false)
    }

    // MARK: - Nested objects

    /// An attachment (task format) from a `Link`.
    static func attachment(_ link: [Member]) throws(Skip) -> [Member] {
        let object = Members(list: link)
        guard case .string(let href)? = object["href"], !href.isEmpty else {
            throw Skip("a link has an href")
        }
        var attachment = Members()
        if case .string(let title)? = object["title"] { attachment.set("filename", .string(title)) }
        var mediaType: String?
        var data: Data?
        if href.lowercased().hasPrefix("data:") {
            guard let comma = href.firstIndex(of: ",") else {
                throw Skip("a data: URI has a comma before its data")
            }
            var meta = String(href[href.index(href.startIndex, offsetBy: 5)..<comma])
            let payload = String(href[href.index(after: comma)...])
            if meta.lowercased().hasSuffix(";base64") {
                meta.removeLast(7)
                data = Data(base64Encoded: payload, options: .ignoreUnknownCharacters)
            } else {
                data = payload.removingPercentEncoding.map { Data($0.utf8) }
            }
            guard data != nil else { throw Skip("its data: URI does not decode") }
            if !meta.isEmpty { mediaType = meta }
        }
        if case .string(let type)? = object["contentType"] {
            attachment.set("mime_type", .string(type))
        } else if let mediaType {
            attachment.set("mime_type", .string(mediaType))
        }
        if let data {
            attachment.set("data", .string(data.base64EncodedString()))
        } else {
            attachment.set("url", .string(href))
        }
        return overlay(attachment.list, from: object)
    }

    /// A person (task format) from a `Participant`; an organizer's parameters say nothing
    /// of attending.
    static func person(_ participant: [Member], owner: Bool = false) throws(Skip) -> [Member] {
        let object = Members(list: participant)
        let sendTo = Members(list: JSCalendar.members(object["sendTo"]) ?? [])
        var address: String?
        if case .string(let imip)? = sendTo["imip"] {
            address = imip
        } else if case .string(let other)? = sendTo.list.first?.value {
            address = other
        } else if case .string(let email)? = object["email"], !email.isEmpty {
            address = "mailto:" + email
        }
        guard let address else { throw Skip("a participant has no address (sendTo or email)") }
        var person = Members()
        person.set("address", .string(address))
        if case .string(let name)? = object["name"] { person.set("name", .string(name)) }
        var parameters: [(String, String)] = []
        if case .string(let kind)? = object["kind"] {
            parameters.append(("CUTYPE", kind.uppercased()))
        }
        if !owner {
            // An organizer has no participation status (RFC 5545 §3.8.4.3).
            if case .string(let status)? = object["participationStatus"] {
                parameters.append(("PARTSTAT", status.uppercased()))
            }
            if object["expectReply"] == .bool(true) { parameters.append(("RSVP", "TRUE")) }
            let roles = Set(
                (JSCalendar.members(object["roles"]) ?? []).filter { $0.value == .bool(true) }.map(
                    \.name))
            if roles.contains("chair") {
                parameters.append(("ROLE", "CHAIR"))
            } else if roles.contains("optional") {
                parameters.append(("ROLE", "OPT-PARTICIPANT"))
            } else if roles.contains("informational") && !roles.contains("attendee") {
                parameters.append(("ROLE", "NON-PARTICIPANT"))
            }
        }
        if !parameters.isEmpty {
            person.set(
                "parameters",
                .object(
                    parameters.sorted { $0.0 < $1.0 }.map {
                        Member(name: $0.0, value: .string($0.1))
                    }))
        }
        return overlay(person.list, from: object)
    }

    /// An alarm (task format) from an `Alert`.
    static func alarm(_ alert: [Member]) throws(Skip) -> [Member] {
        let object = Members(list: alert)
        var alarm = Members()
        switch object["action"] {
        case .string("email")?: alarm.set("action", .string("email"))
        case nil, .string("display")?: alarm.set("action", .string("display"))
        case .string(let other)?:
            throw Skip("its action '\(other.prefix(40))' is neither display nor email")
        default: throw Skip("its action is not a string")
        }
        let trigger = Members(list: JSCalendar.members(object["trigger"]) ?? [])
        var kind = trigger["@type"]
        if kind == nil {
            // Without its @type, a trigger is what its members say.
            kind =
                trigger["offset"] != nil
                ? .string("OffsetTrigger")
                : trigger["when"] != nil ? .string("AbsoluteTrigger") : nil
        }
        switch kind {
        case .string("OffsetTrigger")?:
            guard case .string(let offset)? = trigger["offset"],
                JSCalendar.Duration(offset, signed: true) != nil
            else { throw Skip("its offset is no duration such as -PT15M") }
            alarm.set("trigger", .string(offset))
            if trigger["relativeTo"] == .string("end") { alarm.set("related", .string("end")) }
        case .string("AbsoluteTrigger")?:
            guard case .string(let when)? = trigger["when"],
                let value = JSCalendar.dateTime(when, utc: true)
            else { throw Skip("its trigger time is no UTCDateTime such as 2026-01-15T09:00:00Z") }
            alarm.set("trigger_at", .string(String(value.epochAsUTC)))
        default:
            throw Skip("its trigger says no time (an OffsetTrigger or an AbsoluteTrigger does)")
        }
        return overlay(alarm.list, from: object)
    }

    /// `fields` with the object's `taskcal.invalid:fields` on top.
    private static func overlay(_ fields: [Member], from object: Members) -> [Member] {
        guard let kept = JSCalendar.members(object[JSCalendar.fieldsKey]) else { return fields }
        return JSCalendar.overlaid(fields, with: kept)
    }
}
