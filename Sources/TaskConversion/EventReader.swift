import Foundation
import ICalendar
import TaskModel

/// Reads task records out of `VEVENT`s, per DESIGN.md's mapping table.
///
/// Keeps state across the events of one stream: the ids already given out (a foreign UID
/// gets a fresh id above every id seen so far) and which warnings were already given.
public final class EventReader {
    /// How UIDs map back to ids.
    public var uidScheme: UIDScheme
    /// The zone for floating times, when the user chose one (`--tz`).
    public var floatingZone: String?
    /// Where inline attachments are written, when they are extracted.
    public var extraction: AttachmentExtraction?

    private var ids = IDAllocator()
    /// Leave ids of records without one of ours as ``IDAllocator/unassigned`` for the caller,
    /// who sees the records in file order (parallel reading hands batches out of order).
    public var defersFreshIDs = false
    private var warnedFloating = false

    /// Creates a reader.
    public init(
        uidScheme: UIDScheme = UIDScheme(), floatingZone: String? = nil,
        extraction: AttachmentExtraction? = nil
    ) {
        self.uidScheme = uidScheme
        self.floatingZone = floatingZone
        self.extraction = extraction
    }

    /// The record for `event` and any warnings; `calendarZone` is the file's
    /// `X-WR-TIMEZONE` (Google's zone for floating times), when it has one.
    public func record(
        from event: Component, calendarZone: String?
    ) throws(Diagnostics) -> (TaskRecord, [String]) {
        var warnings: [String] = []
        var errors: [ICalendarError] = []
        func capture<T>(_ body: () throws(ICalendarError) -> T) -> T? {
            do { return try body() } catch {
                errors.append(error)
                return nil
            }
        }

        // UID → id.
        var id: Int64
        var uid: String?
        if let text = event.firstProperty(named: "UID")?.text, !text.isEmpty {
            if let parsed = UIDScheme.parse(text) {
                id = parsed.id
                if parsed.domain != uidScheme.domain { uid = text }
            } else {
                let repeating =
                    event.firstProperty(named: "RRULE") != nil
                    || event.firstProperty(named: "RDATE") != nil
                    || event.firstProperty(named: "RECURRENCE-ID") != nil
                id =
                    defersFreshIDs
                    ? IDAllocator.unassigned : repeating ? ids.id(forSeries: text) : ids.next()
                uid = text
            }
        } else {
            id = defersFreshIDs ? IDAllocator.unassigned : ids.next()
            warnings.append(
                "the VEVENT of line \(event.lineNumber ?? 0) has no UID; it was given a fresh id")
        }
        if id != IDAllocator.unassigned { ids.saw(id) }

        // Times.
        let kind: TaskRecord.Kind = event.kind == .todo ? .todo : .event
        let componentName = kind == .todo ? "VTODO" : "VEVENT"
        let startProperty = event.firstProperty(named: "DTSTART")
        if startProperty == nil && kind == .event {
            throw Diagnostics([
                ICalendarError(
                    .missingProperty, line: event.lineNumber,
                    "VEVENT has no DTSTART; the task format needs a start (RFC 5545 allows none only in scheduling messages with METHOD)"
                )
            ])
        }
        let start = startProperty.flatMap { property in
            capture { () throws(ICalendarError) in try property.dateTime() }
        }
        let end =
            kind == .event
            ? capture { () throws(ICalendarError) in try event.end() } ?? nil : nil
        let dueProperty = kind == .todo ? event.firstProperty(named: "DUE") : nil
        let dueTime = dueProperty.flatMap { property in
            capture { () throws(ICalendarError) in try property.dateTime() }
        }
        guard errors.isEmpty else { throw Diagnostics(errors) }
        let allDay = start?.value.isDate ?? dueTime?.value.isDate ?? false
        let zoneForFloating =
            floatingZone ?? calendarZone.flatMap { TimeZones.ianaName(forTZID: $0) }
        func epoch(_ time: ResolvedDateTime, property: String, line: Int?) -> Int64? {
            if let epoch = time.epoch { return epoch }
            if time.value.isDate { return time.value.epochAsUTC }
            let zone = zoneForFloating ?? TimeZones.localName
            if zoneForFloating == nil && !warnedFloating {
                warnedFloating = true
                warnings.append(
                    "line \(line ?? 0): \(property) is a floating time (no zone); read in the local zone \(zone). Use --tz ZONE to choose"
                )
            }
            return capture { () throws(ICalendarError) in try time.value.epoch(inZone: zone) }
        }
        func epoch(of property: Property) -> Int64? {
            guard let time = capture({ () throws(ICalendarError) in try property.dateTime() })
            else { return nil }
            return epoch(time, property: property.name, line: property.lineNumber)
        }
        let startEpoch = start.flatMap {
            epoch($0, property: "DTSTART", line: startProperty?.lineNumber)
        }
        var finishEpoch: Int64?
        if let end {
            let endLine = event.firstProperty(named: "DTEND")?.lineNumber
            if end.value.isDate != allDay {
                errors.append(
                    ICalendarError(
                        .invalidValue, line: endLine,
                        "DTEND is a \(end.value.isDate ? "DATE" : "DATE-TIME") but DTSTART is not"))
            }
            finishEpoch = epoch(end, property: "DTEND", line: endLine)
            if allDay, let startEpoch, finishEpoch == startEpoch {
                // Seen in the wild; RFC 5545 wants a later DTEND. Apps show one day.
                finishEpoch = startEpoch + 86_400
                warnings.append(
                    "line \(endLine ?? 0): the all-day event ends on the day it starts; read as lasting one day"
                )
            }
        } else if kind == .todo, let startEpoch {
            let duration = event.firstProperty(named: "DURATION")
            finishEpoch = startEpoch + Int64(duration?.duration.seconds ?? 0)
        } else if let startEpoch {
            // RFC 5545 §3.6.1: no DTEND or DURATION means one day for a DATE, an instant otherwise.
            finishEpoch = allDay ? startEpoch + 86_400 : startEpoch
        }
        let dueEpoch = dueTime.flatMap { epoch($0, property: "DUE", line: dueProperty?.lineNumber) }

        // Text.
        var name = event.firstProperty(named: "SUMMARY")?.text ?? ""
        if name.isEmpty {
            name = "(untitled)"
            warnings.append(
                "the \(componentName) of line \(event.lineNumber ?? 0) has no SUMMARY; it was named \(name)"
            )
        }
        let description = event.firstProperty(named: "DESCRIPTION")?.text
        var done = false
        let statusProperty = event.firstProperty(named: "STATUS")
        var status: TaskRecord.Status?
        if let statusProperty {
            let text = statusProperty.text.uppercased()
            switch (kind, text) {
            case (.event, "TENTATIVE"): status = .tentative
            case (.event, "CONFIRMED"): status = .confirmed
            case (_, "CANCELLED"): status = .cancelled
            case (.todo, "NEEDS-ACTION"): status = .needsAction
            case (.todo, "IN-PROCESS"): status = .inProcess
            case (.todo, "COMPLETED"): done = true
            default: break
            }
        }
        let free =
            kind == .event
            && event.firstProperty(named: "TRANSP")?.text.uppercased() == "TRANSPARENT"

        // Attachments and alarms.
        var attachments: [TaskModel.Attachment] = []
        for property in event.properties(named: "ATTACH") {
            if let attachment = capture({ () throws(ICalendarError) in
                try self.attachment(from: property, id: id, index: attachments.count)
            }) {
                attachments.append(attachment)
            }
        }
        var alarms: [TaskModel.Alarm] = []
        for component in event.subcomponents() {
            guard component.kind == .alarm else {
                warnings.append(
                    "line \(component.lineNumber ?? 0): a \(component.kind) inside a \(componentName) has no place in the task format; it was left out"
                )
                continue
            }
            switch capture({ () throws(ICalendarError) in try self.alarm(from: component) }) {
            case .some(.some(let alarm)): alarms.append(alarm)
            case .some(.none):
                warnings.append(
                    "line \(component.lineNumber ?? 0): a VALARM with ACTION:\(component.firstProperty(named: "ACTION")?.action ?? "?") has no place in the task format; it was left out"
                )
            case .none: break
            }
        }

        // The rest of the event, and verbatim lines for what has no field.
        var record = TaskRecord(
            id: id, dateStart: startEpoch ?? 0, dateFinish: finishEpoch ?? 0, name: name,
            description: description,
            uid: uid, allDay: allDay, status: status, free: free, attachments: attachments,
            alarms: alarms)
        record.kind = kind
        record.unscheduled = start == nil
        record.due = dueEpoch
        record.done = done
        if let start, !allDay {
            // A floating time was read in a zone (X-WR-TIMEZONE, --tz or the local one); its
            // repeats step in that zone too.
            record.timeZone =
                start.ianaZone
                ?? (start.value.zone == .floating ? zoneForFloating ?? TimeZones.localName : nil)
        }
        var seen: Set<String> = []
        var rdates: [Int64] = []
        var exdates: [Int64] = []
        var rule: String?
        var extra: [String] = []
        for property in event.properties() {
            let propertyName = property.name
            let first = seen.insert(propertyName).inserted
            if !first && Self.singleProperties.contains(propertyName) {
                if propertyName == "RRULE" {
                    extra.append(property.extraLine)  // several rules were allowed by RFC 2445
                } else {
                    // RFC 5545 allows one; a second would make the output invalid.
                    warnings.append(
                        "line \(property.lineNumber ?? 0): a second \(propertyName) in one \(componentName) was left out"
                    )
                }
                continue
            }
            switch propertyName {
            case "UID", "DTSTART", "DTEND", "SUMMARY", "DESCRIPTION", "STATUS", "TRANSP", "DUE",
                "DTSTAMP", "ATTACH", "X-LIC-ERROR":
                // DTSTAMP says when the file was written and is written anew.
                continue
            case "DURATION":
                // A to-do's duration is its finish; an event's went into `end()`.
                continue
            case "LOCATION":
                record.location = property.text
            case "CATEGORIES":
                // "Work, Team": the space after the comma is layout, and a list cannot keep it.
                record.categories += property.listText.map {
                    $0.trimmingCharacters(in: .whitespaces)
                }.filter { !$0.isEmpty }
            case "COLOR":
                record.color = property.text
            case "CLASS":
                if let value = TaskRecord.Classification(rawValue: property.text.lowercased()) {
                    record.classification = value
                } else {
                    extra.append(property.extraLine)
                }
            case "URL":
                record.url = property.text
            case "ORGANIZER":
                record.organizer = person(property)
            case "ATTENDEE":
                record.attendees.append(person(property))
            case "RRULE":
                rule = property.text
            case "EXDATE" where property.isDateOrDateTime:
                if let time = epoch(of: property) { exdates.append(time) }
            case "RDATE" where property.isDateOrDateTime:
                if let time = epoch(of: property) { rdates.append(time) }
            case "RECURRENCE-ID":
                record.recurrenceID = epoch(of: property)
            default:
                extra.append(property.extraLine)
            }
        }
        if rule != nil || !rdates.isEmpty {
            record.recurrence = Recurrence(rule: rule, exdates: exdates, rdates: rdates)
            if record.timeZone == nil, start?.value.zone != .utc, !allDay, let start,
                case .tzid(let tzid) = start.value.zone
            {
                warnings.append(
                    "line \(startProperty?.lineNumber ?? 0): the zone '\(tzid)' is defined only in this file; the repeats are counted in UTC"
                )
            }
        } else if !exdates.isEmpty {
            extra += event.properties(named: "EXDATE").map(\.extraLine)
        }
        record.icalExtra = extra

        guard errors.isEmpty, startEpoch != nil || start == nil, finishEpoch != nil || start == nil
        else { throw Diagnostics(errors) }
        return (record, warnings)
    }

