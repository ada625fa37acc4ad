import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

/// What a diary or a task file says about how time was spent and what was done: entries, busy
/// time, the longest free stretch, what was completed (the best period, ideal days, the average
/// done per day, as the habit tracker counted them), to-dos open and done, habit occurrences
/// scheduled and skipped, streaks of days with something done; in all and by day, week,
/// month, category or habit.
public struct Statistics: Sendable {
    /// How the rows of the table are made.
    public enum Grouping: String, Sendable, CaseIterable {
        case day, week, month, category, habit
    }

    /// One entry as statistics see it: the time it takes up in the report's zone (an
    /// occurrence of a habit is an entry of its own), whether it blocks that time, and its
    /// categories.
    public struct Entry: Sendable {
        public var span: TimeSpan
        public var occupies: Bool
        public var categories: [String]
        /// The habit this is an occurrence of (scheduled unless cancelled), `nil` for a single
        /// entry.
        public var habit: HabitTally.Habit?
        public var cancelled: Bool
        /// Marked done (`diary done`).
        public var done: Bool

        public var isOccurrence: Bool { habit != nil }

        public init(
            span: TimeSpan, occupies: Bool, categories: [String], habit: HabitTally.Habit?,
            cancelled: Bool, done: Bool
        ) {
            self.span = span
            self.occupies = occupies
            self.categories = categories
            self.habit = habit
            self.cancelled = cancelled
            self.done = done
        }
    }

    /// A row: its key (`2026-11-27`, `2026-W48`, `2026-11`, a category, `#1 Run`), its
    /// entries, busy time and entries done.
    public struct Group: Sendable, Hashable {
        public var key: String
        public var entries: Int
        public var busy: Int64
        public var done: Int
    }

    public var window: TimeSpan
    /// Entries that start in the window (occurrences of habits each count).
    public var entries: Int
    /// Seconds of the window that some entry takes up (two at once count once).
    public var busy: Int64
    /// The longest stretch of the window no entry takes up.
    public var longestFree: TimeSpan?
    public var todosOpen: Int
    public var todosDone: Int
    /// Entries in the window marked done: occurrences of habits and single entries.
    public var completed: Int
    /// Habit occurrences up to the end of today (or of the window, if sooner): what was done
    /// of them, the best period, ideal days. Later occurrences cannot have been done yet.
    public var tally: HabitTally
    /// Entries done per day of the window up to that end (``LocalTime/Day/ordinal``).
    public var donePerDay: [Int64: Int]
    /// The days of the window up to that end: what the average is taken over.
    public var daysCounted: Int
    /// Occurrences of habits in the window that are scheduled, and those taken out
    /// (`EXDATE`) or cancelled.
    public var habitsScheduled: Int
    public var habitsSkipped: Int
    /// The most days in a row with something done, and the run that ends on the window's
    /// last day (or today).
    public var longestStreak: Int
    public var currentStreak: Int
    public var grouping: Grouping?
    public var groups: [Group]

    /// Statistics of `entries` in `window` (their span when `nil`) in `time`'s zone.
    /// `skipped`: occurrences taken out of habits in the window; to-dos as done or not; `now`:
    /// what was done is counted up to the end of its day.
    public init(
        entries all: [Entry], todos: [Bool], skipped: Int, window asked: TimeSpan?,
        time: LocalTime, grouping: Grouping? = nil, now: Int64
    ) {
        let window =
            asked
            ?? TimeSpan(
                start: all.map(\.span.start).min() ?? 0,
                finish: all.map { max($0.span.finish, $0.span.start + 1) }.max() ?? 0)
        self.window = window
        // Without a window asked for, every entry starts inside the one made: the entries are
        // shared, not copied (a million of them are most of what the report holds).
        let inside =
            asked == nil
            ? all
            : all.filter { $0.span.start >= window.start && $0.span.start < window.finish }
        entries = inside.count { !$0.cancelled }
        habitsScheduled = inside.count { $0.isOccurrence && !$0.cancelled }
        habitsSkipped = skipped + inside.count { $0.isOccurrence && $0.cancelled }
        todosDone = todos.count { $0 }
        todosOpen = todos.count - todosDone
        let busySpans = all.compactMap { $0.occupies ? $0.span : nil }
        let free = FreeTime(busy: busySpans, window: window, time: time, limit: .max)
        busy = (window.finish - window.start) - free.seconds
        longestFree = free.slots.max { ($0.finish - $0.start) < ($1.finish - $1.start) }
        let counted = Self.counted(inside, window: window, time: time, now: now)
        completed = inside.count { $0.done && !$0.cancelled }
        tally = counted.tally
        donePerDay = counted.donePerDay
        daysCounted = counted.days
        (longestStreak, currentStreak) = Self.streaks(
            of: counted.donePerDay.keys, lastDay: counted.lastDay)
        self.grouping = grouping
        groups =
            grouping.map {
                Self.groups(of: inside.filter { !$0.cancelled }, by: $0, window: window, time: time)
            } ?? []
    }

