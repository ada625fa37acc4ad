import CLibical
import Glibc

/// RFC 5545 recurrence rules (`RRULE`), checked and expanded by libical's iterator, with the
/// work bounded whatever the rule says.
///
/// libical 3.0's iterator has three loops a rule can make long. Making an iterator (or moving
/// it with `icalrecur_iterator_set_start`) for a yearly or monthly rule searches period after
/// period for a first match up to the year 20000: 70–280 ms for a rule that never matches
/// (`FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`). Each `next` steps one unit of the frequency at a
/// time until a step passes every `BY` filter or `UNTIL`: `FREQ=SECONDLY;BYMONTH=6` from
/// July steps eleven months of seconds. So every expansion here
/// - searches a yearly or monthly rule for its first matching period itself, one period per
///   probe (an iterator of the same rule with an interval too long to repeat), at most
///   ``searchYears`` ahead, and only then lets libical make the real iterator;
/// - caps `UNTIL` at the end of the window and at what the remaining work allows, which
///   bounds every `next`;
/// - counts its work (``Work``) in steps of the iterator, deterministically from the dates it
///   passes, so the same input always stops at the same place.
public enum RecurrenceRule {
    /// How far ahead a yearly or monthly rule's next matching period is searched: a rule that
    /// matches nothing for 100 years (every rule of the Gregorian calendar repeats its pattern
    /// within 28 years, or 40 across a century without a leap day) is taken not to occur.
    public static let searchYears = 100

    /// Work an expansion may do, in steps of libical's iterator (about 2 µs each on a 2-core
    /// x86 machine); making an iterator or probing a period costs ``probeCost``.
    public struct Work: Sendable {
        public var remaining: Int
        public init(_ steps: Int) { remaining = steps }
        public var isExhausted: Bool { remaining <= 0 }
    }

    /// What probing one period, or making an iterator, costs in steps (libical opens an ICU
    /// calendar for each iterator).
    public static let probeCost = 5

    /// Why an expansion stopped before the end of its window.
    public enum Cut: Sendable, Equatable {
        /// It gave as many occurrences as it was allowed.
        case limit
        /// Its work ran out (a rule that steps often and matches rarely).
        case work
        /// It reached the end of 2582, the last year libical's iterator computes, with the
        /// rule and the window going on.
        case lastYear
    }

    /// Runs `body` on libical's parse of `rule`, then frees what the parse allocated.
    ///
    /// `icalrecurrencetype_from_string` copies an `RSCALE=` value with `strdup` and nothing in
    /// libical 3.0 frees it (found by the ICS fuzzer as a leak), so every parse goes through here.
    private static func withParsed<T, E: Error>(
        _ rule: String, _ body: (inout icalrecurrencetype) throws(E) -> T
    ) throws(E) -> T {
        var parsed = icalrecurrencetype_from_string(rule)
        defer { free(parsed.rscale) }
        return try body(&parsed)
    }

    /// Why libical cannot use `rule`, or `nil` when it can.
    ///
    /// A quick check of the rule's form: its parts parse, each `BY` part is allowed with its
    /// `FREQ` (RFC 5545 §3.3.10), and its calendar scale is known. Whether the rule ever
    /// matches is left to expansion, which is bounded.
    public static func problem(_ rule: String) -> String? {
        Libical.ensureReady()
        return withParsed(rule) { parsed in problem(parsed, rule) }
    }

    private static func problem(_ parsed: icalrecurrencetype, _ rule: String) -> String? {
        if parsed.freq == ICAL_NO_RECURRENCE {
            return
                "'\(rule.prefix(80))' is not an RFC 5545 rule such as FREQ=WEEKLY;BYDAY=MO,WE (FREQ is missing or a part is malformed)"
        }
        if let part = illegalPart(parsed) {
            return
                "'\(rule.prefix(80))' is not a rule libical can expand (\(part) is not allowed with FREQ=\(frequencyName(parsed.freq)))"
        }
        // Every part but FREQ, RSCALE and SKIP left out: an iterator of that always finds its
        // first occurrence at once, so this costs one iterator whatever the rule.
        var bare = icalrecurrencetype()
        icalrecurrencetype_clear(&bare)
        bare.freq = parsed.freq
        bare.rscale = parsed.rscale
        bare.skip = parsed.skip
        guard let iterator = icalrecur_iterator_new(bare, probeStart) else {
            return "'\(rule.prefix(80))' is not a rule libical can expand"
        }
        icalrecur_iterator_free(iterator)
        return nil
    }

