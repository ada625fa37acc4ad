import Dispatch
import Foundation
import ICalendar
import Synchronization
import TaskModel

/// `VEVENT`s of one large .ics file parsed on several cores, handed out in file order.
///
/// The main thread splits the stream at top-level component boundaries into batches of
/// contiguous lines (cheap: it only looks at `BEGIN`/`END`); each batch is parsed by its own
/// ``ICalendarReader`` on a worker, with every `VTIMEZONE` seen before it, and numbered with
/// the file's own line numbers. A round of batches is parsed at once and then handed out in
/// order, so memory stays bounded. Fresh ids for foreign UIDs are given here, in file order,
/// exactly as the one-thread reader gives them.
final class ParallelICSSource: RecordSource {
    private let path: String
    private let options: ReadOptions
    private let lines: LineSource
    private let workers: Int

    private var lineNumber = 0
    private var depth = 0
    private var zones: [UInt8] = []
    private var calendarZone: String?
    private var finishedReading = false
    private var sawCalendarData = false
    private var pendingLine: (bytes: [UInt8], number: Int)?

    private var ready: [SourceItem] = []
    private var readyIndex = 0
    private var ids = IDAllocator()
    private var seenWarnings = Set<String>()
    private var fatal: Diagnostic?
    private(set) var warnings: [Diagnostic] = []

    init(path: String, options: ReadOptions, workers: Int) throws(Diagnostic) {
        self.path = path
        self.options = options
        self.workers = max(1, workers)
        do {
            lines = try LineSource(path: path)
        } catch {
            throw Diagnostic(.error, Location(file: path), error.message)
        }
    }

    /// A round being parsed in the background.
    private final class InFlight: Sendable {
        let group = DispatchGroup()
        let results: Mutex<[BatchResult?]>
        init(count: Int) { results = Mutex([BatchResult?](repeating: nil, count: count)) }
    }
    private var inFlight: InFlight?

