import Foundation
import Localization
import Locking
import TaskConversion
import TaskModel

/// An entry of a report: what is shown of a record, and where it came from.
public struct ReportEntry: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var span: TimeSpan
    public var source: Location
    /// The record's UID, when it has one (said of a series that overlaps itself).
    public var uid: String?

    /// The entry for `record` read at `source`, its time as it falls in `time`'s zone.
    public init(_ record: TaskRecord, source: Location, time: LocalTime) {
        id = record.id
        name = record.name
        uid = record.uid
        span = time.occupied(by: record)
        self.source = source
    }

    /// The report's RECORD (DESIGN.md): `id`, `name`, `date_start`, `date_finish`, and where it
    /// came from as `source`.
    var json: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("id", number: id)
        writer.field("name", string: name)
        writer.field("date_start", numberString: span.start)
        writer.field("date_finish", numberString: span.finish)
        if let line = source.line, source.index == nil, source.field == nil {
            // `FILE:LINE` (an NDJSON or .ics entry) written where it goes, not made first.
            writer.field("source", string: source.file, line: line)
        } else {
            writer.field("source", string: source.description)
        }
        writer.end()
    }
}

// MARK: - Overlaps

/// The overlap report: every pair of entries whose times intersect.
public struct OverlapReport: Sendable {
    public var entries: [ReportEntry]
    /// The pairs listed: the first `limit` of them.
    public var overlaps: [Overlap]
    /// How many overlapping pairs there are in all, listed or not (pairs within a series of
    /// ``series`` left out).
    public var total: Int
    /// The series whose occurrences overlap one another, each said once; empty when asked
    /// for their pairs (`seriesPairs`).
    public var series: [SeriesOverlap]

    /// Most pairs a report lists unless told otherwise (`--max-pairs`): a file of 5,000
    /// entries in one slot has 12.5 million pairs, which nobody reads and no disk wants.
    public static let defaultLimit = 10_000

    /// Finds the overlaps among `entries`, limited to `window` when given (entries outside it
    /// are left out; shared times are cut to it), listing at most `limit` pairs. A series
    /// whose occurrences overlap one another is one finding in ``series``, its pairs neither
    /// listed nor counted, unless `seriesPairs`.
    public init(
        entries: [ReportEntry], window: TimeSpan? = nil, limit: Int = defaultLimit,
        seriesPairs: Bool = false
    ) {
        let kept = Self.entries(entries, meeting: window)
        let (series, groups) = Self.series(of: kept, window: window, unless: seriesPairs)
        let (found, total) = OverlapSweep.overlaps(kept.map(\.span), apart: groups, limit: limit)
        self.entries = kept
        self.overlaps = found.compactMap { Self.clip($0, to: window) }
        self.total = total
        self.series = series
    }

    /// The series of `entries` that overlap themselves (their shared times cut to `window`)
    /// and the groups the sweep keeps apart; none when `seriesPairs` asks for every pair.
    static func series(of entries: [ReportEntry], window: TimeSpan?, unless seriesPairs: Bool)
        -> (series: [SeriesOverlap], groups: [Int]?)
    {
        guard !seriesPairs else { return ([], nil) }
        var (series, groups) = SeriesOverlap.find(in: entries)
        guard !series.isEmpty else { return ([], nil) }
        if let window {
            for index in series.indices {
                series[index].shared =
                    series[index].shared.intersection(window) ?? series[index].shared
            }
        }
        return (series, groups)
    }

    /// The entries that meet `window` (all without one).
    static func entries(_ entries: [ReportEntry], meeting window: TimeSpan?) -> [ReportEntry] {
        guard let window else { return entries }
        return entries.filter {
            $0.span.overlaps(window)
                || ($0.span.isEmpty && $0.span.start >= window.start
                    && $0.span.start < window.finish)
        }
    }

    /// `overlap` with its shared time cut to `window`. Entries that each meet the window and
    /// overlap each other share an instant inside it (intervals on a line that meet pairwise
    /// have a common point), so clipping drops no pair and the total stays exact.
    static func clip(_ overlap: Overlap, to window: TimeSpan?) -> Overlap? {
        guard let window else { return overlap }
        guard let shared = overlap.shared.intersection(window) else { return nil }
        var clipped = overlap
        clipped.shared = shared
        return clipped
    }

