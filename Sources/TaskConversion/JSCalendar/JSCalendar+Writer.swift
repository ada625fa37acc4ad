import Foundation
import ICalendar
import TaskModel

/// Records as JSCalendar objects.
extension JSCalendar {
    /// The objects of `record`: its own, then one `Task` per subtask (depth first) naming
    /// its parent in `relatedTo`. Relative attachment `path`s are read from `attachmentBase`
    /// and written inline, as in .ics.
    ///
    /// - Throws: `Problem` when an attachment file cannot be read.
    static func objects(
        for record: TaskRecord, context: Context, attachmentBase: URL?
    ) throws(Problem) -> [JSONValue] {
        var result: [JSONValue] = []
        func add(_ record: TaskRecord, parent: String?, path: String) throws(Problem) {
            do {
                result.append(
                    try object(for: record, parent: parent, context: context, base: attachmentBase))
            } catch  where !path.isEmpty {
                throw error.nested(in: path)
            }
            let uid = record.uid ?? context.uidScheme.uid(for: record.id)
            for (index, subtask) in record.subtasks.enumerated() {
                try add(
                    subtask, parent: uid,
                    path: path + (path.isEmpty ? "" : ".") + "subtasks[\(index)]")
            }
        }
        try add(record, parent: nil, path: "")
        return result
    }

    /// How `record`'s times are written: in its zone when every time of it has one
    /// wall-clock reading there, else at UTC (the zone is then kept in
    /// `taskcal.invalid:fields`).
    static func placement(of record: TaskRecord, context: Context) -> Placement {
        if record.allDay {
            // Dates are UTC midnights; a time of day among them (a DUE kept as DATE-TIME)
            // is written at UTC, all_day then kept in taskcal.invalid:fields.
            var times = record.unscheduled ? [] : [record.dateStart, record.dateFinish]
            times += [record.due].compactMap { $0 }
            return times.allSatisfy { $0 % 86_400 == 0 } ? .allDay : .utc
        }
        if record.floating { return .floating(record.timeZone) }
        guard let zone = record.timeZone ?? context.zone, !isUTC(zone),
            CalendarZone.system(zone) != nil
        else { return .utc }
        let placement = Placement.zone(zone)
        var times = record.unscheduled ? [] : [record.dateStart, record.dateFinish]
        times += [record.due, record.recurrenceID].compactMap { $0 }
        times += (record.recurrence?.exdates ?? []) + (record.recurrence?.rdates ?? [])
        return times.allSatisfy { placement.local($0) != nil } ? placement : .utc
    }

    /// Zone names that say UTC.
    static func isUTC(_ zone: String) -> Bool {
        ["UTC", "Etc/UTC", "Etc/Universal", "Etc/Zulu", "Universal", "Zulu"].contains(zone)
    }

