import CLibical

/// A DATE or DATE-TIME as written in iCalendar: wall-clock fields and how to place them.
public struct DateTimeValue: Sendable, Hashable {
    /// How the wall-clock fields are tied to the time line.
    public enum Zone: Sendable, Hashable {
        /// `…Z`: the fields are UTC.
        case utc
        /// No zone: "the same wall-clock time wherever you are" (RFC 5545 floating time).
        case floating
        /// `TZID=…`: the fields are local time in that zone.
        case tzid(String)
    }

    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// A DATE (`VALUE=DATE`, an all-day value) rather than a DATE-TIME.
    public var isDate: Bool
    public var zone: Zone

    /// Creates a value from its fields.
    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
        isDate: Bool = false, zone: Zone
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.isDate = isDate
        self.zone = zone
    }

    /// The UTC DATE-TIME of `epoch` (Unix seconds).
    public init(utcEpoch epoch: Int64) {
        self.init(localSeconds: epoch)
        zone = .utc
    }

    /// The wall-clock DATE-TIME of `epoch` in the system zone `zoneName` (an IANA name),
    /// with `TZID` set to that name.
    public init(epoch: Int64, inZone zoneName: String) throws(ICalendarError) {
        self = try Self.systemZone(zoneName).local(epoch)
    }

    /// The UTC form iCalendar writes, `20261122T140000Z` (the fields as they are).
    public var compactUTC: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year =
            String(repeating: "0", count: max(0, 4 - String(self.year).count)) + String(self.year)
        return "\(year)\(two(month))\(two(day))T\(two(hour))\(two(minute))\(two(second))Z"
    }

    var icalTime: icaltimetype {
        var time = icaltime_null_time()
        time.year = Int32(year)
        time.month = Int32(month)
        time.day = Int32(day)
        time.is_date = isDate ? 1 : 0
        if !isDate {
            time.hour = Int32(hour)
            time.minute = Int32(minute)
            time.second = Int32(second)
        }
        if case .utc = zone, !isDate { time.zone = icaltimezone_get_utc_timezone() }
        return time
    }

    init(_ time: icaltimetype, zone: Zone) {
        self.init(
            year: Int(time.year), month: Int(time.month), day: Int(time.day),
            hour: Int(time.hour), minute: Int(time.minute), second: Int(time.second),
            isDate: time.is_date != 0, zone: time.is_date != 0 ? .floating : zone)
    }

    /// Why the fields cannot be a real date and time, or `nil` when they can.
    ///
    /// libical accepts `20241345T256199Z` and normalises it into another date; we refuse.
    public var rangeProblem: String? {
        guard (1...9999).contains(year) else { return "year \(year) is out of range 1–9999" }
        guard (1...12).contains(month) else { return "month \(month) is out of range 1–12" }
        let days = CivilDate.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            return "day \(day) does not exist in \(year)-\(month < 10 ? "0" : "")\(month)"
        }
        guard (0...23).contains(hour) else { return "hour \(hour) is out of range 0–23" }
        guard (0...59).contains(minute) else { return "minute \(minute) is out of range 0–59" }
        guard (0...60).contains(second) else { return "second \(second) is out of range 0–60" }
        return nil
    }

    /// Seconds since the Unix epoch of these fields read as UTC (DATEs: midnight UTC).
    public var epochAsUTC: Int64 { localSeconds }

    /// Seconds since the Unix epoch of these wall-clock fields in the system zone `zoneName`.
    public func epoch(inZone zoneName: String) throws(ICalendarError) -> Int64 {
        try Self.systemZone(zoneName).epoch(of: self)
    }

    private static func systemZone(_ name: String) throws(ICalendarError) -> CalendarZone {
        guard let zone = CalendarZone.system(name) else {
            throw ICalendarError(
                .invalidValue,
                "unknown time zone '\(name)': expected an IANA name such as Europe/Moscow")
        }
        return zone
    }
}
