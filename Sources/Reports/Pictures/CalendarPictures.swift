import Foundation
import Localization
import TaskConversion
import TaskModel

/// The month as a page of a wall calendar: weeks from Monday, each day with its entries.
public struct MonthPicture: Sendable {
    public var year: Int
    public var month: Int
    public var today: LocalTime.Day?
    /// Per day of the month (index 0 for the 1st), its entries' lines: `07:00 Run`.
    public var lines: [[String]]

    /// The month `year`-`month` in `time`'s zone with `entries` (an entry spanning several
    /// days is on each).
    public init(
        year: Int, month: Int, time: LocalTime, entries: [ReportEntry], today: LocalTime.Day?
    ) {
        self.year = year
        self.month = month
        self.today = today
        let first = LocalTime.Day(year: year, month: month, day: 1)
        var lines = [[String]](repeating: [], count: first.daysInMonth)
        for entry in entries.sorted(by: { ($0.span.start, $0.id) < ($1.span.start, $1.id) }) {
            let firstDay = time.day(of: entry.span.start)
            let lastDay = time.day(of: max(entry.span.start, entry.span.finish - 1))
            for ordinal in firstDay.ordinal...lastDay.ordinal {
                let day = LocalTime.Day(ordinal: ordinal)
                guard day.year == year && day.month == month else { continue }
                let clock = ordinal == firstDay.ordinal ? time.clock(entry.span.start) + " " : ""
                lines[day.day - 1].append(clock + entry.displayName)
            }
        }
        self.lines = lines
    }

    /// The grid: a column per weekday, a row per week, each day's first entries and how
    /// many more.
    public func svg() -> Markup {
        let first = LocalTime.Day(year: year, month: month, day: 1)
        let offset = first.weekday - 1
        let weeks = (offset + lines.count + 6) / 7
        let (cellWidth, cellHeight, top) = (128.0, 92.0, 54.0)
        let title = "\(Localization.month(month)) \(year)"
        return Drawing.svg(
            width: 7 * cellWidth + 2, height: top + Double(weeks) * cellHeight + 2, title: title
        ) { markup in
            Drawing.label(
                &markup, title, x: 7 * cellWidth / 2, y: 24, anchor: "middle", size: 18, bold: true)
            for weekday in 1...7 {
                Drawing.label(
                    &markup, Localization.weekday(weekday, short: true),
                    x: Double(weekday - 1) * cellWidth + cellWidth / 2, y: top - 8,
                    anchor: "middle", color: Drawing.faint)
            }
            for index in lines.indices {
                let slot = offset + index
                day(
                    &markup, index, x: 1 + Double(slot % 7) * cellWidth,
                    y: top + Double(slot / 7) * cellHeight, size: (cellWidth, cellHeight))
            }
        }
    }

    private func day(
        _ markup: inout Markup, _ index: Int, x: Double, y: Double, size: (Double, Double)
    ) {
        let date = LocalTime.Day(year: year, month: month, day: index + 1)
        let isToday = date == today
        markup.empty(
            "rect",
            [
                "x": Markup.number(x), "y": Markup.number(y), "width": Markup.number(size.0),
                "height": Markup.number(size.1),
                "fill": date.weekday >= 6 ? "#f6f8fa" : "#ffffff",
                "stroke": isToday ? "#0969da" : "#d0d7de",
                "stroke-width": isToday ? "3" : "1",
            ])
        Drawing.label(
            &markup, String(index + 1), x: x + 6, y: y + 15,
            color: isToday ? "#0969da" : Drawing.ink, size: 12,
            bold: isToday || !lines[index].isEmpty)
        let shown = lines[index].count > 5 ? 4 : lines[index].count
        for (row, line) in lines[index].prefix(shown).enumerated() {
            Drawing.label(
                &markup, Drawing.cut(line, 21), x: x + 6, y: y + 30 + Double(row) * 13, size: 10)
        }
        if lines[index].count > shown {
            Drawing.label(
                &markup, say("+%@ more", lines[index].count - shown), x: x + 6,
                y: y + 30 + Double(shown) * 13, color: Drawing.faint, size: 10)
        }
    }

    /// Each day with entries, and its entries, as rows of a table (a header first).
    public var table: [[String]] {
        [[say("date"), say("entries of the day")]]
            + lines.enumerated().filter { !$0.element.isEmpty }.map { index, lines in
                [
                    OverlapReport.date(LocalTime.Day(year: year, month: month, day: index + 1)),
                    lines.joined(separator: "; "),
                ]
            }
    }
}

extension OverlapReport {
    /// Days drawn at most: past them the picture says how many more there are.
    static let daysDrawn = 31

