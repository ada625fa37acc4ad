import Foundation
import ICalendar
import TaskModel

/// Builds `VEVENT`s from task records through libical, per DESIGN.md's mapping table.
public struct EventWriter {
    /// How ids become UIDs.
    public var uidScheme: UIDScheme
    /// `DTSTAMP`, Unix seconds: `SOURCE_DATE_EPOCH` when set, so output is reproducible.
    public var timestamp: Int64
    /// Write times as local times in this IANA zone (`TZID` + `VTIMEZONE`) instead of UTC,
    /// for records without a `time_zone` of their own.
    public var zone: String?
    /// Leave out the records' `ical_extra` lines (`--drop-extra`).
    public var dropExtra = false

    /// The `PRODID` taskcal writes.
    public static let productID = "-//taskcal//taskcal 1.0//EN"
    /// Marks a `DESCRIPTION`/`SUMMARY` that taskcal filled in because RFC 5545 requires one
    /// but the record's alarm had none; reading drops it again, so nothing is invented.
    static let filledParameter = Parameter("X-TASKCAL-FILLED", "TRUE")
    /// Keeps the action of a disabled alarm, which RFC 9074 writes as `ACTION:NONE`.
    static let disabledActionProperty = "X-TASKCAL-ACTION"

    /// Creates a writer.
    public init(
        uidScheme: UIDScheme = UIDScheme(), timestamp: Int64, zone: String? = nil
    ) {
        self.uidScheme = uidScheme
        self.timestamp = timestamp
        self.zone = zone
    }

    /// `DTSTAMP` from `SOURCE_DATE_EPOCH` when it holds Unix seconds, else now.
    public static func timestampFromEnvironment() -> Int64 {
        if let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"],
            let value = Int64(text)
        {
            return value
        }
        return Int64(Date().timeIntervalSince1970)
    }

    /// The calendar's opening: `VCALENDAR` with `VERSION`, `PRODID`, `CALSCALE`, and the
    /// `VTIMEZONE` of ``zone`` when set.
    public func calendarHeader() throws(ICalendarError) -> Component {
        let calendar = Component(kind: .calendar)
        calendar.addProperty("VERSION", .literal("2.0"))
        calendar.addProperty("PRODID", .text(Self.productID))
        calendar.addProperty("CALSCALE", .literal("GREGORIAN"))
        if let zone, zone != "UTC" {
            calendar.add(try TimeZones.vtimezone(named: zone))
        }
        return calendar
    }

    /// The zones `record` and its subtasks are written in that the calendar's opening does
    /// not already define, as IANA names.
    public func extraZones(for record: TaskRecord) -> [String] {
        var found: [String] = []
        func visit(_ record: TaskRecord) {
            if !record.allDay, let name = record.timeZone.flatMap(TimeZones.ianaName(forTZID:)),
                name != "UTC", name != zone, !found.contains(name)
            {
                found.append(name)
            }
            record.subtasks.forEach(visit)
        }
        visit(record)
        return found
    }

    /// The components for `record`: its `VEVENT` or `VTODO`, then one `VTODO` for each
    /// subtask (depth first) naming its parent in `RELATED-TO`. Relative attachment `path`s
    /// are read from the folder `attachmentBase` (that of the file the record came from).
    ///
    /// - Throws: ``Problem`` when a field cannot be written (an attachment `path` that cannot
    ///   be read, an unknown zone, a rule libical refuses).
    public func components(
        for record: TaskRecord, attachmentBase: URL? = nil
    ) throws -> [Component] {
        var result: [Component] = []
        func add(_ record: TaskRecord, parent: String?, path: String) throws {
            do {
                let component = try event(for: record, attachmentBase: attachmentBase)
                if let parent { component.addProperty("RELATED-TO", .text(parent)) }
                result.append(component)
            } catch let problem as Problem where !path.isEmpty {
                throw problem.nested(in: path)
            }
            let uid = record.uid ?? uidScheme.uid(for: record.id)
            for (index, subtask) in record.subtasks.enumerated() {
                try add(
                    subtask, parent: uid,
                    path: path + (path.isEmpty ? "" : ".") + "subtasks[\(index)]")
            }
        }
        try add(record, parent: nil, path: "")
        return result
    }

