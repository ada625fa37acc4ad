import Foundation
import ICalendar
import TaskModel

/// Calendar arithmetic in one IANA zone, through libical's zone data (the same data the
/// converter uses, so a report and a conversion never disagree about an offset).
public struct LocalTime: Sendable {
    /// The IANA zone name.
    public let zone: String

    /// A calendar date.
    public struct Day: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var year: Int
        public var month: Int
        public var day: Int

        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// `YYYY-MM-DD`.
        public var description: String {
            String(format: "%04d-%02d-%02d", year, month, day)
        }

        /// Monday = 1 … Sunday = 7 (ISO 8601).
        public var weekday: Int {
            // Zeller-style count from a known Monday (0001-01-01 was a Monday, proleptic Gregorian).
            let days =
                DateTimeValue(year: year, month: month, day: day, zone: .utc).epochAsUTC / 86_400
            return Int((days % 7 + 7 + 3) % 7) + 1  // 1970-01-01 was a Thursday
        }

        /// The next calendar day.
        public var next: Day {
            let epoch =
                DateTimeValue(year: year, month: month, day: day, zone: .utc).epochAsUTC + 86_400
            let value = DateTimeValue(utcEpoch: epoch)
            return Day(year: value.year, month: value.month, day: value.day)
        }

        /// Days since 1970-01-01 (negative before it): the difference of two is the days
        /// between them.
        public var ordinal: Int64 {
            DateTimeValue(year: year, month: month, day: day, zone: .utc).epochAsUTC / 86_400
        }

        /// The day `ordinal` days after 1970-01-01.
        public init(ordinal: Int64) {
            let value = DateTimeValue(utcEpoch: ordinal * 86_400)
            self.init(year: value.year, month: value.month, day: value.day)
        }

        /// The day `days` days later (earlier when negative).
        public func adding(days: Int64) -> Day { Day(ordinal: ordinal + days) }

        /// How many days the month of this day has.
        public var daysInMonth: Int {
            var probe = Day(year: year, month: month, day: 28)
            while probe.next.month == month { probe = probe.next }
            return probe.day
        }

        public static func < (lhs: Day, rhs: Day) -> Bool {
            (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
        }

        /// Parses `YYYY-MM-DD`.
        public init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
                DateTimeValue(year: year, month: month, day: day, zone: .utc).rangeProblem == nil
            else { return nil }
            self.init(year: year, month: month, day: day)
        }
    }

    /// Calendar arithmetic in `zone`; throws for an unknown zone.
    public init(zone: String) throws(ICalendarError) {
        guard TimeZones.isKnown(zone) else {
            throw ICalendarError(
                .invalidValue,
                "unknown time zone '\(zone)': expected an IANA name such as Europe/Moscow")
        }
        self.zone = zone
    }

    /// The wall-clock fields of `epoch` in the zone.
    public func fields(_ epoch: Int64) -> DateTimeValue {
        (try? DateTimeValue(epoch: epoch, inZone: zone)) ?? DateTimeValue(utcEpoch: epoch)
    }

    /// The calendar day `epoch` falls on in the zone.
    public func day(of epoch: Int64) -> Day {
        let value = fields(epoch)
        return Day(year: value.year, month: value.month, day: value.day)
    }

    /// The instant of `hour:minute` on `day` in the zone.
    public func epoch(_ day: Day, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        let value = DateTimeValue(
            year: day.year, month: day.month, day: day.day, hour: hour, minute: minute,
            second: second, zone: .floating)
        return (try? value.epoch(inZone: zone)) ?? value.epochAsUTC
    }

    /// `[midnight, next midnight)` of `day`: 23, 24 or 25 hours long.
    public func span(of day: Day) -> TimeSpan {
        TimeSpan(start: epoch(day), finish: epoch(day.next))
    }

    /// The time `record` takes up here. An all-day record is a run of calendar dates, not
    /// instants: it covers those dates from local midnight to local midnight in this zone
    /// (the dates are kept as UTC midnights in the task format).
    public func occupied(by record: TaskRecord) -> TimeSpan {
        if record.floating, let readIn = record.timeZone.flatMap(CalendarZone.system),
            let here = CalendarZone.system(zone), readIn != here
        {
            // Floating: the same wall-clock times wherever it is looked at.
            return TimeSpan(
                start: here.epoch(
                    ofLocal: record.dateStart + Int64(readIn.offset(at: record.dateStart))),
                finish: here.epoch(
                    ofLocal: record.dateFinish + Int64(readIn.offset(at: record.dateFinish))))
        }
        guard record.allDay else {
            return TimeSpan(start: record.dateStart, finish: record.dateFinish)
        }
        let first = DateTimeValue(utcEpoch: record.dateStart)
        let last = DateTimeValue(utcEpoch: record.dateFinish)
        return TimeSpan(
            start: epoch(Day(year: first.year, month: first.month, day: first.day)),
            finish: epoch(Day(year: last.year, month: last.month, day: last.day)))
    }

    /// Seconds east of UTC at `epoch`.
    public func utcOffset(at epoch: Int64) -> Int {
        Int(fields(epoch).epochAsUTC - epoch)
    }

    /// `HH:MM` of `epoch` in the zone.
    public func clock(_ epoch: Int64) -> String {
        let value = fields(epoch)
        return String(format: "%02d:%02d", value.hour, value.minute)
    }

    /// `+03:00`-style offset at `epoch`.
    public func offsetText(at epoch: Int64) -> String {
        let offset = utcOffset(at: epoch)
        let sign = offset < 0 ? "-" : "+"
        return String(format: "%@%02d:%02d", sign, abs(offset) / 3600, abs(offset) % 3600 / 60)
    }

    /// `2026-11-22T14:00+03:00`.
    public func iso(_ epoch: Int64) -> String {
        let value = fields(epoch)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d", value.year, value.month, value.day, value.hour,
            value.minute)
            + offsetText(at: epoch)
    }

    /// A time from the command line: Unix seconds, or ISO 8601 `2026-11-22T14:00[:SS]`
    /// (local in the zone unless it ends in `Z` or an offset like `+03:00`), or a date
    /// `2026-11-22` (its midnight).
    public func parse(_ text: String) -> Int64? {
        if let seconds = Timestamp.parse(text) { return seconds }
        if let day = Day(text) { return epoch(day) }
        guard text.count >= 16, let day = Day(String(text.prefix(10))) else { return nil }
        var rest = Substring(text.dropFirst(10))
        guard rest.first == "T" || rest.first == " " else { return nil }
        rest = rest.dropFirst()
        var offset: Int?
        if rest.hasSuffix("Z") {
            offset = 0
            rest = rest.dropLast()
        } else if rest.count > 6, let signIndex = rest.lastIndex(where: { $0 == "+" || $0 == "-" })
        {
            let zonePart = rest[signIndex...]
            let digits = zonePart.dropFirst().split(separator: ":")
            guard digits.count == 2, let hours = Int(digits[0]), let minutes = Int(digits[1]),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (zonePart.first == "-" ? -1 : 1)
            rest = rest[..<signIndex]
        }
        let clock = rest.split(separator: ":")
        guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), hour < 24, minute < 60
        else { return nil }
        let second = clock.count == 3 ? Int(clock[2]) : 0
        guard let second, second < 60 else { return nil }
        if let offset {
            let value = DateTimeValue(
                year: day.year, month: day.month, day: day.day, hour: hour, minute: minute,
                second: second, zone: .utc)
            return value.epochAsUTC - Int64(offset)
        }
        return epoch(day, hour: hour, minute: minute, second: second)
    }
}
