import CLibical

extension Property {
    /// The DATE or DATE-TIME value as written: its fields and `Z`, `TZID=…` or nothing.
    /// Placing it on the time line is the caller's (its zone may be defined by the file,
    /// the system, or neither).
    ///
    /// - Throws: ``ICalendarError/Kind/invalidValue`` for impossible dates (libical accepts
    ///   `20240230`) and for values that are no DATE or DATE-TIME.
    public func dateTimeValue() throws(ICalendarError) -> DateTimeValue {
        try Self.dateTimeValue(of: pointer, name: name, line: lineNumber)
    }

    /// The DATE or DATE-TIME value of the property at `pointer` (see ``dateTimeValue()``),
    /// named `name` at `line` in messages.
    static func dateTimeValue(
        of pointer: OpaquePointer, name: @autoclosure () -> String, line lineNumber: Int?
    )
        throws(ICalendarError) -> DateTimeValue
    {
        guard let value = icalproperty_get_value(pointer) else {
            throw ICalendarError(.invalidValue, line: lineNumber, "\(name()) has no value")
        }
        let time: icaltimetype
        switch icalvalue_isa(value) {
        case ICAL_DATE_VALUE: time = icalvalue_get_date(value)
        case ICAL_DATETIME_VALUE: time = icalvalue_get_datetime(value)
        case ICAL_DATETIMEDATE_VALUE: time = icalvalue_get_datetimedate(value)
        case ICAL_DATETIMEPERIOD_VALUE:
            let period = icalvalue_get_datetimeperiod(value)
            guard icaltime_is_null_time(period.time) == 0 else {
                throw ICalendarError(
                    .invalidValue, line: lineNumber, "\(name()) holds a PERIOD, not a date")
            }
            time = period.time
        default:
            throw ICalendarError(.invalidValue, line: lineNumber, "\(name()) holds no date")
        }
        let zone: DateTimeValue.Zone
        if icaltime_is_utc(time) != 0 {
            zone = .utc
        } else if let tzid = parameter(named: "TZID", of: pointer) {
            zone = .tzid(tzid)
        } else {
            zone = .floating
        }
        let result = DateTimeValue(time, zone: zone)
        if let problem = result.rangeProblem {
            throw ICalendarError(.invalidValue, line: lineNumber, "\(name()): \(problem)")
        }
        return result
    }

    /// A DURATION value's parts: whole days (nominal: a day is a calendar day in the
    /// event's zone, RFC 5545 §3.3.6) and seconds (exact), both negative for `-P…`.
    public var durationParts: (days: Int, seconds: Int) {
        let value = icalproperty_get_duration(pointer)
        let sign = value.is_neg != 0 ? -1 : 1
        let days = Int(value.weeks) * 7 + Int(value.days)
        let seconds = Int(value.hours) * 3600 + Int(value.minutes) * 60 + Int(value.seconds)
        return (sign * days, sign * seconds)
    }
}
