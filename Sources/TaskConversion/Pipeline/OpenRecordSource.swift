import Dispatch
import Foundation
import ICalendar
import Synchronization
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

/// Opens `path` (`-` is standard input) as a record source.
public func openRecordSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    let source = try openPlainSource(path, options: options)
    if !options.reshapes { return source }
    return ReshapingSource(source, options: options)
}

/// A record source over `bytes` in memory, named `name` in messages: what a file of that
/// format would give (the fuzz targets read this way).
public func openRecordSource(
    bytes: [UInt8], name: String, format: Format, options: ReadOptions
) throws(Diagnostic) -> any RecordSource {
    var options = options
    if options.uidScheme.namespace == nil {
        options.uidScheme.namespace = options.namespaceOfFile(name)
    }
    let plain: any RecordSource
    switch format {
    case .json:
        plain = CalendarCheckSource(
            try JSONRecordSource(data: Data(bytes), name: name, reading: options.reading))
    case .ndjson:
        plain = CalendarCheckSource(
            NDJSONRecordSource(bytes: bytes, name: name, reading: options.reading))
    case .jcal: plain = try JCalRecordSource(bytes: bytes, name: name, options: options)
    case .jscalendar:
        plain = SubtaskNestingSource(
            CalendarCheckSource(
                try JSCalendarRecordSource(bytes: bytes, name: name, options: options)),
            uidScheme: options.uidScheme)
    case .ics:
        plain = SubtaskNestingSource(
            ICSRecordSource(bytes: bytes, name: name, options: options),
            uidScheme: options.uidScheme)
    }
    if !options.reshapes { return plain }
    return ReshapingSource(plain, options: options)
}

private func openPlainSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    var options = options
    if options.uidScheme.namespace == nil {
        options.uidScheme.namespace = options.namespaceOfFile(path)
    }
    let location = Location(file: path)
    guard let format = options.format ?? Format(path: path) else {
        throw Diagnostic(
            .error, location,
            "cannot tell the format from the file name; name it .json, .ndjson, .jsonl, .ics, .jcal or .jscal.json, or use --input-format json|ndjson|ics|jcal|jscalendar",
            code: .usage)
    }
    switch format {
    case .json:
        return CalendarCheckSource(try JSONRecordSource(path: path, reading: options.reading))
    case .ndjson:
        // Lines are decoded on --jobs threads (outputs are the same as on one).
        return CalendarCheckSource(
            try NDJSONRecordSource(
                path: path, workers: path == "-" ? 1 : options.parallelism,
                reading: options.reading))
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
    case .jcal:
        return try JCalRecordSource(path: path, options: options)
    case .jscalendar:
        return SubtaskNestingSource(
            CalendarCheckSource(try JSCalendarRecordSource(path: path, options: options)),
            uidScheme: options.uidScheme)
    }
}

private func openFailure(_ path: String, _ error: ICalendarError) -> Diagnostic {
    Diagnostic(.error, Location(file: path), error.message, code: error.kind.code)
}

/// A JSON array of records (or one record, or the object form with calendar data), read
/// whole: JSON arrays cannot be streamed without a streaming parser; NDJSON is the format for
/// very large files.
final class JSONRecordSource: RecordSource {
    private let path: String
    private var results: [Result<TaskRecord, RecordProblems>]
    private var index = 0
    private var duplicates = DuplicateRecords()
    private var pendingProblems: [Problem]
    let warnings: [Diagnostic] = []
    let calendar: CalendarInfo

    convenience init(path: String, reading: TaskJSON.Reading = .whole) throws(Diagnostic) {
        try self.init(data: try Self.contents(of: path), name: path, reading: reading)
    }

    /// The whole of `path` (`-`: standard input), for formats read whole (JSON, jCal).
    static func contents(of path: String) throws(Diagnostic) -> Data {
        do {
            if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Diagnostic(
                .error, Location(file: path), "cannot read: \(Self.reason(error))", code: .io)
        }
    }