    private static var probeStart: icaltimetype {
        var start = icaltime_null_time()
        (start.year, start.month, start.day) = (2000, 1, 1)
        return start
    }

    /// The `BY` part RFC 5545 does not allow with the rule's frequency (libical refuses them).
    private static func illegalPart(_ parsed: icalrecurrencetype) -> String? {
        var rule = parsed
        let hasWeekNumber = withUnsafeBytes(of: &rule.by_week_no) { $0.load(as: Int16.self) }
        let hasYearDay = withUnsafeBytes(of: &rule.by_year_day) { $0.load(as: Int16.self) }
        let hasMonthDay = withUnsafeBytes(of: &rule.by_month_day) { $0.load(as: Int16.self) }
        let unset = Int16(ICAL_RECURRENCE_ARRAY_MAX.rawValue)
        if hasWeekNumber != unset && parsed.freq != ICAL_YEARLY_RECURRENCE { return "BYWEEKNO" }
        if hasYearDay != unset
            && [ICAL_DAILY_RECURRENCE, ICAL_WEEKLY_RECURRENCE, ICAL_MONTHLY_RECURRENCE].contains(
                parsed.freq)
        {
            return "BYYEARDAY"
        }
        if hasMonthDay != unset && parsed.freq == ICAL_WEEKLY_RECURRENCE { return "BYMONTHDAY" }
        return nil
    }

    private static func frequencyName(_ frequency: icalrecurrencetype_frequency) -> String {
        String(cString: icalrecur_freq_to_string(frequency))
    }

    /// What can be read of a rule libical cannot use: the rule without the fewest parts (one,
    /// else two) that make it unreadable, and those parts; `nil` when no such rule is found
    /// (or the rule is fine as it is). `FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;BYDAY=MO`, which
    /// a calendar app wrote, is read as `FREQ=WEEKLY;UNTIL=20240331;BYDAY=MO`.
    ///
    /// A series that may have been meant to end is never read as endless: when what is left
    /// has no `COUNT` or `UNTIL`, a part left out must be one that cannot end it
    /// (`FREQ=WEEKLY;UNTIG=20180729T215959Z`, a misspelt end, is not read at all).
    public static func repaired(_ rule: String) -> (rule: String, leftOut: [String])? {
        guard !isReadable(rule) else { return nil }
        let parts = rule.split(separator: ";", omittingEmptySubsequences: true).map(String.init)
        guard parts.count > 1, parts.count <= 16 else { return nil }
        let removable = parts.indices.filter { !parts[$0].uppercased().hasPrefix("FREQ=") }
        func attempt(_ leftOut: [Int]) -> (rule: String, leftOut: [String])? {
            let rest = parts.indices.filter { !leftOut.contains($0) }.map { parts[$0] }
            let text = rest.joined(separator: ";")
            guard isReadable(text) else { return nil }
            let ends = leftOut.contains { !neverEnds(parts[$0]) }
            guard !ends || isBounded(text) else { return nil }
            return (text, leftOut.map { parts[$0] })
        }
        for index in removable {
            if let found = attempt([index]) { return found }
        }
        for (position, first) in removable.enumerated() {
            for second in removable.dropFirst(position + 1) {
                if let found = attempt([first, second]) { return found }
            }
        }
        return nil
    }

    /// Rule parts that say when, never until when: every part RFC 5545 and RFC 7529 name
    /// but `COUNT` and `UNTIL`.
    private static let whenParts: Set<String> = [
        "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY",
        "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP",
    ]

    /// Whether `part` (`BYDAY=XX`) is one that cannot end a series.
    private static func neverEnds(_ part: String) -> Bool {
        let name = part.split(separator: "=", maxSplits: 1).first.map { $0.uppercased() } ?? ""
        return whenParts.contains(name)
    }

    /// Whether libical reads `rule` as an `RRULE` value (its property parser is stricter than
    /// its rule parser: `COUNT=-1` passes the one and not the other) and can expand it.
    public static func isReadable(_ rule: String) -> Bool {
        Libical.ensureReady()
        guard let value = icalvalue_new_from_string(ICAL_RECUR_VALUE, rule) else { return false }
        icalvalue_free(value)
        return problem(rule) == nil
    }