    /// The average entries done per day of the days counted.
    public var averageDone: Double {
        daysCounted > 0 ? Double(donePerDay.values.reduce(0, +)) / Double(daysCounted) : 0
    }

    /// What was done up to the end of `now`'s day (or of the window, if sooner): the habit
    /// tally, entries done per day, the days counted and the last of them.
    static func counted(_ inside: [Entry], window: TimeSpan, time: LocalTime, now: Int64) -> (
        tally: HabitTally, donePerDay: [Int64: Int], days: Int, lastDay: Int64
    ) {
        let end = min(window.finish, time.span(of: time.day(of: now)).finish)
        var occurrences: [HabitTally.Occurrence] = []
        var donePerDay: [Int64: Int] = [:]
        for entry in inside where !entry.cancelled && entry.span.start < end {
            let day = time.day(of: entry.span.start)
            if entry.done { donePerDay[day.ordinal, default: 0] += 1 }
            if let habit = entry.habit {
                occurrences.append(
                    .init(habit: habit, start: entry.span.start, day: day, done: entry.done))
            }
        }
        let first = time.day(of: window.start).ordinal
        let last = time.day(of: max(window.start, end - 1)).ordinal
        return (
            HabitTally(occurrences), donePerDay, end > window.start ? Int(last - first + 1) : 0,
            last
        )
    }

    /// The longest run of days in `days` one after another, and the run that ends on
    /// `lastDay` (or the day before it, when nothing is done yet today).
    static func streaks(of days: some Collection<Int64>, lastDay: Int64) -> (Int, Int) {
        let sorted = days.sorted()
        var longest = 0
        var run = 0
        var previous: Int64?
        var runEnd: Int64 = .min
        for day in sorted {
            run = previous.map { day == $0 + 1 } == true ? run + 1 : 1
            longest = max(longest, run)
            previous = day
            runEnd = day
        }
        let current = runEnd == lastDay || runEnd == lastDay - 1 ? run : 0
        return (longest, current)
    }

    /// The rows of `entries` by `grouping`, in order of their keys.
    static func groups(
        of entries: [Entry], by grouping: Grouping, window: TimeSpan, time: LocalTime
    ) -> [Group] {
        var members: [String: [Entry]] = [:]
        var periods: [String: TimeSpan] = [:]
        var order: [String: Int64] = [:]
        for entry in entries {
            let day = time.day(of: entry.span.start)
            switch grouping {
            case .category:
                for category in entry.categories.isEmpty ? ["(none)"] : entry.categories {
                    members[category, default: []].append(entry)
                }
            case .habit:
                // Habits in order of id; single entries are no habit's.
                if let habit = entry.habit {
                    let key = "#\(habit.id) \(habit.name)"
                    members[key, default: []].append(entry)
                    order[key] = habit.id
                }
            case .day, .week, .month:
                let (key, period) = Self.period(of: day, grouping, time: time)
                members[key, default: []].append(entry)
                periods[key] = period
            }
        }
        return members.keys.sorted { (order[$0] ?? 0, $0) < (order[$1] ?? 0, $1) }.map { key in
            let list = members[key] ?? []
            let spans = list.filter(\.occupies).map(\.span)
            let within = periods[key]?.intersection(window) ?? window
            let free = FreeTime(busy: spans, window: within, time: time, limit: 0)
            return Group(
                key: key, entries: list.count,
                busy: (within.finish - within.start) - free.seconds,
                done: list.filter(\.done).count)
        }
    }

