import Foundation
import ICalendar
import TaskModel

/// Reads task records out of `VEVENT`s, `VTODO`s and `VJOURNAL`s, per `RecordMapping`.
///
/// One component becomes one record through a fixed series of steps, one per concern
/// (identity, times, text, people, attachments, alarms, recurrence, what is kept verbatim),
/// each in `ComponentReading`. Nothing that calendar apps accept is refused: where the input
/// is unclear or beyond libical 3.0, the step chooses a reading, says so in a note that names
/// the line, and keeps the original so that it goes back out unchanged. Under ``strict`` those
/// notes are errors, as they were before (all or nothing).
///
/// A component whose UID is not one of taskcal's gets its id later, in file order
/// (`FileOrder`), so that one thread and several give the same ids.
public final class EventReader {
    /// How UIDs map back to ids.
    public var uidScheme: UIDScheme
    /// Where inline attachments are written, when they are extracted.
    public var extraction: AttachmentExtraction?
    /// Notes about readings chosen become errors.
    public var strict = false
    /// A component that cannot become a record is kept with the calendar as written (the
    /// notes say so; under ``strict`` it is an error); otherwise it is left out.
    public var keepsLeftOut = false
    /// The `BEGIN` lines of components whose `DTSTAMP` is kept in `ical_extra` and written
    /// back: a revision chosen over others by it (``ICalendar/Revisions``) must be chosen
    /// again when the written file is read, beside the others kept as written.
    public var keepsStampOf: Set<Int> = []

    /// Creates a reader.
    public init(uidScheme: UIDScheme = UIDScheme(), extraction: AttachmentExtraction? = nil) {
        self.uidScheme = uidScheme
        self.extraction = extraction
    }

    /// What became of one component.
    public struct Outcome {
        /// The record, or `nil` when the component was left out (its notes say why).
        public var record: TaskRecord?
        /// Warnings.
        public var notes: [ReadingNote] = []
        /// Errors: the component is not converted and the input is not valid.
        public var errors: [ReadingNote] = []
    }

    /// Plain events (see ``ICalendar/PlainEvent``) are read in one pass; `false` reads every
    /// component step by step (the tests compare the two).
    var readsPlainEvents = true

    /// The record of `component`, with the zones of its input.
    func read(_ component: Component, zones: ZoneResolver) -> Outcome {
        if readsPlainEvents, !keepsStamp(of: component), let record = readPlain(component) {
            return Outcome(record: record)
        }
        var reading = ComponentReading(component: component, reader: self)
        reading.unreadable()
        reading.identity()
        reading.times(zones)
        if !reading.skipped {
            reading.text()
            reading.people()
            reading.attachments()
            reading.alarms()
            reading.recurrence(zones)
            reading.verbatim()
        }
        var outcome = Outcome()
        for note in reading.notes {
            if strict && note.lenient {
                outcome.errors.append(note)
            } else {
                outcome.notes.append(note)
            }
        }
        outcome.errors += reading.errors
        if outcome.errors.isEmpty && !reading.skipped {
            outcome.record = reading.record
        }
        return outcome
    }
}

extension EventReader {
    func keepsStamp(of component: Component) -> Bool {
        !keepsStampOf.isEmpty && keepsStampOf.contains(component.lineNumber ?? 0)
    }

