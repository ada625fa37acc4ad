import ICalendar
import TaskModel

/// Turns repeating records into their occurrences inside a window: the rule's dates, plus
/// `rdates`, minus `exdates`, with changed occurrences (`recurrence_id`) in place of the
/// ones they change.
public struct Expansion: Sendable {
    /// The half-open window, Unix seconds: an occurrence is in it when it overlaps it (an
    /// occurrence of no length, when it starts in it).
    public var window: Range<Int64>
    /// Most occurrences all series give together (``defaultLimit`` unless raised with
    /// `--max-occurrences`); past it a series is cut short, and later ones left out, with a
    /// warning. It bounds the time and memory of every command that expands: a 1 KB rule
    /// that repeats every second would otherwise fill the disk.
    public var limit: Int
    /// UIDs derived from ids, to match changed occurrences to their series.
    public var uidScheme: UIDScheme
    /// Zones the calendars define (records name them in `time_zone`).
    public var zones: ZoneCatalog

    /// Creates an expansion over `window`.
    public init(
        window: Range<Int64>, limit: Int = Expansion.defaultLimit,
        uidScheme: UIDScheme = UIDScheme(),
        zones: ZoneCatalog = ZoneCatalog()
    ) {
        self.window = window
        self.limit = limit
        self.uidScheme = uidScheme
        self.zones = zones
    }

    /// The standard ``limit``: 100,000 occurrences, over 270 years of a daily entry.
    public static let defaultLimit = 100_000

    /// What an expansion gives: the occurrences and warnings (series cut short).
    public struct Result: Sendable {
        public var records: [TaskRecord] = []
        public var warnings: [String] = []

        public init(records: [TaskRecord] = [], warnings: [String] = []) {
            self.records = records
            self.warnings = warnings
        }
    }

    /// Every record in the window, repeating ones as one record an occurrence (each with
    /// `recurrence_id` set to the start the rule gave it and no `recurrence`), in order:
    /// records in input order, a series' occurrences by time. Records that do not repeat
    /// pass through when they are in the window.
    public func expand(_ records: [TaskRecord]) -> Result {
        let (items, warnings) = expand(records.map { ($0, ()) })
        return Result(records: items.map(\.0), warnings: warnings)
    }

    /// ``expand(_:)-([TaskRecord])`` for records that carry something along (where they
    /// were read): each occurrence carries its series' tag.
    public func expand<Tag>(_ items: [(TaskRecord, Tag)]) -> (
        items: [(TaskRecord, Tag)], warnings: [String]
    ) {
        var result: [(TaskRecord, Tag)] = []
        var warnings: [String] = []
        // Changed occurrences, by series and original start.
        var changed: [String: Set<Int64>] = [:]
        // Changes of this and every later occurrence (RANGE=THISANDFUTURE), by series.
        var future: [String: [TaskRecord]] = [:]
        // The series, by key: what decides whether a changed occurrence still stands.
        var series: [String: TaskRecord] = [:]
        for (record, _) in items where record.repeats {
            series[key(record)] = record
        }
        var superseded: Set<Int> = []
        for (index, (record, _)) in items.enumerated() {
            guard let recurrenceID = record.recurrenceID else { continue }
            if isSuperseded(record, by: series[key(record)]) {
                superseded.insert(index)
                continue
            }
            changed[key(record), default: []].insert(recurrenceID)
            if record.thisAndFuture && record.recurrence == nil {
                future[key(record), default: []].append(record)
            }
        }
        var expanded = 0
        var work = RecurrenceRule.Work(limit * Self.stepsPerOccurrence)
        var leftOut: [TaskRecord] = []
        var stopped: RecurrenceRule.Cut?
        for (index, (record, tag)) in items.enumerated() {
            // A changed occurrence is one occurrence, never a series of its own: not when it
            // carries its series' RRULE, not when its series is not in the input.
            guard record.repeats else {
                if !superseded.contains(index),
                    record.unscheduled || inWindow(record.dateStart, record.dateFinish)
                {
                    var single = record
                    single.recurrence = nil
                    result.append((single, tag))
                }
                continue
            }
            guard stopped == nil else {
                leftOut.append(record)
                continue
            }
            do {
                let (occurrences, cut) = try self.occurrences(
                    of: record, limit: limit - expanded, work: &work)
                expanded += occurrences.count
                if expanded >= limit { stopped = .limit }
                if work.isExhausted { stopped = .work }
                let skip = changed[key(record)] ?? []
                let changes = (future[key(record)] ?? []).sorted {
                    ($0.recurrenceID ?? 0) < ($1.recurrenceID ?? 0)
                }
                for occurrence in occurrences where !skip.contains(occurrence.recurrenceID ?? 0) {
                    result.append((Self.applying(changes, to: occurrence), tag))
                }
                if let cut {
                    warnings.append(
                        "'\(record.nameInMessages)' (id \(record.id)) is cut short after \(occurrences.count) occurrence\(occurrences.count == 1 ? "" : "s"): \(reason(cut))"
                    )
                }
            } catch {
                warnings.append(
                    "'\(record.nameInMessages)' (id \(record.id)): \(error.message); its repeats are left out"
                )
                if inWindow(record.dateStart, record.dateFinish) {
                    var single = record
                    single.recurrence = nil
                    result.append((single, tag))
                }
            }
        }
        if let first = leftOut.first, let stopped {
            warnings.append(
                leftOut.count == 1
                    ? "'\(first.nameInMessages)' (id \(first.id)) left out: \(reason(stopped))"
                    : "'\(first.nameInMessages)' (id \(first.id)) and \(leftOut.count - 1) later repeating entries left out: \(reason(stopped))"
            )
        }
        return (result, warnings)
    }