    /// Every overlapping pair among `entries` (within `window`), written as the JSON array
    /// ``json(bytes:)`` writes, in pieces of about 64 KB, as the sweep finds them: the whole
    /// list a script reads, never held in memory (12.5 million pairs cost what 5,000
    /// entries do). Returns how many pairs there were.
    /// A series that overlaps itself comes first, one item each (``SeriesOverlap``), unless
    /// `seriesPairs`; the count returned is of pairs and series items. An error `write`
    /// throws (an output past its limit) ends the report there.
    @discardableResult
    public static func writeAllJSON(
        entries: [ReportEntry], window: TimeSpan? = nil, seriesPairs: Bool = false,
        workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        bytes write: ([UInt8]) throws -> Void
    ) rethrows -> Int {
        let kept = Self.entries(entries, meeting: window)
        let (series, groups) = Self.series(of: kept, window: window, unless: seriesPairs)
        var count = 0
        var pending: [Overlap] = []
        var writer = JSONWriter()
        writer.raw("[")
        for (number, finding) in series.enumerated() {
            writer.raw(number == 0 ? "\n" : ",\n")
            finding.write(of: kept, to: &writer)
        }
        try write(writer.bytes)
        try OverlapSweep.forEachOverlap(kept.map(\.span), apart: groups) { found in
            guard let overlap = clip(found, to: window) else { return }
            pending.append(overlap)
            count += 1
            if pending.count == Self.pairsPerBatch {
                try writePairs(
                    pending, from: series.count + count - pending.count, of: kept, workers, write)
                pending.removeAll(keepingCapacity: true)
            }
        }
        try writePairs(
            pending, from: series.count + count - pending.count, of: kept, workers, write)
        count += series.count
        try write(Array((count == 0 ? "]\n" : "\n]\n").utf8))
        return count
    }

    /// Pairs found before they are written, in a batch: a few megabytes of JSON, which
    /// ``writePairs(_:from:of:_:_:)`` makes on every worker at once.
    static let pairsPerBatch = 32_768