    /// The record of a plain event, exactly as the steps below read it, or `nil` when the
    /// event is not plain or one of the steps would say something about it (a note, a
    /// fresh name, a time it reads its own way): those are read step by step.
    ///
    /// What the steps do with a plain event, and so what this does: the UID gives the id
    /// (``identity()``); DTSTART and DTEND are UTC date-times, DTEND not before DTSTART, and
    /// a missing DTEND ends the event when it starts (``times(_:)``); SUMMARY is the name
    /// and an empty DESCRIPTION none (``text()``); each ATTACH an attachment with its
    /// FILENAME and FMTTYPE, inline data decoded (``attachments()``, which the option to
    /// extract attachments to files leaves to); each VALARM with a display, audio or email
    /// action becomes an alarm with no further lines (``alarms()``); the lines kept as
    /// written go to `ical_extra` in file order, DTSTAMP aside (``verbatim()``).
    func readPlain(_ component: Component) -> TaskRecord? {
        // The texts are moved out of the event, not copied (a retain and a release each).
        guard var event = component.plainEvent(), let uid = event.uid.take(), !uid.isEmpty,
            let start = event.start, start.zone == .utc, !start.isDate,
            let summary = event.summary.take(), !summary.isEmpty
        else { return nil }
        let dateStart = start.epochAsUTC
        var dateFinish = dateStart
        if let end = event.end {
            guard end.zone == .utc, !end.isDate, end.epochAsUTC >= dateStart else { return nil }
            dateFinish = end.epochAsUTC
        }
        var alarms: [TaskModel.Alarm] = []
        for alarm in event.alarms {
            guard let action = TaskModel.Alarm.Action(rawValue: alarm.action.lowercased())
            else { return nil }
            let trigger: TaskModel.Alarm.Trigger =
                switch alarm.trigger {
                case .relative(let duration, let relatedToEnd):
                    .relative(duration, fromEnd: relatedToEnd)
                case .absolute(let epoch): .absolute(epoch)
                }
            alarms.append(
                TaskModel.Alarm(
                    action: action, trigger: trigger, description: alarm.description,
                    summary: alarm.summary))
        }
        var attachments: [TaskModel.Attachment] = []
        if !event.attachments.isEmpty {
            // Written to files with --extract-attachments: step by step.
            guard extraction == nil else { return nil }
            for attachment in event.attachments {
                switch attachment.value {
                case .uri(let uri):
                    attachments.append(
                        TaskModel.Attachment(
                            filename: attachment.filename, mimeType: attachment.mimeType,
                            content: .url(uri)))
                case .base64(let text):
                    guard let data = Data(base64Encoded: text) else { return nil }
                    // The text kept for writing when it is what encoding gives (issue 59).
                    attachments.append(
                        TaskModel.Attachment(
                            filename: attachment.filename, mimeType: attachment.mimeType,
                            data: data, base64: text))
                }
            }
        }
        var extra: [String] = []
        var done = false
        for raw in event.verbatimLines {
            // DTSTAMP, written anew, is most often the only such line: known without lexing.
            if RecordMapping.writtenAnew.contains(where: raw.isParameterless(named:)) {
                continue
            }
            guard let name = try? raw.lexed().name else { return nil }
            if RecordMapping.writtenAnew.contains(name) { continue }
            done = done || name.uppercased() == RecordMapping.eventCompleted
            extra.append(raw.text)
        }
        // The record is made once its fields are known: built up field by field through
        // the early returns above, it was copied and destroyed a dozen times an event.
        var record = TaskRecord(
            id: IDAllocator.unassigned, dateStart: dateStart, dateFinish: dateFinish,
            name: summary, description: event.description.take().flatMap { $0.isEmpty ? nil : $0 },
            uid: uid, attachments: attachments, alarms: alarms)
        if let parsed = uidScheme.parse(uid) {
            record.id = parsed.id
            if parsed.isDerived { record.uid = nil }
        }
        record.icalExtra = extra
        record.done = done
        return record
    }
}

/// One component on its way to a record: the record so far, what each step noticed, and
/// the lines to keep as written.
struct ComponentReading {
    let component: Component
    let reader: EventReader
    /// The component's properties in file order, each with the step that reads it, made
    /// once: each step walked them all and asked every one its name and step again.
    let properties: [(property: Property, step: RecordMapping.Step?)]
    let kind: TaskRecord.Kind
    var record: TaskRecord
    var notes: [ReadingNote] = []
    var errors: [ReadingNote] = []
    /// The component cannot become a record; its notes say why.
    var skipped = false
    /// Lines kept as written, with their line numbers for file order.
    var extra: [(line: Int, text: String)] = []
    /// Lines libical could not read, by line number: each step decides about its own.
    var unreadableLines: [Int: (line: RawLine, reason: String)] = [:]

    init(component: Component, reader: EventReader) {
        self.component = component
        self.reader = reader
        properties = component.properties().map { ($0, RecordMapping.step[$0.name]) }
        switch component.kind {
        case .todo: kind = .todo
        case .journal: kind = .journal
        default: kind = .event
        }
        record = TaskRecord(id: 0, dateStart: 0, dateFinish: 0, name: "")
        record.kind = kind
    }

    var name: String { component.kind.description }

    /// The properties `step` reads, in file order.
    func properties(of step: RecordMapping.Step) -> [Property] {
        properties.compactMap { $0.step == step ? $0.property : nil }
    }

    /// The first property named `name` (upper-case), as `Component.firstProperty(named:)`
    /// finds it.
    func first(_ name: String) -> Property? {
        properties.first { $0.property.name == name }?.property
    }

    var line: Int { component.lineNumber ?? 0 }

    /// Notes a reading chosen for `line` (lenient: an error under `--strict`).
    mutating func note(_ code: DiagnosticCode, line: Int?, _ message: String, lenient: Bool = false)
    {
        notes.append(ReadingNote(code, line: line, message, lenient: lenient))
    }

