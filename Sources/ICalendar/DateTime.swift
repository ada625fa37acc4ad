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
        Libical.ensureReady()
        let time = icaltime_from_timet_with_zone(time_t(epoch), 0, icaltimezone_get_utc_timezone())
        self.init(
            year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hour),
            minute: Int(time.minute), second: Int(time.second), zone: .utc)
    }

    /// The wall-clock DATE-TIME of `epoch` in the zone named `zoneName` (an IANA name).
    public init(epoch: Int64, inZone zoneName: String) throws(ICalendarError) {
        let zone = try TimeZones.zone(named: zoneName)
        let time = icaltime_from_timet_with_zone(time_t(epoch), 0, zone)
        self.init(
            year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hour),
            minute: Int(time.minute), second: Int(time.second), zone: .tzid(zoneName))
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

    /// Why the fields cannot be a real date and time, or `nil` when they can.
    ///
    /// libical accepts `20241345T256199Z` and normalises it into another date; we refuse.
    public var rangeProblem: String? {
        guard (1...9999).contains(year) else { return "year \(year) is out of range 1–9999" }
        guard (1...12).contains(month) else { return "month \(month) is out of range 1–12" }
        let days = Int(icaltime_days_in_month(Int32(month), Int32(year)))
        guard (1...days).contains(day) else {
            return "day \(day) does not exist in \(year)-\(month < 10 ? "0" : "")\(month)"
        }
        guard (0...23).contains(hour) else { return "hour \(hour) is out of range 0–23" }
        guard (0...59).contains(minute) else { return "minute \(minute) is out of range 0–59" }
        guard (0...60).contains(second) else { return "second \(second) is out of range 0–60" }
        return nil
    }

    /// Seconds since the Unix epoch of these fields read as UTC (DATEs: midnight UTC).
    public var epochAsUTC: Int64 {
        var time = icalTime
        time.zone = nil
        return Int64(icaltime_as_timet_with_zone(time, icaltimezone_get_utc_timezone()))
    }

    /// Seconds since the Unix epoch of these wall-clock fields in the zone `zoneName`.
    public func epoch(inZone zoneName: String) throws(ICalendarError) -> Int64 {
        let zone = try TimeZones.zone(named: zoneName)
        var time = icalTime
        time.zone = nil
        return Int64(icaltime_as_timet_with_zone(time, zone))
    }
}

/// A DATE or DATE-TIME read from a property, with its instant when the zone is known.
public struct ResolvedDateTime: Sendable, Hashable {
    /// The value as written.
    public var value: DateTimeValue
    /// Unix seconds, or `nil` for floating times and DATEs, which have no zone of their own.
    public var epoch: Int64?
    /// The IANA name of the value's zone, when its `TZID` is one or maps to one (Windows
    /// names, vendor prefixes); `nil` for UTC, floating, DATEs and zones only the file defines.
    public var ianaZone: String?

    init(
        _ time: icaltimetype, tzid: String?, property: String, line: Int?
    ) throws(ICalendarError) {
        var time = time
        let zone: DateTimeValue.Zone
        if time.is_date != 0 {
            zone = .floating
        } else if icaltime_is_utc(time) != 0 {
            zone = .utc
        } else if let tzid {
            // The file's own VTIMEZONE first (libical resolved it), then the system's data under
            // the name, its Windows name or a vendor prefix.
            ianaZone = TimeZones.ianaName(forTZID: tzid)
            if let ianaZone,
                time.zone == nil
                    || TimeZones.fileZoneFallsShort(
                        time, fileZone: time.zone!, systemZone: ianaZone)
            {
                // Exporters often write a VTIMEZONE with only recent rules; before its first
                // onset the file says nothing, and the system's history of the zone applies.
                time.zone = try TimeZones.zone(named: ianaZone)
            }
            guard time.zone != nil else {
                throw ICalendarError(
                    .invalidValue, line: line,
                    "\(property): unknown time zone '\(tzid)': no VTIMEZONE in the file defines it, "
                        + "it is no Windows zone name, and the system zone data does not know it")
            }
            zone = .tzid(tzid)
        } else {
            zone = .floating
        }
        value = DateTimeValue(
            year: Int(time.year), month: Int(time.month), day: Int(time.day),
            hour: Int(time.hour), minute: Int(time.minute), second: Int(time.second),
            isDate: time.is_date != 0, zone: zone)
        if let problem = value.rangeProblem {
            throw ICalendarError(.invalidValue, line: line, "\(property): \(problem)")
        }
        switch zone {
        case .utc:
            epoch = Int64(icaltime_as_timet_with_zone(time, icaltimezone_get_utc_timezone()))
        case .tzid:
            epoch = Int64(icaltime_as_timet_with_zone(time, time.zone))
        case .floating:
            epoch = nil
        }
    }
}