    /// Steps of libical's iterator allowed for each occurrence the limit allows: a rule may
    /// match one step in ten on average before the expansion's work runs out.
    public static let stepsPerOccurrence = 10

    private func reason(_ cut: RecurrenceRule.Cut) -> String {
        switch cut {
        case .limit:
            "the expansion reached its limit of \(limit) occurrences (raise it with --max-occurrences, or choose a shorter window)"
        case .work:
            "the expansion ran out of work (\(limit * Self.stepsPerOccurrence) steps of the rules' iterators: a rule that steps every second or minute and matches rarely, or one that matches nothing for years); choose a shorter window or raise --max-occurrences"
        case .lastYear:
            "libical computes no occurrences after 2582"
        }
    }

    /// Why an overlap check cannot rely on occurrences that stopped short: what a diary says
    /// when it refuses an entry it cannot check.
    public static func uncheckedReason(_ cut: RecurrenceRule.Cut) -> String {
        switch cut {
        case .limit:
            "it has more than \(defaultLimit) occurrences to check; give its rule an end (UNTIL or COUNT)"
        case .work:
            "its rule needs too much work to expand (it steps often and matches rarely)"
        case .lastYear:
            "libical computes no occurrences after 2582"
        }
    }

    /// The occurrences an overlap check needs stop short (the occurrence limit, the work
    /// allowance, libical's last year) or cannot be computed: checking with those found would
    /// pass what it never looked at, so the caller refuses or reports instead.
    public struct Unchecked: Error, Sendable, Equatable {
        /// The record that cannot be checked.
        public var record: TaskRecord
        /// Where the check needed its occurrences to reach, Unix seconds.
        public var until: Int64
        /// Why they stop short.
        public var reason: String
        /// How the expansion stopped, when it ran (`nil`: the rule could not be expanded).
        public var cut: RecurrenceRule.Cut?

        /// "cannot be checked for overlaps up to 2050-01-01: …", for a message that names the
        /// record itself.
        public var message: String {
            "cannot be checked for overlaps up to \(untilDate): \(reason)"
        }

        /// ``until`` as a UTC date, 2050-01-01.
        public var untilDate: String {
            let day = DateTimeValue(utcEpoch: until)
            return String(
                format: "%04d-%02d-%02d", Int32(day.year), Int32(day.month), Int32(day.day))
        }
    }

    /// A window for records with no window given: from the earliest start to a year past the
    /// later of the last finish and the last series start, so that unending rules end.
    public static func defaultWindow(for records: [TaskRecord]) -> Range<Int64> {
        var bounds = Bounds()
        for record in records { bounds.include(record) }
        return bounds.window
    }

