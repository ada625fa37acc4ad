import Dispatch
import Foundation
import ICalendar
import Locking
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

    private var ready: [SourceItem] = []
    private var readyIndex = 0
    private var order = FileOrder()
    private var seenWarnings = Set<String>()
    private var fatal: Diagnostic?
    private(set) var warnings: [Diagnostic] = []
    /// Calendar-level lines, as the splitter meets them.
    private var calendarLines: [String] = [] {
        didSet { calendarLineChanges += 1 }
    }
    /// How often ``calendarLines`` changed (a folded continuation changes its last line).
    private var calendarLineChanges = 0
    /// The line of the open `BEGIN:VCALENDAR`, and whether the last line was a calendar-level
    /// one (so that a folded continuation belongs to it).
    private var calendarBegin = 0
    private var afterCalendarLine = false
    /// Zone definitions and components the batches kept, in file order.
    private var keptDefinitions: [String: String] = [:]
    private var keptComponents: [String] = []
    private let lookahead: @Sendable () -> [UInt8]?
    /// The file's revisions (``Revisions``), found before it is split.
    private var revisions = Revisions()

    /// ``calendar`` as last made, and the sizes of what it was made from.
    private var cachedCalendar: (made: (Int, Int, Int), info: CalendarInfo)?

    var calendar: CalendarInfo {
        // Asked for every record; what it is made of only grows, so it is made again only
        // when one of the three has (lexing the calendar's lines per record was 6% of the
        // main thread's work).
        let made = (calendarLineChanges, keptDefinitions.count, keptComponents.count)
        if let cachedCalendar, cachedCalendar.made == made { return cachedCalendar.info }
        let info = makeCalendar()
        cachedCalendar = (made, info)
        return info
    }

    private func makeCalendar() -> CalendarInfo {
        var lines: [String] = []
        for line in calendarLines {
            guard let name = try? ContentLine(parsing: line).name,
                !EventWriter.ownCalendarProperties.contains(name), !lines.contains(line)
            else { continue }
            lines.append(line)
        }
        return CalendarInfo(
            icalExtra: lines,
            icalComponents: keptDefinitions.keys.sorted().compactMap { keptDefinitions[$0] }
                + keptComponents)
    }

    init(path: String, options: ReadOptions, workers: Int) throws(Diagnostic) {
        self.path = path
        self.options = options
        self.workers = max(1, workers)
        lookahead = ICSLookahead.zones(in: path)
        do {
            lines = try LineSource(path: path)
        } catch {
            throw Diagnostic(.error, Location(file: path), error.message)
        }
        revisions =
            options.readsEveryRevision
            ? Revisions() : ((try? LineSource(path: path)).map(Revisions.scan) ?? Revisions())
        ICSDigest.revisionWarnings(revisions, path: path).forEach(warn)
    }

    /// A round being parsed in the background.
    private final class InFlight: Sendable {
        let group = DispatchGroup()
        let results: Locked<[BatchResult?]>
        init(count: Int) { results = Locked([BatchResult?](repeating: nil, count: count)) }
    }
    /// The rounds being parsed, oldest first.
    private var inFlight: [InFlight] = []
    /// Rounds kept in flight ahead of the one handed out: with one, the workers waited
    /// whenever they finished it before this thread had written the round before (a
    /// seventh of two cores' time went idle).
    private static let roundsAhead = 3
    /// A worker met damage that ends the file: the rounds after its own are dropped.
    private var workerFailed = false

    func next() throws(Diagnostic) -> SourceItem? {
        while readyIndex >= ready.count {
            // Split and start rounds before waiting for the oldest, so the workers parse
            // while this thread splits and the caller writes.
            while inFlight.count < Self.roundsAhead && !finishedReading {
                inFlight.append(dispatch(try splitRound()))
            }
            guard !inFlight.isEmpty else {
                if let fatal {
                    self.fatal = nil
                    throw fatal
                }
                return nil
            }
            let current = inFlight.removeFirst()
            current.group.wait()
            absorb(current.results.withLock { $0 })
            if workerFailed {
                for later in inFlight { later.group.wait() }
                inFlight = []
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

    /// Where the next physical line lies in the line source's buffer (until the next call),
    /// with its number; `nil` at the end of the input.
    private func nextLineRange() throws(Diagnostic) -> (Range<Int>, Int)? {
        do {
            guard
                let range = try lines.nextLineRange(
                    limit: ReadingLimits.lineLength, lineNumber: lineNumber + 1)
            else {
                return nil
            }
            lineNumber += 1
            return (range, lineNumber)
        } catch {
            throw Diagnostic(
                .error, Location(file: path, line: error.line), error.message,
                code: error.kind.code)
        }
    }

    /// Whether `line` is a `BEGIN` or an `END`, and of what: the name, upper-cased and
    /// trimmed, only when `needsName` (inside a component only the first two matter, and
    /// making the name String for every `BEGIN:VALARM` and `END:VEVENT` was two fifths of the
    /// split).
    private static func keyword(_ line: [UInt8], needsName: Bool) -> Keyword {
        // Most lines are properties: decide on the first byte before making any string.
        guard let first = line.first,
            first | 0x20 == UInt8(ascii: "b") || first | 0x20 == UInt8(ascii: "e")
        else {
            return (false, false, "")
        }
        let head = line.prefix(40)
        if head.allSatisfy({ $0 < 0x80 }) {
            // ASCII, as every BEGIN and END of a real file: compared and upper-cased on the
            // bytes by the line reader's own rule. The first byte is a letter: nothing leads,
            // and the keyword is the line's first bytes as they are.
            func starts(with word: StaticString) -> Bool {
                let count = word.utf8CodeUnitCount
                guard head.count >= count else { return false }
                let letters = UnsafeBufferPointer(start: word.utf8Start, count: count)
                return zip(head, letters).allSatisfy { byte, letter in
                    (0x61...0x7A).contains(byte) ? byte - 0x20 == letter : byte == letter
                }
            }
            let begins = starts(with: "BEGIN:")
            guard begins || starts(with: "END:") else { return (false, false, "") }
            let name = needsName ? ICalendarReader.upperName(head.dropFirst(begins ? 6 : 4)) : ""
            return (begins, !begins, name)
        }
        let text = String(decoding: head, as: UTF8.self).uppercased()
        if text.hasPrefix("BEGIN:") {
            return (true, false, String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        }
        if text.hasPrefix("END:") {
            return (false, true, String(text.dropFirst(4)).trimmingCharacters(in: .whitespaces))
        }
        return (false, false, "")
    }

    /// A line's keyword: `BEGIN:NAME`, `END:NAME`, or neither.
    private typealias Keyword = (isBegin: Bool, isEnd: Bool, name: String)

    /// What one round of ``splitRound()`` keeps from line to line.
    private struct Round {
        var batches: [Batch] = []
        /// The line the batch being marked begins on.
        var currentFirst = 0
        /// Components in the batch being marked.
        var components = 0
        /// Inside a `VTIMEZONE`: its lines go to every batch's reader, not into a batch.
        var inZone = false
        var zoneText: [UInt8] = []
        /// A `VTIMEZONE` the file ends inside: it goes to the reader before the last batch.
        var unclosedZone: [UInt8]?
        /// The line looked at, in one reused buffer.
        var line: [UInt8] = []
    }

    /// What a line at the calendar's level did to the round.
    private enum Step {
        /// Done with the line.
        case handled
        /// Reading stops here (``fatal`` says why).
        case stop
        /// The line belongs to a component: a BEGIN, an END, or a line inside.
        case component
    }

    /// Reads up to one round of batches.
    ///
    /// A batch is a run of whole lines of the file, as they are (line ends included), copied
    /// once when it is closed: the line source keeps the run in its buffer until then. A
    /// line inside a component, most of a file, is only looked at for its first byte; the
    /// others are copied into one reused buffer to be read.
    private func splitRound() throws(Diagnostic) -> [Batch] {
        var round = Round()
        round.line.reserveCapacity(256)
        reading: while round.batches.count < workers * 2 {
            skipComponentProperties(round)
            guard let (range, number) = try nextLineRange() else {
                finishedReading = true
                break
            }
            if takeComponentProperty(range, &round) { continue }
            round.line.removeAll(keepingCapacity: true)
            lines.append(range, to: &round.line)
            // The name is needed only at the calendar's level (see calendarLevel).
            let word = Self.keyword(round.line, needsName: depth <= 1)
            switch calendarLevel(word, number: number, &round) {
            case .handled: continue
            case .stop: break reading
            case .component: component(word, range: range, number: number, &round)
            }
        }
        // An unclosed VTIMEZONE goes to the reader, which reports it.
        if round.inZone { round.unclosedZone = round.zoneText }
        close(&round)
        reportUnclosedCalendar()
        return round.batches
    }

    /// Ends the batch being marked (if it holds anything), with the zones read so far.
    private func close(_ round: inout Round) {
        if calendarZone == nil,
            let line = calendarLines.first(where: {
                $0.uppercased().hasPrefix("X-WR-TIMEZONE:")
            })
        {
            calendarZone = String(line.dropFirst(14))
        }
        let run = lines.takeMarked()
        let bytes = round.unclosedZone.map { $0 + (run ?? []) } ?? run
        round.unclosedZone = nil
        if let bytes, !bytes.isEmpty {
            round.batches.append(
                Batch(
                    bytes: bytes, firstLine: round.currentFirst, zones: zones,
                    calendarZone: calendarZone))
        }
        round.components = 0
    }

    /// The properties of a component, most of the file, passed over in one go (the line
    /// source looks at their first bytes only).
    private func skipComponentProperties(_ round: Round) {
        guard depth >= 2 && !round.inZone && lines.isMarking else { return }
        let skipped = lines.skipLinesBeforeKeyword(limit: ReadingLimits.lineLength)
        if skipped > 0 {
            lineNumber += skipped
            lines.extendMark()
        }
    }

    /// Takes a property inside a component (no BEGIN or END, nothing at the calendar's
    /// level) into the zone being read or the batch; false for any other line.
    private func takeComponentProperty(_ range: Range<Int>, _ round: inout Round) -> Bool {
        guard depth >= 2, let first = lines.firstByte(of: range),
            first | 0x20 != UInt8(ascii: "b"), first | 0x20 != UInt8(ascii: "e")
        else { return false }
        if round.inZone {
            lines.append(range, to: &round.zoneText)
            round.zoneText.append(contentsOf: [0x0D, 0x0A])
        } else {
            lines.extendMark()
        }
        return true
    }

    /// A line at the calendar's level: its properties, `BEGIN:VCALENDAR` and its `END`, and
    /// what does not belong (read with a warning, or an error under `--strict`).
    private func calendarLevel(_ word: Keyword, number: Int, _ round: inout Round) -> Step {
        let line = round.line
        if (depth == 1 || (depth == 0 && sawCalendarData)) && !word.isBegin && !word.isEnd {
            return calendarProperty(line, number: number, &round)
        }
        afterCalendarLine = false
        if word.isBegin && word.name == "VCALENDAR" && depth == 0 {
            close(&round)
            depth = 1
            calendarBegin = number
            sawCalendarData = true
            return .handled
        }
        if word.isEnd && depth == 1 && ICalendarReader.strayEnds.contains(word.name)
            && !options.strict
        {
            // As the one-thread reader: an END of nothing open does not end the calendar.
            // The batch ends before it: a reader of the batch alone would take it for an
            // END without a BEGIN.
            close(&round)
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: number),
                    "END:\(word.name) closes nothing (no BEGIN:\(word.name) is open); left out",
                    code: .structure))
            return .handled
        }
        if word.isEnd && depth == 1 {
            close(&round)
            depth = 0
            return word.name == "VCALENDAR" ? .handled : wrongCalendarEnd(word, number: number)
        }
        if depth == 0 && !word.isBegin {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .handled }
            close(&round)
            return stop(ICalendarReader.notCalendar(line), number: number)
        }
        if depth == 0 && word.isBegin && !sawCalendarData {
            close(&round)
            return stop(
                ICalendarReader.notCalendar(Array("BEGIN:\(word.name)".utf8)), number: number)
        }
        return .component
    }

    /// A calendar-level property (or its folded continuation): not part of any batch. After
    /// END:VCALENDAR it is kept with the calendar, as the one-thread reader keeps it.
    private func calendarProperty(_ line: [UInt8], number: Int, _ round: inout Round) -> Step {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .handled }
        close(&round)
        let isContinuation = line.first == 0x20 || line.first == 0x09
        if isContinuation, !calendarLines.isEmpty, afterCalendarLine {
            calendarLines[calendarLines.count - 1] += String(
                decoding: line.dropFirst(), as: UTF8.self)
            return .handled
        }
        if depth == 0 {
            if options.strict {
                return stop(
                    "expected BEGIN:VCALENDAR, found '\(String(decoding: line.prefix(60), as: UTF8.self))'",
                    number: number)
            }
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: number),
                    "a line after END:VCALENDAR is kept with the calendar", code: .structure))
        }
        calendarLines.append(String(decoding: line, as: UTF8.self))
        afterCalendarLine = true
        return .handled
    }

    /// `END:NAME` closing the calendar: read as `END:VCALENDAR`, or an error under `--strict`.
    private func wrongCalendarEnd(_ word: Keyword, number: Int) -> Step {
        if options.strict {
            return stop(
                "END:\(word.name) closes BEGIN:VCALENDAR of line \(calendarBegin); expected END:VCALENDAR",
                number: number)
        }
        warn(
            Diagnostic(
                .warning, Location(file: path, line: number),
                "END:\(word.name) closes BEGIN:VCALENDAR of line \(calendarBegin); read as END:VCALENDAR",
                code: .structure))
        return .handled
    }

    /// Stops reading with a structural error at line `number`.
    private func stop(_ message: String, number: Int) -> Step {
        fatal = Diagnostic(
            .error, Location(file: path, line: number), message, code: .structure)
        finishedReading = true
        return .stop
    }

    /// A line of a component: a `BEGIN` or `END` (which may start or end a batch's
    /// component, or a `VTIMEZONE`), or a line inside one that begins with B or E.
    private func component(_ word: Keyword, range: Range<Int>, number: Int, _ round: inout Round) {
        let topLevel = depth <= 1
        if word.isBegin {
            if topLevel {
                sawCalendarData = true
                if word.name == "VTIMEZONE" {
                    close(&round)
                    round.inZone = true
                    round.zoneText = []
                } else if !lines.isMarking {
                    round.currentFirst = number
                    lines.mark(from: range.lowerBound)
                }
            }
            depth += 1
        } else if word.isEnd {
            depth -= 1
        }
        if round.inZone {
            round.zoneText.append(contentsOf: round.line)
            round.zoneText.append(contentsOf: [0x0D, 0x0A])
            if word.isEnd && depth <= 1 {
                zones += round.zoneText
                round.inZone = false
            }
        } else {
            lines.extendMark()
            if word.isEnd && depth <= 1 {
                round.components += 1
                if round.components >= options.parallelBatchSize { close(&round) }
            }
        }
    }

    /// At the end of the file: a calendar left open is read to the end with a warning (an
    /// error under `--strict`), and a file with no calendar at all is an error.
    private func reportUnclosedCalendar() {
        if finishedReading && depth >= 1 && fatal == nil {
            if depth == 1 && options.strict {
                fatal = Diagnostic(
                    .error, Location(file: path, line: calendarBegin),
                    "BEGIN:VCALENDAR has no END:VCALENDAR before the end of the input",
                    code: .structure)
            } else if !options.strict {
                warn(
                    Diagnostic(
                        .warning, Location(file: path, line: calendarBegin),
                        "BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file",
                        code: .structure))
            }
        }
        if finishedReading && !sawCalendarData && fatal == nil {
            fatal = Diagnostic(
                .error, Location(file: path, line: lineNumber == 0 ? nil : 1),
                "not an iCalendar file: no BEGIN:VCALENDAR", code: .structure)
        }
    }

    // MARK: - Parsing

    private struct BatchResult: Sendable {
        var items: [SendableItem] = []
        var warnings: [Diagnostic] = []
        var fatal: Diagnostic?
        var keptDefinitions: [String: String] = [:]
        var keptComponents: [String] = []
        enum SendableItem: Sendable {
            case record(TaskRecord, Location)
            case failed([Diagnostic])
        }
    }

    private func dispatch(_ batches: [Batch]) -> InFlight {
        let flight = InFlight(count: batches.count)
        let path = self.path
        let options = self.options
        let lookahead = self.lookahead
        let revisions = self.revisions
        for (index, batch) in batches.enumerated() {
            DispatchQueue.global().async(group: flight.group) {
                let result = Self.parse(
                    batch, path: path, options: options, revisions: revisions,
                    lookahead: lookahead)
                flight.results.withLock { $0[index] = result }
            }
        }
        return flight
    }

    /// Hands a round's results out in file order, giving fresh ids and telling duplicate UIDs
    /// apart as the one-thread reader does.
    private func absorb(_ results: [BatchResult?]) {
        ready = []
        readyIndex = 0
        for result in results {
            guard let result else { continue }
            for item in result.items {
                switch item {
                case .record(var record, let location):
                    if let warning = order.order(
                        &record, location: location, scheme: options.uidScheme)
                    {
                        warn(warning)
                    }
                    ready.append(.record(record, location))
                case .failed(let diagnostics):
                    ready.append(.failed(diagnostics))
                }
            }
            result.warnings.forEach(warn)
            for (tzid, text) in result.keptDefinitions where keptDefinitions[tzid] == nil {
                keptDefinitions[tzid] = text
            }
            keptComponents += result.keptComponents
            if let fatal = result.fatal {
                self.fatal = fatal
                finishedReading = true
                workerFailed = true
                break
            }
        }
    }

    private func warn(_ warning: Diagnostic) {
        // Once per line, as the one-thread reader gives them.
        if seenWarnings.insert(warning.description).inserted { warnings.append(warning) }
    }

    private static func parse(
        _ batch: Batch, path: String, options: ReadOptions, revisions: Revisions,
        lookahead: @escaping @Sendable () -> [UInt8]?
    ) -> BatchResult {
        var result = BatchResult()
        let reader = ICalendarReader(bytes: batch.bytes, firstLine: batch.firstLine)
        reader.requiresCalendar = false
        let digest = ICSDigest(
            path: path, reader: reader, options: options, revisions: revisions,
            lookahead: lookahead)
        do {
            if !batch.zones.isEmpty { try reader.addTimeZones(from: batch.zones) }
        } catch {
            result.fatal = Diagnostic(
                .error, Location(file: path), error.message, code: error.kind.code)
            return result
        }
        digest.zones.calendarZone = batch.calendarZone.flatMap(TimeZones.ianaName(forTZID:))
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                result.fatal = Diagnostic(
                    .error, Location(file: path, line: error.line), error.message,
                    code: error.kind.code)
                break
            }
            digest.takeReaderNotes()
            guard let item else { break }
            switch digest.digest(item) {
            case .record(let record, let location)?: result.items.append(.record(record, location))
            case .failed(let diagnostics)?: result.items.append(.failed(diagnostics))
            case nil: break
            }
        }
        result.warnings = digest.warnings
        result.keptDefinitions = digest.zones.keptDefinitions
        result.keptComponents = digest.calendar.icalComponents.filter {
            !ZoneCatalog.isTimeZone($0)
        }
        return result
    }
}
