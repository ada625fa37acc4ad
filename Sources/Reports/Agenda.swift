import Foundation
import Localization
import Locking
import TaskConversion
import TaskModel

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