    /// One JSON value, the whole of a file read whole (jCal, JSCalendar); a syntax error
    /// names its line.
    static func document(_ bytes: [UInt8], name: String) throws(Diagnostic) -> JSONValue {
        let parsed = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONValue.SyntaxError) -> JSONValue in try JSONValue.parse(raw) }
        }
        let document: JSONValue
        switch parsed {
        case .success(let value): document = value
        case .failure(let error):
            let line = error.offset.map { offset in
                bytes[..<min(offset, bytes.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            }
            throw Diagnostic(
                .error, Location(file: name, line: line), "not JSON: \(error.reason)",
                code: .invalidJSON)
        }
        return document
    }

    init(data: Data, name path: String, reading: TaskJSON.Reading = .whole) throws(Diagnostic) {
        self.path = path
        do {
            let file = try TaskJSON.decodeFile(data, reading: reading)
            results = file.records
            calendar = file.calendar ?? CalendarInfo()
            pendingProblems = file.problems
        } catch {
            throw Diagnostic(
                .error, Location(file: path, line: error.line), error.message, code: .invalidJSON)
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
        if !pendingProblems.isEmpty {
            defer { pendingProblems = [] }
            return .failed(
                pendingProblems.map {
                    Diagnostic(.error, Location(file: path, field: $0.field), $0.message)
                })
        }
        guard index < results.count else { return nil }
        defer { index += 1 }
        let location = Location(file: path, index: index)
        switch results[index] {
        case .success(let record):
            if let duplicate = duplicates.check(record, at: location) {
                return .failed([duplicate])
            }
            return .record(record, location)
        case .failure(let problems):
            return .failed(
                problems.problems.map {
                    Diagnostic(
                        .error, Location(file: path, index: index, field: $0.field), $0.message)
                })
        }
    }
}

/// Two records of one input with the same `id`, or the same `uid`, that are not a series and
/// its changed occurrences: a calendar app would keep only one of them.
struct DuplicateRecords {
    /// A record's identity: its id or uid and the occurrence it changes, if any.
    private struct Key<Identity: Hashable>: Hashable {
        var identity: Identity
        var occurrence: Int64?
    }
    /// Where the first record of a key was: only what the message names (a record's index
    /// or line) in one word, so that a million records cost a million small entries: an
    /// index as itself, a line as `-1 - line`, neither as `Int.min`.
    private struct Place {
        private let code: Int

        init(_ location: Location) {
            if let index = location.index, index >= 0 {
                code = index
            } else if let line = location.line, line >= 0, line < Int.max {
                code = -1 - line
            } else {
                code = Int.min
            }
        }

        var description: String {
            if code >= 0 { return "record [\(code)]" }
            if code > Int.min { return "the record of line \(-1 - code)" }
            return "another record"
        }
    }
    /// Ids of records that change no occurrence (nearly all) by themselves: an `Int64` key
    /// hashes in one step and takes a third of the room of an id and an occurrence.
    private var ids: [Int64: Place] = [:]
    private var occurrenceIDs: [Key<Int64>: Place] = [:]
    private var uids: [Key<String>: Place] = [:]

    /// An error naming both records when `record` repeats an earlier one, else `nil`.
    mutating func check(_ record: TaskRecord, at location: Location) -> Diagnostic? {
        let first: Place?
        if let occurrence = record.recurrenceID {
            let key = Key(identity: record.id, occurrence: occurrence)
            first = occurrenceIDs[key]
            if first == nil { occurrenceIDs[key] = Place(location) }
        } else {
            // One look-up for the common case, a new id; a repeated one keeps the first place.
            first = ids.updateValue(Place(location), forKey: record.id)
            if let first { ids[record.id] = first }
        }
        if let first {
            return Diagnostic(
                .error,
                Location(
                    file: location.file, line: location.line, index: location.index, field: "id"),
                "id \(record.id) is also the id of \(first.description); each record needs its own id (a calendar app would keep one of them)",
                code: .duplicateID)
        }
        if let uid = record.uid {
            let uidKey = Key(identity: uid, occurrence: record.recurrenceID)
            if let first = uids[uidKey] {
                return Diagnostic(
                    .error,
                    Location(
                        file: location.file, line: location.line, index: location.index,
                        field: "uid"),
                    "uid '\(uid)' is also the uid of \(first.description); each record needs its own uid (a calendar app would keep one of them)",
                    code: .duplicateID)
            }
            uids[uidKey] = Place(location)
        }
        return nil
    }
}

/// One record per line, streamed; the first line may be the calendar's own data.
final class NDJSONRecordSource: RecordSource {
    private let path: String
    private let lines: LineSource
    private let workers: Int
    private let reading: TaskJSON.Reading
    private var lineNumber = 0
    private var duplicates = DuplicateRecords()
    let warnings: [Diagnostic] = []
    private(set) var calendar = CalendarInfo()

    /// One line read and decoded, ahead of being handed out.
    private typealias Decoded = (line: Int, result: Result<TaskJSON.Line, TaskJSON.SyntaxError>)
    /// The batch being handed out, last line first: each is taken with `popLast`, which
    /// moves it out instead of copying a record and releasing it later.
    private var ready: [Decoded] = []
    /// A line that could not be read (too long, say): thrown once the lines before it are out.
    private var pendingFailure: Diagnostic?
    private var finishedReading = false

    /// Lines decoded at once; on several `workers` they are split into one run each.
    static let batchSize = 2_048

    /// A batch being decoded in the background while the one before it is handed out.
    private final class InFlight: Sendable {
        let group = DispatchGroup()
        let runs: Mutex<[[Decoded]]>
        let failure: Diagnostic?
        init(runs: Int, failure: Diagnostic?) {
            self.runs = Mutex([[Decoded]](repeating: [], count: runs))
            self.failure = failure
        }
    }
    /// The batches being decoded, oldest first: while the main thread waits for the oldest
    /// or reads the lines of the next, the workers have the one after it to decode.
    private var inFlight: [InFlight] = []
    /// Batches kept in flight on several workers.
    private static let batchesAhead = 4

    init(path: String, workers: Int = 1, reading: TaskJSON.Reading = .whole) throws(Diagnostic) {
        self.path = path
        self.workers = max(1, workers)
        self.reading = reading
        do {
            lines = try LineSource(path: path)
        } catch {
            throw openFailure(path, error)
        }
    }

    init(bytes: [UInt8], name: String, reading: TaskJSON.Reading = .whole) {
        path = name
        workers = 1
        self.reading = reading
        lines = LineSource(bytes: bytes)
    }

    /// The next lines that are not blank, up to ``batchSize``, and the failure that stopped
    /// them, if one did; `finishedReading` once the file has no more.
    private func readBatch() -> (lines: [(line: Int, bytes: [UInt8])], failure: Diagnostic?) {
        var batch: [(line: Int, bytes: [UInt8])] = []
        while batch.count < Self.batchSize {
            let line: [UInt8]
            do {
                guard
                    let next = try lines.nextLine(
                        limit: ReadingLimits.lineLength, lineNumber: lineNumber + 1)
                else {
                    finishedReading = true
                    break
                }
                line = next
            } catch {
                finishedReading = true
                return (
                    batch,
                    Diagnostic(
                        .error, Location(file: path, line: error.line), error.message,
                        code: error.kind.code)
                )
            }
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            batch.append((lineNumber, line))
        }
        return (batch, nil)
    }

    private static func decode(
        _ lines: ArraySlice<(line: Int, bytes: [UInt8])>, reading: TaskJSON.Reading
    ) -> [Decoded] {
        lines.map { item in
            (
                item.line,
                Result { () throws(TaskJSON.SyntaxError) in
                    try TaskJSON.decodeNDJSONLine(Data(item.bytes), reading: reading)
                }
            )
        }
    }

    /// Reads the next batch and starts decoding it on `workers` threads.
    private func startBatch() {
        let (batch, failure) = readBatch()
        let runs = max(1, min(workers, batch.count))
        let flight = InFlight(runs: runs, failure: failure)
        let reading = reading
        for run in 0..<runs {
            let part = batch[(batch.count * run / runs)..<(batch.count * (run + 1) / runs)]
            flight.group.enter()
            DispatchQueue.global().async {
                let decoded = Self.decode(part, reading: reading)
                flight.runs.withLock { $0[run] = decoded }
                flight.group.leave()
            }
        }
        inFlight.append(flight)
    }

    /// Makes the next batch ready. On one worker the lines are decoded here; on several,
    /// each batch is decoded in the background while the one before it is handed out (each
    /// line's result depends on no other, so the records, messages and their order are
    /// those of one thread).
    private func fill() {
        guard workers > 1 else {
            let (batch, failure) = readBatch()
            ready = Self.decode(batch[...], reading: reading)
            ready.reverse()
            pendingFailure = failure
            return
        }
        while inFlight.count < Self.batchesAhead && !finishedReading { startBatch() }
        guard !inFlight.isEmpty else { return }
        let flight = inFlight.removeFirst()
        flight.group.wait()
        var runs = flight.runs.withLock { runs in
            defer { runs = [] }
            return runs
        }
        while var run = runs.popLast() {
            while let line = run.popLast() { ready.append(line) }
        }
        pendingFailure = flight.failure
        // A batch that met a failure is the last one read, so nothing is in flight after it.
        if !finishedReading { startBatch() }
    }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            guard let (number, result) = ready.popLast() else {
                if let failure = pendingFailure {
                    pendingFailure = nil
                    finishedReading = true
                    inFlight = []
                    throw failure
                }
                if finishedReading && inFlight.isEmpty { return nil }
                fill()
                continue
            }
            let location = Location(file: path, line: number)
            func failed(_ problems: RecordProblems) -> SourceItem {
                .failed(
                    problems.problems.map {
                        Diagnostic(
                            .error, Location(file: path, line: number, field: $0.field),
                            $0.message)
                    })
            }
            switch consume result {
            case .failure(let error):
                return .failed([Diagnostic(.error, location, error.message, code: .invalidJSON)])
            case .success(.calendar(let info)) where number == 1:
                calendar = info
                continue
            case .success(.invalidCalendar(let problems)):
                return failed(problems)
            case .success(.calendar):
                return .failed([
                    Diagnostic(
                        .error, location, "calendar data belongs on the first line of NDJSON")
                ])
            case .success(.record(.success(let record))):
                if let duplicate = duplicates.check(record, at: location) {
                    return .failed([duplicate])
                }
                return .record(record, location)
            case .success(.record(.failure(let problems))):
                return failed(problems)
            }
        }
    }
}

