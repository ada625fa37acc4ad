import Foundation
import ICalendar
import TaskModel

/// One step of reading: a valid record with where it came from, or what was wrong with one.
public enum SourceItem {
    case record(TaskRecord, Location)
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
    /// Threads for parsing one large .ics file (``ParallelICSSource``); 1 reads on one thread.
    public var parallelism = 1
    /// .ics files smaller than this are read on one thread: splitting them does not pay.
    public var parallelMinimumBytes = 8 << 20
    /// Components per batch when parsing in parallel.
    public var parallelBatchSize = 1000
    /// Give repeating records as their occurrences in a window (`--expand`).
    public var expansion: Expansion?
    /// Leave out `ical_extra` lines (`--drop-extra`).
    public var dropExtra = false

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

/// Opens `path` (`-` is standard input) as a record source.
public func openRecordSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    let source = try openPlainSource(path, options: options)
    if options.expansion == nil && !options.dropExtra { return source }
    return ReshapingSource(source, expansion: options.expansion, dropExtra: options.dropExtra)
}

private func openPlainSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    let location = Location(file: path)
    guard let format = options.format ?? Format(path: path) else {
        throw Diagnostic(
            .error, location,
            "cannot tell the format from the file name; name it .json, .ndjson, .jsonl or .ics, or use --from json|ndjson|ics"
        )
    }
    switch format {
    case .json: return CalendarCheckSource(try JSONRecordSource(path: path))
    case .ndjson: return CalendarCheckSource(try NDJSONRecordSource(path: path))
    case .ics:
        if options.parallelism > 1, path != "-",
            let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int,
            size >= options.parallelMinimumBytes
        {
            return SubtaskNestingSource(
                try ParallelICSSource(path: path, options: options, workers: options.parallelism),
                uidScheme: options.uidScheme)
        }
        return SubtaskNestingSource(
            try ICSRecordSource(path: path, options: options), uidScheme: options.uidScheme)
    }
}

private func openFailure(_ path: String, _ error: ICalendarError) -> Diagnostic {
    Diagnostic(.error, Location(file: path), error.message)
}

/// A JSON array of records (or one record), read whole: JSON arrays cannot be streamed
/// without a streaming parser; NDJSON is the format for very large files.
final class JSONRecordSource: RecordSource {
    private let path: String
    private var results: [Result<TaskRecord, RecordProblems>]
    private var index = 0
    let warnings: [Diagnostic] = []

    init(path: String) throws(Diagnostic) {
        self.path = path
        let data: Data
        do {
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            throw Diagnostic(.error, Location(file: path), "cannot read: \(Self.reason(error))")
        }
        do {
            results = try TaskJSON.decodeFile(data)
        } catch {
            throw Diagnostic(.error, Location(file: path, line: error.line), error.message)
        }
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            posix.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(posix.code)))
        }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError {
            return "no such file"
        }
        return nsError.localizedDescription
    }

    func next() throws(Diagnostic) -> SourceItem? {
        guard index < results.count else { return nil }
        defer { index += 1 }
        switch results[index] {
        case .success(let record):
            return .record(record, Location(file: path, index: index))
        case .failure(let problems):
            return .failed(
                problems.problems.map {
                    Diagnostic(
                        .error, Location(file: path, index: index, field: $0.field), $0.message)
                })
        }
    }
}

/// One record per line, streamed.
final class NDJSONRecordSource: RecordSource {
    private let path: String
    private let lines: LineSource
    private var lineNumber = 0
    let warnings: [Diagnostic] = []