    /// Properties that occur once; a second one is kept verbatim in `ical_extra`.
    static let singleProperties: Set<String> = [
        "UID", "DTSTART", "DTEND", "SUMMARY", "DESCRIPTION", "STATUS", "TRANSP", "DURATION", "DUE",
        "DTSTAMP", "LOCATION", "COLOR", "CLASS", "URL", "ORGANIZER", "RRULE", "RECURRENCE-ID",
    ]

    private func person(_ property: Property) -> Person {
        var name: String?
        var parameters: [(String, String)] = []
        for parameter in property.parameters {
            if parameter.name == "CN" && name == nil {
                name = parameter.value
            } else {
                parameters.append((parameter.name, parameter.value))
            }
        }
        return Person(address: property.text, name: name, parameters: parameters)
    }

    private func attachment(from property: Property, id: Int64, index: Int) throws(ICalendarError)
        -> TaskModel.Attachment
    {
        let filename =
            property.parameter("FILENAME") ?? property.parameter("X-FILENAME")
            ?? property.parameter("X-APPLE-FILENAME") ?? property.parameter("X-LABEL")
        let mimeType = property.parameter("FMTTYPE")
        switch property.attachment {
        case .uri(let uri)?:
            return TaskModel.Attachment(filename: filename, mimeType: mimeType, content: .url(uri))
        case .base64(let text)?:
            // Folding is undone before the value reaches us, so the text is plain base64.
            guard let data = Data(base64Encoded: text) else {
                throw ICalendarError(
                    .invalidValue, line: property.lineNumber,
                    "ATTACH: the inline data is not valid base64")
            }
            if let extraction {
                let path = try extraction.write(
                    data, filename: filename, id: id, index: index, line: property.lineNumber)
                return TaskModel.Attachment(
                    filename: filename, mimeType: mimeType, content: .path(path))
            }
            return TaskModel.Attachment(
                filename: filename, mimeType: mimeType, content: .inline(data))
        case nil:
            throw ICalendarError(.invalidValue, line: property.lineNumber, "ATTACH has no value")
        }
    }

