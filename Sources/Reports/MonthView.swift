import Foundation
import Localization
import Locking
import TaskConversion
import TaskModel

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
