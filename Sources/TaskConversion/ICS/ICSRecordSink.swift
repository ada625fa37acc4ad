import Dispatch
import Foundation
import ICalendar
import Locking
import TaskModel

/// iCalendar out: the `VCALENDAR` opening (with the calendar's lines and `VTIMEZONE`s),
/// then each component serialized by libical as it comes, then the calendar's other
/// components and `END:VCALENDAR`. Nothing but the current record is in memory.
final class ICSRecordSink: RecordSink {
    private let output: OutputFile
    private var writer: EventWriter
    private let name: String?
    private var buffer: [UInt8] = []
    private var zonesWritten: Set<String> = []
    /// What each system zone's `VTIMEZONE` must cover: the instants written in it so far.
    private var spans: [String: ClosedRange<Int64>] = [:]
    /// The `VTIMEZONE`s written after the opening: where they are and what they say, to be
    /// replaced at the end by ones for the zone's whole span when later records widened it.
    private var zoneBlocks: [(zone: String, offset: Int, bytes: [UInt8])] = []
    /// Whether `VTIMEZONE`s cover only the instants the file uses (revised at the end), or
    /// everything from 1970 on: standard output cannot be revised once written.
    private var trimsZones: Bool { output.canRewrite }
    /// What the last record written took: the bytes of its components (without the zones
    /// written before them) and the zones it is written in, with their spans.
    private(set) var lastWritten = (bytes: 0, spans: [(zone: String, span: ClosedRange<Int64>)]())
    private var started = false
    /// The place of each journal entry whose `date_finish` was not written (iCalendar has no
    /// place for it): what `--verify` counts as said.
    private(set) var changedPlaces: [Location] = []
    /// What the output leaves out, said once with the first place.
    var notes: [Diagnostic] {
        guard let first = changedPlaces.first else { return [] }
        let said = Self.endLeftOut
        let more = changedPlaces.count - 1
        return [
            Diagnostic(.warning, first, more > 0 ? "\(said) (and \(more) more like it)" : said)
        ]
    }
    static let endLeftOut =
        "date_finish is not written: iCalendar gives a journal entry a date and no end (RFC 5545), so read back it ends at its start"
    /// The UID namespace and attachment folder of the file records last came from: worked
    /// out once a file, not once a record (a file URL costs a getcwd and a stat).
    private var source: (file: String, namespace: String, base: URL?)?
    /// `--uid-namespace`, when given; else each input file's own.
    private let namespace: String?
    private let namespaceOfFile: (String) -> String
    /// The opening written: its bytes, and the calendar data it holds.
    private var prefix = (bytes: [UInt8](), calendar: CalendarInfo())
    /// Threads that render records given as a batch.
    var workers = 1
    var calendar = CalendarInfo() {
        didSet {
            // A zone the calendar defines may be found only now: records need it.
            if calendar.icalComponents != oldValue.icalComponents {
                writer.zones =
                    (try? ZoneCatalog(calendar: named(calendar, name))) ?? writer.zones
            }
        }
    }

    init(
        _ output: OutputFile, writer: EventWriter, name: String?,
        namespaceOfFile: @escaping (String) -> String
    ) {
        self.output = output
        self.writer = writer
        self.name = name
        self.namespaceOfFile = namespaceOfFile
        namespace = writer.uidScheme.namespace
    }

    /// A sink into `output` with the writer `options` describe.
    convenience init(_ output: OutputFile, options: WriteOptions) {
        var writer = EventWriter(
            uidScheme: options.uidScheme, timestamp: options.timestamp, zone: options.zone)
        writer.uidScheme.namespace = options.uidNamespace
        writer.disabledAlarmsAsActionNone = options.disabledAlarmsAsActionNone
        self.init(
            output, writer: writer, name: options.calendarName,
            namespaceOfFile: options.namespaceOfFile)
        workers = max(1, options.parallelism)
    }