    /// A timeline of each day with double bookings: the entries involved as bars on their own
    /// lanes over the hours they take, the stretches two share in red behind them.
    public func svg(in time: LocalTime) -> Markup {
        var byDay: [Int64: [Overlap]] = [:]
        for overlap in overlaps {
            byDay[time.day(of: overlap.shared.start).ordinal, default: []].append(overlap)
        }
        let days = byDay.keys.sorted()
        let drawn = days.prefix(Self.daysDrawn)
        let lanes = drawn.map { Set((byDay[$0] ?? []).flatMap { [$0.first, $0.second] }).sorted() }
        let (left, plot, lane, top) = (210.0, 620.0, 18.0, 40.0)
        let height = top + lanes.reduce(0) { $0 + 40 + Double($1.count) * lane } + 30
        let title = say("Double bookings: %@ pair%@", total, total == 1 ? "" : "s")
        return Drawing.svg(width: left + plot + 30, height: height, title: title) { markup in
            Drawing.label(&markup, title, x: 8, y: 20, size: 14, bold: true)
            if days.isEmpty { Drawing.label(&markup, say("No overlaps."), x: 8, y: top + 10) }
            var y = top
            for (index, ordinal) in drawn.enumerated() {
                y = dayPanel(
                    &markup, LocalTime.Day(ordinal: ordinal), overlaps: byDay[ordinal] ?? [],
                    lanes: lanes[index], y: y, geometry: (left, plot, lane), time: time)
            }
            if days.count > drawn.count {
                Drawing.label(
                    &markup, say("and %@ more days with overlaps", days.count - drawn.count), x: 8,
                    y: y + 14, color: Drawing.faint)
            }
        }
    }

    /// One day: its title, an hour axis over the hours its entries take, the shared
    /// stretches and the bars; returns where the next day starts.
    private func dayPanel(
        _ markup: inout Markup, _ day: LocalTime.Day, overlaps: [Overlap], lanes: [Int], y: Double,
        geometry: (left: Double, plot: Double, lane: Double), time: LocalTime
    ) -> Double {
        let span = time.span(of: day)
        let clipped = lanes.map { entries[$0].span.intersection(span) ?? span }
        let firstHour = max(0, (clipped.map(\.start).min() ?? span.start) - span.start) / 3600
        let lastHour = min(
            24, ((clipped.map(\.finish).max() ?? span.finish) - span.start + 3599) / 3600)
        let from = span.start + firstHour * 3600
        let seconds = Double(max(3600, (lastHour - firstHour) * 3600))
        func x(_ instant: Int64) -> Double {
            geometry.left + Double(instant - from) / seconds * geometry.plot
        }
        Drawing.label(&markup, Self.dayTitle(day), x: 8, y: y + 14, bold: true)
        let barsTop = y + 24
        let barsHeight = Double(lanes.count) * geometry.lane
        for hour in firstHour...max(firstHour + 1, lastHour) {
            let position = x(span.start + hour * 3600)
            markup.empty(
                "line",
                [
                    "x1": Markup.number(position), "y1": Markup.number(barsTop),
                    "x2": Markup.number(position), "y2": Markup.number(barsTop + barsHeight),
                    "stroke": "#d0d7de", "stroke-width": "1",
                ])
            Drawing.label(
                &markup, String(format: "%02lld", hour % 24), x: position, y: barsTop - 3,
                anchor: "middle", color: Drawing.faint, size: 8)
        }
        for overlap in overlaps {
            let shared = overlap.shared.intersection(span) ?? overlap.shared
            markup.empty(
                "rect",
                [
                    "x": Markup.number(x(shared.start)), "y": Markup.number(barsTop),
                    "width": Markup.number(max(1, x(shared.finish) - x(shared.start))),
                    "height": Markup.number(barsHeight), "fill": Drawing.conflict,
                    "fill-opacity": "0.25",
                ])
        }
        for (row, index) in lanes.enumerated() {
            let entry = entries[index]
            let bar = clipped[row]
            let laneTop = barsTop + Double(row) * geometry.lane
            Drawing.label(
                &markup, Drawing.cut("#\(entry.id) \(entry.displayName)", 30), x: 8,
                y: laneTop + 12, size: 10)
            markup.open(
                "rect",
                [
                    "x": Markup.number(x(bar.start)), "y": Markup.number(laneTop + 3),
                    "width": Markup.number(max(2, x(bar.finish) - x(bar.start))),
                    "height": Markup.number(geometry.lane - 6), "rx": "3", "fill": "#0969da",
                ])
            markup.element(
                "title",
                text: #"#\#(entry.id) \#(entry.displayName): \#(Self.range(entry.span, time))"#)
            markup.close()
        }
        return barsTop + barsHeight + 16
    }

    /// Each pair as a row of a table (a header first).
    public func table(in time: LocalTime) -> [[String]] {
        [[say("shared"), say("first"), say("second")]]
            + overlaps.map { overlap in
                let first = entries[overlap.first]
                let second = entries[overlap.second]
                return [
                    "\(Self.date(time.day(of: overlap.shared.start))) \(Self.range(overlap.shared, time))",
                    "#\(first.id) \(first.displayName)", "#\(second.id) \(second.displayName)",
                ]
            }
    }
}
