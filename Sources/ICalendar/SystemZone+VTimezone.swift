import CLibical

extension SystemZone {
    /// The first instant the written `VTIMEZONE`s cover: 1970-01-01T00:00Z. Earlier
    /// instants are written in UTC, which every reader places right.
    public static let coverageStart: Int64 = 0
    /// Transitions are followed this far to find the yearly rules that continue past the
    /// table (2100-01-01); a rule still running then is written without an end.
    static let ruleHorizon: Int64 = 4_102_444_800
    /// The latest instant a covering zone starts at (2097-12-30): two whole years before the
    /// horizon, so that each yearly rule still running there is seen as a rule, and written
    /// without an end, for a file whose times all lie later (a zone written for 2160 alone
    /// had no observance at all, and one for 2099 to 2160 only that year's dates).
    static let latestCoverageStart: Int64 = 4_039_372_800 - 2 * 86_400

    /// A `VTIMEZONE` with `TZID` set to `tzid` (default: the zone's name) that says exactly
    /// what the system's tz database says from 1970 on: each run of transitions that follows
    /// one yearly rule becomes an observance with an `RRULE`, other transitions observances
    /// with their dates; the rule the zone keeps after its last transition has no end.
    ///
    /// With `covering`, only what a file whose times in the zone fall in that span needs:
    /// observances from the last transition at or before its start (the one then in force),
    /// and none that begin after its end, a yearly rule still running then kept whole. A
    /// 2025 meeting in Berlin gets the two rules in force since March 2025, as calendar apps
    /// write them, not the zone's history since 1970.
    ///
    /// Built through libical (components, properties, values), never printed by hand.
    public func vtimezone(tzid: String? = nil, covering span: ClosedRange<Int64>? = nil)
        -> Component
    {
        let zone = Component(kind: .timeZone)
        zone.addProperty("TZID", .text(tzid ?? name))
        for observance in observances(covering: span) {
            let component = Component(kind: observance.isDaylight ? .daylight : .standard)
            component.addProperty("DTSTART", .dateTime(observance.start))
            if let rule = observance.rule {
                component.addProperty("RRULE", .literal(rule))
            }
            for date in observance.dates {
                component.addProperty("RDATE", .dateTime(date))
            }
            component.addProperty("TZOFFSETFROM", .utcOffset(observance.offsetFrom))
            component.addProperty("TZOFFSETTO", .utcOffset(observance.offsetTo))
            if !observance.abbreviation.isEmpty {
                component.addProperty("TZNAME", .text(observance.abbreviation))
            }
            zone.add(component)
        }
        return zone
    }

    /// The instants a `VTIMEZONE` written for `span` covers (see
    /// ``vtimezone(tzid:covering:)``): two spans with the same coverage give the same zone.
    public static func coverage(of span: ClosedRange<Int64>?) -> (lower: Int64, upper: Int64) {
        func startOfYear(_ instant: Int64, plus years: Int) -> Int64 {
            let year = CivilDate(epochDay: floorDivide(instant, 86_400)).year + years
            return CivilDate(year: year, month: 1, day: 1).epochDay * 86_400
        }
        var lower = coverageStart
        var upper = Int64.max
        if let span {
            if span.lowerBound > coverageStart {
                lower = min(
                    max(startOfYear(span.lowerBound, plus: 0) - 2 * 86_400, coverageStart),
                    latestCoverageStart)
            }
            if span.upperBound < ruleHorizon {
                upper = startOfYear(max(span.upperBound, coverageStart), plus: 1) + 2 * 86_400
            }
        }
        return (lower, upper)
    }

    /// One `STANDARD` or `DAYLIGHT` block.
    struct Observance {
        var isDaylight: Bool
        var offsetFrom: Int
        var offsetTo: Int
        var abbreviation: String
        /// The local wall-clock time (in `offsetFrom`) of its first onset.
        var start: DateTimeValue
        /// A yearly rule for the onsets after the first, with `UNTIL` unless it goes on.
        var rule: String?
        /// Further onsets, as local times, for transitions that follow no rule.
        var dates: [DateTimeValue] = []
    }

    /// How a run of yearly transitions picks its day in the month.
    enum DayRule: Hashable {
        /// The `n`-th weekday of the month (1…4).
        case nth(Int)
        /// The last weekday of the month.
        case last
        /// The first weekday on or after day `d` (Asia/Jerusalem: the Friday before the last
        /// Sunday is the Friday on or after the 23rd).
        case onOrAfter(Int)

        static func candidates(_ date: CivilDate) -> Set<DayRule> {
            var result: Set<DayRule> = []
            if date.day <= 28 { result.insert(.nth((date.day - 1) / 7 + 1)) }
            if date.day + 7 > CivilDate.daysIn(month: date.month, year: date.year) {
                result.insert(.last)
            }
            for start in max(1, date.day - 6)...date.day where start + 6 <= 31 {
                result.insert(.onOrAfter(start))
            }
            return result
        }

        /// The preferred rule of a set: `last`, then `nth`, then the narrowest `onOrAfter`.
        static func preferred(_ rules: Set<DayRule>) -> DayRule? {
            if rules.contains(.last) { return .last }
            if let nth = rules.compactMap({ if case .nth(let n) = $0 { n } else { nil } }).min() {
                return .nth(nth)
            }
            return rules.compactMap { if case .onOrAfter(let d) = $0 { d } else { nil } }.max()
                .map { .onOrAfter($0) }
        }

