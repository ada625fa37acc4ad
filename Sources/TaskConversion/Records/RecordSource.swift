import Foundation
import ICalendar
import TaskModel

/// One step of reading: a valid record with where it came from, or what was wrong with one.
public enum SourceItem {
    indirect case record(TaskRecord, Location)
    case failed([Diagnostic])
}

/// A stream of records from one input file, read one at a time where the format allows.
public protocol RecordSource: AnyObject {
    /// The next record or failure; `nil` at the end.
    ///
    /// - Throws: ``Diagnostic`` when the rest of the input cannot be read at all.
    func next() throws(Diagnostic) -> SourceItem?
    /// Warnings so far (floating times, missing UIDs …).
    var warnings: [Diagnostic] { get }
    /// What the input says about its calendar (name, `METHOD`, zones it defines), as far as
    /// it has been read.
    var calendar: CalendarInfo { get }
}

/// How to read inputs.
public struct ReadOptions: Sendable {
    /// The format, when the file name does not tell it (standard input).
    public var format: Format?
    /// UIDs of this scheme come back as plain ids.
    public var uidScheme = UIDScheme()
    /// The zone for floating iCalendar times (`--tz`).
    public var floatingZone: String?
    /// Where to write inline attachments instead of keeping them as base64.
    public var extraction: AttachmentExtraction?
    /// Threads for parsing one large .ics file (`ParallelICSSource`); 1 reads on one thread.
    public var parallelism = 1
    /// .ics files smaller than this are read on one thread: splitting them does not pay.
    public var parallelMinimumBytes = 8 << 20
    /// Components per batch when parsing in parallel.
    public var parallelBatchSize = 1000
    /// Give repeating records as their occurrences in a window (`--expand`).
    public var expansion: Expansion?
    /// Leave out `ical_extra` lines (`--drop-extra`).
    public var dropExtra = false
    /// Show records as "Busy" with their times only (`--redact`, `--redact-all`).
    public var redaction: Redaction?
    /// How much of each JSON and NDJSON record to read: `TaskJSON.Reading.timesOnly` for
    /// reports of times, which then neither build nor check the fields they do not show.
    public var reading = TaskJSON.Reading.whole
    /// Whether the records are given reshaped (expanded, without verbatim lines, redacted).
    var reshapes: Bool { expansion != nil || dropExtra || redaction != nil }
    /// The namespace of each input file when `uidScheme` has none (see ``UIDScheme``).
    public var namespaceOfFile: @Sendable (String) -> String = UIDScheme.defaultNamespace(
        forFile:)
    /// Readings chosen for unclear input (unknown zones, unreadable values, components left
    /// out) are errors instead of warnings (`--strict`).
    public var strict = false
    /// Every revision of a UID read as an event of its own (`--revisions all`), instead of
    /// the newest alone with the others kept with the calendar (``Revisions``).
    public var readsEveryRevision = false
    /// Plain events are read in one pass (``EventReader/readsPlainEvents``); the tests turn
    /// it off to compare.
    var readsPlainEvents = true

    /// Creates options.
    public init(
        format: Format? = nil, uidScheme: UIDScheme = UIDScheme(), floatingZone: String? = nil,
        extraction: AttachmentExtraction? = nil
    ) {
        self.format = format
        self.uidScheme = uidScheme
        self.floatingZone = floatingZone
        self.extraction = extraction
    }
}

/// The diagnostic for an input that cannot be opened or read.
func openFailure(_ path: String, _ error: ICalendarError) -> Diagnostic {
    Diagnostic(.error, Location(file: path), error.message, code: error.kind.code)
}