    /// Leaves the component out: it cannot become a record.
    mutating func skip(line: Int?, _ message: String) {
        let also = skipped
        skipped = true
        note(
            .componentSkipped, line: line,
            also
                ? "and \(message)"
                : reader.keepsLeftOut && !reader.strict
                    ? "the \(name) of line \(self.line) cannot become a record; kept with the calendar as written: \(message)"
                    : "the \(name) of line \(self.line) is left out: \(message)",
            lenient: true)
    }

    /// Keeps `raw` as written (in `ical_extra`).
    mutating func keep(_ raw: RawLine) {
        extra.append((raw.line, raw.text))
    }

    /// Keeps `property` as written, from its raw line when the file gave one.
    mutating func keep(_ property: Property) {
        if let raw = property.rawLine {
            keep(raw)
        } else {
            extra.append((property.lineNumber ?? line, property.contentLine))
        }
    }

    /// The parameters of `property` as written that its step does not reproduce, kept in
    /// `ical_parameters` (or returned, for fields with parameters of their own).
    func unmappedParameters(of property: Property, except reproduced: Set<String>? = nil)
        -> [Parameter]
    {
        guard let raw = property.rawLine, raw.hasParameters, let line = try? raw.lexed() else {
            return []
        }
        let skip = reproduced ?? RecordMapping.reproducedParameters(of: line.name)
        return line.parameters.filter { !skip.contains($0.name) }
    }

    /// Keeps the unmapped parameters of `property` in the record's `ical_parameters`.
    mutating func keepParameters(of property: Property, except reproduced: Set<String>? = nil) {
        let kept = unmappedParameters(of: property, except: reproduced)
        guard !kept.isEmpty else { return }
        let name = property.name
        let text = ParameterText.format(kept)
        if let existing = record.icalParameters[name] {
            record.icalParameters[name] = existing + ";" + text
        } else {
            record.icalParameters[name] = text
        }
    }

    // MARK: - Lines libical could not read

    /// Sorts the lines libical rejected: an essential one (identity, times) leaves the
    /// component out; the rest are kept as written by the steps, with a note.
    mutating func unreadable() {
        for (raw, reason) in component.unreadableLines {
            unreadableLines[raw.line] = (raw, reason)
        }
    }

    /// The unreadable lines named `name`, taken (the caller decides what becomes of them).
    mutating func takeUnreadable(named name: String) -> [(line: RawLine, reason: String)] {
        guard !unreadableLines.isEmpty else { return [] }
        let found = unreadableLines.values.filter {
            (try? $0.line.lexed().name) == name
        }.sorted { $0.line.line < $1.line.line }
        for item in found { unreadableLines[item.line.line] = nil }
        return found
    }

    // MARK: - Identity

    mutating func identity() {
        for (raw, reason) in takeUnreadable(named: "UID") {
            skip(line: raw.line, "its UID cannot be read (\(reason))")
        }
        let uidProperty = first("UID")
        let text = uidProperty?.text ?? ""
        guard !text.isEmpty else {
            record.id = IDAllocator.unassigned
            note(
                .noUID, line: line,
                "the \(name) of line \(line) has no UID; it was given a fresh id")
            return
        }
        var uid: String? = text
        if let parsed = reader.uidScheme.parse(text) {
            record.id = parsed.id
            if parsed.isDerived { uid = nil }
        } else {
            record.id = IDAllocator.unassigned
        }
        record.uid = uid
        if let uidProperty { keepParameters(of: uidProperty) }
    }
}

/// Parameters as the text `ical_parameters` holds: `LANGUAGE=de;ALTREP="cid:x"`.
enum ParameterText {
    /// The parameters written as in a content line, values quoted where RFC 5545 needs it.
    static func format(_ parameters: [Parameter]) -> String {
        parameters.map { parameter in
            let value = parameter.value
            if ContentLine.isValueList(value, named: parameter.name) {
                return "\(parameter.name)=\(value)"
            }
            var encoded = value.replacingOccurrences(of: "^", with: "^^")
                .replacingOccurrences(of: "\n", with: "^n")
                .replacingOccurrences(of: "\"", with: "^'")
            if encoded.isEmpty || encoded.contains(where: { $0 == ";" || $0 == ":" || $0 == "," }) {
                encoded = "\"\(encoded)\""
            }
            return "\(parameter.name)=\(encoded)"
        }.joined(separator: ";")
    }

    /// The parameters of `text`, or `nil` when it is no parameter text.
    static func parse(_ text: String) -> [Parameter]? {
        (try? ContentLine(parsing: "X;" + text + ":"))?.parameters
    }
}