/// Events, to-dos and journal entries of an iCalendar file, one component at a time.
final class ICSRecordSource: RecordSource {
    private let path: String
    private let reader: ICalendarReader
    private let digest: ICSDigest
    private var order = FileOrder()

    var warnings: [Diagnostic] { digest.warnings }
    var calendar: CalendarInfo { digest.calendar }

    init(path: String, options: ReadOptions) throws(Diagnostic) {
        self.path = path
        do {
            reader = try ICalendarReader(path: path)
        } catch {
            throw openFailure(path, error)
        }
        digest = ICSDigest(
            path: path, reader: reader, options: options,
            lookahead: path == "-" ? nil : ICSLookahead.zones(in: path))
    }

    init(bytes: [UInt8], name: String, options: ReadOptions) {
        path = name
        reader = ICalendarReader(bytes: bytes)
        digest = ICSDigest(
            path: name, reader: reader, options: options,
            lookahead: { ICSLookahead.zones(of: LineSource(bytes: bytes)) })
    }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                throw Diagnostic(
                    .error, Location(file: path, line: error.line), error.message,
                    code: error.kind.code)
            }
            digest.takeReaderNotes()
            guard let item else { return nil }
            if var result = digest.digest(item) {
                if case .record(var record, let location) = result {
                    if let warning = order.order(
                        &record, location: location, scheme: digest.events.uidScheme)
                    {
                        digest.warn(warning)
                    }
                    result = .record(record, location)
                }
                return result
            }
        }
    }
}