    /// ``defaultWindow(for:)`` gathered one record at a time, for readers that pass records
    /// on before they have seen them all.
    public struct Bounds: Sendable {
        private var first: Int64?
        private var last: Int64?

        public init() {}

        /// Takes `record` into account (unscheduled records are not).
        public mutating func include(_ record: TaskRecord) {
            guard !record.unscheduled else { return }
            first = min(first ?? record.dateStart, record.dateStart)
            let end = record.repeats ? record.dateStart : record.dateFinish
            last = max(last ?? end, end)
        }

        /// From the first start to a year past the last finish (of a series: its start).
        public var window: Range<Int64> {
            guard let first, let last else { return 0..<1 }
            let year: Int64 = 366 * 86_400
            return first..<min(last, Timestamp.range.upperBound - year) + year
        }
    }

    /// Whether a record that does not repeat is in `window` as ``expand(_:)-([TaskRecord])``
    /// decides it: it overlaps it or, with no length, starts in it.
    public static func contains(_ window: Range<Int64>, _ record: TaskRecord) -> Bool {
        Expansion(window: window).inWindow(record.dateStart, record.dateFinish)
    }

    /// The occurrences of one repeating record that overlap the window, ascending, and
    /// whether ``limit`` cut them short. Changed occurrences are not applied here.
    public func occurrences(of record: TaskRecord) throws(ICalendarError) -> (
        [TaskRecord], truncated: Bool
    ) {
        var work = RecurrenceRule.Work(limit * Self.stepsPerOccurrence)
        let (found, cut) = try occurrences(of: record, limit: limit, work: &work)
        return (found, cut != nil)
    }

    /// The occurrences of one repeating record that overlap the window, ascending, at most
    /// ``limit`` of them, within `work` (shared by the caller's expansions), and why they stop
    /// short if they do.
    public func occurrences(
        of record: TaskRecord, work: inout RecurrenceRule.Work
    ) throws(ICalendarError) -> ([TaskRecord], cut: RecurrenceRule.Cut?) {
        try occurrences(of: record, limit: limit, work: &work)
    }

    private func occurrences(
        of record: TaskRecord, limit: Int, work: inout RecurrenceRule.Work
    ) throws(ICalendarError) -> ([TaskRecord], cut: RecurrenceRule.Cut?) {
        let verbatim = VerbatimRecurrence(record, zones: zones)
        guard record.recurrence != nil || !verbatim.isEmpty, !record.unscheduled else {
            // No repeat it can read (a period that is no period): the record alone.
            return (
                record.unscheduled || inWindow(record.dateStart, record.dateFinish) ? [record] : [],
                nil
            )
        }
        let recurrence = record.recurrence ?? Recurrence(rule: nil, exdates: [], rdates: [])
        let length = record.dateFinish - record.dateStart
        // An occurrence that starts before the window may still reach into it (a period as
        // long as the longest).
        let longest = max(length, verbatim.periods.map { $0.finish - $0.start }.max() ?? 0)
        let lower = window.lowerBound == Int64.min ? window.lowerBound : window.lowerBound - longest
        let search = min(lower, window.upperBound)..<window.upperBound
        var starts: Set<Int64> = []
        var cut: RecurrenceRule.Cut?
        for rule in (recurrence.rule.map { [$0] } ?? []) + verbatim.rules {
            let (found, stopped) = try ruleStarts(
                rule, of: record, in: search, limit: limit, work: &work)
            starts.formUnion(found)
            cut = cut ?? stopped
        }
        if recurrence.rule == nil && verbatim.rules.isEmpty && search.contains(record.dateStart) {
            starts.insert(record.dateStart)
        }
        for rule in verbatim.exceptionRules {
            // DTSTART always counts (RFC 5545 §3.8.5.3), whatever an EXRULE gives.
            let (found, _) = try ruleStarts(rule, of: record, in: search, limit: limit, work: &work)
            starts.subtract(found.filter { $0 != record.dateStart })
        }
        var ends: [Int64: Int64] = [:]
        for period in verbatim.periods where search.contains(period.start) {
            starts.insert(period.start)
            ends[period.start] = period.finish
        }
        starts.formUnion(recurrence.rdates.filter { search.contains($0) })
        starts.subtract(recurrence.exdates)
        var result: [TaskRecord] = []
        let sorted = starts.sorted()
        for start in sorted {
            let finish = ends[start] ?? start + length
            guard inWindow(start, finish) else { continue }
            var occurrence = record
            occurrence.dateStart = start
            occurrence.dateFinish = finish
            occurrence.recurrence = nil
            occurrence.recurrenceID = start
            result.append(occurrence)
            // RDATEs count against the limit as the rule's dates do.
            if result.count == limit {
                if start != sorted.last { cut = cut ?? .limit }
                break
            }
        }
        return (result, cut)
    }