    private func opening(_ info: CalendarInfo) throws(Diagnostic) -> String {
        let header: Component
        do {
            writer.zones = try ZoneCatalog(calendar: info)
            // A zone no record is written in gets the rules in force at DTSTAMP.
            let now = writer.timestamp...writer.timestamp
            header = try writer.calendarHeader(
                info, zoneSpan: trimsZones ? writer.zone.flatMap { spans[$0] } ?? now : nil)
        } catch {
            throw Diagnostic(
                .error, Location(file: output.displayPath, field: "calendar"), error.message)
        }
        // libical prints the whole VCALENDAR; everything before its END line is the opening.
        var text = header.serialized()
        let end = "END:VCALENDAR\r\n"
        if text.hasSuffix(end) { text.removeLast(end.count) }
        return text
    }

    private func begin() throws(Diagnostic) {
        started = true
        let info = named(calendar, name)
        let text = try opening(info)
        try output.write(text)
        prefix = (Array(text.utf8), info)
        if let zone = writer.zone { zonesWritten.insert(zone) }
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        assert(flights.isEmpty)  // completeBatches() first
        try write(record, from: location, rendered: nil)
    }

    /// Writes `record`, whose events are `rendered` already (by ``render(_:writers:workers:)``)
    /// or, when `nil`, rendered here into the buffer.
    private func write(
        _ record: TaskRecord, from location: Location, rendered: Result<[UInt8], Diagnostic>?
    ) throws(Diagnostic) {
        let recordSpans = writer.zoneSpans(for: record)
        for (zone, span) in recordSpans {
            spans[zone] =
                spans[zone].map {
                    min($0.lowerBound, span.lowerBound)...max($0.upperBound, span.upperBound)
                } ?? span
        }
        if !started { try begin() }
        noteSource(location.file)
        setNamespace()
        buffer.removeAll(keepingCapacity: true)
        do {
            if let rendered {
                let events = try rendered.get()
                try writeZones(of: recordSpans)
                buffer += events
                lastWritten = (events.count, recordSpans)
            } else {
                let components = try writer.components(for: record, attachmentBase: source?.base)
                try writeZones(of: recordSpans)
                let zoneBytes = buffer.count
                for component in components { component.serialize(into: &buffer) }
                lastWritten = (buffer.count - zoneBytes, recordSpans)
            }
        } catch {
            throw Self.diagnostic(error, at: location)
        }
        try output.write(bytes: buffer)
        noteEndsLeftOut(of: record, at: location, path: "")
    }

    /// Notes each journal entry of `record` (itself or a subtask) that ends after its start:
    /// the writer gives it `DTSTART` alone.
    private func noteEndsLeftOut(of record: TaskRecord, at location: Location, path: String) {
        if record.kind == .journal && !record.unscheduled && record.dateFinish != record.dateStart {
            var place = location
            place.field = path + "date_finish"
            changedPlaces.append(place)
        }
        for (index, subtask) in record.subtasks.enumerated() {
            noteEndsLeftOut(of: subtask, at: location, path: path + "subtasks[\(index)].")
        }
    }

    /// Makes `file` the one records come from: its UID namespace and attachment folder.
    private func noteSource(_ file: String) {
        guard source?.file != file else { return }
        source = (
            file, namespace ?? namespaceOfFile(file),
            file == "-" ? nil : URL(fileURLWithPath: file).deletingLastPathComponent()
        )
    }

    /// Appends to `buffer` the `VTIMEZONE` of each zone of `recordSpans` that is used here
    /// first, before the events that need it.
    private func writeZones(of recordSpans: [(zone: String, span: ClosedRange<Int64>)]) throws {
        for (zone, _) in recordSpans where !zonesWritten.contains(zone) {
            let block = try TimeZones.vtimezone(
                named: zone, covering: trimsZones ? spans[zone] : nil)
            let start = buffer.count
            block.serialize(into: &buffer)
            zoneBlocks.append((zone, output.written + start, Array(buffer[start...])))
            zonesWritten.insert(zone)
        }
    }

    private static func diagnostic(_ error: any Error, at location: Location) -> Diagnostic {
        switch error {
        case let problem as Problem:
            Diagnostic(
                .error,
                Location(
                    file: location.file, line: location.line, index: location.index,
                    field: problem.field), problem.message)
        case let error as ICalendarError: Diagnostic(.error, location, error.message)
        case let diagnostic as Diagnostic: diagnostic
        default: Diagnostic(.error, location, "\(error)")
        }
    }

