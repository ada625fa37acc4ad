import Foundation
import Localization
import TaskConversion

/// The statistics as pictures: a year of what was done, one square a day shaded by how much,
/// and each habit day by day.
extension Statistics {
    /// The colour of the squares: the habits' colour when they share one, else
    /// ``Drawing/doneColor``.
    var doneColor: String {
        let colors = Set(tally.rows.filter { $0.done > 0 }.map { $0.habit.color })
        if colors.count == 1, let only = colors.first, let color = only { return color }
        return Drawing.doneColor
    }

    /// The last day counted (today, or the window's last day if sooner).
    func lastDay(in time: LocalTime) -> LocalTime.Day {
        LocalTime.Day(ordinal: time.day(of: window.start).ordinal + Int64(max(daysCounted, 1)) - 1)
    }

    /// A year of days done up to the last day counted: weeks as columns from Monday, weekday
    /// rows, month labels, one square a day shaded by the entries done that day.
    public func heatMap(in time: LocalTime) -> Markup {
        let last = lastDay(in: time)
        // 53 weeks, the last one holding the last day.
        let lastMonday = last.adding(days: Int64(1 - last.weekday))
        let firstMonday = lastMonday.adding(days: -52 * 7)
        let cell = 11.0
        let step = 14.0
        let left = 34.0
        let top = 42.0
        let width = left + 53 * step + 10
        let height = top + 7 * step + 36
        let most = max(1, donePerDay.values.max() ?? 1)
        let color = doneColor
        let title = say(
            "Done per day, %@ – %@", OverlapReport.date(firstMonday), OverlapReport.date(last))
        return Drawing.svg(width: width, height: height, title: title) { markup in
            Drawing.label(&markup, title, x: left, y: 16, size: 13, bold: true)
            for row in [1, 3, 5] {
                Drawing.label(
                    &markup, Localization.weekday(row, short: true), x: left - 6,
                    y: top + Double(row - 1) * step + 9, anchor: "end", color: Drawing.faint,
                    size: 9)
            }
            var day = firstMonday
            var column = 0
            while day <= last {
                if day.day == 1 || (column == 0 && day.weekday == 1 && day.day <= 7) {
                    Drawing.label(
                        &markup, Localization.month(day.month).prefix(3).description,
                        x: left + Double(column) * step, y: top - 6, color: Drawing.faint,
                        size: 9)
                }
                let done = donePerDay[day.ordinal] ?? 0
                let shade = done == 0 ? 0 : 0.4 + 0.6 * Double(done) / Double(most)
                markup.open(
                    "rect",
                    [
                        "x": Markup.number(left + Double(column) * step),
                        "y": Markup.number(top + Double(day.weekday - 1) * step),
                        "width": Markup.number(cell), "height": Markup.number(cell),
                        "rx": "2", "fill": done == 0 ? Drawing.empty : color,
                        "fill-opacity": Markup.number(done == 0 ? 1 : shade),
                    ])
                markup.element("title", text: say("%@: %@ done", day.description, done))
                markup.close()
                markup.newline()
                if day.weekday == 7 { column += 1 }
                day = day.next
            }
            legend(&markup, x: left, y: top + 7 * step + 14, color: color)
        }
    }

    /// "Less □□□□ more": the shades the squares take.
    private func legend(_ markup: inout Markup, x: Double, y: Double, color: String) {
        Drawing.label(&markup, say("less"), x: x, y: y + 9, color: Drawing.faint, size: 9)
        for (index, shade) in [0.4, 0.6, 0.8, 1.0].enumerated() {
            markup.empty(
                "rect",
                [
                    "x": Markup.number(x + 34 + Double(index) * 14), "y": Markup.number(y),
                    "width": "11", "height": "11", "rx": "2", "fill": color,
                    "fill-opacity": Markup.number(shade),
                ])
        }
        Drawing.label(
            &markup, say("more"), x: x + 34 + 4 * 14 + 2, y: y + 9, color: Drawing.faint, size: 9)
    }