        func rrule(month: Int, weekday: Int) -> String {
            let names = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
            switch self {
            case .nth(let n): return "FREQ=YEARLY;BYMONTH=\(month);BYDAY=\(n)\(names[weekday])"
            case .last: return "FREQ=YEARLY;BYMONTH=\(month);BYDAY=-1\(names[weekday])"
            case .onOrAfter(let d):
                let days = (d..<(d + 7)).map(String.init).joined(separator: ",")
                return "FREQ=YEARLY;BYMONTH=\(month);BYDAY=\(names[weekday]);BYMONTHDAY=\(days)"
            }
        }
    }

    /// The observances from 1970 on or, with `span`, for the whole calendar years (UTC) it
    /// touches and two days beyond: a reader that matches a zone by its offsets over a year
    /// (Thunderbird, and taskcal reading its own output) sees each year whole.
    func observances(covering span: ClosedRange<Int64>? = nil) -> [Observance] {
        let (lower, upper) = Self.coverage(of: span)
        var result: [Observance] = []
        let all: [Transition]
        if lower > Self.coverageStart,
            let inForce = transitions(from: Self.coverageStart + 1, to: lower + 1).last
        {
            // The transition in force at the span's start opens the first observance.
            all = transitions(from: inForce.instant, to: Self.ruleHorizon)
        } else {
            let initial = type(at: Self.coverageStart)
            result.append(
                Observance(
                    isDaylight: initial.isDaylight, offsetFrom: initial.offset,
                    offsetTo: initial.offset, abbreviation: initial.abbreviation,
                    start: DateTimeValue(localSeconds: Self.coverageStart + Int64(initial.offset)))
            )
            all = transitions(from: Self.coverageStart + 1, to: Self.ruleHorizon)
        }
        let lastYear = CivilDate(epochDay: floorDivide(Self.ruleHorizon - 1, 86_400)).year
        struct Onset {
            var transition: Transition
            var local: Int64
            var date: CivilDate
            var weekday: Int
            var seconds: Int64
        }
        let onsets = all.map { transition -> Onset in
            let local = transition.instant + Int64(transition.before.offset)
            let day = floorDivide(local, 86_400)
            return Onset(
                transition: transition, local: local, date: CivilDate(epochDay: day),
                weekday: Int(floorModulo(day + 4, 7)), seconds: local - day * 86_400)
        }
        // Runs of onsets of one kind in consecutive years that one day rule describes.
        var used = [Bool](repeating: false, count: onsets.count)
        var singles: [Int] = []
        for index in onsets.indices where !used[index] {
            let first = onsets[index]
            let key = first.transition
            var members = [index]
            var rules = DayRule.candidates(first.date)
            var next = index + 1
            while next < onsets.count {
                let candidate = onsets[next]
                if used[next] || candidate.transition.before != key.before
                    || candidate.transition.after != key.after
                {
                    next += 1
                    continue
                }
                let previous = onsets[members.last!]
                guard candidate.date.year == previous.date.year + 1,
                    candidate.date.month == first.date.month, candidate.seconds == first.seconds,
                    candidate.weekday == first.weekday
                else { break }
                let remaining = rules.intersection(DayRule.candidates(candidate.date))
                guard !remaining.isEmpty else { break }
                rules = remaining
                members.append(next)
                next += 1
            }
            guard members.count >= 2, let rule = DayRule.preferred(rules) else {
                if first.transition.instant <= upper { singles.append(index) }
                used[index] = true
                continue
            }
            members.forEach { used[$0] = true }
            let last = onsets[members.last!]
            // A rule that begins in the span is kept whole, and so is one still in force at
            // the end of the table, as calendar apps write zones; one that begins and ends
            // after the span is not needed.
            guard first.transition.instant <= upper || last.date.year >= lastYear else {
                continue
            }
            var text = rule.rrule(month: first.date.month, weekday: first.weekday)
            if last.date.year < lastYear {
                // Any UNTIL from the last onset to the next one ends the run. A day after the
                // last is read right both as UTC (RFC 5545) and as local time (dateutil,
                // which vobject uses, compares it with local onsets and would lose the last).
                text +=
                    ";UNTIL=" + DateTimeValue(utcEpoch: last.transition.instant + 86_400).compactUTC
            }
            result.append(
                Observance(
                    isDaylight: key.after.isDaylight, offsetFrom: key.before.offset,
                    offsetTo: key.after.offset, abbreviation: key.after.abbreviation,
                    start: DateTimeValue(localSeconds: first.local), rule: text))
        }
        // Transitions that follow no rule: one observance per kind, with their dates.
        var byKind: [Transition: Int] = [:]
        for index in singles {
            let onset = onsets[index]
            var kind = onset.transition
            kind.instant = 0
            if let existing = byKind[kind] {
                result[existing].dates.append(DateTimeValue(localSeconds: onset.local))
            } else {
                byKind[kind] = result.count
                result.append(
                    Observance(
                        isDaylight: kind.after.isDaylight, offsetFrom: kind.before.offset,
                        offsetTo: kind.after.offset, abbreviation: kind.after.abbreviation,
                        start: DateTimeValue(localSeconds: onset.local)))
            }
        }
        return result
    }
}

extension DateTimeValue {
    /// The floating DATE-TIME whose fields are `seconds` since 1970-01-01T00:00 (local).
    public init(localSeconds seconds: Int64) {
        let day = floorDivide(seconds, 86_400)
        let date = CivilDate(epochDay: day)
        let rest = Int(seconds - day * 86_400)
        self.init(
            year: date.year, month: date.month, day: date.day, hour: rest / 3600,
            minute: rest % 3600 / 60, second: rest % 60, zone: .floating)
    }

    /// Seconds since 1970-01-01T00:00 of these fields, with no zone (DATEs: midnight).
    public var localSeconds: Int64 {
        CivilDate(year: year, month: month, day: day).epochDay * 86_400
            + Int64(isDate ? 0 : hour * 3600 + minute * 60 + second)
    }
}