    /// Records rendered at once on ``workers`` threads; fewer are rendered on this one.
    static let parallelBatch = 64

    /// ``RecordSink/write(batch:keepGoing:)`` with each record's events rendered (built and
    /// serialized by libical, the most of writing) on ``workers`` threads, then written in
    /// order here exactly as ``write(_:from:)`` writes them: the same zones at the same
    /// places, the same bytes and the same failures as one by one.
    func write(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool) -> (
        written: Int, errors: [Diagnostic]
    ) {
        let submitted = submit(batch: records, keepGoing: keepGoing)
        let completed = completeBatches()
        return (submitted.written + completed.written, submitted.errors + completed.errors)
    }

    /// The batches being rendered on the workers while the caller gathers the next one,
    /// oldest first.
    private var flights: [RenderFlight] = []
    /// Batches rendered ahead of the one written: with one, the workers idled whenever they
    /// finished it before this thread had written the batch before and gathered the next.
    private static let flightsAhead = 2

    /// ``RecordSink/submit(batch:keepGoing:)``: this batch starts rendering on ``workers``
    /// threads in the background, and the oldest batch in flight beyond ``flightsAhead`` is
    /// written here. Before, this thread rendered its share, and the workers idled while it
    /// wrote a batch and gathered the next, so it set the pace (issue 13).
    func submit(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool) -> (
        written: Int, errors: [Diagnostic]
    ) {
        // The first batch written sets up the file (and the writer's zones with it): the
        // next is rendered with what that set up.
        var result: (written: Int, errors: [Diagnostic]) = started ? (0, []) : completeBatches()
        let next =
            workers > 1 && records.count >= Self.parallelBatch
            ? startRendering(records, keepGoing: keepGoing) : nil
        guard let next else {
            let completed = completeBatches()
            result = (result.written + completed.written, result.errors + completed.errors)
            if !keepGoing && !result.errors.isEmpty { return result }
            let now = writeOneByOne(records, keepGoing: keepGoing) {
                record, location, _ throws(Diagnostic) in
                try write(record, from: location)
            }
            return (result.written + now.written, result.errors + now.errors)
        }
        // One by one, nothing after a refusal is written: the batches rendering are dropped.
        if !keepGoing && !result.errors.isEmpty { return result }
        flights.append(next)
        while flights.count > Self.flightsAhead {
            let done = completeOldest()
            result = (result.written + done.written, result.errors + done.errors)
            if !keepGoing && !done.errors.isEmpty {
                flights.removeAll()
                break
            }
        }
        return result
    }

    /// Starts rendering `records`, each with the writer of its file: the namespace and
    /// attachment folder.
    private func startRendering(
        _ records: [(record: TaskRecord, location: Location)], keepGoing: Bool
    ) -> RenderFlight {
        var writers: [(writer: EventWriter, base: URL?)] = []
        writers.reserveCapacity(records.count)
        for (_, location) in records {
            noteSource(location.file)
            setNamespace()
            writers.append((writer, source?.base))
        }
        return RenderFlight(records, writers: writers, workers: workers, keepGoing: keepGoing)
    }

    /// Gives the writer the namespace of the file being written, when it has another: the
    /// writer's settings are shared with the records being rendered (copy on write), and
    /// setting them anew for each record copied them for each record.
    private func setNamespace() {
        let namespace = source?.namespace
        if writer.uidScheme.namespace != namespace { writer.uidScheme.namespace = namespace }
    }

    func completeBatches() -> (written: Int, errors: [Diagnostic]) {
        var result: (written: Int, errors: [Diagnostic]) = (0, [])
        while let oldest = flights.first {
            let done = completeOldest()
            result = (result.written + done.written, result.errors + done.errors)
            if !oldest.keepGoing && !done.errors.isEmpty {
                flights.removeAll()  // nothing after a refusal is written
                break
            }
        }
        return result
    }

