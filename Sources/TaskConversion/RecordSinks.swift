import Foundation
import ICalendar
import TaskModel

/// Where converted records go, one at a time.
public protocol RecordSink: AnyObject {
    /// Writes one record.
    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic)
    /// Writes what closes the file and makes it visible (the rename of an atomic write).
    func finish() throws(Diagnostic)
    /// Drops everything written: a failed conversion leaves no output file.
    func abandon()
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

/// Opens `path` (`-` is standard output) for writing records.
public func openRecordSink(_ path: String, options: WriteOptions) throws(Diagnostic)
    -> any RecordSink
{
    guard let format = options.format ?? Format(path: path) else {
        throw Diagnostic(
            .error, Location(file: path),
            "cannot tell the output format from the file name; name it .json, .ndjson, .jsonl or .ics, or use --to json|ndjson|ics"
        )
    }
    let output = try OutputFile(path: path)
    switch format {
    case .json: return JSONRecordSink(output)
    case .ndjson: return NDJSONRecordSink(output)
    case .ics:
        let writer = EventWriter(
            uidScheme: options.uidScheme, timestamp: options.timestamp, zone: options.zone)
        return try ICSRecordSink(output, writer: writer)
    }
}

final class JSONRecordSink: RecordSink {
    private let output: OutputFile
    private var count = 0

    init(_ output: OutputFile) { self.output = output }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        try output.write(count == 0 ? "[\n" : ",\n")
        try output.write(record.jsonLine)
        count += 1
    }

    func finish() throws(Diagnostic) {
        try output.write(count == 0 ? "[]\n" : "\n]\n")
        try output.commit()
    }

    func abandon() { output.abandon() }
}

final class NDJSONRecordSink: RecordSink {
    private let output: OutputFile

    init(_ output: OutputFile) { self.output = output }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        try output.write(record.jsonLine)
        try output.write("\n")
    }

    func finish() throws(Diagnostic) { try output.commit() }

    func abandon() { output.abandon() }
}

/// iCalendar out: the `VCALENDAR` opening (with `VTIMEZONE`), then each `VEVENT` serialized
/// by libical as it comes, then `END:VCALENDAR`. Nothing but the current event is in memory.
final class ICSRecordSink: RecordSink {
    private let output: OutputFile
    private let writer: EventWriter
    private var buffer: [UInt8] = []
    private var zonesWritten: Set<String> = []

    init(_ output: OutputFile, writer: EventWriter) throws(Diagnostic) {
        self.output = output
        self.writer = writer
        let header: Component
        do {
            header = try writer.calendarHeader()
        } catch {
            output.abandon()
            throw Diagnostic(.error, Location(file: output.displayPath), error.message)
        }
        // libical prints the whole VCALENDAR; everything before its END line is the opening.
        var text = header.serialized()
        let end = "END:VCALENDAR\r\n"
        if text.hasSuffix(end) { text.removeLast(end.count) }
        try output.write(text)
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        var components: [Component]
        do {
            let base =
                location.file == "-"
                ? nil : URL(fileURLWithPath: location.file).deletingLastPathComponent()
            components = try writer.components(for: record, attachmentBase: base)
            // A zone first used here is defined here, before the events that need it.
            let zones = writer.extraZones(for: record).filter { !zonesWritten.contains($0) }
            for zone in zones {
                components.insert(try TimeZones.vtimezone(named: zone), at: 0)
                zonesWritten.insert(zone)
            }
        } catch let problem as Problem {
            throw Diagnostic(
                .error,
                Location(
                    file: location.file, line: location.line, index: location.index,
                    field: problem.field), problem.message)
        } catch let error as ICalendarError {
            throw Diagnostic(.error, location, error.message)
        } catch {
            throw Diagnostic(.error, location, "\(error)")
        }
        buffer.removeAll(keepingCapacity: true)
        for component in components { component.serialize(into: &buffer) }
        try output.write(bytes: buffer)
    }

    func finish() throws(Diagnostic) {
        try output.write("END:VCALENDAR\r\n")
        try output.commit()
    }

    func abandon() { output.abandon() }
}
