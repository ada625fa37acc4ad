import Foundation
import ICalendar
import TaskModel

extension ComponentReading {
    // MARK: - Text

    /// `SUMMARY`, `DESCRIPTION`, `LOCATION`, `STATUS`, `TRANSP`, `CATEGORIES`, `COLOR`,
    /// `CLASS`, `URL`.
    mutating func text() {
        // The names met so far: nine at most, so a list (a set cost 2% of reading an .ics).
        var seen: [String] = []
        var descriptionRead = false
        var categoryLines: Set<Int> = []
        var categoryParametersKept = false
        for property in properties(of: .text) {
            let propertyName = property.name
            let isFirst = !seen.contains(propertyName)
            if isFirst { seen.append(propertyName) }
            guard isFirst || !RecordMapping.isSingle(propertyName, in: kind) else {
                secondProperty(property)
                continue
            }
            let value = property.text
            switch propertyName {
            case "SUMMARY":
                record.name = value
                keepParameters(of: property)
            case "DESCRIPTION":
                if record.description == nil && !descriptionRead {
                    descriptionRead = true
                    record.description = value.isEmpty ? nil : value
                    keepParameters(of: property)
                } else {
                    keep(property)  // a journal's further descriptions
                }
            case "LOCATION":
                record.location = value.isEmpty ? nil : value
                keepParameters(of: property)
            case "COLOR":
                record.color = value
                keepParameters(of: property)
            case "URL":
                record.url = value
                keepParameters(of: property)
            case "STATUS":
                status(property)
            case "TRANSP":
                switch value.uppercased() {
                case "TRANSPARENT" where kind == .event: record.free = true
                case "OPAQUE" where kind == .event: break  // the default
                default: keep(property)
                }
                keepParameters(of: property)
            case "CATEGORIES":
                // libical makes one property of each value of a line; the line is read once,
                // as written.
                guard let raw = property.rawLine, let line = try? raw.lexed() else {
                    let trimmed = value.trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty { record.categories.append(trimmed) }
                    continue
                }
                guard categoryLines.insert(raw.line).inserted else { continue }
                for item in ContentLine.textList(line.value) {
                    let trimmed = item.trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty { record.categories.append(trimmed) }
                }
                if !categoryParametersKept {
                    categoryParametersKept = true
                    keepParameters(of: property)
                }
            case "CLASS":
                if let classification = TaskRecord.Classification(rawValue: value.lowercased()) {
                    record.classification = classification
                    keepParameters(of: property)
                } else {
                    keep(property)
                }
            default:
                keep(property)
            }
        }
        if record.name.isEmpty {
            record.name = "(untitled)"
            note(
                .noSummary, line: line,
                "the \(name) of line \(line) has no SUMMARY; it was named (untitled)")
        }
    }

    private mutating func status(_ property: Property) {
        switch (kind, property.text.uppercased()) {
        case (.event, "TENTATIVE"): record.status = .tentative
        case (.event, "CONFIRMED"): record.status = .confirmed
        case (_, "CANCELLED"): record.status = .cancelled
        case (.todo, "NEEDS-ACTION"): record.status = .needsAction
        case (.todo, "IN-PROCESS"): record.status = .inProcess
        case (.todo, "COMPLETED"): record.done = true
        case (.journal, "DRAFT"): record.status = .draft
        case (.journal, "FINAL"): record.status = .final
        default:
            keep(property)
            return
        }
        keepParameters(of: property)
    }

    /// A second `SUMMARY`, `DTSTART` … in one component: RFC 5545 allows one, and a second
    /// would make the output invalid.
    mutating func secondProperty(_ property: Property) {
        note(
            .secondProperty, line: property.lineNumber,
            "a second \(property.name) in one \(name) was left out", lenient: true)
    }

    // MARK: - People

    /// `ORGANIZER`, `ATTENDEE`: the address, `CN` as the name, every other parameter as
    /// written.
    mutating func people() {
        for property in properties(of: .people) {
            if property.name == "ORGANIZER" && record.organizer != nil {
                secondProperty(property)
                continue
            }
            let person = Self.person(property)
            if property.name == "ORGANIZER" {
                record.organizer = person
            } else {
                record.attendees.append(person)
            }
        }
    }