    /// The starts one rule of `record` gives in `search`, stepping in the record's zone (a
    /// date's rule in dates).
    private func ruleStarts(
        _ rule: String, of record: TaskRecord, in search: Range<Int64>, limit: Int,
        work: inout RecurrenceRule.Work
    ) throws(ICalendarError) -> ([Int64], RecurrenceRule.Cut?) {
        let start: DateTimeValue
        var zone: CalendarZone?
        if record.allDay {
            var value = DateTimeValue(utcEpoch: record.dateStart)
            value.isDate = true
            value.zone = .floating
            start = value
        } else if let found = record.timeZone.flatMap(zones.zone(named:)) {
            // Repeats step in the entry's own zone (floating ones in the zone read in).
            zone = found
            start = SkippedWallTime.start(of: record, in: found) ?? found.local(record.dateStart)
        } else {
            start = DateTimeValue(utcEpoch: record.dateStart)
        }
        return try RecurrenceRule.occurrences(
            of: rule, start: start, zone: zone, in: search, limit: limit, work: &work)
    }

    /// An occurrence as the latest change of this and every later occurrence before it
    /// (RFC 5545 `RANGE=THISANDFUTURE`) makes it: moved by as much as that change moved its
    /// own occurrence, with its length and its text.
    static func applying(_ changes: [TaskRecord], to occurrence: TaskRecord) -> TaskRecord {
        guard let original = occurrence.recurrenceID,
            let change = changes.last(where: { ($0.recurrenceID ?? Int64.max) < original })
        else { return occurrence }
        var changed = change
        let shift = change.dateStart - (change.recurrenceID ?? change.dateStart)
        changed.dateStart = occurrence.dateStart + shift
        changed.dateFinish = changed.dateStart + (change.dateFinish - change.dateStart)
        changed.recurrenceID = original
        changed.thisAndFuture = false
        return changed
    }

    /// Whether the changed occurrence `change` no longer stands, as calendar apps and
    /// recurring-ical-events read it: its series excludes its occurrence (`EXDATE`), or it
    /// carries a rule of an older revision (a lower `SEQUENCE`) and the series no longer has
    /// its occurrence.
    private func isSuperseded(_ change: TaskRecord, by series: TaskRecord?) -> Bool {
        guard let series, let recurrenceID = change.recurrenceID,
            let recurrence = series.recurrence
        else { return false }
        if recurrence.exdates.contains(recurrenceID) { return true }
        guard change.recurrence != nil, Self.sequence(of: change) < Self.sequence(of: series)
        else { return false }
        var probe = self
        probe.window = recurrenceID..<(recurrenceID + 1)
        var work = RecurrenceRule.Work(Self.stepsPerOccurrence * 1_000)
        guard let (occurrences, _) = try? probe.occurrences(of: series, limit: 1_000, work: &work)
        else { return false }
        return !occurrences.contains { $0.recurrenceID == recurrenceID }
    }

    /// A record's `SEQUENCE` (RFC 5545 §3.8.7.4), 0 when it has none.
    static func sequence(of record: TaskRecord) -> Int {
        for line in record.icalExtra where line.utf8.count > 9 {
            let head = line.prefix(9).uppercased()
            if head == "SEQUENCE:" { return Int(line.dropFirst(9)) ?? 0 }
        }
        return 0
    }