/// What one .ics input gives, turned into source items: each component through the
/// ``EventReader``, the calendar's own lines, the zones it keeps, the components the task
/// format has no records for, and every note as a warning (or, under `--strict`, an error).
///
/// Used by the one-thread reader and by each batch of the parallel one; ``order(_:line:ids:)``
/// runs in file order on one thread (fresh ids, duplicate UIDs).
final class ICSDigest {
    let path: String
    let reader: ICalendarReader
    let events: EventReader
    let zones: ZoneResolver
    private(set) var warnings: [Diagnostic] = []
    /// Components kept whole at the calendar level (`VFREEBUSY`, `X-…`).
    private(set) var keptComponents: [String] = []
    /// ``calendar`` as last made, and the sizes of what it was made from.
    private var cachedCalendar: (made: (Int, Int, Int), info: CalendarInfo)?
    private var seenWarnings = Set<String>()

    init(
        path: String, reader: ICalendarReader, options: ReadOptions,
        lookahead: (@Sendable () -> [UInt8]?)?
    ) {
        self.path = path
        self.reader = reader
        reader.interpretedProperties = RecordMapping.interpreted
        reader.strict = options.strict
        events = EventReader(uidScheme: options.uidScheme, extraction: options.extraction)
        events.strict = options.strict
        events.readsPlainEvents = options.readsPlainEvents
        zones = ZoneResolver(chosenZone: options.floatingZone, reader: reader, lookahead: lookahead)
    }