    /// The rule as libical writes it (`FREQ=WEEKLY;BYDAY=MO,WE`), or `nil` when invalid.
    public static func normalized(_ rule: String) -> String? {
        Libical.ensureReady()
        return withParsed(rule) { parsed in
            guard problem(parsed, rule) == nil else { return nil }
            return Libical.takeString(icalrecurrencetype_as_string_r(&parsed))
        }
    }

    /// Whether `rule` itself gives `start`, its first occurrence: RFC 5545 counts `DTSTART`
    /// as the first occurrence whether the rule gives it or not, but some readers (calcurse:
    /// "rrule does not match start day") refuse a start the rule does not give. `nil` when it
    /// cannot be told in bounded work (a rule that repeats more often than daily, a yearly or
    /// monthly rule that matches nothing for ``searchYears``).
    public static func generatesStart(_ rule: String, start: DateTimeValue) -> Bool? {
        Libical.ensureReady()
        return withParsed(rule) { parsed -> Bool? in
            guard problem(parsed, rule) == nil,
                [
                    ICAL_DAILY_RECURRENCE, ICAL_WEEKLY_RECURRENCE, ICAL_MONTHLY_RECURRENCE,
                    ICAL_YEARLY_RECURRENCE,
                ].contains(parsed.freq)
            else { return nil }
            var first = start.icalTime
            first.zone = nil
            var open = parsed
            open.count = 0
            open.until = icaltime_null_time()
            if parsed.freq == ICAL_YEARLY_RECURRENCE || parsed.freq == ICAL_MONTHLY_RECURRENCE {
                var work = Work((searchYears * 12 + 1) * probeCost)
                var pastLastYear = false
                guard
                    firstPeriod(
                        open, start: first, from: first, work: &work, pastLastYear: &pastLastYear)
                        != nil
                else { return nil }
            }
            guard let iterator = icalrecur_iterator_new(open, first) else { return nil }
            defer { icalrecur_iterator_free(iterator) }
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0 else { return nil }
            return icaltime_compare(next, first) == 0
        }
    }

    /// Whether the rule ends by itself (`COUNT` or `UNTIL`).
    public static func isBounded(_ rule: String) -> Bool {
        withParsed(rule) { parsed in
            parsed.count > 0 || icaltime_is_null_time(parsed.until) == 0
        }
    }

    /// Why a `VTIMEZONE` observance's rule, with the observance's onset `start`, cannot be
    /// expanded by libical's zone code in bounded time, or `nil` when it can: it must repeat
    /// yearly, occur within ``searchYears`` of its onset, and change at most twice a year
    /// (counted over ten years).
    static func zoneRuleProblem(_ rule: String, start: icaltimetype) -> String? {
        Libical.ensureReady()
        return withParsed(rule) { parsed -> String? in
            guard parsed.freq == ICAL_YEARLY_RECURRENCE else {
                return "repeats more often than yearly (\(rule.prefix(80)))"
            }
            guard problem(parsed, rule) == nil else { return "has a rule libical cannot use" }
            var first = start
            first.zone = nil
            var work = Work(20_000)
            var pastLastYear = false
            guard
                firstPeriod(
                    parsed, start: first, from: first, work: &work, pastLastYear: &pastLastYear)
                    != nil
            else {
                return "has a rule that does not occur within \(searchYears) years"
            }
            let tenYears = Int64(first.year) + 10
            guard let iterator = icalrecur_iterator_new(parsed, first) else {
                return "has a rule libical cannot use"
            }
            defer { icalrecur_iterator_free(iterator) }
            var perYear: [Int32: Int] = [:]
            for _ in 0..<1_000 {
                let next = icalrecur_iterator_next(iterator)
                if icaltime_is_null_time(next) != 0 || Int64(next.year) >= tenYears { break }
                perYear[next.year, default: 0] += 1
            }
            return (perYear.values.max() ?? 0) > 2 ? "changes more than twice a year" : nil
        }
    }

    /// Starts of the occurrences of `rule` for a first occurrence at `start`, Unix seconds,
    /// that fall in `window` (half-open), at most `limit` of them, within `work`.
    ///
    /// The iteration runs on wall-clock time, placed in `zone` (UTC when `nil`), so a weekly
    /// 09:00 in Europe/Berlin stays at 09:00 across daylight-saving changes; DATEs are read
    /// as UTC midnights. The first occurrence is `start` itself even when the rule would not
    /// produce it (RFC 5545 §3.8.5.3: DTSTART always counts as the first).
    ///
    /// - Returns: the starts, ascending, and why the list stops short of the window's end,
    ///   if it does.
    public static func occurrences(
        of rule: String, start: DateTimeValue, zone: CalendarZone?, in window: Range<Int64>,
        limit: Int, work: inout Work
    ) throws(ICalendarError) -> (starts: [Int64], cut: Cut?) {
        Libical.ensureReady()
        return try withParsed(rule) { (parsed) throws(ICalendarError) in
            if let problem = problem(parsed, rule) {
                throw ICalendarError(.invalidValue, "RRULE: \(problem)")
            }
            return occurrences(
                of: &parsed, start: start, zone: zone, in: window, limit: limit, work: &work)
        }
    }