    func next() throws(Diagnostic) -> SourceItem? {
        while readyIndex >= ready.count {
            if inFlight == nil {
                if finishedReading {
                    if let fatal {
                        self.fatal = nil
                        throw fatal
                    }
                    return nil
                }
                inFlight = dispatch(try splitRound())
            }
            // Split and start the next round before waiting for this one, so the workers
            // parse while this thread splits and the caller writes.
            let current = inFlight!
            inFlight = finishedReading ? nil : dispatch(try splitRound())
            current.group.wait()
            absorb(current.results.withLock { $0 })
            if fatal != nil && finishedReading && inFlight != nil {
                inFlight?.group.wait()  // a worker's damage ends the file: later rounds are dropped
                inFlight = nil
            }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    // MARK: - Splitting

    private struct Batch: Sendable {
        var bytes: [UInt8]
        var firstLine: Int
        var zones: [UInt8]
        var calendarZone: String?
    }

    /// The next physical line, with its number.
    private func nextLine() throws(Diagnostic) -> ([UInt8], Int)? {
        if let pending = pendingLine {
            pendingLine = nil
            return (pending.bytes, pending.number)
        }
        do {
            guard let line = try lines.nextLine(limit: 1 << 20, lineNumber: lineNumber + 1) else {
                return nil
            }
            lineNumber += 1
            return (line, lineNumber)
        } catch {
            throw Diagnostic(.error, Location(file: path, line: error.line), error.message)
        }
    }

    private static func keyword(_ line: [UInt8]) -> (isBegin: Bool, isEnd: Bool, name: String) {
        // Most lines are properties: decide on the first byte before making any string.
        guard let first = line.first,
            first | 0x20 == UInt8(ascii: "b") || first | 0x20 == UInt8(ascii: "e")
        else {
            return (false, false, "")
        }
        let text = String(decoding: line.prefix(40), as: UTF8.self).uppercased()
        if text.hasPrefix("BEGIN:") {
            return (true, false, String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        }
        if text.hasPrefix("END:") {
            return (false, true, String(text.dropFirst(4)).trimmingCharacters(in: .whitespaces))
        }
        return (false, false, "")
    }

    /// Reads up to one round of batches.
    private func splitRound() throws(Diagnostic) -> [Batch] {
        var batches: [Batch] = []
        var current: [UInt8] = []
        var currentFirst = 0
        var components = 0
        var inZone = false
        var zoneText: [UInt8] = []
        func close() {
            if !current.isEmpty {
                batches.append(
                    Batch(
                        bytes: current, firstLine: currentFirst, zones: zones,
                        calendarZone: calendarZone))
            }
            current = []
            components = 0
        }
        while batches.count < workers * 2 {
            guard let (line, number) = try nextLine() else {
                finishedReading = true
                break
            }
            let word = Self.keyword(line)
            if depth == 1 && !word.isBegin && !word.isEnd {
                // A calendar-level property: not part of any batch.
                close()
                let text = String(decoding: line, as: UTF8.self)
                if text.uppercased().hasPrefix("X-WR-TIMEZONE:") {
                    calendarZone = String(text.dropFirst(14))
                }
                continue
            }
            if word.isBegin && word.name == "VCALENDAR" && depth == 0 {
                close()
                depth = 1
                sawCalendarData = true
                continue
            }
            if word.isEnd && word.name == "VCALENDAR" && depth == 1 {
                close()
                depth = 0
                continue
            }
            if depth == 0 && !word.isBegin {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                close()
                fatal = Diagnostic(
                    .error, Location(file: path, line: number),
                    "expected BEGIN:VCALENDAR, found '\(String(decoding: line.prefix(60), as: UTF8.self))'"
                )
                finishedReading = true
                break
            }
            let topLevel = depth <= 1
            if word.isBegin {
                if topLevel {
                    sawCalendarData = true
                    if word.name == "VTIMEZONE" {
                        close()
                        inZone = true
                        zoneText = []
                    } else if current.isEmpty {
                        currentFirst = number
                    }
                }
                depth += 1
            } else if word.isEnd {
                depth -= 1
            }
            if inZone {
                zoneText.append(contentsOf: line)
                zoneText.append(contentsOf: [0x0D, 0x0A])
                if word.isEnd && depth <= 1 {
                    zones += zoneText
                    inZone = false
                }
            } else {
                current.append(contentsOf: line)
                current.append(contentsOf: [0x0D, 0x0A])
                if word.isEnd && depth <= 1 {
                    components += 1
                    if components >= options.parallelBatchSize { close() }
                }
            }
        }
        // An unclosed VTIMEZONE goes to the reader, which reports it.
        if inZone { current = zoneText + current }
        close()
        if finishedReading && !sawCalendarData && fatal == nil {
            fatal = Diagnostic(
                .error, Location(file: path, line: lineNumber == 0 ? nil : 1),
                "no iCalendar data: expected BEGIN:VCALENDAR")
        }
        return batches
    }

    // MARK: - Parsing

    private struct BatchResult: Sendable {
        var items: [Item] = []
        var warnings: [String] = []
        var fatal: Diagnostic?
        enum Item: Sendable {
            case record(TaskRecord, Int?)
            case failed([Diagnostic])
        }
    }

    private func dispatch(_ batches: [Batch]) -> InFlight {
        let flight = InFlight(count: batches.count)
        let path = self.path
        let options = self.options
        for (index, batch) in batches.enumerated() {
            DispatchQueue.global().async(group: flight.group) {
                let result = Self.parse(batch, path: path, options: options)
                flight.results.withLock { $0[index] = result }
            }
        }
        return flight
    }

    /// Hands a round's results out in file order, giving fresh ids as the one-thread reader does.
    private func absorb(_ results: [BatchResult?]) {
        ready = []
        readyIndex = 0
        for result in results {
            guard let result else { continue }
            for item in result.items {
                switch item {
                case .record(var record, let line):
                    if record.id == IDAllocator.unassigned {
                        ids.assign(to: &record)
                    } else {
                        ids.saw(record.id)
                    }
                    ready.append(.record(record, Location(file: path, line: line)))
                case .failed(let diagnostics):
                    ready.append(.failed(diagnostics))
                }
            }
            for warning in result.warnings {
                // One warning of each kind per file, as the one-thread reader gives.
                let key = warning.replacingOccurrences(
                    of: #"line \d+"#, with: "", options: .regularExpression)
                if seenWarnings.insert(key).inserted {
                    warnings.append(Diagnostic(.warning, Location(file: path), warning))
                }
            }
            if let fatal = result.fatal {
                self.fatal = fatal
                finishedReading = true
                break
            }
        }
    }

    private static func parse(_ batch: Batch, path: String, options: ReadOptions) -> BatchResult {
        var result = BatchResult()
        let reader = ICalendarReader(bytes: batch.bytes, firstLine: batch.firstLine)
        do {
            if !batch.zones.isEmpty { try reader.addTimeZones(from: batch.zones) }
        } catch {
            result.fatal = Diagnostic(.error, Location(file: path), error.message)
            return result
        }
        let events = EventReader(
            uidScheme: options.uidScheme, floatingZone: options.floatingZone,
            extraction: options.extraction)
        events.defersFreshIDs = true
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                result.fatal = Diagnostic(
                    .error, Location(file: path, line: error.line), error.message)
                return result
            }
            result.warnings += reader.takeNotes().map { "line \($0.line): \($0.message)" }
            guard let item else { return result }
            switch item {
            case .failed(let kind, let line, let errors):
                if kind != .event && kind != .todo && kind != .timeZone {
                    result.warnings.append("line \(line): a \(kind) with errors was skipped")
                    continue
                }
                result.items.append(
                    .failed(
                        errors.map {
                            Diagnostic(
                                .error, Location(file: path, line: $0.line ?? line), $0.message)
                        }))
            case .component(let component):
                guard component.kind == .event || component.kind == .todo else {
                    result.warnings.append(
                        "line \(component.lineNumber ?? 0): \(component.kind) is not converted: the task format holds events (VEVENT) and to-dos (VTODO)"
                    )
                    continue
                }
                let (outcome, notes) = events.checkedRecord(
                    from: component, calendarZone: batch.calendarZone, file: path)
                result.warnings += notes
                switch outcome {
                case .success(let record):
                    result.items.append(.record(record, component.lineNumber))
                case .failure(let failure): result.items.append(.failed(failure.diagnostics))
                }
            }
        }
    }
}
