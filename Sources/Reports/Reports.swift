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

/// The day as hour slots, each with the entries that fall in it.
public struct Agenda: Sendable {
    /// One row of the day.
    public struct Slot: Sendable {
        public var span: TimeSpan
        /// Positions in ``Agenda/records``: an entry spanning the day is held once, not once
        /// an hour (100,000 occurrences in 25 rows would be 2.5 million record copies).
        public var entries: [Int]
    }

    public var day: LocalTime.Day
    public var slots: [Slot]
    /// The day's entries, by start.
    public var records: [TaskRecord]
    let time: LocalTime

    /// The agenda of `day` in `time`'s zone: consecutive hours from midnight to midnight (23 or
    /// 25 on a daylight-saving change). An entry appears in every hour it touches; an entry of
    /// no length appears in the hour it is at.
    public init(day: LocalTime.Day, time: LocalTime, records: [TaskRecord]) {
        self.day = day
        self.time = time
        let whole = time.span(of: day)
        var slots: [Slot] = []
        var start = whole.start
        while start < whole.finish {
            let finish = min(start + 3600, whole.finish)
            slots.append(Slot(span: TimeSpan(start: start, finish: finish), entries: []))
            start = finish
        }
        let sorted = records.sorted {
            ($0.dateStart, $0.dateFinish, $0.id) < ($1.dateStart, $1.dateFinish, $1.id)
        }
        for (position, record) in sorted.enumerated() {
            let span = time.occupied(by: record)
            for index in slots.indices {
                let slot = slots[index].span
                if span.overlaps(slot)
                    || (span.isEmpty && slot.start <= span.start && span.start < slot.finish)
                {
                    slots[index].entries.append(position)
                }
            }
        }
        self.slots = slots
        self.records = sorted
    }

    /// A row's label: `14:00–15:00`, with the UTC offset when the day has a clock change
    /// (so the two 02:00–03:00 rows of a 25-hour day can be told apart).
    func label(_ slot: Slot) -> String {
        // The end is shown on the start's clock: the hour after 02:00 summer time is
        // "02:00–03:00 +02:00" even though the clocks then read 02:00 again.
        let offset = Int64(time.utcOffset(at: slot.span.start))
        let end = ((slot.span.finish + offset) % 86_400 + 86_400) % 86_400
        let base =
            "\(time.clock(slot.span.start))–"
            + String(format: "%02d:%02d", end / 3600, end % 3600 / 60)
        let changes =
            time.utcOffset(at: slots.first!.span.start)
            != time.utcOffset(at: slots.last!.span.start)
        return changes ? base + " " + time.offsetText(at: slot.span.start) : base
    }

    /// `[{"start": "…", "finish": "…", "label": "14:00–15:00", "entries": [RECORD, …]}, …]`,
    /// every entry of every row: machine output is whole (the day screen is what counts rows).
    public func json() -> String {
        var text = ""
        json { text += $0 }
        return text
    }

    /// ``json()`` in pieces to `write`, row by row and a few hundred entries at a time, each
    /// record made once however many rows it is in: a series that fills every hour of the day
    /// with 100,000 occurrences is 2.4 million entries, and a report that stops at its output
    /// limit (an error `write` throws) stops there, not after making all of them.
    public func json(to write: (String) throws -> Void) rethrows {
        var lines = [String?](repeating: nil, count: records.count)
        try write("[\n")
        for (number, slot) in slots.enumerated() {
            var label = JSONWriter()
            label.string(self.label(slot))
            var piece =
                (number == 0 ? "" : ",\n")
                + "{\"start\": \"\(slot.span.start)\", \"finish\": \"\(slot.span.finish)\", \"label\": \(label.text), "
                + "\"entries\": ["
            for (count, position) in slot.entries.enumerated() {
                if lines[position] == nil { lines[position] = records[position].jsonLine }
                if count > 0 { piece += ", " }
                piece += lines[position]!
                if piece.utf8.count >= 1 << 16 {
                    try write(piece)
                    piece = ""
                }
            }
            try write(piece + "]}")
        }
        try write("\n]\n")
    }

    /// Most entries one row of the day screen shows; the rest are counted ("… and 3,540 more").
    public static let entriesPerRow = 12