    /// ``occurrences(of:start:zone:in:limit:work:)`` with work for `limit` occurrences of a
    /// rule that matches one step in ten.
    public static func occurrences(
        of rule: String, start: DateTimeValue, zone: CalendarZone?, in window: Range<Int64>,
        limit: Int
    ) throws(ICalendarError) -> (starts: [Int64], truncated: Bool) {
        var work = Work(limit * 10)
        let (starts, cut) = try occurrences(
            of: rule, start: start, zone: zone, in: window, limit: limit, work: &work)
        return (starts, cut != nil)
    }

    private static func occurrences(
        of parsed: inout icalrecurrencetype, start: DateTimeValue, zone: CalendarZone?,
        in window: Range<Int64>, limit: Int, work: inout Work
    ) -> (starts: [Int64], cut: Cut?) {
        var first = start.icalTime
        first.zone = nil
        let zone = start.isDate ? CalendarZone.utc : (zone ?? .utc)
        func epoch(_ time: icaltimetype) -> Int64 {
            zone.epoch(ofLocal: DateTimeValue(time, zone: .floating).localSeconds)
        }
        func local(_ epoch: Int64) -> Int64 { epoch + Int64(zone.offset(at: epoch)) }
        let firstEpoch = epoch(first)
        var starts: [Int64] = []
        if window.contains(firstEpoch) { starts.append(firstEpoch) }
        guard window.upperBound > firstEpoch, limit > 0 else { return (starts, nil) }

        // Where iteration begins: close to the window when the rule has no COUNT (which must
        // count from the start).
        var from = first
        if parsed.count == 0, window.lowerBound > firstEpoch + 86_400 * 14 {
            var jump = DateTimeValue(localSeconds: local(window.lowerBound) - 86_400 * 2).icalTime
            jump.is_date = first.is_date
            if first.is_date != 0 { (jump.hour, jump.minute, jump.second) = (0, 0, 0) }
            jump.zone = nil
            from = jump
        }
        let calendarPeriods =
            parsed.freq == ICAL_YEARLY_RECURRENCE || parsed.freq == ICAL_MONTHLY_RECURRENCE
        var periodsToFirst = 0
        if calendarPeriods {
            // Making the iterator searches from the start, moving it searches from `from`:
            // both searches must be short.
            for origin in icaltime_compare(from, first) == 0 ? [first] : [first, from] {
                var pastLastYear = false
                guard
                    let found = firstPeriod(
                        parsed, start: first, from: origin, work: &work,
                        pastLastYear: &pastLastYear)
                else {
                    return (starts, work.isExhausted ? .work : pastLastYear ? .lastYear : nil)
                }
                periodsToFirst += found
            }
        }

        // UNTIL, capped: at the window's end (a day on, for zone offsets) and where the work
        // left runs out. libical checks UNTIL on every step, so no `next` goes past it.
        let stepSeconds =
            Int64(parsed.interval > 0 ? parsed.interval : 1) * unitSeconds(parsed.freq)
        let fromSeconds = DateTimeValue(from, zone: .floating).localSeconds
        let windowEnd = local(window.upperBound) + 86_400
        let workEnd = fromSeconds + Int64(max(work.remaining, 0)) * stepSeconds
        // UNTIL is UTC when the start has a zone (RFC 5545 §3.3.10): compared in local time.
        var ruleEnd = Int64.max
        if icaltime_is_null_time(parsed.until) == 0 {
            let fields = DateTimeValue(parsed.until, zone: .floating).localSeconds
            ruleEnd = icaltime_is_utc(parsed.until) != 0 ? local(fields) : fields
        }
        let lastYear = DateTimeValue(year: 2582, month: 12, day: 31, zone: .floating).localSeconds
        let capped = min(ruleEnd, windowEnd, workEnd, lastYear)
        var until = DateTimeValue(localSeconds: capped).icalTime
        until.is_date = first.is_date
        until.zone = nil
        parsed.until = until

        work.remaining -= probeCost + periodsToFirst
        guard let iterator = icalrecur_iterator_new(parsed, first) else { return (starts, nil) }
        defer { icalrecur_iterator_free(iterator) }
        if icaltime_compare(from, first) != 0 {
            guard icalrecur_iterator_set_start(iterator, from) != 0 else { return (starts, nil) }
        }
        var previous = fromSeconds
        var produced = 0
        while true {
            let next = icalrecur_iterator_next(iterator)
            if icaltime_is_null_time(next) != 0 {
                work.remaining -= Int((capped - previous) / max(stepSeconds, 1))
                // Unless a COUNT ended the rule first (DTSTART may or may not be among the
                // dates counted: one is allowed for), stopped by the work cap or at libical's
                // last year, not by the rule's end or the window's.
                let counted = parsed.count > 0 && produced + 1 >= parsed.count
                if !counted && capped == workEnd && workEnd < min(ruleEnd, windowEnd) {
                    return (starts, .work)
                }
                if !counted && capped == lastYear && lastYear < min(ruleEnd, windowEnd) {
                    return (starts, .lastYear)
                }
                return (starts, nil)
            }
            produced += 1
            let nextSeconds = DateTimeValue(next, zone: .floating).localSeconds
            work.remaining -= 1 + Int((nextSeconds - previous) / max(stepSeconds, 1))
            previous = nextSeconds
            let value = epoch(next)
            if value >= window.upperBound { return (starts, nil) }
            guard value >= window.lowerBound, value != firstEpoch else {
                if work.isExhausted { return (starts, .work) }
                continue
            }
            if starts.count == limit { return (starts, .limit) }
            starts.append(value)
            if work.isExhausted { return (starts, .work) }
        }
    }