    /// Writes the oldest batch in flight once it is rendered.
    private func completeOldest() -> (written: Int, errors: [Diagnostic]) {
        let flight = flights.removeFirst()
        let rendered = flight.results()
        return writeOneByOne(flight.records, keepGoing: flight.keepGoing) {
            record, location, index throws(Diagnostic) in
            try write(record, from: location, rendered: rendered[index])
        }
    }

    /// The serialized events of each record of a batch, or why it has none, rendered on
    /// `workers` threads in the background (each builds, serializes and frees its own
    /// libical trees).
    private final class RenderFlight: Sendable {
        let records: [(record: TaskRecord, location: Location)]
        let keepGoing: Bool
        private let group = DispatchGroup()
        private let rendered: Locked<[Result<[UInt8], Diagnostic>?]>

        init(
            _ records: [(record: TaskRecord, location: Location)],
            writers: [(writer: EventWriter, base: URL?)], workers: Int, keepGoing: Bool
        ) {
            self.records = records
            self.keepGoing = keepGoing
            rendered = Locked(.init(repeating: nil, count: records.count))
            // Four runs for each worker, taken by whichever thread is free: a thread still
            // decoding the next input batch does not hold up the whole batch.
            let runs = min(workers * 4, records.count)
            for run in 0..<runs {
                group.enter()
                DispatchQueue.global().async { [self] in
                    render(run: run, of: runs, writers: writers)
                    group.leave()
                }
            }
        }

        private func render(run: Int, of runs: Int, writers: [(writer: EventWriter, base: URL?)]) {
            let range = (records.count * run / runs)..<(records.count * (run + 1) / runs)
            var part: [Result<[UInt8], Diagnostic>] = []
            part.reserveCapacity(range.count)
            for index in range {
                let (record, location) = records[index]
                do {
                    let components = try writers[index].writer.components(
                        for: record, attachmentBase: writers[index].base)
                    var bytes: [UInt8] = []
                    for component in components { component.serialize(into: &bytes) }
                    part.append(.success(bytes))
                } catch {
                    part.append(.failure(diagnostic(error, at: location)))
                }
            }
            rendered.withLock { rendered in
                for (offset, result) in part.enumerated() {
                    rendered[range.lowerBound + offset] = result
                }
            }
        }

        /// Each record's events, once every run is done.
        func results() -> [Result<[UInt8], Diagnostic>] {
            group.wait()
            return rendered.withLock { $0.map { $0! } }
        }
    }

    func finish() throws(Diagnostic) {
        assert(flights.isEmpty)  // completeBatches() first
        if !started { try begin() }
        do {
            buffer.removeAll(keepingCapacity: true)
            for component in try writer.calendarTrailer(named(calendar, name)) {
                component.serialize(into: &buffer)
            }
            try output.write(bytes: buffer)
        } catch let error as ICalendarError {
            throw Diagnostic(
                .error, Location(file: output.displayPath, field: "calendar"), error.message)
        } catch let diagnostic as Diagnostic {
            throw diagnostic
        } catch {
            throw Diagnostic(.error, Location(file: output.displayPath), "\(error)")
        }
        try output.write("END:VCALENDAR\r\n")
        guard output.canRewrite else { return try output.commit() }
        // What was known only at the end: calendar data found after the first record (a
        // zone a later event defines), and the span of each zone over every record.
        var replacements: [(range: Range<Int>, bytes: [UInt8])] = []
        let opening = Array(try opening(named(calendar, name)).utf8)
        if opening != prefix.bytes {
            replacements.append((0..<prefix.bytes.count, opening))
        }
        for block in zoneBlocks {
            let final: [UInt8]
            do {
                final = Array(
                    try TimeZones.vtimezone(named: block.zone, covering: spans[block.zone])
                        .serialized().utf8)
            } catch {
                throw Diagnostic(
                    .error, Location(file: output.displayPath, field: "calendar"), error.message)
            }
            if final != block.bytes {
                replacements.append((block.offset..<block.offset + block.bytes.count, final))
            }
        }
        try output.commit(replacing: replacements)
    }

    func abandon() { output.abandon() }
}