    static func person(_ property: Property) -> Person {
        var name: String?
        var parameters: [(String, String)] = []
        let written = (try? property.rawLine?.lexed())?.parameters ?? property.parameters
        for parameter in written {
            if parameter.name == "CN" && name == nil {
                name = parameter.value
            } else {
                parameters.append((parameter.name, parameter.value))
            }
        }
        let address = (try? property.rawLine?.lexed())?.value ?? property.text
        return Person(address: address, name: name, parameters: parameters)
    }

    // MARK: - Attachments

    /// `ATTACH`: a link or inline bytes, its file name (`FILENAME`, or Outlook's and Apple's
    /// own parameters) and media type; an attachment that cannot be read is kept as written.
    mutating func attachments() {
        for property in properties(of: .attachments) {
            do {
                record.attachments.append(
                    try attachment(property, index: record.attachments.count))
            } catch {
                note(
                    .unreadableValue, line: property.lineNumber,
                    "\(error.message); the ATTACH line is kept as written", lenient: true)
                keep(property)
            }
        }
    }

    private func attachment(_ property: Property, index: Int) throws(ICalendarError)
        -> TaskModel.Attachment
    {
        let filename =
            property.parameter("FILENAME") ?? property.parameter("X-FILENAME")
            ?? property.parameter("X-APPLE-FILENAME") ?? property.parameter("X-LABEL")
        let mimeType = property.parameter("FMTTYPE")
        let others = unmappedParameters(of: property)
        let parameters = others.isEmpty ? nil : ParameterText.format(others)
        var result: TaskModel.Attachment
        switch property.attachment {
        case .uri(let uri)?:
            result = TaskModel.Attachment(
                filename: filename, mimeType: mimeType, content: .url(uri))
        case .base64(let text)?:
            // Folding is undone before the value reaches us, so the text is plain base64.
            guard let data = Data(base64Encoded: text) else {
                throw ICalendarError(
                    .invalidValue, line: property.lineNumber,
                    "ATTACH: the inline data is not valid base64")
            }
            if let extraction = reader.extraction {
                let path = try extraction.write(
                    data, filename: filename, key: AttachmentExtraction.key(for: record),
                    index: index, line: property.lineNumber)
                result = TaskModel.Attachment(
                    filename: filename, mimeType: mimeType, content: .path(path))
            } else {
                result = TaskModel.Attachment(
                    filename: filename, mimeType: mimeType, data: data, base64: text)
            }
        case nil:
            throw ICalendarError(.invalidValue, line: property.lineNumber, "ATTACH has no value")
        }
        result.icalParameters = parameters
        return result
    }

    // MARK: - Alarms

    /// Each `VALARM`, and the disabled alarms taskcal writes as `X-TASKCAL-DISABLED-VALARM`.
    /// An alarm the format has no place for (`ACTION:PROCEDURE`, an unreadable `TRIGGER`) is
    /// kept whole, as written.
    mutating func alarms() {
        // Enabled and disabled alarms in file order.
        var items: [(line: Int, alarm: Component?, disabled: RawComponent?)] =
            component.subcomponents(ofKind: .alarm).map { ($0.lineNumber ?? 0, $0, nil) }
        items += component.verbatimComponents.filter {
            $0.name == EventWriter.disabledAlarmComponent
        }.map { ($0.line, nil, $0) }
        items.sort { $0.line < $1.line }
        for item in items {
            if let raw = item.disabled {
                if let alarm = Self.disabledAlarm(raw) {
                    record.alarms.append(alarm)
                } else {
                    record.icalComponents.append(raw.text)
                }
                continue
            }
            guard let alarmComponent = item.alarm else { continue }
            do {
                if let alarm = try Self.alarm(from: alarmComponent) {
                    record.alarms.append(alarm)
                } else {
                    note(
                        .notConverted, line: alarmComponent.lineNumber,
                        "a VALARM with ACTION:\(alarmComponent.firstProperty(named: "ACTION")?.action ?? "?") has no place in the task format; it is kept as written"
                    )
                    record.icalComponents.append(Self.rawText(of: alarmComponent))
                }
            } catch {
                note(
                    .unreadableValue, line: error.line ?? alarmComponent.lineNumber,
                    "\(error.message); the VALARM is kept as written", lenient: true)
                record.icalComponents.append(Self.rawText(of: alarmComponent))
            }
        }
    }

