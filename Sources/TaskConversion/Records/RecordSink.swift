import Foundation
import ICalendar
import TaskModel

/// Where converted records go, one at a time.
public protocol RecordSink: AnyObject {
    /// What the output says about its calendar (name, `METHOD`, zones it defines): set before
    /// the first record and again before ``finish()``; the sink writes it where its format
    /// puts it.
    var calendar: CalendarInfo { get set }
    /// Writes one record.
    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic)
    /// Writes `records` in order, as ``write(_:from:)`` would one by one: after the first
    /// that fails the rest are not written, unless `keepGoing`. Returns how many were written
    /// and why the others were not. A sink may do the work of several records at once (the
    /// .ics sink renders them on ``WriteOptions/parallelism`` threads).
    func write(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool) -> (
        written: Int, errors: [Diagnostic]
    )
    /// ``write(batch:keepGoing:)`` that may leave part of the work running while the caller
    /// gathers the next batch: it returns what was written by the time it returns (the batch
    /// submitted before, finished now, or this one), and ``completeBatches()`` the rest. The
    /// records come out in order and each is written or refused exactly as one by one; after
    /// a refusal without `keepGoing`, no later batch is written.
    func submit(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool) -> (
        written: Int, errors: [Diagnostic]
    )
    /// Writes what ``submit(batch:keepGoing:)`` left running and returns how it went; call it
    /// before anything else is written or the calendar data changes.
    func completeBatches() -> (written: Int, errors: [Diagnostic])
    /// Writes what closes the file and makes it visible (the rename of an atomic write).
    func finish() throws(Diagnostic)
    /// Drops everything written: a failed conversion leaves no output file.
    func abandon()
    /// The files ``finish()`` wrote when they are not the one path it was opened with (the
    /// parts of a split output).
    var writtenFiles: [String] { get }
    /// Warnings about the output, known once it is finished.
    var notes: [Diagnostic] { get }
    /// Every place whose record the sink changed on purpose and said so (`--for APP`'s
    /// repairs, said once per rule with the first place): what `--verify` counts as said.
    var changedPlaces: [Location] { get }
}

extension RecordSink {
    public func write(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool)
        -> (written: Int, errors: [Diagnostic])
    {
        writeOneByOne(records, keepGoing: keepGoing) { record, location, _ throws(Diagnostic) in
            try write(record, from: location)
        }
    }

    public func submit(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool)
        -> (written: Int, errors: [Diagnostic])
    {
        write(batch: records, keepGoing: keepGoing)
    }

    public func completeBatches() -> (written: Int, errors: [Diagnostic]) { (0, []) }

    public var writtenFiles: [String] { [] }
    public var notes: [Diagnostic] { [] }
    public var changedPlaces: [Location] { [] }
}

/// How to write outputs.
public struct WriteOptions: Sendable {
    /// The format, when the file name does not tell it (standard output).
    public var format: Format?
    /// How ids become UIDs.
    public var uidScheme = UIDScheme()
    /// `DTSTAMP` in Unix seconds.
    public var timestamp: Int64
    /// Write iCalendar times in this zone with a `VTIMEZONE` (default UTC).
    public var zone: String?
    /// What derived UIDs are unique to (`--uid-namespace`); `nil`: each input file's name
    /// (see ``UIDScheme``).
    public var uidNamespace: String?
    /// The namespace of each input file when no `uidNamespace` is given; by default its name
    /// without extension (batch mode gives its path inside the input folder).
    public var namespaceOfFile: @Sendable (String) -> String = UIDScheme.defaultNamespace(
        forFile:)
    /// The calendar's name on output (`--calendar-name`), replacing the inputs'.
    public var calendarName: String?
    /// The output file's mode (`nil`: 0666 less the umask, as for any new file).
    public var fileMode: mode_t?
    /// Write .ics in parts no larger than this (`--split-size`, `--split-count`): `out.ics`
    /// becomes `out-001.ics`, `out-002.ics`, …
    public var split: SplitLimit?
    /// Shape the .ics for this app (`--for`): see ``CalendarApp/shape(_:at:links:)``.
    public var app: CalendarApp?
    /// With `--for google`: inline attachments written to files in `directory` and linked as
    /// `baseURL/NAME` (`--extract-attachments DIR --attachment-base-url URL`).
    public var attachmentLinks: AttachmentLinks?
    /// Disabled alarms as `ACTION:NONE` `VALARM`s (for a CalDAV server), not `X-` components.
    public var disabledAlarmsAsActionNone = false
    /// Threads that render .ics records (`--jobs`); the bytes written are those of one.
    public var parallelism = 1
    /// The most bytes the output may take (`--max-output`; an expansion's default is
    /// ``OutputLimit/standard(reading:advice:)``): past it the conversion fails and writes
    /// nothing. With `split`, the parts together.
    public var outputLimit: OutputLimit?

    /// Creates options; `timestamp` defaults to `SOURCE_DATE_EPOCH` or now.
    public init(
        format: Format? = nil, uidScheme: UIDScheme = UIDScheme(),
        timestamp: Int64 = EventWriter.timestampFromEnvironment(), zone: String? = nil
    ) {
        self.format = format
        self.uidScheme = uidScheme
        self.timestamp = timestamp
        self.zone = zone
    }
}

/// ``RecordSink/write(batch:keepGoing:)`` through `write`, which gets each record with its
/// place in `records`.
func writeOneByOne(
    _ records: [(record: TaskRecord, location: Location)], keepGoing: Bool,
    _ write: (TaskRecord, Location, Int) throws(Diagnostic) -> Void
) -> (written: Int, errors: [Diagnostic]) {
    var written = 0
    var errors: [Diagnostic] = []
    for (index, (record, location)) in records.enumerated() {
        do throws(Diagnostic) {
            try write(record, location, index)
            written += 1
        } catch {
            errors.append(error)
            if !keepGoing { break }
        }
    }
    return (written, errors)
}

/// The calendar data as written: the inputs', with the name `--calendar-name` gives.
func named(_ calendar: CalendarInfo, _ name: String?) -> CalendarInfo {
    guard let name else { return calendar }
    var named = calendar
    named.setName(name)
    return named
}