    /// The key and the span of the day, ISO week or month `day` falls in.
    static func period(of day: LocalTime.Day, _ grouping: Grouping, time: LocalTime) -> (
        String, TimeSpan
    ) {
        func shifted(_ day: LocalTime.Day, _ days: Int64) -> LocalTime.Day {
            let value = DateTimeValue(
                utcEpoch: DateTimeValue(year: day.year, month: day.month, day: day.day, zone: .utc)
                    .epochAsUTC + days * 86_400)
            return LocalTime.Day(year: value.year, month: value.month, day: value.day)
        }
        switch grouping {
        case .week:
            let monday = shifted(day, Int64(1 - day.weekday))
            // ISO 8601: the week belongs to the year of its Thursday.
            let thursday = shifted(monday, 3)
            let januaryFirst = LocalTime.Day(year: thursday.year, month: 1, day: 1)
            func ordinal(_ day: LocalTime.Day) -> Int64 {
                DateTimeValue(year: day.year, month: day.month, day: day.day, zone: .utc)
                    .epochAsUTC / 86_400
            }
            let week = (ordinal(thursday) - ordinal(januaryFirst)) / 7 + 1
            let key = String(format: "%04d-W%02d", thursday.year, week)
            return (
                key, TimeSpan(start: time.epoch(monday), finish: time.epoch(shifted(monday, 7)))
            )
        case .month:
            let first = LocalTime.Day(year: day.year, month: day.month, day: 1)
            let next = shifted(first, Int64(first.daysInMonth))
            return (
                String(format: "%04d-%02d", day.year, day.month),
                TimeSpan(start: time.epoch(first), finish: time.epoch(next))
            )
        case .day, .category, .habit:
            return (day.description, time.span(of: day))
        }
    }

    /// Whether there is no window: nothing with a time, and none asked for.
    public var isEmpty: Bool { window.finish <= window.start }

    /// One JSON object; times as Unix seconds in strings, durations in minutes; no window
    /// when there is none.
    public func json() -> String {
        var writer = JSONWriter()
        writer.begin()
        if !isEmpty {
            writer.field("date_start", numberString: window.start)
            writer.field("date_finish", numberString: window.finish)
        }
        writer.field("entries", number: Int64(entries))
        writer.field("busy_minutes", number: busy / 60)
        if let longestFree {
            writer.key("longest_free")
            writer.begin()
            writer.field("date_start", numberString: longestFree.start)
            writer.field("date_finish", numberString: longestFree.finish)
            writer.field("minutes", number: (longestFree.finish - longestFree.start) / 60)
            writer.end()
        }
        writer.field("completed", number: Int64(completed))
        if let best = tally.best { Self.write(best, named: "best_period", to: &writer) }
        writer.field("ideal_days", number: Int64(tally.idealDays))
        writer.field("average_done_per_day", decimal: averageDone, places: 2)
        writer.field("days_counted", number: Int64(daysCounted))
        writer.field("todos_open", number: Int64(todosOpen))
        writer.field("todos_done", number: Int64(todosDone))
        writer.field("habit_occurrences_scheduled", number: Int64(habitsScheduled))
        writer.field("habit_occurrences_skipped", number: Int64(habitsSkipped))
        writer.field("longest_streak_days", number: Int64(longestStreak))
        writer.field("current_streak_days", number: Int64(currentStreak))
        writer.key("habits")
        writer.array(tally.rows) { writer, row in
            writer.begin()
            writer.field("id", number: row.habit.id)
            writer.field("name", string: row.habit.name)
            if let color = row.habit.color { writer.field("color", string: color) }
            writer.field("scheduled", number: Int64(row.scheduled))
            writer.field("done", number: Int64(row.done))
            if let best = row.best { Self.write(best, named: "best_period", to: &writer) }
            writer.field("current_period", number: Int64(row.current))
            writer.end()
        }
        writer.key("done_per_day")
        writer.begin()
        for day in donePerDay.keys.sorted() {
            writer.field(
                named: LocalTime.Day(ordinal: day).description,
                number: Int64(donePerDay[day] ?? 0))
        }
        writer.end()
        if let grouping {
            writer.field("by", string: grouping.rawValue)
            writer.key("groups")
            writer.array(groups) { writer, group in
                writer.begin()
                writer.field("key", string: group.key)
                writer.field("entries", number: Int64(group.entries))
                writer.field("busy_minutes", number: group.busy / 60)
                writer.field("done", number: Int64(group.done))
                writer.end()
            }
        }
        writer.end()
        return writer.text + "\n"
    }

