import Dispatch
import Foundation
import ICalendar
import Locking
import TaskModel

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

    /// Lines decoded at once on several `workers`, split into one run each.
    static let batchSize = 2_048
    /// Lines decoded at once on one: a record is written soon after it is decoded, while what
    /// it was decoded into is still in the caches. With 2,048, as on several, a record was
    /// decoded some 2 MB of records before it was written; writing made 7% more L1 data
    /// misses and 40% more last-level ones, and held 5 MB more (issue 59).
    static let serialBatchSize = 64

    /// A batch being decoded in the background while the one before it is handed out.
    private final class InFlight: Sendable {
        let group = DispatchGroup()
        let runs: Locked<[[Decoded]]>
        let failure: Diagnostic?
        init(runs: Int, failure: Diagnostic?) {
            self.runs = Locked([[Decoded]](repeating: [], count: runs))
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

    /// Lines read at once: their bytes in one array, and the number and place there of each
    /// that is not blank.
    private struct LineBatch: Sendable {
        var text: [UInt8] = []
        var lines: [(number: Int, range: Range<Int>)] = []
    }

    /// The next lines, up to ``batchSize`` of them (``serialBatchSize`` on one worker) or
    /// 4 MB, and the failure that stopped them, if one did; `finishedReading` once the file
    /// has no more.
    private func readBatch() -> (batch: LineBatch, failure: Diagnostic?) {
        let (text, ranges, failure) = lines.nextLines(
            workers > 1 ? Self.batchSize : Self.serialBatchSize,
            limit: ReadingLimits.lineLength, firstLineNumber: lineNumber + 1)
        var batch = LineBatch()
        batch.lines.reserveCapacity(ranges.count)
        text.withUnsafeBufferPointer { text in
            for (offset, range) in ranges.enumerated()
            where !text[range].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                batch.lines.append((lineNumber + 1 + offset, range))
            }
        }
        batch.text = text
        lineNumber += ranges.count
        guard let failure else {
            if ranges.isEmpty { finishedReading = true }
            return (batch, nil)
        }
        finishedReading = true
        return (
            batch,
            Diagnostic(
                .error, Location(file: path, line: failure.line), failure.message,
                code: failure.kind.code)
        )
    }

    /// The lines of `batch` in `part`, decoded.
    private static func decode(
        _ batch: LineBatch, _ part: Range<Int>, reading: TaskJSON.Reading
    ) -> [Decoded] {
        batch.text.withUnsafeBytes { text in
            batch.lines[part].map { line in
                (
                    line.number,
                    Result { () throws(TaskJSON.SyntaxError) in
                        try TaskJSON.decodeNDJSONLine(
                            UnsafeRawBufferPointer(rebasing: text[line.range]), reading: reading)
                    }
                )
            }
        }
    }

    /// Reads the next batch and starts decoding it on `workers` threads.
    private func startBatch() {
        let (batch, failure) = readBatch()
        let count = batch.lines.count
        let runs = max(1, min(workers, count))
        let flight = InFlight(runs: runs, failure: failure)
        let reading = reading
        for run in 0..<runs {
            let part = (count * run / runs)..<(count * (run + 1) / runs)
            flight.group.enter()
            DispatchQueue.global().async {
                let decoded = Self.decode(batch, part, reading: reading)
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
            ready = Self.decode(batch, batch.lines.indices, reading: reading)
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