    /// The `VEVENT` or `VTODO` for `record` alone (without its subtasks).
    ///
    /// - Throws: ``Problem`` when a field cannot be written.
    public func event(for record: TaskRecord, attachmentBase: URL? = nil) throws -> Component {
        var zone = self.zone
        if let name = record.timeZone, !record.allDay {
            guard let iana = TimeZones.ianaName(forTZID: name) else {
                throw Problem(
                    field: "time_zone",
                    "unknown time zone '\(name)': expected an IANA name such as Europe/Berlin")
            }
            zone = iana
        }
        func time(_ epoch: Int64) throws -> DateTimeValue {
            try self.time(epoch, allDay: record.allDay, zone: zone)
        }
        let isTodo = record.kind == .todo
        let event = Component(kind: isTodo ? .todo : .event)
        event.addProperty("UID", .text(record.uid ?? uidScheme.uid(for: record.id)))
        event.addProperty("DTSTAMP", .dateTime(DateTimeValue(utcEpoch: timestamp)))
        if let recurrenceID = record.recurrenceID {
            event.addProperty("RECURRENCE-ID", .dateTime(try time(recurrenceID)))
        }
        if !record.unscheduled {
            event.addProperty("DTSTART", .dateTime(try time(record.dateStart)))
        }
        if isTodo {
            if let due = record.due {
                event.addProperty("DUE", .dateTime(try time(due)))
            } else if !record.unscheduled && record.dateFinish > record.dateStart {
                event.addProperty(
                    "DURATION", .duration("PT\(record.dateFinish - record.dateStart)S"))
            }
        } else {
            event.addProperty("DTEND", .dateTime(try time(record.dateFinish)))
        }
        event.addProperty("SUMMARY", .text(record.name))
        if let description = record.description {
            event.addProperty("DESCRIPTION", .text(description))
        }
        if let status = record.status {
            event.addProperty("STATUS", .literal(status.rawValue.uppercased()))
        } else if record.done {
            event.addProperty("STATUS", .literal("COMPLETED"))
        }
        if record.free {
            event.addProperty("TRANSP", .literal("TRANSPARENT"))
        }
        if let location = record.location { event.addProperty("LOCATION", .text(location)) }
        for category in record.categories { event.addProperty("CATEGORIES", .text(category)) }
        if let color = record.color { event.addProperty("COLOR", .text(color)) }
        if let classification = record.classification {
            event.addProperty("CLASS", .literal(classification.rawValue.uppercased()))
        }
        if let url = record.url { event.addProperty("URL", .uri(url)) }
        if let organizer = record.organizer {
            event.add(try person("ORGANIZER", organizer, field: "organizer"))
        }
        for (index, attendee) in record.attendees.enumerated() {
            event.add(try person("ATTENDEE", attendee, field: "attendees[\(index)]"))
        }
        if let recurrence = record.recurrence {
            if let rule = recurrence.rule {
                if let problem = RecurrenceRule.problem(rule) {
                    throw Problem(field: "recurrence.rule", problem)
                }
                event.addProperty("RRULE", .literal(rule))
            }
            for time in recurrence.rdates {
                event.addProperty(
                    "RDATE", .dateTime(try self.time(time, allDay: record.allDay, zone: zone)))
            }
            for time in recurrence.exdates {
                event.addProperty(
                    "EXDATE", .dateTime(try self.time(time, allDay: record.allDay, zone: zone)))
            }
        }
        for (index, attachment) in record.attachments.enumerated() {
            event.add(try property(for: attachment, index: index, base: attachmentBase))
        }
        if !dropExtra {
            let extra = ExtraLines.properties(record.icalExtra)
            if let problem = extra.problems.first { throw problem }
            extra.properties.forEach(event.add)
        }
        for (index, alarm) in record.alarms.enumerated() {
            let component = self.alarm(alarm, of: record)
            if !dropExtra {
                let extra = ExtraLines.properties(alarm.icalExtra)
                if let problem = extra.problems.first {
                    throw problem.nested(in: "alarms[\(index)]")
                }
                extra.properties.forEach(component.add)
            }
            event.add(component)
        }
        return event
    }