    /// The text of a parsed component from the lines the file had, `BEGIN` to `END`.
    static func rawText(of component: Component) -> String {
        var lines = component.rawLines
        lines.sort { $0.line < $1.line }
        return (["BEGIN:\(component.kind)"] + lines.map(\.text) + ["END:\(component.kind)"])
            .joined(separator: "\r\n") + "\r\n"
    }

    /// The alarm of a `VALARM`, or `nil` for an action the task format has no place for.
    static func alarm(from component: Component, disabled: Bool = false) throws(ICalendarError)
        -> TaskModel.Alarm?
    {
        if let (raw, reason) = component.unreadableLines.first {
            throw ICalendarError(.invalidValue, line: raw.line, reason)
        }
        guard let actionProperty = component.firstProperty(named: "ACTION") else {
            throw ICalendarError(
                .missingProperty, line: component.lineNumber, "VALARM has no ACTION")
        }
        guard let triggerProperty = component.firstProperty(named: "TRIGGER") else {
            throw ICalendarError(
                .missingProperty, line: component.lineNumber, "VALARM has no TRIGGER")
        }
        var enabled = !disabled
        var actionName = actionProperty.action
        if actionName == "NONE" {
            enabled = false
            actionName =
                component.firstProperty(named: EventWriter.disabledActionProperty)?.text
                .uppercased() ?? "DISPLAY"
        }
        guard let action = TaskModel.Alarm.Action(rawValue: actionName.lowercased()) else {
            return nil
        }
        let trigger: TaskModel.Alarm.Trigger
        switch triggerProperty.trigger {
        case .relative(let duration, let relatedToEnd):
            trigger = .relative(duration, fromEnd: relatedToEnd)
        case .absolute(let epoch): trigger = .absolute(epoch)
        }
        func text(_ name: String) -> String? {
            guard let property = component.firstProperty(named: name) else { return nil }
            if property.parameter(EventWriter.filledParameter.name) != nil { return nil }
            return property.text
        }
        var repeatCount: Int?
        var repeatInterval: String?
        if let repeatProperty = component.firstProperty(named: "REPEAT"),
            let durationProperty = component.firstProperty(named: "DURATION")
        {
            repeatCount = Int(repeatProperty.text)
            repeatInterval = durationProperty.duration.text
        }
        var sound: String?
        if case .uri(let uri)? = component.firstProperty(named: "ATTACH")?.attachment {
            sound = uri
        }
        var alarm = TaskModel.Alarm(
            action: action, trigger: trigger, description: text("DESCRIPTION"),
            summary: text("SUMMARY"),
            attendees: component.properties(named: "ATTENDEE").map(\.text), sound: sound,
            repeatCount: repeatCount, repeatInterval: repeatInterval, enabled: enabled)
        // What the alarm's fields do not hold: further lines and parameters, as written.
        var seen: Set<String> = []
        var extra: [(Int, String)] = component.verbatimLines.map { ($0.line, $0.text) }
        for property in component.properties() {
            let name = property.name
            let first = seen.insert(name).inserted
            let mapped = RecordMapping.alarm.contains(name) && (first || name == "ATTENDEE")
            if !mapped || (name == "ATTACH" && sound == nil)
                || (name == "REPEAT" && repeatCount == nil)
                || (name == "DURATION" && repeatCount == nil)
            {
                if let raw = property.rawLine { extra.append((raw.line, raw.text)) }
                continue
            }
            // A line without parameters has none to keep: neither lexed nor a set made.
            guard let raw = property.rawLine, raw.hasParameters, let line = try? raw.lexed()
            else { continue }
            var skip = RecordMapping.reproducedParameters(of: name).union([
                EventWriter.filledParameter.name
            ])
            // RELATED=START is the default, END a field; any other value is kept as written.
            if name == "TRIGGER",
                let related = line.parameter("RELATED")?.uppercased(),
                related != "START" && related != "END"
            {
                skip.remove("RELATED")
            }
            let kept = line.parameters.filter { !skip.contains($0.name) }
            if !kept.isEmpty, name != "ATTENDEE" {
                alarm.icalParameters[name] = ParameterText.format(kept)
            }
        }
        alarm.icalExtra = extra.sorted { $0.0 < $1.0 }.map(\.1)
        return alarm
    }