    /// The days the habit grid shows: the window when it is a month or less, else the month
    /// of the last day counted (up to that day).
    func gridDays(in time: LocalTime) -> [LocalTime.Day] {
        let last = lastDay(in: time)
        var first = time.day(of: window.start)
        if last.ordinal - first.ordinal >= 31 {
            first = LocalTime.Day(year: last.year, month: last.month, day: 1)
        }
        return (first.ordinal...max(first.ordinal, last.ordinal)).map { LocalTime.Day(ordinal: $0) }
    }

    /// Each habit a row, each day a column: a filled square when done, an outlined one when
    /// scheduled and not done, a dot when not scheduled.
    public func habitGrid(in time: LocalTime) -> Markup {
        let days = gridDays(in: time)
        let step = 20.0
        let left = 150.0
        let top = 44.0
        let width = left + Double(days.count) * step + 60
        let height = top + Double(max(1, tally.rows.count)) * step + 16
        let title = say(
            "Habits day by day, %@ – %@", OverlapReport.date(days[0]),
            OverlapReport.date(days[days.count - 1]))
        return Drawing.svg(width: width, height: height, title: title) { markup in
            Drawing.label(&markup, title, x: 8, y: 16, size: 13, bold: true)
            for (column, day) in days.enumerated() {
                Drawing.label(
                    &markup, String(day.day), x: left + Double(column) * step + 7, y: top - 6,
                    anchor: "middle", color: day.weekday >= 6 ? Drawing.conflict : Drawing.faint,
                    size: 9)
            }
            if tally.rows.isEmpty {
                Drawing.label(&markup, say("No habits in this window."), x: 8, y: top + 12)
            }
            for (row, habit) in tally.rows.enumerated() {
                let y = top + Double(row) * step
                let color = habit.habit.color ?? Drawing.doneColor
                Drawing.label(&markup, Drawing.cut(habit.habit.name, 22), x: 8, y: y + 11)
                for (column, day) in days.enumerated() {
                    gridCell(
                        &markup, x: left + Double(column) * step, y: y, color: color,
                        scheduled: habit.scheduledDays.contains(day.ordinal),
                        done: habit.doneDays.contains(day.ordinal))
                }
                Drawing.label(
                    &markup, "\(habit.done)/\(habit.scheduled)",
                    x: left + Double(days.count) * step + 6, y: y + 11, color: Drawing.faint,
                    size: 10)
            }
        }
    }

    private func gridCell(
        _ markup: inout Markup, x: Double, y: Double, color: String, scheduled: Bool, done: Bool
    ) {
        if done {
            markup.empty(
                "rect",
                [
                    "x": Markup.number(x), "y": Markup.number(y), "width": "14", "height": "14",
                    "rx": "3", "fill": color,
                ])
        } else if scheduled {
            markup.empty(
                "rect",
                [
                    "x": Markup.number(x + 1), "y": Markup.number(y + 1), "width": "12",
                    "height": "12", "rx": "3", "fill": "#ffffff", "stroke": color,
                    "stroke-width": "2",
                ])
        } else {
            markup.empty(
                "circle",
                [
                    "cx": Markup.number(x + 7), "cy": Markup.number(y + 7), "r": "1.5",
                    "fill": Drawing.empty,
                ])
        }
    }

    /// The statistics' figures as rows of a table, a header first.
    public func table(in time: LocalTime) -> [[String]] {
        [[say("what"), say("how much")]]
            + summaryRows(in: time, style: PlainStyle()).map { [$0.0, $0.1] }
            + tally.rows.map {
                [
                    "#\($0.habit.id) \($0.habit.name)",
                    say("%@ of %@ done", $0.done, $0.scheduled) + ", "
                        + say("best period %@", Self.period($0.best, style: PlainStyle())),
                ]
            }
    }
}
