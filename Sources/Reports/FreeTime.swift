import ICalendar
import Localization
import TaskConversion
import TaskModel

/// Free time, the inverse of the overlap report: the stretches of a window that no entry
/// takes up, within working hours and on working days when given, at least a minimum long.
public struct FreeTime: Sendable {
    /// Hours of each day that count, in the report's zone: `09:00-18:00`, or overnight
    /// `22:00-06:00` (the end on the next day). Minutes from midnight; the end may be 1440.
    public struct Hours: Sendable, Hashable, CustomStringConvertible {
        public var start: Int
        public var end: Int

        /// `HH:MM-HH:MM` (`24:00` ends at midnight); `nil` when it is no such range.
        public init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Self.minutes(parts[0]),
                let end = Self.minutes(parts[1]), start < 1440, start != end
            else { return nil }
            self.start = start
            self.end = end
        }

        private static func minutes(_ text: Substring) -> Int? {
            let clock = text.split(separator: ":")
            guard clock.count == 2, clock.allSatisfy({ $0.count == 2 }),
                let hour = Int(clock[0]), let minute = Int(clock[1]), minute < 60,
                hour < 24 || (hour == 24 && minute == 0)
            else { return nil }
            return hour * 60 + minute
        }

        public var description: String {
            func clock(_ minutes: Int) -> String {
                (minutes / 60 < 10 ? "0" : "") + "\(minutes / 60):"
                    + (minutes % 60 < 10 ? "0" : "") + "\(minutes % 60)"
            }
            return "\(clock(start))–\(clock(end))"
        }
    }

    /// Weekdays that count, 1 (Monday) … 7 (Sunday): `MO-FR`, `MO,WE,FR`, `FR-MO`.
    public struct Days: Sendable, Hashable, CustomStringConvertible {
        public var weekdays: Set<Int>
        static let names = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

        /// `nil` when a part is no weekday (RFC 5545 two-letter names, any case).
        public init?(_ text: String) {
            var days: Set<Int> = []
            for part in text.uppercased().split(separator: ",") {
                let ends = part.split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(ends.count),
                    let first = Self.names.firstIndex(of: String(ends[0])),
                    let last = Self.names.firstIndex(of: String(ends[ends.count - 1]))
                else { return nil }
                var day = first
                while true {
                    days.insert(day + 1)
                    if day == last { break }
                    day = (day + 1) % 7
                }
            }
            guard !days.isEmpty else { return nil }
            weekdays = days
        }

        public var description: String {
            weekdays.sorted().map { Self.names[$0 - 1] }.joined(separator: ",")
        }
    }

    /// The window asked about.
    public var window: TimeSpan
    /// The free stretches listed, in order: the first `limit` of them.
    public var slots: [TimeSpan]
    /// How many free stretches there are in all, listed or not.
    public var total: Int
    /// Free seconds in all (listed or not).
    public var seconds: Int64
    /// What was asked: the shortest stretch, the hours and days that count.
    public var minimum: Int64
    public var hours: Hours?
    public var days: Days?

    /// Most stretches a report lists unless told otherwise.
    public static let defaultLimit = 10_000

    /// The free time of `window` around `busy` (spans in any order, overlapping or not), in
    /// `time`'s zone: only `hours` of `days` when given, only stretches of `minimum` seconds
    /// or more.
    public init(
        busy: [TimeSpan], window: TimeSpan, time: LocalTime, minimum: Int64 = 0,
        hours: Hours? = nil, days: Days? = nil, limit: Int = defaultLimit
    ) {
        self.window = window
        self.minimum = minimum
        self.hours = hours
        self.days = days
        var merged: [TimeSpan] = []
        for span in busy.sorted() where !span.isEmpty && span.overlaps(window) {
            if let last = merged.last, span.start <= last.finish {
                merged[merged.count - 1].finish = max(last.finish, span.finish)
            } else {
                merged.append(span)
            }
        }
        var slots: [TimeSpan] = []
        var total = 0
        var seconds: Int64 = 0
        var next = 0  // the first merged busy span that may still cut an open stretch
        Self.open(window, time: time, hours: hours, days: days) { open in
            var cursor = open.start
            while next < merged.count && merged[next].finish <= open.start { next += 1 }
            var index = next
            while cursor < open.finish {
                let busyStart = index < merged.count ? merged[index].start : Int64.max
                let freeEnd = min(open.finish, busyStart)
                if freeEnd > cursor && freeEnd - cursor >= max(minimum, 1) {
                    total += 1
                    seconds += freeEnd - cursor
                    if slots.count < limit {
                        slots.append(TimeSpan(start: cursor, finish: freeEnd))
                    }
                }
                guard index < merged.count, merged[index].start < open.finish else { break }
                cursor = max(cursor, merged[index].finish)
                index += 1
            }
        }
        self.slots = slots
        self.total = total
        self.seconds = seconds
    }

    /// The stretches of `window` that count, in order: the whole window, or each counted
    /// day's hours cut to it.
    static func open(
        _ window: TimeSpan, time: LocalTime, hours: Hours?, days: Days?,
        _ body: (TimeSpan) -> Void
    ) {
        guard hours != nil || days != nil else { return body(window) }
        // From the day before the window (overnight hours reach into it) to its last day.
        let first = time.day(of: window.start)
        let before = DateTimeValue(
            utcEpoch: DateTimeValue(
                year: first.year, month: first.month, day: first.day, zone: .utc
            ).epochAsUTC - 86_400)
        var day = LocalTime.Day(year: before.year, month: before.month, day: before.day)
        let last = time.day(of: window.finish)
        while day <= last {
            if days?.weekdays.contains(day.weekday) ?? true {
                let span: TimeSpan
                if let hours {
                    let start = time.epoch(day, hour: hours.start / 60, minute: hours.start % 60)
                    let endDay = hours.end > hours.start ? day : day.next
                    let endMinutes = hours.end % 1440
                    let end = time.epoch(
                        hours.end == 1440 ? day.next : endDay, hour: endMinutes / 60,
                        minute: endMinutes % 60)
                    span = TimeSpan(start: start, finish: end)
                } else {
                    span = time.span(of: day)
                }
                if let cut = span.intersection(window), !cut.isEmpty { body(cut) }
            }
            day = day.next
        }
    }

    /// How many are not listed.
    public var unlisted: Int { total - slots.count }

    /// `[{"date_start": "…", "date_finish": "…", "minutes": N}, …]`, times as Unix seconds
    /// in strings as in the task format.
    public func json() -> String {
        guard !slots.isEmpty else { return "[]\n" }
        return "[\n" + slotsJSON() + "\n]\n"
    }

    /// The report as a JSON object that says whether it is whole, for a list a limit cut:
    /// `{"listed": M, "total": N, "truncated": true, "free": [STRETCH, …]}`; `truncated` is
    /// false when all `total` stretches are listed.
    public func countedJSON() -> String {
        var writer = JSONWriter()
        writer.begin()
        writer.field("listed", number: Int64(slots.count))
        writer.field("total", number: Int64(total))
        writer.field("truncated", bool: unlisted > 0)
        writer.key("free")
        return writer.text + (slots.isEmpty ? "[]" : "[\n" + slotsJSON() + "\n]") + "}\n"
    }

    /// The listed stretches, one a line, `,\n` between them.
    private func slotsJSON() -> String {
        var writer = JSONWriter()
        for (number, slot) in slots.enumerated() {
            if number > 0 { writer.raw(",\n") }
            writer.begin()
            writer.field("date_start", numberString: slot.start)
            writer.field("date_finish", numberString: slot.finish)
            writer.field("minutes", number: (slot.finish - slot.start) / 60)
            writer.end()
        }
        return writer.text
    }

    /// Days with their free stretches, and the total.
    public func text(in time: LocalTime, style: some ReportStyle) -> String {
        var conditions: [String] = []
        if minimum > 0 {
            conditions.append(say("at least %@", OverlapReport.duration(minimum / 60)))
        }
        if let hours { conditions.append(hours.description) }
        if let days { conditions.append(days.description) }
        var out =
            say(
                "Free time %@ %@ – %@ %@ (%@%@):",
                OverlapReport.date(time.day(of: window.start)), time.clock(window.start),
                OverlapReport.date(time.day(of: window.finish)), time.clock(window.finish),
                time.zone, conditions.isEmpty ? "" : ", " + conditions.joined(separator: ", "))
            + "\n"
        guard !slots.isEmpty else { return out + "  " + say("none") + "\n" }
        var lastDay: LocalTime.Day?
        for slot in slots {
            let day = time.day(of: slot.start)
            if day != lastDay {
                out += style.strong(OverlapReport.dayTitle(day)) + "\n"
                lastDay = day
            }
            out +=
                "  \(OverlapReport.range(slot, time))  "
                + style.faint(OverlapReport.duration((slot.finish - slot.start) / 60)) + "\n"
        }
        if unlisted > 0 {
            out += style.faint(say("… and %@ more", OverlapReport.grouped(unlisted))) + "\n"
        }
        out +=
            say(
                "%@ free stretch%@, %@ in all", OverlapReport.grouped(total),
                total == 1 ? "" : "es", OverlapReport.duration(seconds / 60)) + "\n"
        return out
    }
}