    /// The calendar data read so far: calendar-level lines (but those taskcal writes),
    /// the zones kept, and the components kept.
    var calendar: CalendarInfo {
        // Asked for every record; what it is made of only grows, so it is made again only
        // when one of the three has (lexing the calendar's lines per record cost 1.5%).
        let made = (reader.calendarLines.count, zones.keptDefinitions.count, keptComponents.count)
        if let cachedCalendar, cachedCalendar.made == made { return cachedCalendar.info }
        var info = CalendarInfo()
        defer { cachedCalendar = (made, info) }
        for raw in reader.calendarLines {
            let text = raw.text
            guard let name = try? raw.lexed().name,
                !EventWriter.ownCalendarProperties.contains(name), !info.icalExtra.contains(text)
            else { continue }
            info.icalExtra.append(text)
        }
        info.icalComponents =
            zones.keptDefinitions.keys.sorted().compactMap {
                zones.keptDefinitions[$0]
            } + keptComponents
        return info
    }

    /// The reader's notes (empty values left out, values repaired) as warnings.
    func takeReaderNotes() {
        for note in reader.takeNotes() {
            let code: DiagnosticCode =
                switch note.kind {
                case .emptyValue: .emptyValue
                case .repairedValue: .repairedValue
                case .leftOut: .leftOut
                case .structure: .structure
                }
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: note.line), note.message, code: code))
        }
    }

    func warn(_ diagnostic: Diagnostic) {
        // The same warning for every component of a file says nothing new: once per line.
        if seenWarnings.insert(diagnostic.description).inserted { warnings.append(diagnostic) }
    }

    /// The source item for one item of the reader, or `nil` when it gives none.
    func digest(_ item: ICalendarReader.Item) -> SourceItem? {
        if zones.calendarZone == nil, let text = reader.calendarProperties["X-WR-TIMEZONE"] {
            zones.calendarZone = TimeZones.ianaName(forTZID: text)
        }
        switch item {
        case .verbatim(let raw):
            keptComponents.append(raw.text)
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: raw.line),
                    "\(raw.name) has no place among the records; kept with the calendar",
                    code: .notConverted))
            return nil
        case .failed(let kind, let line, let errors):
            if kind == .timeZone {
                return .failed(
                    errors.map {
                        Diagnostic(
                            .error, Location(file: path, line: $0.line ?? line), $0.message,
                            code: .zoneRefused)
                    })
            }
            return .failed(
                errors.map {
                    Diagnostic(
                        .error, Location(file: path, line: $0.line ?? line), $0.message,
                        code: $0.kind.code)
                })
        case .component(let component):
            guard [.event, .todo, .journal].contains(component.kind) else {
                if let text = try? Component.verbatim(component.serialized()) {
                    keptComponents.append(text.serialized())
                }
                warn(
                    Diagnostic(
                        .warning, Location(file: path, line: component.lineNumber),
                        "\(component.kind) has no place among the records; kept with the calendar",
                        code: .notConverted))
                return nil
            }
            let outcome = events.read(component, zones: zones)
            for note in outcome.notes {
                warn(
                    Diagnostic(
                        .warning, Location(file: path, line: note.line ?? component.lineNumber),
                        note.message, code: note.code))
            }
            if !outcome.errors.isEmpty {
                return .failed(
                    outcome.errors.map {
                        Diagnostic(
                            .error, Location(file: path, line: $0.line ?? component.lineNumber),
                            $0.message, code: $0.code)
                    })
            }
            guard let record = outcome.record else { return nil }
            // The rules do not look at ids; a placeholder stands in for one given later (in a
            // copy: setting the id of a record the outcome still shares copies its fields).
            let problems: [Problem]
            if record.id == IDAllocator.unassigned {
                var placeholder = record
                placeholder.id = 1
                problems = placeholder.problems
            } else {
                problems = record.problems
            }
            guard problems.isEmpty else {
                // A component whose reading breaks the task format's rules cannot become a
                // record: left out (refused under --strict), the rest of the file converts.
                let diagnostics = problems.map {
                    Diagnostic(
                        events.strict ? .error : .warning,
                        Location(file: path, line: component.lineNumber, field: $0.field),
                        events.strict
                            ? $0.message
                            : "the \(component.kind) of line \(component.lineNumber ?? 0) is left out: \($0.message)",
                        code: .componentSkipped)
                }
                if events.strict { return .failed(diagnostics) }
                diagnostics.forEach(warn)
                return nil
            }
            return .record(record, Location(file: path, line: component.lineNumber))
        }
    }

    /// Adds warnings found elsewhere (a parallel batch), once each.
    func absorb(_ diagnostics: [Diagnostic]) {
        diagnostics.forEach(warn)
    }
}