    /// The object of `record` alone, with what it does not say kept in
    /// `taskcal.invalid:fields`.
    private static func object(
        for record: TaskRecord, parent: String?, context: Context, base: URL?
    ) throws(Problem) -> JSONValue {
        var record = record
        record.subtasks = []
        for index in record.attachments.indices {
            guard case .path(let path) = record.attachments[index].content else { continue }
            let url = URL(fileURLWithPath: path, relativeTo: base)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw Problem(
                    field: "attachments[\(index)].path", "cannot read the file '\(url.path)'")
            }
            record.attachments[index].content = .inline(data)
        }
        let placement = placement(of: record, context: context)
        var object = standard(record, placement: placement, context: context)
        if let parent {
            object.set(
                "relatedTo",
                .object([
                    JSONValue.Member(
                        name: parent,
                        value: typed(
                            "Relation",
                            [
                                JSONValue.Member(
                                    name: "relation",
                                    value: .object([
                                        JSONValue.Member(name: "parent", value: .bool(true))
                                    ]))
                            ]))
                ]))
        }
        // What reading the object gives back, against the record.
        // A floating record is read back in the zone it was read in; any other is read back
        // in a zone no reader is likely to have (UTC+14), so that a time the reading would
        // take as floating shows up as different and is kept.
        var reading = context
        reading.floatingZone =
            record.floating ? record.timeZone ?? "UTC" : "Pacific/Kiritimati"
        var reader = EntryReader(context: reading)
        let entries = reader.read(.object(object.list), path: "")
        var reread = entries.first?.task ?? []
        if let parent {
            reread = reread.compactMap { member in
                guard member.name == "ical_extra", case .array(let lines) = member.value else {
                    return member
                }
                let kept = lines.filter {
                    $0 != .string("RELATED-TO:" + ContentLine.escapedText(parent))
                }
                return kept.isEmpty ? nil : JSONValue.Member(name: member.name, value: .array(kept))
            }
        }
        let original = taskJSON { record.write(to: &$0) }
        var rest = residual(original, reread)
        if record.timeZone == nil, let zone = context.zone,
            reread.contains(JSONValue.Member(name: "time_zone", value: .string(zone)))
        {
            // Written in the zone --tz names, as .ics is: read back in it, as .ics is.
            rest.removeAll { $0.name == "time_zone" && $0.value == .null }
        }
        if !rest.isEmpty { object.set(fieldsKey, .object(rest)) }
        return .object(object.list)
    }

    /// The properties RFC 8984 has for what `record` holds, in the order RFC 8984 lists
    /// them: what it is, when, how it stands, its links, people and alerts, its repeats.
    private static func standard(
        _ record: TaskRecord, placement: Placement, context: Context
    ) -> Members {
        var object = Members()
        identity(of: record, placement: placement, context: context, into: &object)
        times(of: record, placement: placement, into: &object)
        standing(of: record, into: &object)
        links(of: record, into: &object)
        people(of: record, into: &object)
        if !record.alarms.isEmpty {
            object.set(
                "alerts",
                .object(
                    record.alarms.enumerated().map { index, alarm in
                        JSONValue.Member(name: "alert-\(index + 1)", value: alert(alarm))
                    }))
        }
        repeats(of: record, placement: placement, into: &object)
        counters(of: record, into: &object)
        return object
    }

    /// `@type`, `uid`, `updated`, `recurrenceId`, `title`, `description`, `locale`.
    private static func identity(
        of record: TaskRecord, placement: Placement, context: Context, into object: inout Members
    ) {
        // JSCalendar has no journal: a dated entry is an Event, an undated one a Task (an
        // Event has a start); `kind` is kept in taskcal.invalid:fields.
        let isTask = record.kind == .todo || (record.kind == .journal && record.unscheduled)
        object.set("@type", .string(isTask ? "Task" : "Event"))
        object.set("uid", .string(record.uid ?? context.uidScheme.uid(for: record.id)))
        object.set("updated", .string(utcText(context.timestamp)))
        if let recurrenceID = record.recurrenceID, let local = placement.local(recurrenceID) {
            object.set("recurrenceId", .string(localText(local)))
            if case .zone(let zone) = placement {
                object.set("recurrenceIdTimeZone", .string(zone))
            }
        }
        object.set("title", .string(record.name))
        if let description = record.description {
            object.set("description", .string(description))
        }
        if let language = record.icalParameters["SUMMARY"], language.hasPrefix("LANGUAGE="),
            !language.contains(";")
        {
            object.set("locale", .string(String(language.dropFirst(9))))
        }
    }

    /// `progress` or `status`, `freeBusyStatus`, `privacy`, `keywords`, `color`, `locations`.
    private static func standing(of record: TaskRecord, into object: inout Members) {
        switch record.kind {
        case .todo:
            if record.done {
                object.set("progress", .string("completed"))
            } else if let status = record.status,
                [.needsAction, .inProcess, .cancelled].contains(status)
            {
                object.set("progress", .string(status.rawValue))
            }
        case .event:
            if let status = record.status { object.set("status", .string(status.rawValue)) }
        case .journal:
            break
        }
        if record.free { object.set("freeBusyStatus", .string("free")) }
        if let classification = record.classification {
            object.set(
                "privacy",
                .string(classification == .confidential ? "secret" : classification.rawValue))
        }
        if !record.categories.isEmpty {
            var keywords: [JSONValue.Member] = []
            for category in record.categories
            where !keywords.contains(where: { $0.name == category }) {
                keywords.append(JSONValue.Member(name: category, value: .bool(true)))
            }
            object.set("keywords", .object(keywords))
        }
        if let color = record.color { object.set("color", .string(color)) }
        if let location = record.location {
            object.set(
                "locations",
                .object([
                    JSONValue.Member(
                        name: "location",
                        value: typed(
                            "Location", [JSONValue.Member(name: "name", value: .string(location))]))
                ]))
        }
    }

    /// `links`: the record's URL (`describedby`), then its attachments.
    private static func links(of record: TaskRecord, into object: inout Members) {
        var links: [JSONValue.Member] = []
        if let url = record.url {
            links.append(
                JSONValue.Member(
                    name: "url",
                    value: typed(
                        "Link",
                        [
                            JSONValue.Member(name: "href", value: .string(url)),
                            JSONValue.Member(name: "rel", value: .string("describedby")),
                        ])))
        }
        for (index, attachment) in record.attachments.enumerated() {
            links.append(JSONValue.Member(name: "attachment-\(index + 1)", value: link(attachment)))
        }
        if !links.isEmpty { object.set("links", .object(links)) }
    }

    /// `replyTo` (the organizer's address) and `participants`: the organizer, the attendees.
    private static func people(of record: TaskRecord, into object: inout Members) {
        var participants: [JSONValue.Member] = []
        if let organizer = record.organizer {
            participants.append(
                JSONValue.Member(name: "organizer", value: participant(organizer, organizer: true)))
            if let address = organizer.address.mailAddress {
                object.set(
                    "replyTo",
                    .object([JSONValue.Member(name: "imip", value: .string("mailto:" + address))]))
            }
        }
        for (index, attendee) in record.attendees.enumerated() {
            participants.append(
                JSONValue.Member(
                    name: "attendee-\(index + 1)", value: participant(attendee, organizer: false)))
        }
        if !participants.isEmpty { object.set("participants", .object(participants)) }
    }

    /// `recurrenceRules` and `recurrenceOverrides`: extra dates, then excluded ones.
    private static func repeats(
        of record: TaskRecord, placement: Placement, into object: inout Members
    ) {
        guard let recurrence = record.recurrence else { return }
        if let rule = recurrence.rule, let rule = ruleObject(rule, placement: placement) {
            object.set("recurrenceRules", .array([rule]))
        }
        var overrides: [JSONValue.Member] = []
        for time in recurrence.rdates {
            if let local = placement.local(time) {
                overrides.append(JSONValue.Member(name: localText(local), value: .object([])))
            }
        }
        for time in recurrence.exdates {
            if let local = placement.local(time) {
                overrides.append(
                    JSONValue.Member(
                        name: localText(local),
                        value: .object([JSONValue.Member(name: "excluded", value: .bool(true))])))
            }
        }
        if !overrides.isEmpty { object.set("recurrenceOverrides", .object(overrides)) }
    }

    /// `sequence`, `priority` and `created`, from the iCalendar lines that hold them.
    private static func counters(of record: TaskRecord, into object: inout Members) {
        for line in record.icalExtra {
            let upper = line.uppercased()
            if upper.hasPrefix("SEQUENCE:"), let value = Int64(line.dropFirst(9)), value >= 0 {
                object.set("sequence", number(value))
            } else if upper.hasPrefix("PRIORITY:"), let value = Int64(line.dropFirst(9)),
                (0...9).contains(value)
            {
                object.set("priority", number(value))
            } else if upper.hasPrefix("CREATED:"),
                let local = untilLocal(String(line.dropFirst(8)), placement: .utc),
                line.hasSuffix("Z")
            {
                object.set("created", .string(localText(local) + "Z"))
            }
        }
    }

    /// `start`, `timeZone`, `duration` (an event), `due` and `estimatedDuration` (a task),
    /// `showWithoutTime` (all-day).
    private static func times(
        of record: TaskRecord, placement: Placement, into object: inout Members
    ) {
        let length = record.dateFinish - record.dateStart
        if !record.unscheduled, let start = placement.local(record.dateStart) {
            object.set("start", .string(localText(start)))
        }
        switch placement {
        case _ where record.unscheduled && record.due == nil: break
        case .utc: object.set("timeZone", .string("Etc/UTC"))
        case .zone(let zone): object.set("timeZone", .string(zone))
        case .floating, .allDay: break
        }
        switch record.kind {
        case .todo:
            if let due = record.due, let local = placement.local(due) {
                object.set("due", .string(localText(local)))
            }
            if !record.unscheduled && length > 0 {
                let duration =
                    record.allDay && length % 86_400 == 0
                    ? Duration(days: length / 86_400) : Duration(seconds: length)
                object.set("estimatedDuration", .string(duration.text))
            }
        case .event, .journal:
            if record.allDay && length > 0 && length % 86_400 == 0 {
                object.set("duration", .string(Duration(days: length / 86_400).text))
            } else if length > 0 {
                object.set("duration", .string(Duration(seconds: length).text))
            }
        }
        if record.allDay { object.set("showWithoutTime", .bool(true)) }
    }

    /// A `Link` for an attachment: inline bytes as a `data:` URI (RFC 2397).
    private static func link(_ attachment: TaskModel.Attachment) -> JSONValue {
        var link = Members()
        link.set("@type", .string("Link"))
        switch attachment.content {
        case .inline(let data):
            link.set(
                "href",
                .string(
                    "data:\(attachment.mimeType ?? "application/octet-stream");base64,\(data.base64EncodedString())"
                ))
        case .url(let url), .path(let url):
            link.set("href", .string(url))
        }
        if let mimeType = attachment.mimeType { link.set("contentType", .string(mimeType)) }
        if case .inline(let data) = attachment.content {
            link.set("size", number(Int64(data.count)))
        }
        link.set("rel", .string("enclosure"))
        if let filename = attachment.filename { link.set("title", .string(filename)) }
        let original = taskJSON { attachment.write(to: &$0) }
        let rest = residual(original, (try? EntryReader.attachment(link.list)) ?? [])
        if !rest.isEmpty { link.set(fieldsKey, .object(rest)) }
        return .object(link.list)
    }

    /// A `Participant` for an organizer or an attendee.
    private static func participant(_ person: Person, organizer: Bool) -> JSONValue {
        var object = Members()
        object.set("@type", .string("Participant"))
        if let name = person.name { object.set("name", .string(name)) }
        if let address = person.address.mailAddress {
            object.set("email", .string(address))
            object.set(
                "sendTo",
                .object([JSONValue.Member(name: "imip", value: .string("mailto:" + address))]))
        } else {
            object.set(
                "sendTo", .object([JSONValue.Member(name: "other", value: .string(person.address))])
            )
        }
        let parameters = Dictionary(person.parameters.map { ($0.name, $0.value) }) { first, _ in
            first
        }
        if let kind = parameters["CUTYPE"]?.lowercased(),
            ["individual", "group", "resource", "location", "unknown"].contains(kind)
        {
            object.set("kind", .string(kind))
        }
        var roles: [JSONValue.Member] = []
        func role(_ name: String) { roles.append(JSONValue.Member(name: name, value: .bool(true))) }
        if organizer {
            role("owner")
        } else {
            switch parameters["ROLE"]?.uppercased() {
            case "CHAIR":
                role("attendee")
                role("chair")
            case "OPT-PARTICIPANT":
                role("attendee")
                role("optional")
            case "NON-PARTICIPANT": role("informational")
            default: role("attendee")
            }
        }
        object.set("roles", .object(roles))
        if !organizer, let status = parameters["PARTSTAT"]?.lowercased(),
            ["needs-action", "accepted", "declined", "tentative", "delegated"].contains(status)
        {
            object.set("participationStatus", .string(status))
        }
        if !organizer && parameters["RSVP"]?.uppercased() == "TRUE" {
            object.set("expectReply", .bool(true))
        }
        let original = taskJSON { person.write(to: &$0) }
        let reread = (try? EntryReader.person(object.list, owner: organizer)) ?? []
        let rest = residual(original, reread)
        if !rest.isEmpty { object.set(fieldsKey, .object(rest)) }
        return .object(object.list)
    }

    /// An `Alert` for an alarm.
    private static func alert(_ alarm: Alarm) -> JSONValue {
        var object = Members()
        object.set("@type", .string("Alert"))
        switch alarm.trigger {
        case .relative(let offset, let fromEnd):
            var trigger = [JSONValue.Member(name: "offset", value: .string(offset))]
            if fromEnd {
                trigger.append(JSONValue.Member(name: "relativeTo", value: .string("end")))
            }
            object.set("trigger", typed("OffsetTrigger", trigger))
        case .absolute(let time):
            object.set(
                "trigger",
                typed(
                    "AbsoluteTrigger",
                    [JSONValue.Member(name: "when", value: .string(utcText(time)))]))
        }
        if alarm.action == .email { object.set("action", .string("email")) }
        let original = taskJSON { alarm.write(to: &$0) }
        let reread = (try? EntryReader.alarm(object.list)) ?? []
        let rest = residual(original, reread)
        if !rest.isEmpty { object.set(fieldsKey, .object(rest)) }
        return .object(object.list)
    }
}

extension String {
    /// The address of a `mailto:` URI (any case), or `nil`.
    fileprivate var mailAddress: String? {
        guard lowercased().hasPrefix("mailto:"), count > 7 else { return nil }
        return String(dropFirst(7))
    }
}
