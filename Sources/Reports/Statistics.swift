import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

/// What a diary or a task file says about how time was spent: entries, busy time, the
/// longest free stretch, to-dos open and done, habits kept and skipped, streaks of days with
/// entries; in all and by day, week, month or category.
public struct Statistics: Sendable {
    /// How the rows of the table are made.
    public enum Grouping: String, Sendable, CaseIterable {
        case day, week, month, category
    }

    /// One entry as statistics see it: the time it takes up in the report's zone (an
    /// occurrence of a habit is an entry of its own), whether it blocks that time, and its
    /// categories.
    public struct Entry: Sendable {
        public var span: TimeSpan
        public var occupies: Bool
        public var categories: [String]
        /// An occurrence of a habit (kept unless cancelled).
        public var isOccurrence: Bool
        public var cancelled: Bool

        public init(
            span: TimeSpan, occupies: Bool, categories: [String], isOccurrence: Bool,
            cancelled: Bool
        ) {
            self.span = span
            self.occupies = occupies
            self.categories = categories
            self.isOccurrence = isOccurrence
            self.cancelled = cancelled
        }
    }

    /// A row: its key (`2026-11-27`, `2026-W48`, `2026-11`, a category), its entries and
    /// busy time.
    public struct Group: Sendable, Hashable {
        public var key: String
        public var entries: Int
        public var busy: Int64
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
    /// Occurrences of habits in the window that happen, and those taken out (`EXDATE`) or
    /// cancelled.
    public var habitsKept: Int
    public var habitsSkipped: Int
    /// The most days in a row with an entry, and the run that ends on the window's last day.
    public var longestStreak: Int
    public var currentStreak: Int
    public var grouping: Grouping?
    public var groups: [Group]

    /// Statistics of `entries` in `window` (their span when `nil`) in `time`'s zone.
    /// `skipped`: occurrences taken out of habits in the window; to-dos as done or not.
    public init(
        entries all: [Entry], todos: [Bool], skipped: Int, window asked: TimeSpan?,
        time: LocalTime, grouping: Grouping? = nil
    ) {
        let window =
            asked
            ?? TimeSpan(
                start: all.map(\.span.start).min() ?? 0,
                finish: all.map { max($0.span.finish, $0.span.start + 1) }.max() ?? 0)
        self.window = window
        let inside = all.filter {
            $0.span.start >= window.start && $0.span.start < window.finish
        }
        entries = inside.filter { !$0.cancelled }.count
        habitsKept = inside.filter { $0.isOccurrence && !$0.cancelled }.count
        habitsSkipped = skipped + inside.filter { $0.isOccurrence && $0.cancelled }.count
        todosDone = todos.filter { $0 }.count
        todosOpen = todos.count - todosDone
        let busySpans = all.filter { $0.occupies }.map(\.span)
        let free = FreeTime(busy: busySpans, window: window, time: time, limit: .max)
        busy = (window.finish - window.start) - free.seconds
        longestFree = free.slots.max { ($0.finish - $0.start) < ($1.finish - $1.start) }
        // Streaks: runs of local days with an entry touching them, from each entry's run of
        // days (sorted and joined: a year-long entry costs what a short one does).
        func number(_ day: LocalTime.Day) -> Int64 {
            DateTimeValue(year: day.year, month: day.month, day: day.day, zone: .utc).epochAsUTC
                / 86_400
        }
        var runs: [ClosedRange<Int64>] = []
        for entry in inside.filter({ !$0.cancelled }).map({ entry in
            number(
                time.day(of: entry.span.start))...number(
                    time.day(of: max(entry.span.start, entry.span.finish - 1)))
        }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = runs.last, entry.lowerBound <= last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...max(last.upperBound, entry.upperBound)
            } else {
                runs.append(entry)
            }
        }
        longestStreak = runs.map { Int($0.upperBound - $0.lowerBound + 1) }.max() ?? 0
        let lastDay = number(time.day(of: max(window.start, window.finish - 1)))
        currentStreak =
            runs.last(where: { $0.contains(lastDay) }).map {
                Int(lastDay - $0.lowerBound + 1)
            } ?? 0
        self.grouping = grouping
        groups =
            grouping.map {
                Self.groups(of: inside.filter { !$0.cancelled }, by: $0, window: window, time: time)
            } ?? []
    }