    private func inWindow(_ start: Int64, _ finish: Int64) -> Bool {
        if start == finish { return window.contains(start) }
        return start < window.upperBound && finish > window.lowerBound
    }

    private func key(_ record: TaskRecord) -> String {
        record.uid ?? uidScheme.uid(for: record.id)
    }
}

extension Expansion {
    /// The latest finish of any occurrence of `record`, or `nil` for a rule that never ends.
    public static func lastFinish(of record: TaskRecord) -> Int64? {
        guard let recurrence = record.recurrence else { return record.dateFinish }
        let length = record.dateFinish - record.dateStart
        var last = max(record.dateFinish, (recurrence.rdates.max() ?? record.dateStart) + length)
        if let rule = recurrence.rule {
            guard RecurrenceRule.isBounded(rule) else { return nil }
            let all = Expansion(window: record.dateStart..<Timestamp.range.upperBound)
            // A bounded rule whose end cannot be reached (past the limit or libical's last
            // year) is as good as unending.
            guard let (occurrences, truncated) = try? all.occurrences(of: record), !truncated
            else { return nil }
            if let final = occurrences.last { last = max(last, final.dateFinish) }
        }
        return last
    }

    /// The occurrences of `record` (itself when it does not repeat) that take up time and
    /// overlap `window`, ascending.
    ///
    /// - Throws: ``Unchecked`` when they stop short of the window's end or cannot be
    ///   computed: an overlap check over the window would be incomplete.
    public static func occupying(_ record: TaskRecord, in window: Range<Int64>) throws(Unchecked)
        -> [TaskRecord]
    {
        guard record.occupiesTime, window.lowerBound < window.upperBound else { return [] }
        guard record.recurrence != nil else {
            return record.dateStart < window.upperBound && record.dateFinish > window.lowerBound
                ? [record] : []
        }
        var work = RecurrenceRule.Work(defaultLimit * stepsPerOccurrence)
        let found: [TaskRecord]
        let cut: RecurrenceRule.Cut?
        do {
            (found, cut) = try Expansion(window: window).occurrences(of: record, work: &work)
        } catch {
            throw Unchecked(
                record: record, until: window.upperBound,
                reason: "its repeats cannot be expanded: \(error.message)")
        }
        if let cut {
            throw Unchecked(
                record: record, until: window.upperBound, reason: uncheckedReason(cut), cut: cut)
        }
        return found
    }

    /// How far ahead two series that never end are compared: two years from the later start.
    public static let habitHorizon: Int64 = 2 * 366 * 86_400

    /// Pairs of occurrences of `a` and `b` that overlap (at most `limit`), earliest first;
    /// either may repeat. Two series that never end are compared for ``habitHorizon``.
    ///
    /// - Throws: ``Unchecked`` when the occurrences of either cannot be computed as far as
    ///   the comparison needs.
    public static func collisions(_ a: TaskRecord, _ b: TaskRecord, limit: Int = 3)
        throws(Unchecked) -> [(TaskRecord, TaskRecord)]
    {
        guard a.occupiesTime, b.occupiesTime else { return [] }
        let lower =
            max(a.dateStart, b.dateStart)
            - max(a.dateFinish - a.dateStart, b.dateFinish - b.dateStart)
        let upper: Int64
        switch (lastFinish(of: a), lastFinish(of: b)) {
        case (let x?, let y?): upper = min(x, y)
        case (let x?, nil): upper = x
        case (nil, let y?): upper = y
        case (nil, nil): upper = max(a.dateStart, b.dateStart) + habitHorizon
        }
        guard lower < upper else { return [] }
        let first = try occupying(a, in: lower..<upper)
        let second = try occupying(b, in: lower..<upper)
        var pairs: [(TaskRecord, TaskRecord)] = []
        var i = 0
        var j = 0
        while i < first.count, j < second.count, pairs.count < limit {
            let x = first[i]
            let y = second[j]
            if x.dateStart < y.dateFinish && y.dateStart < x.dateFinish { pairs.append((x, y)) }
            if x.dateFinish <= y.dateFinish { i += 1 } else { j += 1 }
        }
        return pairs
    }
}