    // MARK: - Recurrence

    /// `RRULE` (as written), `EXDATE`, `RDATE`. A rule or date libical cannot read is kept as
    /// written, and the entry does not repeat for taskcal's own reports.
    mutating func recurrence(_ zones: ZoneResolver) {
        unreadableRecurrence()
        if record.unscheduled {
            // A rule needs a first occurrence; without DTSTART it is kept as written.
            let lines = properties(of: .recurrence)
            var kept: Set<Int> = []
            for property in lines where kept.insert(property.lineNumber ?? 0).inserted {
                note(
                    .unreadableValue, line: property.lineNumber,
                    "\(property.name) in a \(name) without DTSTART has no first occurrence; kept as written",
                    lenient: true)
                keep(property)
            }
            return
        }
        var rule: String?
        var exdates: [Int64] = []
        var rdates: [Int64] = []
        var exdateLines: [Property] = []
        var keptLines: Set<Int> = []
        for property in properties(of: .recurrence) {
            switch property.name {
            case "RRULE":
                let written = (try? property.rawLine?.lexed())?.value ?? property.text
                if rule != nil {
                    keep(property)  // RFC 2445 allowed several rules
                } else if let problem = RecurrenceRule.problem(written) {
                    unexpandable(property, written, problem)
                } else {
                    rule = written
                    keepParameters(of: property)
                }
            case "EXDATE", "RDATE":
                guard property.isDateOrDateTime,
                    let value = try? property.dateTimeValue()
                else {
                    // RDATE;VALUE=PERIOD: kept as written (one line may hold several values).
                    if let line = property.lineNumber, keptLines.insert(line).inserted {
                        keep(property)
                    }
                    continue
                }
                let placed = zones.place(
                    value, tzidWritten: property.parameter("TZID"), property: property.name,
                    line: property.lineNumber, notes: &notes)
                var reproduced: Set<String> = ["VALUE"]
                if placed.keptTZID == nil { reproduced.insert("TZID") }
                keepParameters(of: property, except: reproduced)
                keepValueType(value, of: property.name)
                if property.name == "EXDATE" {
                    exdates.append(placed.epoch)
                    exdateLines.append(property)
                } else {
                    rdates.append(placed.epoch)
                }
            default:
                break
            }
        }
        if rule != nil || !rdates.isEmpty {
            record.recurrence = Recurrence(rule: rule, exdates: exdates, rdates: rdates)
        } else {
            // Exceptions to no rule: kept as written.
            var lines: Set<Int> = []
            for property in exdateLines
            where property.lineNumber.map({ lines.insert($0).inserted }) ?? true {
                keep(property)
            }
            record.icalParameters["EXDATE"] = nil
        }
    }

    /// The recurrence lines libical could not read: kept as written, each with a note.
    private mutating func unreadableRecurrence() {
        for name in ["RRULE", "EXDATE", "RDATE"] {
            for (raw, reason) in takeUnreadable(named: name) {
                if name == "RRULE", let leftOut = Self.repairs(raw) {
                    note(
                        .unreadableValue, line: raw.line,
                        "RRULE cannot be read by libical (\(reason)); kept as written, its repeats counted without \(leftOut)",
                        lenient: true)
                } else {
                    note(
                        .unreadableValue, line: raw.line,
                        "\(name) cannot be read by libical (\(reason)); kept as written, its repeats are not counted",
                        lenient: true)
                }
                keep(raw)
            }
        }
    }

