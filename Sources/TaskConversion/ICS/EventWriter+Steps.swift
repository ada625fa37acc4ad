import Foundation
import ICalendar
import TaskModel

/// One record on its way to a component: the steps of ``RecordMapping`` in the reader's order.
struct ComponentWriting {
    let record: TaskRecord
    let writer: EventWriter
    let component: Component
    /// The zone the record's times are written in (`nil`: UTC), and whether without `TZID`.
    let zone: CalendarZone?

    init(record: TaskRecord, writer: EventWriter) throws {
        // Every property is set at the end, once nothing can throw: set one by one before
        // the zone's look-up, the whole value was copied (a retain of each reference) and
        // the original destroyed, for every record written.
        var zone: CalendarZone?
        if let name = record.timeZone, !record.allDay {
            guard let found = writer.zones.zone(named: name) else {
                throw Problem(
                    field: "time_zone",
                    "unknown time zone '\(name)': expected an IANA name such as Europe/Berlin, or a VTIMEZONE the calendar defines"
                )
            }
            zone = found
        } else if let name = writer.zone, name != "UTC", !record.allDay {
            zone = writer.zones.zone(named: name)
        }
        self.zone = zone == .utc ? nil : zone
        self.record = record
        self.writer = writer
        switch record.kind {
        case .event: component = Component(kind: .event)
        case .todo: component = Component(kind: .todo)
        case .journal: component = Component(kind: .journal)
        }
    }

    /// Adds a property with the record's kept parameters for it (`ical_parameters`).
    ///
    /// Not `mutating` (nothing here changes): a mutating step retained the component and
    /// copied the parameters for every property it added.
    func add(
        _ name: PropertyName, _ value: PropertyValue, parameters: [Parameter] = [],
        keptParameters: [String: String]? = nil
    ) {
        // Most records keep none: no name hashed for nothing, no copy of the empty table.
        let keptText: String?
        if let keptParameters {
            keptText = keptParameters.isEmpty ? nil : keptParameters[name.text]
        } else {
            keptText = record.icalParameters.isEmpty ? nil : record.icalParameters[name.text]
        }
        guard let keptText, let kept = ParameterText.parse(keptText) else {
            component.addProperty(name, value, parameters: parameters)
            return
        }
        // VALUE is written by libical from the value itself; a skipped wall-clock time is the
        // value's (``SkippedWallTime``).
        let present = Set(parameters.map(\.name)).union(["VALUE", SkippedWallTime.parameter])
        component.addProperty(
            name, value, parameters: parameters + kept.filter { !present.contains($0.name) })
    }

    // MARK: - Identity

    func identity() {
        add(.uid, .text(record.uid ?? writer.uidScheme.uid(for: record.id)))
        // A DTSTAMP the record keeps (a revision chosen by it) is written as kept.
        let keepsStamp = record.icalExtra.contains {
            $0.uppercased().hasPrefix("DTSTAMP:") || $0.uppercased().hasPrefix("DTSTAMP;")
        }
        if !keepsStamp {
            add(.dtstamp, .dateTime(DateTimeValue(utcEpoch: writer.timestamp)))
        }
    }

    // MARK: - Times

    /// A time of the record as written: a DATE for all-day records (at UTC midnights), the
    /// wall-clock time without zone for floating ones, local time with `TZID` in its zone,
    /// else UTC. `property` may keep its own value type (`ical_parameters` `VALUE=…`): a
    /// DATE-TIME on an all-day record, as Outlook writes RECURRENCE-ID and EXDATE.
    func time(_ epoch: Int64, for property: String) -> DateTimeValue {
        let keptType = record.icalParameters[property].flatMap(ParameterText.parse)?
            .first { $0.name == "VALUE" }?.value.uppercased()
        let asDate = keptType.map { $0 == "DATE" } ?? record.allDay
        if asDate && epoch % 86_400 == 0 {
            var value = DateTimeValue(utcEpoch: epoch)
            value.isDate = true
            value.zone = .floating
            return value
        }
        if record.floating {
            // No zone of its own: the wall-clock time it was read as, without TZID.
            var local = (zone ?? .utc).local(epoch)
            local.zone = .floating
            return local
        }
        guard let zone else { return DateTimeValue(utcEpoch: epoch) }
        // Before 1970 a written VTIMEZONE says nothing, and in the hour repeated when clocks
        // go back a wall-clock time names two instants (RFC 5545 and zoneinfo read the
        // first, libical the second): such instants are written in UTC, which all agree on.
        if zone.systemZone != nil && epoch < SystemZone.coverageStart {
            return DateTimeValue(utcEpoch: epoch)
        }
        let local = zone.local(epoch)
        if zone.epoch(of: local) == epoch && !zone.isAmbiguous(at: epoch) { return local }
        return DateTimeValue(utcEpoch: epoch)
    }