    /// The day screen: one row an hour, entries as blocks with their times and names (at
    /// most ``entriesPerRow`` a row).
    public func text(style: some ReportStyle) -> String {
        var out =
            style.strong(OverlapReport.dayTitle(day))
            + style.faint(" (" + say("%@, %@ hours", time.zone, slots.count) + ")") + "\n"
        let width = slots.map { label($0).count }.max() ?? 11
        for slot in slots {
            let label = self.label(slot)
            let padded = label + String(repeating: " ", count: width - label.count)
            var blocks = slot.entries.prefix(Self.entriesPerRow).map { position -> String in
                let record = records[position]
                let times =
                    record.allDay
                    ? say("all day") : OverlapReport.range(time.occupied(by: record), time)
                let note =
                    record.status == .cancelled
                    ? " " + say("(cancelled)") : record.free ? " " + say("(free)") : ""
                return style.entry("[\(times) \(record.displayName)\(note)]")
            }
            if slot.entries.count > Self.entriesPerRow {
                let more = OverlapReport.grouped(slot.entries.count - Self.entriesPerRow)
                blocks.append(style.faint(say("… and %@ more", more)))
            }
            out +=
                style.faint(padded)
                + (blocks.isEmpty ? " │" : " │ " + blocks.joined(separator: " "))
                + "\n"
        }
        return out
    }
}

// MARK: - Month

/// The month as a calendar grid, counting the entries of each day.
public struct MonthView: Sendable {
    public var year: Int
    public var month: Int
    /// Entries that touch each day, index 0 for the 1st.
    public var counts: [Int]
    public var today: LocalTime.Day?
    let time: LocalTime

    /// The month `year`-`month` in `time`'s zone with `records`; an entry spanning several
    /// days counts on each.
    public init(year: Int, month: Int, time: LocalTime, records: [TimeSpan], today: LocalTime.Day?)
    {
        self.year = year
        self.month = month
        self.time = time
        self.today = today
        let first = LocalTime.Day(year: year, month: month, day: 1)
        var days: [TimeSpan] = []
        var day = first
        while day.month == month {
            days.append(time.span(of: day))
            day = day.next
        }
        var counts = [Int](repeating: 0, count: days.count)
        let monthSpan = TimeSpan(start: days.first!.start, finish: days.last!.finish)
        for span in records
        where span.overlaps(monthSpan)
            || (span.isEmpty && span.start >= monthSpan.start && span.start < monthSpan.finish)
        {
            for (index, daySpan) in days.enumerated()
            where span.overlaps(daySpan)
                || (span.isEmpty && daySpan.start <= span.start && span.start < daySpan.finish)
            {
                counts[index] += 1
            }
        }
        self.counts = counts
    }

    /// `{"month": "2026-11", "zone": "…", "days": [{"date": "2026-11-01", "entries": 0}, …]}`
    public func json() -> String {
        let days = counts.enumerated().map { index, count in
            "{\"date\": \"\(LocalTime.Day(year: year, month: month, day: index + 1))\", \"entries\": \(count)}"
        }
        return
            "{\"month\": \"\(String(format: "%04d-%02d", year, month))\", \"zone\": \"\(time.zone)\", \"days\": [\n"
            + days.joined(separator: ",\n") + "\n]}\n"
    }

    /// A grid like `cal`, weeks from Monday: `*` marks days with entries, `[ ]` today (`[27*`
    /// when today has entries).
    public func text(style: some ReportStyle) -> String {
        let title = "\(Localization.month(month)) \(year)"
        let width = 7 * 4 - 1
        var out =
            String(repeating: " ", count: max(0, (width - title.count) / 2)) + style.strong(title)
            + "\n"
        out +=
            style.faint(
                (1...7).map { " " + Localization.weekdayColumn($0) + " " }.joined()
                    .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
            + "\n"
        let first = LocalTime.Day(year: year, month: month, day: 1)
        var cells: [String] = Array(repeating: "    ", count: first.weekday - 1)
        for (index, count) in counts.enumerated() {
            let day = LocalTime.Day(year: year, month: month, day: index + 1)
            let number = String(format: "%2d", index + 1)
            var cell: String
            if day == today {
                // Both marks in the cell's four columns: `[27]` today, `[27*` today with entries.
                cell = "[" + number + (count > 0 ? "*" : "]")
                cell = style.marked(cell)
            } else {
                cell = " " + number + (count > 0 ? "*" : " ")
                if count > 0 { cell = style.strong(cell) }
            }
            cells.append(cell)
        }
        for week in stride(from: 0, to: cells.count, by: 7) {
            out +=
                cells[week..<min(week + 7, cells.count)].joined().replacingOccurrences(
                    of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        let busy = counts.filter { $0 > 0 }.count
        out +=
            style.faint(
                say(
                    "* has entries (%@ day%@, %@ in all)   [ ] today", busy, busy == 1 ? "" : "s",
                    counts.reduce(0, +))) + "\n"
        return out
    }
}

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