    init(path: String) throws(Diagnostic) {
        self.path = path
        do {
            lines = try LineSource(path: path)
        } catch {
            throw openFailure(path, error)
        }
    }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            let line: [UInt8]
            do {
                guard let next = try lines.nextLine(limit: 256 << 20, lineNumber: lineNumber + 1)
                else { return nil }
                line = next
            } catch {
                throw Diagnostic(.error, Location(file: path, line: error.line), error.message)
            }
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let location = Location(file: path, line: lineNumber)
            do {
                switch try TaskJSON.decodeLine(Data(line)) {
                case .success(let record):
                    return .record(record, location)
                case .failure(let problems):
                    return .failed(
                        problems.problems.map {
                            Diagnostic(
                                .error, Location(file: path, line: lineNumber, field: $0.field),
                                $0.message)
                        })
                }
            } catch {
                return .failed([Diagnostic(.error, location, error.message)])
            }
        }
    }
}

/// `VEVENT`s of an iCalendar file, one component at a time.
final class ICSRecordSource: RecordSource {
    private let path: String
    private let reader: ICalendarReader
    private let events: EventReader
    private(set) var warnings: [Diagnostic] = []

    init(path: String, options: ReadOptions) throws(Diagnostic) {
        self.path = path
        do {
            reader = try ICalendarReader(path: path)
        } catch {
            throw openFailure(path, error)
        }
        events = EventReader(
            uidScheme: options.uidScheme, floatingZone: options.floatingZone,
            extraction: options.extraction)
    }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                throw Diagnostic(.error, Location(file: path, line: error.line), error.message)
            }
            warnings += reader.takeNotes().map {
                Diagnostic(.warning, Location(file: path), "line \($0.line): \($0.message)")
            }
            switch item {
            case nil:
                return nil
            case .failed(let kind, let line, let errors)?:
                if kind != .event && kind != .todo && kind != .timeZone {
                    warnings.append(
                        Diagnostic(
                            .warning, Location(file: path, line: line),
                            "a \(kind) with errors was skipped"))
                    continue
                }
                return .failed(
                    errors.map {
                        Diagnostic(.error, Location(file: path, line: $0.line ?? line), $0.message)
                    })
            case .component(let component)?:
                guard component.kind == .event || component.kind == .todo else {
                    warnings.append(
                        Diagnostic(
                            .warning, Location(file: path, line: component.lineNumber),
                            "\(component.kind) is not converted: the task format holds events (VEVENT) and to-dos (VTODO)"
                        ))
                    continue
                }
                let (result, notes) = events.checkedRecord(
                    from: component, calendarZone: reader.calendarProperties["X-WR-TIMEZONE"],
                    file: path)
                warnings += notes.map { Diagnostic(.warning, Location(file: path), $0) }
                switch result {
                case .success(let record):
                    return .record(record, Location(file: path, line: component.lineNumber))
                case .failure(let failure): return .failed(failure.diagnostics)
                }
            }
        }
    }
}

/// The diagnostics of one component that could not become a record.
struct EventFailure: Error {
    var diagnostics: [Diagnostic]
}

extension EventReader {
    /// The record of `event`, checked against the task format's rules, or every problem with
    /// its line in `file`; plus warnings. Shared by the one-thread and the parallel readers.
    func checkedRecord(
        from event: Component, calendarZone: String?, file: String
    ) -> (Result<TaskRecord, EventFailure>, notes: [String]) {
        do {
            let (record, notes) = try record(from: event, calendarZone: calendarZone)
            var checked = record
            // The rules do not look at ids; a placeholder stands in for one given later.
            if checked.id == IDAllocator.unassigned { checked.id = 1 }
            let problems = checked.problems
            guard problems.isEmpty else {
                let diagnostics = problems.map {
                    Diagnostic(
                        .error, Location(file: file, line: event.lineNumber, field: $0.field),
                        $0.message)
                }
                return (.failure(EventFailure(diagnostics: diagnostics)), notes)
            }
            return (.success(record), notes)
        } catch {
            let diagnostics = error.errors.map {
                Diagnostic(
                    .error, Location(file: file, line: $0.line ?? event.lineNumber), $0.message)
            }
            return (.failure(EventFailure(diagnostics: diagnostics)), [])
        }
    }
}