    func times() throws {
        if let recurrenceID = record.recurrenceID {
            add(
                .recurrenceID, .dateTime(time(recurrenceID, for: "RECURRENCE-ID")),
                parameters: record.thisAndFuture ? [Parameter("RANGE", "THISANDFUTURE")] : [])
        }
        if !record.unscheduled {
            let written = zone.flatMap { SkippedWallTime.start(of: record, in: $0) }
            add(.dtstart, .dateTime(written ?? time(record.dateStart, for: "DTSTART")))
        }
        switch record.kind {
        case .todo:
            if let due = record.due {
                add(.due, .dateTime(time(due, for: "DUE")))
            } else if !record.unscheduled && record.dateFinish > record.dateStart {
                add(.duration, .duration("PT\(record.dateFinish - record.dateStart)S"))
            }
        case .event:
            // An event of no length has DTSTART alone (RFC 5545 §3.6.1): DTEND must be later.
            if record.dateFinish > record.dateStart {
                add(.dtend, .dateTime(time(record.dateFinish, for: "DTEND")))
            }
        case .journal:
            break  // a journal entry has a date, no end
        }
    }

    // MARK: - Text

    func text() {
        add(.summary, .text(record.name))
        if let description = record.description, !description.isEmpty {
            add(.description, .text(description))
        }
        if let status = record.status {
            add(.status, .literal(status.rawValue.uppercased()))
        } else if record.done && record.kind == .todo {
            add(.status, .literal("COMPLETED"))
        }
        if record.done && record.kind == .event
            && !record.icalExtra.contains(where: {
                $0.uppercased().hasPrefix(RecordMapping.eventCompleted)
            })
        {
            // RFC 5545 has no done event: a done occurrence of a habit says when, in a line
            // of taskcal's own that other readers skip (STATUS:COMPLETED is a to-do's).
            add(
                RecordMapping.eventCompletedName,
                .dateTime(DateTimeValue(utcEpoch: writer.timestamp)))
        }
        if record.free { add(.transp, .literal("TRANSPARENT")) }
        if let location = record.location, !location.isEmpty {
            add(.location, .text(location))
        }
        // One line, as most readers take it (khal reads only the first CATEGORIES).
        if !record.categories.isEmpty { add(.categories, .textList(record.categories)) }
        if let color = record.color { add(.color, .text(color)) }
        if let classification = record.classification {
            add(.class, .literal(classification.rawValue.uppercased()))
        }
        if let url = record.url { add(.url, .uri(url)) }
    }

    // MARK: - People

    func people() throws {
        if let organizer = record.organizer {
            component.add(try person("ORGANIZER", organizer, field: "organizer"))
        }
        for (index, attendee) in record.attendees.enumerated() {
            component.add(try person("ATTENDEE", attendee, field: "attendees[\(index)]"))
        }
    }