    /// `pairs`, the first of which is the `first`th of the report, each after its separator,
    /// written on up to `workers` threads (a part each, at least a thousand pairs) and handed
    /// to `write` in order: the bytes are those one thread writes.
    private static func writePairs(
        _ pairs: [Overlap], from first: Int, of entries: [ReportEntry], _ workers: Int,
        _ write: ([UInt8]) throws -> Void
    ) rethrows {
        guard !pairs.isEmpty else { return }
        let parts = max(1, min(workers, pairs.count / 1_024))
        let written = Locked([[UInt8]](repeating: [], count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            var writer = JSONWriter()
            let range = pairs.count * part / parts..<pairs.count * (part + 1) / parts
            writer.reserveCapacity(range.count * 512)
            for index in range {
                writer.raw(first + index == 0 ? "\n" : ",\n")
                writePair(pairs[index], of: entries, to: &writer)
            }
            let bytes = writer.bytes
            written.withLock { $0[part] = bytes }
        }
        for part in written.withLock({ $0 }) { try write(part) }
    }

    /// One pair: `{"first": RECORD, "second": RECORD, "overlap_start": …, "overlap_finish": …}`.
    static func writePair(
        _ overlap: Overlap, of entries: [ReportEntry], to writer: inout JSONWriter
    ) {
        writer.begin()
        writer.key("first")
        entries[overlap.first].write(to: &writer)
        writer.key("second")
        entries[overlap.second].write(to: &writer)
        writer.field("overlap_start", numberString: overlap.shared.start)
        writer.field("overlap_finish", numberString: overlap.shared.finish)
        writer.end()
    }

    /// How many pairs exist that the report does not list.
    public var unlisted: Int { total - overlaps.count }

    /// `[{"first": RECORD, "second": RECORD, "overlap_start": "…", "overlap_finish": "…"}, …]`,
    /// one pair a line; times are Unix seconds as strings, like the task format. Written piece
    /// by piece to `write`, so a report of a million pairs is never one string in memory.
    public func json(to write: (String) -> Void) {
        json(bytes: { write(String(decoding: $0, as: UTF8.self)) })
    }

    /// The JSON report as UTF-8, in pieces of about 64 KB written into one buffer.
    public func json(bytes write: ([UInt8]) -> Void) {
        guard !overlaps.isEmpty || !series.isEmpty else { return write(Array("[]\n".utf8)) }
        var writer = JSONWriter()
        writer.raw("[\n")
        pairs(to: &writer, bytes: write)
        writer.raw("\n]\n")
        write(writer.bytes)
    }

    /// The report as a JSON object that says whether it is whole, for a list a limit cut:
    /// `{"listed": M, "total": N, "truncated": true, "series": S, "overlaps": [ITEM, …]}` (the
    /// counts first, for a reader that streams); `truncated` is false when all `total` pairs
    /// are listed; the S items of series that overlap themselves come first and are always
    /// there.
    public func countedJSON(bytes write: ([UInt8]) -> Void) {
        var writer = JSONWriter()
        writer.begin()
        writer.field("listed", number: Int64(overlaps.count))
        writer.field("total", number: Int64(total))
        writer.field("truncated", bool: unlisted > 0)
        writer.field("series", number: Int64(series.count))
        writer.key("overlaps")
        let empty = overlaps.isEmpty && series.isEmpty
        writer.raw(empty ? "[" : "[\n")
        pairs(to: &writer, bytes: write)
        writer.raw(empty ? "]" : "\n]")
        writer.end()
        writer.raw("\n")
        write(writer.bytes)
    }

    /// The series that overlap themselves, then the listed pairs, `,\n` between them,
    /// flushed to `write` every 64 KB.
    private func pairs(to writer: inout JSONWriter, bytes write: ([UInt8]) -> Void) {
        for (number, finding) in series.enumerated() {
            if number > 0 { writer.raw(",\n") }
            finding.write(of: entries, to: &writer)
        }
        for (number, overlap) in overlaps.enumerated() {
            if number + series.count > 0 { writer.raw(",\n") }
            Self.writePair(overlap, of: entries, to: &writer)
            if writer.bytes.count >= 1 << 16 {
                write(writer.bytes)
                writer.reset()
            }
        }
    }

    /// The JSON report as one string (for small reports and tests).
    public func json() -> String {
        var text = ""
        json { text += $0 }
        return text
    }

    /// The text report as one string (for small reports and tests).
    public func text(in time: LocalTime, style: some ReportStyle) -> String {
        var text = ""
        self.text(in: time, style: style, to: { text += $0 })
        return text
    }

    /// For people: the overlaps grouped by the day they begin, in `time`'s zone, written
    /// piece by piece to `write`.
    /// A series whose occurrences overlap one another comes first, one line each.
    public func text(in time: LocalTime, style: some ReportStyle, to write: (String) -> Void) {
        if !series.isEmpty {
            write(
                say(
                    "%@ repeating entr%@ whose occurrences overlap one another:",
                    Self.grouped(series.count), series.count == 1 ? "y" : "ies") + "\n")
            for finding in series { write(finding.text(of: entries, style: style)) }
            write("\n")
        }
        guard !overlaps.isEmpty else {
            return write(
                (series.isEmpty
                    ? say(
                        "No overlaps among %@ entr%@.", entries.count,
                        entries.count == 1 ? "y" : "ies")
                    : say(
                        "No other overlaps among %@ entr%@.", Self.grouped(entries.count),
                        entries.count == 1 ? "y" : "ies")) + "\n")
        }
        write(
            say(
                "%@ overlap%@ among %@ entries (times in %@)", Self.grouped(total),
                total == 1 ? "" : "s", Self.grouped(entries.count), time.zone)
                + (unlisted > 0 ? say("; the first %@ listed", Self.grouped(overlaps.count)) : "")
                + ":\n")
        var currentDay: LocalTime.Day?
        for overlap in overlaps {
            var out = ""
            let day = time.day(of: overlap.shared.start)
            if day != currentDay {
                currentDay = day
                out += "\n" + style.strong(Self.dayTitle(day)) + "\n"
            }
            let shared = overlap.shared
            let minutes = (shared.finish - shared.start) / 60
            out +=
                "  " + style.conflict("\(time.clock(shared.start))–\(time.clock(shared.finish))")
                + style.faint(" (" + say("%@ double-booked", Self.duration(minutes)) + ")") + "\n"
            for index in [overlap.first, overlap.second] {
                let entry = entries[index]
                out +=
                    "    \(Self.range(entry.span, time))  #\(entry.id) \(entry.displayName)  "
                    + style.faint("(\(entry.source))") + "\n"
            }
            write(out)
        }
        if unlisted > 0 {
            write(
                "\n"
                    + say(
                        "… and %@ more overlapping pair%@ (list more with --max-pairs)",
                        Self.grouped(unlisted), unlisted == 1 ? "" : "s") + "\n")
        }
    }

    /// `14:00–15:00`, or with the days when it spans several (in the language's order).
    public static func range(_ span: TimeSpan, _ time: LocalTime) -> String {
        let first = time.day(of: span.start)
        let last = time.day(of: span.finish)
        return first == last
            ? "\(time.clock(span.start))–\(time.clock(span.finish))"
            : "\(date(first)) \(time.clock(span.start))–\(date(last)) \(time.clock(span.finish))"
    }

    /// A day as the user's language writes it (`2026-12-01`, `01.12.2026`).
    public static func date(_ day: LocalTime.Day) -> String {
        Localization.date(year: day.year, month: day.month, day: day.day)
    }

    /// A day's heading: `Tuesday 2026-12-01`, `вторник, 1 декабря 2026`.
    public static func dayTitle(_ day: LocalTime.Day) -> String {
        Localization.dayTitle(year: day.year, month: day.month, day: day.day, weekday: day.weekday)
    }

    static func duration(_ minutes: Int64) -> String {
        if minutes < 60 { return say("%@ min", minutes) }
        if minutes % 60 == 0 { return say("%@ h", minutes / 60) }
        return say("%@ h %@ min", minutes / 60, minutes % 60)
    }

    /// `3540` as `3,540`: counts people read.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }

    /// A weekday's name in the user's language (1 Monday … 7 Sunday).
    public static func weekdayName(_ weekday: Int) -> String { Localization.weekday(weekday) }
}

// MARK: - Agenda

// MARK: - Month

// MARK: - Language

/// `template` (English, `%@` for each value) with `values`, in the user's language.
func say(_ template: String, _ values: Any...) -> String {
    Localization.format(template, values.map { "\($0)" })
}

extension TaskRecord {
    /// The name as people see it: a private entry's placeholder in their language.
    public var displayName: String {
        isSealed || name == TaskRecord.sealedName ? Localization.text(TaskRecord.sealedName) : name
    }
}

extension ReportEntry {
    /// The name as people see it (see ``TaskModel/TaskRecord/displayName``).
    var displayName: String {
        name == TaskRecord.sealedName ? Localization.text(name) : name
    }
}