    /// Seconds in one step of `frequency` (a year or month counted at its longest).
    private static func unitSeconds(_ frequency: icalrecurrencetype_frequency) -> Int64 {
        switch frequency {
        case ICAL_SECONDLY_RECURRENCE: 1
        case ICAL_MINUTELY_RECURRENCE: 60
        case ICAL_HOURLY_RECURRENCE: 3_600
        case ICAL_DAILY_RECURRENCE: 86_400
        case ICAL_WEEKLY_RECURRENCE: 7 * 86_400
        case ICAL_MONTHLY_RECURRENCE: 31 * 86_400
        default: 366 * 86_400
        }
    }

    /// How many periods (years or months, counted in steps of the interval) from `from` the
    /// first one with a matching day of a yearly or monthly rule is, or `nil` when none is
    /// within ``searchYears`` (or before libical's last year, 2582) or the work runs out.
    ///
    /// Each probe is an iterator of the same rule whose interval is too long to reach a second
    /// period, started on `start` moved by whole periods (so the month, day and time libical
    /// takes as defaults from the start stay the same): it exists only when that period
    /// matches.
    private static func firstPeriod(
        _ parsed: icalrecurrencetype, start: icaltimetype, from: icaltimetype, work: inout Work,
        pastLastYear: inout Bool
    ) -> Int? {
        let yearly = parsed.freq == ICAL_YEARLY_RECURRENCE
        let interval = Int(max(parsed.interval, 1))
        var probe = parsed
        probe.interval = Int16.max
        probe.count = 0
        probe.until = icaltime_null_time()
        func periodIndex(_ time: icaltimetype) -> Int {
            yearly ? Int(time.year) : Int(time.year) * 12 + Int(time.month) - 1
        }
        // The first period at or after `from` that the interval reaches from `start`.
        let startIndex = periodIndex(start)
        let behind = max(0, periodIndex(from) - startIndex)
        let firstStep = (behind + interval - 1) / interval
        let steps = yearly ? searchYears : searchYears * 12
        for step in firstStep..<(firstStep + max(steps / interval, 1)) {
            guard !work.isExhausted else { return nil }
            work.remaining -= probeCost
            let index = startIndex + step * interval
            var moved = start
            if yearly {
                moved.year = Int32(index)
            } else {
                moved.year = Int32(index / 12)
                moved.month = Int32(index % 12 + 1)
            }
            guard moved.year <= 2582 else {
                pastLastYear = true
                return nil
            }
            if let iterator = icalrecur_iterator_new(probe, moved) {
                icalrecur_iterator_free(iterator)
                return step - firstStep + 1
            }
        }
        return nil
    }
}