    private func person(_ name: String, _ person: Person, field: String) throws -> Property {
        var parameters: [Parameter] = []
        if let cn = person.name { parameters.append(Parameter("CN", cn)) }
        for (key, value) in person.parameters {
            guard key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }),
                !key.isEmpty
            else {
                throw Problem(field: "\(field).parameters", "'\(key)' is not a parameter name")
            }
            parameters.append(Parameter(key, value))
        }
        return Property(name, .calAddress(person.address), parameters: parameters)
    }

    // MARK: - Attachments

    func attachments(base: URL?) throws {
        for (index, attachment) in record.attachments.enumerated() {
            component.add(try property(for: attachment, index: index, base: base))
        }
    }

    private func property(for attachment: TaskModel.Attachment, index: Int, base: URL?) throws
        -> Property
    {
        var parameters: [Parameter] = []
        if let mimeType = attachment.mimeType { parameters.append(Parameter("FMTTYPE", mimeType)) }
        let kept = attachment.icalParameters.flatMap(ParameterText.parse) ?? []
        if let filename = attachment.filename,
            !kept.contains(where: { $0.value == filename && $0.name.hasSuffix("FILENAME") })
                && !kept.contains(where: { $0.name == "X-LABEL" && $0.value == filename })
        {
            parameters.append(Parameter("FILENAME", filename))
        }
        parameters += kept.filter {
            !["FMTTYPE", "FILENAME", "ENCODING", "VALUE"].contains($0.name)
        }
        switch attachment.content {
        case .url(let url):
            return Property("ATTACH", .attachmentURI(url), parameters: parameters)
        case .inline(let data):
            // The text it was read from when that is what encoding would give (issue 59).
            return Property(
                "ATTACH", .attachmentBase64(attachment.base64 ?? data.base64EncodedString()),
                parameters: parameters)
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

    // MARK: - Recurrence

    func recurrence() throws {
        guard let recurrence = record.recurrence else { return }
        if let rule = recurrence.rule {
            if let problem = RecurrenceRule.problem(rule) {
                throw Problem(field: "recurrence.rule", problem)
            }
            // The rule as written, not as libical would normalise it.
            var line = ContentLine(name: "RRULE", value: rule)
            line.parameters = record.icalParameters["RRULE"].flatMap(ParameterText.parse) ?? []
            component.add(Property(verbatim: line))
        }
        for time in recurrence.rdates {
            add(.rdate, .dateTime(self.time(time, for: "RDATE")))
        }
        for time in recurrence.exdates {
            add(.exdate, .dateTime(self.time(time, for: "EXDATE")))
        }
    }

    // MARK: - Verbatim

    func verbatim() throws {
        guard !writer.dropExtra else { return }
        for (index, text) in record.icalExtra.enumerated() {
            let line: ContentLine
            do {
                line = try ContentLine(parsing: text)
            } catch {
                throw Problem(field: "ical_extra[\(index)]", error.message)
            }
            if let problem = RecordMapping.governedLineProblem(line, at: index, in: record) {
                throw problem
            }
            // An event no longer done leaves the line that said when it was.
            if line.name.uppercased() == RecordMapping.eventCompleted && !record.done { continue }
            component.add(Property(verbatim: line))
        }
        for (index, text) in record.icalComponents.enumerated() {
            do {
                component.add(try Component.verbatim(text))
            } catch {
                throw Problem(field: "ical_components[\(index)]", error.message)
            }
        }
    }

    // MARK: - Alarms

    func alarms() throws {
        for (index, alarm) in record.alarms.enumerated() {
            let built = self.alarm(alarm)
            if !writer.dropExtra {
                for (lineIndex, text) in alarm.icalExtra.enumerated() {
                    do {
                        built.add(Property(verbatim: try ContentLine(parsing: text)))
                    } catch {
                        throw Problem(
                            field: "alarms[\(index)].ical_extra[\(lineIndex)]", error.message)
                    }
                }
            }
            component.add(built)
        }
    }

    /// A disabled alarm, kept where no calendar app fires it: an `X-` component whose lines
    /// are the alarm's with `X-TASKCAL-` before each name. calcurse flags any `VALARM`
    /// (`ACTION:NONE` too) and reads standard names inside unknown components as the event's
    /// own; every reader skips `X-` lines.
    private func disabledAlarm(_ alarm: TaskModel.Alarm) -> Component {
        var enabled = alarm
        enabled.enabled = true
        let valarm = self.alarm(enabled)
        let kept = Component(kind: .other(EventWriter.disabledAlarmComponent))
        for property in valarm.properties() {
            guard var line = try? ContentLine(parsing: property.contentLine) else { continue }
            line.name = EventWriter.disabledPrefix + line.name
            kept.add(Property(verbatim: line))
        }
        return kept
    }

    private func alarm(_ alarm: TaskModel.Alarm) -> Component {
        if !alarm.enabled && !writer.disabledAlarmsAsActionNone { return disabledAlarm(alarm) }
        let built = Component(kind: .alarm)
        func add(_ name: PropertyName, _ value: PropertyValue, parameters: [Parameter] = []) {
            var all = parameters
            if !alarm.icalParameters.isEmpty, let text = alarm.icalParameters[name.text],
                let kept = ParameterText.parse(text)
            {
                all += kept
            }
            built.addProperty(name, value, parameters: all)
        }
        if alarm.enabled {
            add(.action, .action(alarm.action.rawValue.uppercased()))
        } else {
            // RFC 9074: an alarm that must not fire; what it would do is kept beside.
            add(.action, .action("NONE"))
            built.addProperty(
                EventWriter.disabledActionProperty, .literal(alarm.action.rawValue.uppercased()))
        }
        switch alarm.trigger {
        case .relative(let duration, let fromEnd):
            add(
                .trigger, .relativeTrigger(duration),
                parameters: fromEnd ? [Parameter("RELATED", "END")] : [])
        case .absolute(let epoch):
            add(.trigger, .absoluteTrigger(epoch: epoch))
        }
        // RFC 5545 §3.6.6: DISPLAY and EMAIL need DESCRIPTION; EMAIL also SUMMARY.
        if let description = alarm.description {
            add(.description, .text(description))
        } else if alarm.action != .audio {
            add(.description, .text(record.name), parameters: [EventWriter.filledParameter])
        }
        if let summary = alarm.summary {
            add(.summary, .text(summary))
        } else if alarm.action == .email {
            add(.summary, .text(record.name), parameters: [EventWriter.filledParameter])
        }
        for attendee in alarm.attendees {
            built.addProperty(.attendee, .calAddress(attendee))
        }
        if let sound = alarm.sound {
            add(.attach, .attachmentURI(sound))
        }
        if let repeatCount = alarm.repeatCount, let interval = alarm.repeatInterval {
            add(.repeat, .integer(repeatCount))
            add(.duration, .duration(interval))
        }
        return built
    }
}