    /// The alarm, or `nil` for an action the task format has no place for (PROCEDURE, X-…).
    private func alarm(from component: Component) throws(ICalendarError) -> TaskModel.Alarm? {
        guard let actionProperty = component.firstProperty(named: "ACTION") else {
            throw ICalendarError(
                .missingProperty, line: component.lineNumber, "VALARM has no ACTION")
        }
        guard let triggerProperty = component.firstProperty(named: "TRIGGER") else {
            throw ICalendarError(
                .missingProperty, line: component.lineNumber, "VALARM has no TRIGGER")
        }
        var enabled = true
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
        let mapped: Set<String> = [
            "ACTION", "TRIGGER", "DESCRIPTION", "SUMMARY", "ATTENDEE", "ATTACH", "REPEAT",
            "DURATION", EventWriter.disabledActionProperty,
        ]
        var seen: Set<String> = []
        var extra: [String] = []
        for property in component.properties() {
            let name = property.name
            let first = seen.insert(name).inserted
            if name == "X-LIC-ERROR" || (mapped.contains(name) && (first || name == "ATTENDEE")) {
                continue
            }
            extra.append(property.extraLine)
        }
        var alarm = TaskModel.Alarm(
            action: action, trigger: trigger, description: text("DESCRIPTION"),
            summary: text("SUMMARY"),
            attendees: component.properties(named: "ATTENDEE").map(\.text), sound: sound,
            repeatCount: repeatCount, repeatInterval: repeatInterval, enabled: enabled)
        alarm.icalExtra = extra
        return alarm
    }
}