    /// `"name": {"occurrences": 3, "first": "2026-11-20", "last": "2026-11-22"}`.
    static func write(
        _ period: HabitTally.Period, named name: StaticString, to writer: inout JSONWriter
    ) {
        writer.key(name)
        writer.begin()
        writer.field("occurrences", number: Int64(period.occurrences))
        writer.field("first", string: period.first.description)
        writer.field("last", string: period.last.description)
        writer.end()
    }

    /// A summary, then the rows.
    public func text(in time: LocalTime, style: some ReportStyle) -> String {
        var out =
            style.strong(
                isEmpty
                    ? say("Statistics (no entries with a time; %@)", time.zone)
                    : say(
                        "Statistics %@ %@ – %@ %@ (%@)",
                        OverlapReport.date(time.day(of: window.start)),
                        time.clock(window.start), OverlapReport.date(time.day(of: window.finish)),
                        time.clock(window.finish), time.zone)
            )
            + "\n"
        let rows = summaryRows(in: time, style: style)
        let labelWidth = max(14, (rows.map(\.0.count).max() ?? 0) + 2)
        for (name, value) in rows {
            out +=
                "  " + name.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + value
                + "\n"
        }
        if let grouping {
            out += style.strong(say("By %@:", say(grouping.rawValue))) + "\n"
            out += groupLines(style: style).joined()
        }
        return out
    }

    /// `3 h 30 min`, or `2 d 1 h` past a day.
    static func minutes(_ seconds: Int64) -> String {
        let minutes = seconds / 60
        return minutes >= 1440
            ? say("%@ d", minutes / 1440) + " " + OverlapReport.duration(minutes % 1440)
            : OverlapReport.duration(minutes)
    }

    static func days(_ count: Int) -> String { say("%@ day%@", count, count == 1 ? "" : "s") }

    /// `3 (2026-11-20 – 2026-11-22)`.
    static func period(_ period: HabitTally.Period?, style: some ReportStyle) -> String {
        guard let period else { return "0" }
        return "\(period.occurrences)"
            + style.faint(
                period.first == period.last
                    ? " (\(OverlapReport.date(period.first)))"
                    : " (\(OverlapReport.date(period.first)) – \(OverlapReport.date(period.last)))")
    }

    /// The label and value of each line of the summary.
    func summaryRows(in time: LocalTime, style: some ReportStyle) -> [(String, String)] {
        var rows: [(String, String)] = [
            (say("entries"), OverlapReport.grouped(entries)),
            (say("busy"), Self.minutes(busy)),
        ]
        if let longestFree {
            rows.append(
                (
                    say("longest free"),
                    Self.minutes(longestFree.finish - longestFree.start)
                        + style.faint(" (\(OverlapReport.range(longestFree, time)))")
                ))
        }
        rows += [
            (say("completed"), OverlapReport.grouped(completed)),
            (say("best period"), Self.period(tally.best, style: style)),
            (say("ideal days"), OverlapReport.grouped(tally.idealDays)),
            (
                say("average"),
                say("%@ done per day", String(format: "%.1f", averageDone))
                    + style.faint(" (\(say("over %@", Self.days(daysCounted))))")
            ),
            (say("to-dos"), say("%@ open, %@ done", todosOpen, todosDone)),
            (
                say("habits"),
                say("%@ occurrences scheduled, %@ skipped", habitsScheduled, habitsSkipped)
            ),
            (
                say("streaks"),
                say(
                    "%@ longest, %@ to the end", Self.days(longestStreak),
                    Self.days(currentStreak))
                    + style.faint(" (\(say("days with something done")))")
            ),
        ]
        return rows
    }

    /// The rows by day, week, month, category or habit, one line each.
    func groupLines(style: some ReportStyle) -> [String] {
        let width = max(8, groups.map(\.key.count).max() ?? 0)
        let habits = Dictionary(
            tally.rows.map { ("#\($0.habit.id) \($0.habit.name)", $0) },
            uniquingKeysWith: { a, _ in a })
        return groups.map { group in
            let key = group.key == "(none)" ? say("(none)") : group.key
            var line =
                "  " + key.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            if grouping == .habit, let row = habits[group.key] {
                line +=
                    say("%@ of %@ done", row.done, row.scheduled) + ", "
                    + say("best period %@", Self.period(row.best, style: style))
            } else {
                line +=
                    say("%@ entr%@", group.entries, group.entries == 1 ? "y" : "ies") + ", "
                    + say("%@ done", group.done) + ", "
                    + style.faint(say("%@ busy", Self.minutes(group.busy)))
            }
            return line + "\n"
        }
    }
}