/// What must happen in file order, on one thread, to the records of one .ics input: a fresh
/// id where one is owed (parallel batches leave it to this), and a UID of its own for a
/// second component with a UID seen before (without `RECURRENCE-ID`), which calendar apps
/// would otherwise drop.
struct FileOrder {
    private var ids = IDAllocator()
    /// The line of the first component of each UID: a UID the scheme derives from an id is
    /// known by the id (making and hashing its 45-byte String for every record was a sixth
    /// of the main thread's work when reading an .ics on two cores), any other by its text.
    private var derivedUIDs: [Int64: Int] = [:]
    private var uids: [String: Int] = [:]

    /// Orders `record`; a warning when its UID was renamed.
    mutating func order(_ record: inout TaskRecord, location: Location, scheme: UIDScheme)
        -> Diagnostic?
    {
        if record.id == IDAllocator.unassigned {
            ids.assign(to: &record)
        } else {
            ids.saw(record.id)
        }
        let line = location.line ?? 0
        let first: Int
        if record.recurrenceID == nil, let id = Self.derivedID(of: record, scheme: scheme) {
            guard let seen = derivedUIDs[id] else {
                derivedUIDs[id] = line
                return nil
            }
            first = seen
        } else {
            let uid = record.uid ?? scheme.uid(for: record.id)
            // The UID alone unless the record is one occurrence (no empty String appended).
            let key = record.recurrenceID.map { uid + "@\($0)" } ?? uid
            guard let seen = uids[key] else {
                uids[key] = line
                return nil
            }
            first = seen
        }
        let uid = record.uid ?? scheme.uid(for: record.id)
        let renamed = "\(uid)-\(line)"
        record.uid = renamed
        record.id = ids.next()
        let what = record.recurrenceID == nil ? "UID" : "UID and RECURRENCE-ID"
        return Diagnostic(
            .warning, location,
            "this component has the \(what) of the one of line \(first); it was given id \(record.id) and the UID \(renamed), so that both are kept",
            code: .duplicateUID)
    }

    /// The id whose derived UID is the record's UID, or `nil` when the record's UID is not
    /// one the scheme derives: two records have the same UID exactly when both are derived
    /// from one id or both are the same other text (a derived UID is never kept as text).
    private static func derivedID(of record: TaskRecord, scheme: UIDScheme) -> Int64? {
        guard let uid = record.uid else { return record.id }
        guard uid.utf8.starts(with: "taskcal-".utf8), let parsed = scheme.parse(uid),
            parsed.isDerived
        else { return nil }
        return parsed.id
    }
}

/// Reading a file's `VTIMEZONE`s ahead, for a `TZID` used before its definition.
enum ICSLookahead {
    /// A closure that scans the file at `path` once for its `VTIMEZONE` blocks.
    static func zones(in path: String) -> @Sendable () -> [UInt8]? {
        {
            guard let lines = try? LineSource(path: path) else { return nil }
            return zones(of: lines)
        }
    }

    /// The `VTIMEZONE` blocks of the lines of `lines`.
    static func zones(of lines: LineSource) -> [UInt8]? {
        do {  // a line past the limit ends the look ahead; the reader reports it in turn
            var result: [UInt8] = []
            var inside = false
            var number = 0
            while let line = try? lines.nextLine(
                limit: ReadingLimits.lineLength, lineNumber: number + 1)
            {
                number += 1
                let upper = String(decoding: line.prefix(20), as: UTF8.self).uppercased()
                if upper.hasPrefix("BEGIN:VTIMEZONE") { inside = true }
                if inside {
                    result += line
                    result += [0x0D, 0x0A]
                }
                if upper.hasPrefix("END:VTIMEZONE") { inside = false }
            }
            return result
        }
    }
}