/// Several errors of one component.
public struct Diagnostics: Error {
    public var errors: [ICalendarError]
    public init(_ errors: [ICalendarError]) { self.errors = errors }
}

/// Writes inline attachments to files in one folder, with names that cannot escape it.
public struct AttachmentExtraction: Sendable {
    /// The folder the files go to.
    public var directory: URL
    /// The folder that recorded paths are relative to (the output file's), when known.
    public var relativeTo: URL?

    /// Creates an extraction into `directory`.
    public init(directory: URL, relativeTo: URL?) {
        self.directory = directory.standardizedFileURL
        self.relativeTo = relativeTo?.standardizedFileURL
    }

    /// A file name made safe: no folders, no `..`, no control characters, not hidden, at most
    /// 120 bytes; prefixed with the record id and index so two records cannot collide.
    public static func safeName(_ filename: String?, id: Int64, index: Int) -> String {
        let base =
            (filename ?? "attachment").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(
                String.init) ?? "attachment"
        var cleaned = String(
            base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ":" }.map(
                Character.init))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.isEmpty { cleaned = "attachment" }
        while cleaned.utf8.count > 120 { cleaned.removeFirst() }
        return "\(id)-\(index)-\(cleaned)"
    }

    func write(_ data: Data, filename: String?, id: Int64, index: Int, line: Int?)
        throws(ICalendarError) -> String
    {
        let name = Self.safeName(filename, id: id, index: index)
        let target = directory.appendingPathComponent(name).standardizedFileURL
        guard target.deletingLastPathComponent().path == directory.path else {
            throw ICalendarError(
                .invalidValue, line: line,
                "ATTACH: the file name '\(filename ?? "")' would leave the folder")
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
            try data.write(to: target, options: .atomic)
        } catch {
            throw ICalendarError(
                .io, line: line,
                "cannot write the attachment \(target.path): \(error.localizedDescription)")
        }
        if let relativeTo, target.path.hasPrefix(relativeTo.path + "/") {
            return String(target.path.dropFirst(relativeTo.path.count + 1))
        }
        return target.path
    }
}

/// Fresh ids for events whose UID is not one of ours: one above the highest id seen so far,
/// in file order, so a stream needs no second pass.
public struct IDAllocator: Sendable {
    /// Marks a record whose id is still to be given.
    public static let unassigned = Int64.min
    private var highest: Int64 = 0
    private var series: [String: Int64] = [:]

    public init() {}

    /// Notes an id that is in use.
    public mutating func saw(_ id: Int64) { highest = max(highest, id) }

    /// A fresh id, noted as used.
    public mutating func next() -> Int64 {
        highest += 1
        return highest
    }

    /// The id of a repeating series with a foreign UID: fresh the first time, then the same
    /// for its changed occurrences (`RECURRENCE-ID`). Only series are remembered, so memory
    /// grows with the number of series, not of events.
    public mutating func id(forSeries uid: String) -> Int64 {
        if let known = series[uid] { return known }
        let fresh = next()
        series[uid] = fresh
        return fresh
    }

    /// A record's id when it has none of its own yet: a series shares one id.
    public mutating func assign(to record: inout TaskRecord) {
        if let uid = record.uid, record.recurrence != nil || record.recurrenceID != nil {
            record.id = id(forSeries: uid)
        } else {
            record.id = next()
        }
    }
}
