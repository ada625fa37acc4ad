import CLibical

/// RFC 5545 recurrence rules (`RRULE`), checked and expanded by libical's iterator.
public enum RecurrenceRule {
    /// Why libical cannot use `rule`, or `nil` when it can.
    public static func problem(_ rule: String) -> String? {
        Libical.ensureReady()
        let parsed = icalrecurrencetype_from_string(rule)
        if parsed.freq == ICAL_NO_RECURRENCE {
            return
                "'\(rule.prefix(80))' is not an RFC 5545 rule such as FREQ=WEEKLY;BYDAY=MO,WE (FREQ is missing or a part is malformed)"
        }
        var start = icaltime_null_time()
        start.year = 2000
        start.month = 1
        start.day = 1
        guard let iterator = icalrecur_iterator_new(parsed, start) else {
            return "'\(rule.prefix(80))' is not a rule libical can expand"
        }
        icalrecur_iterator_free(iterator)
        return nil
    }

    /// The rule as libical writes it (`FREQ=WEEKLY;BYDAY=MO,WE`), or `nil` when invalid.
    public static func normalized(_ rule: String) -> String? {
        guard problem(rule) == nil else { return nil }
        var parsed = icalrecurrencetype_from_string(rule)
        return Libical.takeString(icalrecurrencetype_as_string_r(&parsed))
    }

    /// Whether the rule ends by itself (`COUNT` or `UNTIL`).
    public static func isBounded(_ rule: String) -> Bool {
        let parsed = icalrecurrencetype_from_string(rule)
        return parsed.count > 0 || icaltime_is_null_time(parsed.until) == 0
    }

    /// The most occurrences the rule gives in one calendar year, counted over ten years from
    /// 2000 (and at most 1,000): how a `VTIMEZONE`'s rule is checked before libical expands it.
    static func maximumPerYear(_ rule: String) -> Int {
        let parsed = icalrecurrencetype_from_string(rule)
        var start = icaltime_null_time()
        start.year = 2000
        start.month = 1
        start.day = 1
        guard parsed.freq != ICAL_NO_RECURRENCE,
            let iterator = icalrecur_iterator_new(parsed, start)
        else { return 0 }
        defer { icalrecur_iterator_free(iterator) }
        var perYear: [Int32: Int] = [:]
        for _ in 0..<1_000 {
            let next = icalrecur_iterator_next(iterator)
            if icaltime_is_null_time(next) != 0 || next.year >= 2010 { break }
            perYear[next.year, default: 0] += 1
        }
        return perYear.values.max() ?? 0
    }

    /// Starts of the occurrences of `rule` for a first occurrence at `start`, Unix seconds,
    /// that fall in `window` (half-open), at most `limit` of them.
    ///
    /// The iteration runs on wall-clock time, placed in `zone` (UTC when `nil`), so a weekly
    /// 09:00 in Europe/Berlin stays at 09:00 across daylight-saving changes; DATEs are read
    /// as UTC midnights. The first occurrence is `start` itself even when the rule would not
    /// produce it (RFC 5545 §3.8.5.3: DTSTART always counts as the first).
    ///
    /// - Returns: the starts, ascending, and whether `limit` cut the list short.
    public static func occurrences(
        of rule: String, start: DateTimeValue, zone: CalendarZone?, in window: Range<Int64>,
        limit: Int
    ) throws(ICalendarError) -> (starts: [Int64], truncated: Bool) {
        Libical.ensureReady()
        let parsed = icalrecurrencetype_from_string(rule)
        var first = start.icalTime
        first.zone = nil
        guard parsed.freq != ICAL_NO_RECURRENCE,
            let iterator = icalrecur_iterator_new(parsed, first)
        else {
            throw ICalendarError(.invalidValue, "RRULE: \(problem(rule) ?? "invalid rule")")
        }
        defer { icalrecur_iterator_free(iterator) }
        let zone = start.isDate ? CalendarZone.utc : (zone ?? .utc)
        func epoch(_ time: icaltimetype) -> Int64 {
            zone.epoch(ofLocal: DateTimeValue(time, zone: .floating).localSeconds)
        }
        let firstEpoch = epoch(first)
        // Jump close to the window when the rule has no COUNT (which must count from the start).
        if parsed.count == 0, window.lowerBound > firstEpoch + 86_400 * 14 {
            let local = window.lowerBound - 86_400 * 2 + Int64(zone.offset(at: window.lowerBound))
            var jump = DateTimeValue(localSeconds: local).icalTime
            jump.is_date = start.isDate ? 1 : 0
            if start.isDate { (jump.hour, jump.minute, jump.second) = (0, 0, 0) }
            jump.zone = nil
            _ = icalrecur_iterator_set_start(iterator, jump)
        }
        var starts: [Int64] = []
        if window.contains(firstEpoch) { starts.append(firstEpoch) }
        var steps = 0
        while true {
            let next = icalrecur_iterator_next(iterator)
            if icaltime_is_null_time(next) != 0 { break }
            let value = epoch(next)
            if value >= window.upperBound { break }
            steps += 1
            // A rule that matches nothing near the window must not spin for ever.
            if steps > limit * 4 + 100_000 { return (starts, true) }
            guard value >= window.lowerBound, value != firstEpoch else { continue }
            if starts.count == limit { return (starts, true) }
            starts.append(value)
        }
        return (starts, false)
    }
}