    /// An `RRULE` libical reads but cannot expand: kept as written, with a note saying what
    /// of it is counted.
    private mutating func unexpandable(_ property: Property, _ written: String, _ problem: String) {
        if let leftOut = RecurrenceRule.repaired(written)?.leftOut {
            note(
                .unreadableValue, line: property.lineNumber,
                "RRULE: \(problem); kept as written, its repeats counted without \(leftOut.joined(separator: " and "))",
                lenient: true)
        } else {
            note(
                .unreadableValue, line: property.lineNumber,
                "RRULE: \(problem); kept as written, its repeats are not counted",
                lenient: true)
        }
        keep(property)
    }

    /// The parts an expansion leaves out of the rule of `raw`, a line libical cannot read, to
    /// count its repeats (``RecurrenceRule/repaired(_:)``), or `nil` when none are counted.
    private static func repairs(_ raw: RawLine) -> String? {
        guard let value = try? raw.lexed().value,
            let leftOut = RecurrenceRule.repaired(value)?.leftOut
        else { return nil }
        return leftOut.joined(separator: " and ")
    }

    // MARK: - Verbatim

    /// Every line no step holds, as written: properties libical never saw, lines it could not
    /// read (with a note), subcomponents (`VLOCATION`), disabled alarms taskcal wrote.
    mutating func verbatim() {
        let keepsStamp = reader.keepsStamp(of: component)
        for raw in component.verbatimLines {
            guard let name = try? raw.lexed().name else {
                note(
                    .malformedLine, line: raw.line,
                    "'\(String(raw.text.prefix(60)))' is not a content line; left out",
                    lenient: true)
                continue
            }
            if RecordMapping.writtenAnew.contains(name) && !keepsStamp { continue }
            // A done event (an occurrence of a habit done): kept as written, and `done`.
            if kind == .event && name.uppercased() == RecordMapping.eventCompleted {
                record.done = true
            }
            keep(raw)
        }
        for (raw, reason) in unreadableLines.values.sorted(by: { $0.line.line < $1.line.line }) {
            if (try? raw.lexed()) != nil {
                note(
                    .unreadableValue, line: raw.line,
                    "libical cannot read this line (\(reason)); kept as written", lenient: true)
                keep(raw)
            } else {
                note(
                    .malformedLine, line: raw.line,
                    "'\(String(raw.text.prefix(60)))' is not a content line (\(reason)); left out",
                    lenient: true)
            }
        }
        unreadableLines = [:]
        for raw in component.verbatimComponents where raw.name != EventWriter.disabledAlarmComponent
        {
            record.icalComponents.append(raw.text)
        }
        extra.sort { $0.line < $1.line }
        record.icalExtra = extra.map(\.text)
    }

    /// The alarm of a disabled alarm as taskcal writes it, read through libical as a `VALARM`.
    static func disabledAlarm(_ raw: RawComponent) -> TaskModel.Alarm? {
        var lines = raw.lines.map { line -> String in
            let text = line.text
            let prefix = EventWriter.disabledPrefix
            guard text.uppercased().hasPrefix(prefix) else { return text }
            return String(text.dropFirst(prefix.count))
        }
        guard lines.count >= 2 else { return nil }
        lines[0] = "BEGIN:VALARM"
        lines[lines.count - 1] = "END:VALARM"
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n" + lines.joined(separator: "\r\n")
            + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let reader = ICalendarReader(text: text)
        reader.interpretedProperties = RecordMapping.interpreted
        guard case .component(let event)? = try? reader.next(),
            let valarm = event.subcomponents(ofKind: .alarm).first,
            let alarm = try? alarm(from: valarm, disabled: true)
        else { return nil }
        return alarm
    }
}

extension RawComponent {
    /// The component's lines joined with CRLF, ending in one.
    public var text: String {
        lines.map(\.text).joined(separator: "\r\n") + "\r\n"
    }
}
