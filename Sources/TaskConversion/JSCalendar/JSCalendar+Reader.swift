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
        let object = Members(list: list)
        var task = Members()
        var needsID = false
        var extra: [JSONValue] = []
        var relations: [JSONValue] = []
        func warn(_ message: String) { warnings.append((path, message)) }
        func problem(_ field: String, _ message: String) {
            problems.append(Problem(field: field, message))
        }
        func string(_ name: String) -> String? {
            guard let value = object[name], value != .null else { return nil }
            guard case .string(let text) = value else {
                problem(name, "expected a string")
                return nil
            }
            return text
        }
        func integer(_ name: String) -> Int64? {
            guard let value = object[name], value != .null else { return nil }
            guard case .number(let text) = value, let number = Int64(text) else {
                problem(name, "expected a whole number")
                return nil
            }
            return number
        }
        func localTime(_ name: String) -> DateTimeValue? {
            guard let text = string(name) else { return nil }
            guard let value = JSCalendar.dateTime(text) else {
                problem(
                    name,
                    "'\(text.prefix(40))' is no LocalDateTime; expected one such as 2026-01-15T13:00:00"
                )
                return nil
            }
            return value
        }

        // What it is.
        let type = object["@type"]
        guard type == .string("Event") || type == .string("Task") else {
            if case .string(let other)? = type {
                problem(
                    "@type",
                    "'\(other.prefix(40))' cannot be read as a record; expected \"Event\" or \"Task\""
                )
            } else {
                problem("@type", "missing; expected \"Event\" or \"Task\"")
            }
            return ([], false)
        }
        let isTask = type == .string("Task")
        if isTask { task.set("kind", .string("todo")) }
        if let uid = string("uid"), !uid.isEmpty {
            if let parsed = context.uidScheme.parse(uid) {
                task.set("id", JSCalendar.number(parsed.id))
                if !parsed.isDerived { task.set("uid", .string(uid)) }
            } else {
                task.set("id", JSCalendar.number(0))
                task.set("uid", .string(uid))
                needsID = true
            }
        } else if object["uid"] == nil || object["uid"] == .string("") {
            problem("uid", "missing; every JSCalendar object has a uid")
        }
        if let title = string("title"), !title.isEmpty {
            task.set("name", .string(title))
        } else if problems.allSatisfy({ $0.field != "title" }) {
            task.set("name", .string("(untitled)"))
            warn("has no title; it was named (untitled)")
        }
        if let description = string("description") {
            task.set("description", .string(description))
            if let type = string("descriptionContentType"),
                !type.lowercased().hasPrefix("text/plain")
            {
                warn("its description is \(type); it was kept as plain text")
            }
        }
        if let locale = string("locale"), !locale.isEmpty {
            task.set(
                "ical_parameters",
                .object([Member(name: "SUMMARY", value: .string("LANGUAGE=" + locale))]))
        }

        // When.
        let startLocal = localTime("start")
        let dueLocal = localTime("due")
        var zoneName: String?
        switch object["timeZone"] {
        case nil, .null?: break
        case .string(let name)?: zoneName = name
        default: problem("timeZone", "expected an IANA time zone name or null")
        }
        let showWithoutTime = object["showWithoutTime"] == .bool(true)
        var duration: JSCalendar.Duration?
        if let text = string(isTask ? "estimatedDuration" : "duration") {
            duration = JSCalendar.Duration(text, signed: false)
            if duration == nil {
                problem(
                    isTask ? "estimatedDuration" : "duration",
                    "'\(text.prefix(40))' is no duration; expected one such as PT1H30M or P1D")
            }
        }
        func atMidnight(_ value: DateTimeValue?) -> Bool {
            value.map { $0.hour == 0 && $0.minute == 0 && $0.second == 0 } ?? true
        }
        let placement: Placement
        if showWithoutTime, startLocal != nil || dueLocal != nil, atMidnight(startLocal),
            atMidnight(dueLocal), (duration?.seconds ?? 0) == 0
        {
            placement = .allDay
        } else if let zoneName {
            if JSCalendar.isUTC(zoneName) {
                placement = .utc
            } else if CalendarZone.system(zoneName) != nil {
                placement = .zone(zoneName)
            } else if let known = TimeZones.ianaName(forTZID: zoneName),
                CalendarZone.system(known) != nil
            {
                placement = .zone(known)
            } else {
                warn(
                    "unknown time zone '\(zoneName.prefix(60))': its times were read as floating, in \(context.floatingZone)"
                )
                placement = .floating(context.floatingZone)
            }
        } else {
            placement = .floating(context.floatingZone)
        }
        if let startLocal {
            let start = placement.epoch(startLocal)
            var finish = start
            if placement == .allDay {
                let days = isTask ? (duration?.days ?? 0) : max(1, duration?.days ?? 1)
                finish = start + days * 86_400
                if !isTask && duration?.days == 0 {
                    warn("an all-day event of no length was read as one day")
                }
            } else if let duration {
                if let end = duration.end(after: start, in: placement) {
                    finish = end
                } else {
                    problem(
                        isTask ? "estimatedDuration" : "duration",
                        "ends outside the years 0001–9999")
                }
            }
            task.set("date_start", .string(String(start)))
            task.set("date_finish", .string(String(finish)))
        } else if !isTask && problems.allSatisfy({ $0.field != "start" }) {
            problem("start", "missing; an Event has a start")
        }
        if let dueLocal {
            if isTask {
                task.set("due", .string(String(placement.epoch(dueLocal))))
            } else {
                warn("an Event has no due time; its 'due' was left out")
            }
        }
        if isTask && startLocal == nil && duration != nil {
            warn("an estimatedDuration without a start has no iCalendar form; it was left out")
        }
        switch placement {
        case _ where startLocal == nil && dueLocal == nil: break
        case .allDay: task.set("all_day", .bool(true))
        case .zone(let zone): task.set("time_zone", .string(zone))
        case .floating(let zone):
            if let zone { task.set("time_zone", .string(zone)) }
            task.set("floating", .bool(true))
        case .utc: break
        }
        if let recurrenceLocal = localTime("recurrenceId") {
            var at = placement
            if let zone = string("recurrenceIdTimeZone"), CalendarZone.system(zone) != nil,
                placement != .allDay
            {
                at = JSCalendar.isUTC(zone) ? .utc : .zone(zone)
            }
            task.set("recurrence_id", .string(String(at.epoch(recurrenceLocal))))
        }

        // How it stands.
        if isTask {
            switch string("progress")?.lowercased() {
            case nil: break
            case "completed"?: task.set("done", .bool(true))
            case let progress? where ["needs-action", "in-process", "cancelled"].contains(progress):
                task.set("status", .string(progress))
            case let progress?:
                warn("progress '\(progress.prefix(40))' has no iCalendar status; it was left out")
            }
        } else {
            switch string("status")?.lowercased() {
            case nil: break
            case let status? where ["confirmed", "tentative", "cancelled"].contains(status):
                task.set("status", .string(status))
            case let status?:
                warn("status '\(status.prefix(40))' is no event status; it was left out")
            }
        }
        switch string("freeBusyStatus")?.lowercased() {
        case "free"?: task.set("free", .bool(true))
        case nil, "busy"?: break
        case let other?: warn("freeBusyStatus '\(other.prefix(40))' was read as busy")
        }
        switch string("privacy")?.lowercased() {
        case nil: break
        case "public"?: task.set("class", .string("public"))
        case "private"?: task.set("class", .string("private"))
        case "secret"?: task.set("class", .string("confidential"))
        case let other?: warn("privacy '\(other.prefix(40))' is unknown; it was left out")
        }
        if let keywords = object["keywords"], keywords != .null {
            if let members = JSCalendar.members(keywords) {
                let names = members.filter { $0.value == .bool(true) }.map {
                    JSONValue.string($0.name)
                }
                if !names.isEmpty { task.set("categories", .array(names)) }
            } else {
                problem("keywords", "expected an object of keywords set to true")
            }
        }
        if let color = string("color") { task.set("color", .string(color)) }
        if let locations = object["locations"], let members = JSCalendar.members(locations) {
            let names = members.compactMap { member -> String? in
                if case .string(let name)? = JSCalendar.members(member.value).flatMap({
                    Members(list: $0)["name"]
                }) {
                    return name
                }
                return nil
            }
            if let first = names.first { task.set("location", .string(first)) }
            if names.count > 1 {
                warn("it has \(names.count) locations; the first was kept, the others left out")
            }
        }

        // Links, people, alerts.
        var attachments: [JSONValue] = []
        if let links = object["links"], let members = JSCalendar.members(links) {
            for member in members {
                let link = JSCalendar.members(member.value) ?? []
                let href = Members(list: link)["href"]
                if Members(list: link)["rel"] == .string("describedby"), task["url"] == nil,
                    case .string(let url)? = href, !url.lowercased().hasPrefix("data:")
                {
                    task.set("url", .string(url))
                    continue
                }
                do {
                    attachments.append(.object(try Self.attachment(link)))
                } catch {
                    warn("links.\(member.name) was left out: \(error.message)")
                }
            }
        }
        if !attachments.isEmpty { task.set("attachments", .array(attachments)) }
        var attendees: [JSONValue] = []
        if let participants = object["participants"], let members = JSCalendar.members(participants)
        {
            for member in members {
                let participant = JSCalendar.members(member.value) ?? []
                let roles = JSCalendar.members(Members(list: participant)["roles"]) ?? []
                let names = Set(roles.filter { $0.value == .bool(true) }.map(\.name))
                do {
                    let person = try Self.person(participant)
                    if names.contains("owner") && task["organizer"] == nil {
                        task.set("organizer", .object(try Self.person(participant, owner: true)))
                    }
                    if !names.contains("owner") || names.count > 1 {
                        attendees.append(.object(person))
                    }
                } catch {
                    warn("participants.\(member.name) was left out: \(error.message)")
                }
            }
        }
        if task["organizer"] == nil, let reply = JSCalendar.members(object["replyTo"]),
            case .string(let address)? = Members(list: reply)["imip"] ?? reply.first?.value
        {
            task.set("organizer", .object([Member(name: "address", value: .string(address))]))
        }
        if !attendees.isEmpty { task.set("attendees", .array(attendees)) }
        if let alerts = object["alerts"], let members = JSCalendar.members(alerts) {
            var alarms: [JSONValue] = []
            for member in members {
                do {
                    alarms.append(.object(try Self.alarm(JSCalendar.members(member.value) ?? [])))
                } catch {
                    warn("alerts.\(member.name) was left out: \(error.message)")
                }
            }
            if !alarms.isEmpty { task.set("alarms", .array(alarms)) }
        }

        // Repeats.
        var recurrence = Members()
        if let rules = object["recurrenceRules"], rules != .null {
            if case .array(let list) = rules, let first = list.first {
                do {
                    recurrence.set(
                        "rule", .string(try JSCalendar.ruleText(first, placement: placement)))
                } catch {
                    problems.append(error.nested(in: "recurrenceRules[0]"))
                }
                if list.count > 1 {
                    warn(
                        "it has \(list.count) recurrence rules; iCalendar keeps one, the others were left out"
                    )
                }
            } else if case .array = rules {
            } else {
                problem("recurrenceRules", "expected an array of RecurrenceRule objects")
            }
        }
        var exdates: [JSONValue] = []
        var rdates: [JSONValue] = []
        if let changes = object["recurrenceOverrides"], let members = JSCalendar.members(changes) {
            for member in members {
                guard let local = JSCalendar.dateTime(member.name) else {
                    problem(
                        "recurrenceOverrides.\(member.name.prefix(40))",
                        "the key is no LocalDateTime such as 2026-01-15T13:00:00")
                    continue
                }
                let time = JSONValue.string(String(placement.epoch(local)))
                let patch = JSCalendar.members(member.value) ?? []
                if patch.contains(where: { $0.name == "excluded" && $0.value == .bool(true) }) {
                    exdates.append(time)
                } else if patch.allSatisfy({ $0.name == "@type" }) {
                    rdates.append(time)
                } else {
                    overrides.append((member.name, patch))
                }
            }
        }
        if !exdates.isEmpty { recurrence.set("exdates", .array(exdates)) }
        if !rdates.isEmpty { recurrence.set("rdates", .array(rdates)) }
        if !recurrence.list.isEmpty { task.set("recurrence", .object(recurrence.list)) }
        if object["excludedRecurrenceRules"] != nil {
            warn(
                "iCalendar has no excluded recurrence rules (EXRULE is deprecated); they were left out"
            )
        }

        // Relations and counters, as iCalendar lines.
        if let related = JSCalendar.members(object["relatedTo"]) {
            for member in related {
                let relation = JSCalendar.members(
                    JSCalendar.members(member.value).flatMap { Members(list: $0)["relation"] })
                let kinds = (relation ?? []).filter { $0.value == .bool(true) }.map(\.name)
                let uid = ContentLine.escapedText(member.name)
                if kinds.isEmpty || kinds.contains("parent") {
                    relations.append(.string("RELATED-TO:" + uid))
                } else {
                    for kind in kinds {
                        relations.append(.string("RELATED-TO;RELTYPE=\(kind.uppercased()):" + uid))
                    }
                }
            }
        }
        if let sequence = integer("sequence"), sequence > 0 {
            extra.append(.string("SEQUENCE:\(sequence)"))
        }
        if let priority = integer("priority"), priority > 0 {
            extra.append(.string("PRIORITY:\(priority)"))
        }
        if let created = string("created") {
            if let value = JSCalendar.dateTime(created, utc: true) {
                extra.append(.string("CREATED:" + value.compactUTCFromFields))
            } else {
                warn("created '\(created.prefix(40))' is no UTCDateTime; it was left out")
            }
        }
        if !extra.isEmpty { task.set("ical_extra", .array(extra)) }

        var leftOut: [String] = []
        for member in list
        where !Self.mapped.contains(member.name) && !Self.ignored.contains(member.name)
            && member.name != "descriptionContentType"
        {
            leftOut.append(member.name)
        }
        if !leftOut.isEmpty {
            warn(
                "JSCalendar properties with no task-format field were left out: \(leftOut.joined(separator: ", "))"
            )
        }
        if let kept = JSCalendar.members(object[JSCalendar.fieldsKey]) {
            task = Members(list: JSCalendar.overlaid(task.list, with: kept))
            if kept.contains(where: { $0.name == "id" }) { needsID = false }
        }
        // Relations come after the kept fields: a subtask's parent is said by relatedTo
        // alone.
        if !relations.isEmpty {
            if case .array(let lines)? = task["ical_extra"] {
                task.set("ical_extra", .array(lines + relations))
            } else {
                task.set("ical_extra", .array(relations))
            }
        }
        return (task.list, needsID)
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

extension DateTimeValue {
    /// `20260115T100000Z` of these fields, read as UTC.
    fileprivate var compactUTCFromFields: String {
        var value = self
        value.zone = .utc
        return value.compactUTC
    }
}