    /// The rows of `entries` by `grouping`, in order of their keys.
    static func groups(
        of entries: [Entry], by grouping: Grouping, window: TimeSpan, time: LocalTime
    ) -> [Group] {
        var members: [String: [Entry]] = [:]
        var periods: [String: TimeSpan] = [:]
        for entry in entries {
            let day = time.day(of: entry.span.start)
            switch grouping {
            case .category:
                for category in entry.categories.isEmpty ? ["(none)"] : entry.categories {
                    members[category, default: []].append(entry)
                }
            case .day, .week, .month:
                let (key, period) = Self.period(of: day, grouping, time: time)
                members[key, default: []].append(entry)
                periods[key] = period
            }
        }
        return members.keys.sorted().map { key in
            let list = members[key] ?? []
            let spans = list.filter(\.occupies).map(\.span)
            let within = periods[key]?.intersection(window) ?? window
            let free = FreeTime(busy: spans, window: within, time: time, limit: 0)
            return Group(
                key: key, entries: list.count,
                busy: (within.finish - within.start) - free.seconds)
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
        case .day, .category:
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
        writer.field("todos_open", number: Int64(todosOpen))
        writer.field("todos_done", number: Int64(todosDone))
        writer.field("habit_occurrences_kept", number: Int64(habitsKept))
        writer.field("habit_occurrences_skipped", number: Int64(habitsSkipped))
        writer.field("longest_streak_days", number: Int64(longestStreak))
        writer.field("current_streak_days", number: Int64(currentStreak))
        if let grouping {
            writer.field("by", string: grouping.rawValue)
            writer.key("groups")
            writer.array(groups) { writer, group in
                writer.begin()
                writer.field("key", string: group.key)
                writer.field("entries", number: Int64(group.entries))
                writer.field("busy_minutes", number: group.busy / 60)
                writer.end()
            }
        }
        writer.end()
        return writer.text + "\n"
    }

    /// A summary, then the rows.
    public func text(in time: LocalTime, style: some ReportStyle) -> String {
        func minutes(_ seconds: Int64) -> String {
            let minutes = seconds / 60
            return minutes >= 1440
                ? say("%@ d", minutes / 1440) + " " + OverlapReport.duration(minutes % 1440)
                : OverlapReport.duration(minutes)
        }
        func days(_ count: Int) -> String { say("%@ day%@", count, count == 1 ? "" : "s") }
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
        var rows: [(String, String)] = [
            (say("entries"), OverlapReport.grouped(entries)),
            (say("busy"), minutes(busy)),
        ]
        if let longestFree {
            rows.append(
                (
                    say("longest free"),
                    minutes(longestFree.finish - longestFree.start)
                        + style.faint(" (\(OverlapReport.range(longestFree, time)))")
                ))
        }
        rows.append((say("to-dos"), say("%@ open, %@ done", todosOpen, todosDone)))
        rows.append(
            (say("habits"), say("%@ occurrences kept, %@ skipped", habitsKept, habitsSkipped)))
        rows.append(
            (
                say("streaks"),
                say("%@ longest, %@ to the end", days(longestStreak), days(currentStreak))
            ))
        let labelWidth = max(14, (rows.map(\.0.count).max() ?? 0) + 2)
        for (name, value) in rows {
            out +=
                "  " + name.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + value
                + "\n"
        }
        if let grouping {
            out += style.strong(say("By %@:", say(grouping.rawValue))) + "\n"
            let width = max(8, groups.map(\.key.count).max() ?? 0)
            for group in groups {
                let key = group.key == "(none)" ? say("(none)") : group.key
                out +=
                    "  " + key.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                    + say("%@ entr%@", group.entries, group.entries == 1 ? "y" : "ies") + ", "
                    + style.faint(say("%@ busy", minutes(group.busy))) + "\n"
            }
        }
        return out
    }
}