    private func person(_ name: String, _ person: Person, field: String) throws -> Property {
        var parameters: [Parameter] = []
        if let cn = person.name { parameters.append(Parameter("CN", cn)) }
        for (key, value) in person.parameters {
            let parameter = Parameter(key, value)
            if let problem = Property.parameterProblem(parameter) {
                throw Problem(field: "\(field).parameters.\(key)", problem)
            }
            parameters.append(parameter)
        }
        return Property(name, .calAddress(person.address), parameters: parameters)
    }

    private func time(_ epoch: Int64, allDay: Bool, zone: String?) throws(ICalendarError)
        -> DateTimeValue
    {
        // A time that is no UTC midnight on an all-day record (Outlook writes RECURRENCE-ID
        // and EXDATE that way) keeps its instant as a DATE-TIME.
        if allDay && epoch % 86_400 == 0 {
            var value = DateTimeValue(utcEpoch: epoch)
            value.isDate = true
            value.zone = .floating
            return value
        }
        if let zone, zone != "UTC" {
            let local = try DateTimeValue(epoch: epoch, inZone: zone)
            // In the hour repeated when clocks go back, a wall-clock time names two instants and
            // readers take the first (RFC 5545 §3.3.5); such an instant is written in UTC instead.
            if try local.epoch(inZone: zone) == epoch { return local }
        }
        return DateTimeValue(utcEpoch: epoch)
    }

    private func property(for attachment: TaskModel.Attachment, index: Int, base: URL?) throws
        -> Property
    {
        var parameters: [Parameter] = []
        if let mimeType = attachment.mimeType { parameters.append(Parameter("FMTTYPE", mimeType)) }
        if let filename = attachment.filename { parameters.append(Parameter("FILENAME", filename)) }
        switch attachment.content {
        case .url(let url):
            return Property("ATTACH", .attachmentURI(url), parameters: parameters)
        case .inline(let data):
            return Property(
                "ATTACH", .attachmentBase64(data.base64EncodedString()), parameters: parameters)
        case .path(let path):
            let url = URL(fileURLWithPath: path, relativeTo: base)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw Problem(
                    field: "attachments[\(index)].path", "cannot read the file '\(url.path)'")
            }
            return Property(
                "ATTACH", .attachmentBase64(data.base64EncodedString()), parameters: parameters)
        }
    }

    private func alarm(_ alarm: TaskModel.Alarm, of record: TaskRecord) -> Component {
        let component = Component(kind: .alarm)
        let action = alarm.action.rawValue.uppercased()
        component.addProperty("ACTION", .action(alarm.enabled ? action : "NONE"))
        if !alarm.enabled {
            component.addProperty(Self.disabledActionProperty, .text(action))
        }
        switch alarm.trigger {
        case .relative(let duration, let fromEnd):
            component.addProperty(
                "TRIGGER", .relativeTrigger(duration),
                parameters: fromEnd ? [Parameter("RELATED", "END")] : [])
        case .absolute(let epoch):
            component.addProperty("TRIGGER", .absoluteTrigger(epoch: epoch))
        }
        // RFC 5545 §3.6.6: DISPLAY and EMAIL need DESCRIPTION; EMAIL also SUMMARY.
        if let description = alarm.description {
            component.addProperty("DESCRIPTION", .text(description))
        } else if alarm.action != .audio {
            component.addProperty(
                "DESCRIPTION", .text(record.name), parameters: [Self.filledParameter])
        }
        if let summary = alarm.summary {
            component.addProperty("SUMMARY", .text(summary))
        } else if alarm.action == .email {
            component.addProperty("SUMMARY", .text(record.name), parameters: [Self.filledParameter])
        }
        for attendee in alarm.attendees {
            component.addProperty("ATTENDEE", .calAddress(attendee))
        }
        if let sound = alarm.sound {
            component.addProperty("ATTACH", .attachmentURI(sound))
        }
        if let repeatCount = alarm.repeatCount, let interval = alarm.repeatInterval {
            component.addProperty("REPEAT", .integer(repeatCount))
            component.addProperty("DURATION", .duration(interval))
        }
        return component
    }
}
