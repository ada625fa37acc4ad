import ICalendar
import TaskModel

extension AppRules {
    /// What `lint` finds across the records of one file: changed occurrences whose series
    /// is not in it, for `lint --for any` (`--for any` and `--for caldav` write them as a
    /// series of their own).
    public struct SeriesCheck {
        private let app: CalendarApp
        private var series: Set<String> = []
        private var changes: [String: (name: String, location: Location, count: Int)] = [:]
        private var order: [String] = []

        public init(app: CalendarApp) { self.app = app }

        static func loneChanges(_ name: String, _ count: Int, at location: Location) -> AppFinding {
            AppFinding(
                rule: anyLoneChange, location: location,
                message:
                    "\"\(name)\": \(count) changed occurrence(s) without their series, written as a series of their own"
            )
        }

        public mutating func include(_ record: TaskRecord, at location: Location) {
            guard app == .any else { return }
            let key = record.uid ?? "#\(record.id)"
            guard record.recurrenceID != nil else {
                series.insert(key)
                return
            }
            if changes[key] == nil { order.append(key) }
            changes[key, default: (record.name, location, 0)].count += 1
        }

        public var findings: [AppFinding] {
            order.filter { !series.contains($0) }.map { key in
                let change = changes[key]!
                return Self.loneChanges(change.name, change.count, at: change.location)
            }
        }
    }
}

/// The repairs `--for any` makes so that every reader takes a record (those of them a
/// profile's app needs, for the other profiles). Each repair that changes a repeat is
/// checked: the occurrences before and after must be the same, or the record stays as it was.
struct StrictRepairs {
    /// Which repairs are made.
    enum Kind: CaseIterable, Sendable {
        case keptComponents, emptyValues, propertyNames, binaryImages, impossibleDates,
            extraRepeats, ruleForm,
            endType, ruleStart,
            loneExdates, loneChanges, zoneNames, emptyCalendar
    }

    var kinds: Set<Kind>
    var zones = ZoneCatalog()
    /// Whether ``zones`` holds the calendar's own zones (`lint` repairs records alone).
    var knowsCalendarZones = true
    /// The IANA zones ranked for each zone only the calendar defines, worked out once.
    let ranking = ZoneRanking()

    /// How many occurrences a repair compares, and how many dates a flattened repeat may add.
    static let compared = 2_000

    /// `record` repaired, with the changed occurrences a period needs after it; each change
    /// said to `note` (once per kind).
    func repair(_ record: TaskRecord, note: (AppRule, String) -> Void) -> [TaskRecord] {
        let name = "\"\(record.name)\""
        var repaired = record
        var said: Set<String> = []
        func say(_ rule: AppRule, _ message: String) {
            if said.insert(rule.code).inserted { note(rule, "\(name): \(message)") }
        }
        repaired.icalExtra = keptLines(of: record, say: say)
        if kinds.contains(.keptComponents) {
            // Alarms taskcal could not read (no TRIGGER, `TRIGGER;VALUE=TIME`), kept as written.
            let alarms = repaired.icalComponents.filter(Self.isAlarm).count
            if alarms > 0 {
                repaired.icalComponents.removeAll(where: Self.isAlarm)
                say(AppRules.anyKeptComponent, "\(alarms) VALARM(s) kept as written left out")
            }
        }
        if kinds.contains(.endType), !record.unscheduled {
            let other = record.allDay ? "DATE-TIME" : "DATE"
            for name in ["DTEND", "DUE"] {
                guard let kept = repaired.icalParameters[name],
                    (ParameterText.parse(kept) ?? []).contains(where: {
                        $0.name == "VALUE" && $0.value.uppercased() == other
                    })
                else { continue }
                let rest = (ParameterText.parse(kept) ?? []).filter { $0.name != "VALUE" }
                repaired.icalParameters[name] = rest.isEmpty ? nil : ParameterText.format(rest)
                say(AppRules.anyEndType, "\(name) written in the type of DTSTART")
            }
        }
        if kinds.contains(.emptyValues) { dropBlankTexts(&repaired, say: say) }
        if kinds.contains(.ruleForm) { repairRules(&repaired, say: say) }
        var changed: [TaskRecord] = []
        if kinds.contains(.extraRepeats) { changed = flatten(&repaired, say: say) }
        if kinds.contains(.ruleStart) { startWithRule(&repaired, say: say) }
        if kinds.contains(.loneExdates) { dropLoneExdates(&repaired, say: say) }
        if kinds.contains(.zoneNames) { repairZones(&repaired, say: say) }
        repaired.subtasks = repaired.subtasks.flatMap { repair($0, note: note) }
        return [repaired] + changed
    }

    /// A value of nothing but spaces and tabs: no value.
    static func isBlank(_ value: String) -> Bool {
        value.allSatisfy { $0 == " " || $0 == "\t" }
    }

    private static func isAlarm(_ text: String) -> Bool {
        text.prefix(12).uppercased() == "BEGIN:VALARM"
    }

    // MARK: Lines kept as written

    /// Properties whose values are dates (a list of them, or periods).
    private static let dated: Set<String> = [
        "CREATED", "LAST-MODIFIED", "DTSTAMP", "COMPLETED", "DUE", "RECURRENCE-ID", "EXDATE",
        "RDATE", "ACKNOWLEDGED",
    ]

    private func keptLines(of record: TaskRecord, say: (AppRule, String) -> Void) -> [String] {
        record.icalExtra.compactMap { line in
            guard var parsed = try? ContentLine(parsing: line) else { return line }
            if kinds.contains(.emptyValues),
                Self.isBlank(parsed.value)
            {
                say(AppRules.anyEmptyValue, "\(parsed.name) without a value left out")
                return nil
            }
            if kinds.contains(.impossibleDates), Self.dated.contains(parsed.name),
                let bad = Self.impossibleDate(in: parsed)
            {
                say(
                    AppRules.anyImpossibleDate,
                    "\(parsed.name):\(parsed.value.prefix(40)) left out (\(bad))")
                return nil
            }
            if kinds.contains(.binaryImages), parsed.name == "IMAGE",
                parsed.parameter("VALUE")?.uppercased() == "BINARY"
            {
                let type = parsed.parameter("FMTTYPE") ?? "application/octet-stream"
                parsed.parameters.removeAll { $0.name == "VALUE" || $0.name == "ENCODING" }
                parsed.parameters.insert(Parameter("VALUE", "URI"), at: 0)
                parsed.value = "data:\(type);base64,\(parsed.value)"
                say(AppRules.anyBinaryImage, "IMAGE of inline data written as a data: URI")
                return parsed.text
            }
            if kinds.contains(.propertyNames), parsed.nameUnknownToLibical {
                let name = parsed.name
                parsed.name = "X-" + name
                say(AppRules.anyPropertyName, "\(name) written as \(parsed.name)")
                return parsed.text
            }
            return line
        }
    }

    /// Why a line of a date property cannot be read as dates: a value type no date has
    /// (`VALUE=TIME`), or a date that cannot be.
    static func impossibleDate(in line: ContentLine) -> String? {
        if let type = line.parameter("VALUE")?.uppercased(),
            !["DATE", "DATE-TIME", "PERIOD"].contains(type)
        {
            return "VALUE=\(type.prefix(20)) is no date"
        }
        return impossibleDate(in: line.value)
    }

    /// Why one of the dates of a value (`20240101T090000Z,…`, `start/end` or
    /// `start/duration`) cannot be a date, or `nil` when each can.
    static func impossibleDate(in value: String) -> String? {
        for item in value.split(separator: ",") {
            for (index, half) in item.split(separator: "/", maxSplits: 1).enumerated() {
                if index == 1, half.uppercased().hasPrefix("P") || half.hasPrefix("+P") { continue }
                guard let date = dateValue(half) else { return "'\(half.prefix(20))' is no date" }
                if let problem = date.rangeProblem { return problem }
            }
        }
        return nil
    }

    /// `YYYYMMDD`, `YYYYMMDDTHHMMSS` or that with `Z`, as fields (not checked).
    private static func dateValue(_ text: Substring) -> DateTimeValue? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8)
        else { return nil }
        if bytes.count == 8 {
            return DateTimeValue(year: year, month: month, day: day, isDate: true, zone: .floating)
        }
        guard bytes.count == 15 || (bytes.count == 16 && bytes[15] | 0x20 == UInt8(ascii: "z")),
            bytes[8] | 0x20 == UInt8(ascii: "t"),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15)
        else { return nil }
        return DateTimeValue(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            zone: bytes.count == 16 ? .utc : .floating)
    }

    // MARK: Rules

    /// A rule kept as written made readable (`FREQ=DAILY\;COUNT=10`) or left out, then the
    /// record's rule in the form every reader takes.
    private func repairRules(_ record: inout TaskRecord, say: (AppRule, String) -> Void) {
        var kept: [String] = []
        for line in record.icalExtra {
            guard let parsed = try? ContentLine(parsing: line),
                parsed.name == "RRULE" || parsed.name == "EXRULE",
                !RecurrenceRule.isReadable(parsed.value)
            else {
                kept.append(line)
                continue
            }
            guard parsed.name == "RRULE", let readable = readable(parsed.value, of: record) else {
                say(
                    AppRules.anyRuleLeftOut,
                    "\(parsed.name):\(parsed.value.prefix(60)) left out: no reader can read it")
                continue
            }
            if record.recurrence?.rule == nil {
                var recurrence = record.recurrence ?? Recurrence(rule: nil)
                recurrence.rule = readable
                record.recurrence = recurrence
            } else {
                kept.append("RRULE:" + readable)
            }
            say(AppRules.anyRuleForm, "RRULE:\(parsed.value) written as RRULE:\(readable)")
        }
        record.icalExtra = kept
        if let rule = record.recurrence?.rule, RecurrenceRule.isBounded(rule),
            record.recurrence?.exdates.isEmpty == true, givesOnlyStart(rule, record)
        {
            // UNTIL before DTSTART (Radicale refuses it): the rule gives nothing. (With an
            // EXDATE the rule stays: calcurse refuses an EXDATE without one.)
            var candidate = record
            candidate.recurrence?.rule = nil
            if sameOccurrences(record, candidate) {
                record = candidate
                say(AppRules.anyRuleForm, "RRULE:\(rule) gives no date but DTSTART; left out")
            }
        }
        if let rule = record.recurrence?.rule, Self.otherScale(rule) {
            // RFC 7529: only libical reads it; its dates, when it ends, are certain.
            var candidate = record
            candidate.recurrence?.rule = nil
            var dates: [Int64]?
            if RecurrenceRule.isBounded(rule),
                let (starts, truncated) = ruleStarts(rule, of: record, limit: Self.compared),
                !truncated
            {
                dates = starts.filter { $0 != record.dateStart }
            }
            candidate.recurrence?.rdates = ((record.recurrence?.rdates ?? []) + (dates ?? []))
                .sorted()
            if let dates, sameOccurrences(record, candidate) {
                record = candidate
                say(AppRules.anyRuleForm, "RRULE:\(rule) written as \(dates.count) RDATE(s)")
            } else {
                record.recurrence?.rule = nil
                say(
                    AppRules.anyRuleLeftOut,
                    "RRULE:\(rule.prefix(60)) left out: only libical reads RSCALE, and it does not end"
                )
            }
        }
        if let rule = record.recurrence?.rule, let fixed = reformed(rule, of: record),
            fixed != rule
        {
            var candidate = record
            candidate.recurrence?.rule = fixed
            if sameOccurrences(record, candidate) {
                record = candidate
                say(AppRules.anyRuleForm, "RRULE:\(rule) written as RRULE:\(fixed)")
            }
        }
    }

    /// What a rule libical cannot read certainly means, in a form it reads: escaped as text
    /// (`\\;`), in small letters or with spaces, the same rule; with both `COUNT` and `UNTIL`
    /// (RFC 5545 allows one), the occurrences both allow: `UNTIL` the earlier last one.
    private func readable(_ value: String, of record: TaskRecord) -> String? {
        let plain = value.replacingOccurrences(of: "\\;", with: ";")
            .replacingOccurrences(of: "\\,", with: ",").uppercased().filter { $0 != " " }
        if RecurrenceRule.isReadable(plain) { return plain }
        let parts = plain.split(separator: ";").map(String.init)
        let byCount = parts.filter { !$0.hasPrefix("UNTIL=") }.joined(separator: ";")
        let byUntil = parts.filter { !$0.hasPrefix("COUNT=") }.joined(separator: ";")
        guard byCount != plain, byUntil != plain, RecurrenceRule.isReadable(byCount),
            RecurrenceRule.isReadable(byUntil), let counted = lastStart(of: byCount, in: record)
        else { return nil }
        guard let until = lastStart(of: byUntil, in: record), until <= counted else {
            return byCount
        }
        return byUntil
    }

    /// Whether `rule` is of another calendar than the Gregorian or skips (RFC 7529).
    static func otherScale(_ rule: String) -> Bool {
        let parts = rule.uppercased().split(separator: ";")
        return parts.contains { $0.hasPrefix("SKIP=") }
            || parts.contains { $0.hasPrefix("RSCALE=") && $0 != "RSCALE=GREGORIAN" }
    }

    /// `rule` in capitals, with `UNTIL` in the type of the record's start and without
    /// `COUNT` beside it: the last occurrence as the record's own expansion finds it.
    private func reformed(_ rule: String, of record: TaskRecord) -> String? {
        // Spaces mean nothing in a rule (`BYDAY=MO, TU`), and names are not case-sensitive.
        var parts = rule.uppercased().filter { $0 != " " }.split(separator: ";").map(String.init)
        let until = parts.firstIndex { $0.hasPrefix("UNTIL=") }
        let count = parts.firstIndex { $0.hasPrefix("COUNT=") }
        guard let until else { return parts.joined(separator: ";") }
        let value = parts[until].dropFirst("UNTIL=".count)
        let wanted = record.allDay ? 8 : record.floating ? 15 : 16
        if count == nil, value.count == wanted, wanted != 16 || value.hasSuffix("Z") {
            return parts.joined(separator: ";")
        }
        // The last start of the rule alone (DTSTART, when the rule gives nothing).
        guard
            let (starts, truncated) = ruleStarts(
                rule, of: record, limit: Expansion.defaultLimit),
            !truncated, let last = starts.last
        else { return nil }
        parts[until] = "UNTIL=" + untilText(last, of: record)
        if let count { parts.remove(at: count) }
        return parts.joined(separator: ";")
    }

    /// `epoch` as an `UNTIL` value for `record`: a DATE, its wall-clock time, or UTC.
    private func untilText(_ epoch: Int64, of record: TaskRecord) -> String {
        let utc = DateTimeValue(utcEpoch: epoch).compactUTC
        if record.allDay { return String(utc.prefix(8)) }
        if record.floating, let zone = record.timeZone.flatMap(zones.zone(named:)) {
            return String(zone.local(epoch).compactUTC.dropLast())
        }
        return utc
    }

    /// A start its rule does not give (calcurse refuses it): the series starts at the rule's
    /// first date, and the old start stays an occurrence as an `RDATE`.
    private func startWithRule(_ record: inout TaskRecord, say: (AppRule, String) -> Void) {
        guard let rule = record.recurrence?.rule, !record.unscheduled,
            RecurrenceRule.generatesStart(rule, start: wallStart(of: record)) == false
        else { return }
        guard let (starts, _) = ruleStarts(rule, of: record, limit: 2), starts.count == 2 else {
            return
        }
        var candidate = record
        candidate.dateStart = starts[1]
        candidate.dateFinish = starts[1] + (record.dateFinish - record.dateStart)
        candidate.recurrence?.rdates = (record.recurrence?.rdates ?? []) + [record.dateStart]
        guard sameOccurrences(record, candidate) else { return }
        record = candidate
        say(AppRules.anyRuleStart, "starts at the rule's first date; its own start is an RDATE")
    }

    /// The record's start as the rule steps from it: a DATE, or the wall clock of its zone.
    private func wallStart(of record: TaskRecord) -> DateTimeValue {
        if record.allDay {
            var value = DateTimeValue(utcEpoch: record.dateStart)
            value.isDate = true
            value.zone = .floating
            return value
        }
        if let zone = record.timeZone.flatMap(zones.zone(named:)) {
            return zone.local(record.dateStart)
        }
        return DateTimeValue(utcEpoch: record.dateStart)
    }

    /// `EXDATE`s without a rule (calcurse refuses them): those that cancel an `RDATE` take
    /// it away, and those of a record that does not repeat are left out, as they say nothing.
    private func dropLoneExdates(_ record: inout TaskRecord, say: (AppRule, String) -> Void) {
        guard record.recurrence?.rule == nil, !VerbatimRecurrence.repeats(record) else { return }
        var dropped = 0
        record.icalExtra.removeAll { line in
            guard line.uppercased().hasPrefix("EXDATE"),
                (try? ContentLine(parsing: line))?.name == "EXDATE"
            else { return false }
            dropped += 1
            return true
        }
        if var recurrence = record.recurrence {
            let cancelled = Set(recurrence.exdates)
            recurrence.rdates.removeAll { cancelled.contains($0) }
            // Only one taking DTSTART itself away still needs saying.
            let kept = recurrence.exdates.filter { $0 == record.dateStart }
            dropped += recurrence.exdates.count - kept.count
            recurrence.exdates = kept
            var candidate = record
            candidate.recurrence =
                recurrence.rdates.isEmpty && kept.isEmpty ? nil : recurrence
            guard sameOccurrences(record, candidate) else { return }
            record = candidate
        }
        if dropped > 0 {
            say(AppRules.anyLoneExdate, "\(dropped) EXDATE(s) without a rule left out")
        }
    }

    // MARK: Repeats kept as written

    /// A period `RDATE`, a second `RRULE` and a bounded `EXRULE` made plain `RDATE`s and
    /// `EXDATE`s of the record (a period's own length: a changed occurrence, returned).
    private func flatten(_ record: inout TaskRecord, say: (AppRule, String) -> Void) -> [TaskRecord]
    {
        var flattened: [String] = []
        var labels: [String] = []
        var kept: [String] = []
        var last = record.dateStart
        for line in record.icalExtra {
            guard let parsed = try? ContentLine(parsing: line),
                ["RRULE", "EXRULE", "RDATE"].contains(parsed.name)
            else {
                kept.append(line)
                continue
            }
            if parsed.name == "RDATE" {
                guard parsed.parameter("VALUE")?.uppercased() == "PERIOD" else {
                    kept.append(line)
                    continue
                }
                var one = record
                one.recurrence = nil
                one.icalExtra = [line]
                let ends = VerbatimRecurrence(one, zones: zones).periods.map(\.start)
                last = max(last, ends.max() ?? last)
                flattened.append(line)
                labels.append("RDATE;VALUE=PERIOD")
            } else if RecurrenceRule.isBounded(parsed.value),
                let end = lastStart(of: parsed.value, in: record)
            {
                last = max(last, end)
                flattened.append(line)
                labels.append(parsed.name == "RRULE" ? "a second RRULE" : "EXRULE")
            } else if parsed.name == "RRULE" {
                say(
                    AppRules.anyRuleLeftOut,
                    "a second RRULE:\(parsed.value.prefix(60)) without an end left out")
            } else {
                kept.append(line)  // an endless EXRULE: no reader here refuses it
            }
        }
        guard !flattened.isEmpty else {
            record.icalExtra = kept
            return []
        }
        var plain = record
        plain.icalExtra = kept
        let window = record.dateStart..<(last + 1)
        let span = Expansion(window: window, limit: Self.compared, zones: zones)
        guard let (full, cutFull) = try? span.occurrences(of: record),
            let (base, cutBase) = try? span.occurrences(of: plain), !cutFull, !cutBase
        else {
            record.icalExtra = kept + flattened
            return []
        }
        let length = record.dateFinish - record.dateStart
        let wanted = Set(full.map(\.dateStart))
        let given = Set(base.map(\.dateStart))
        var recurrence = plain.recurrence ?? Recurrence(rule: nil)
        recurrence.rdates = (recurrence.rdates + wanted.subtracting(given)).sorted()
        recurrence.exdates = (recurrence.exdates + given.subtracting(wanted)).sorted()
        plain.recurrence = recurrence
        var changed: [TaskRecord] = []
        for occurrence in full where occurrence.dateFinish - occurrence.dateStart != length {
            var change = plain
            change.recurrence = nil
            change.recurrenceID = occurrence.dateStart
            change.dateStart = occurrence.dateStart
            change.dateFinish = occurrence.dateFinish
            change.subtasks = []
            changed.append(change)
        }
        record = plain
        say(
            AppRules.anyExtraRepeat,
            "\(labels.joined(separator: ", ")) written as \(wanted.subtracting(given).count) RDATE(s), \(given.subtracting(wanted).count) EXDATE(s) and \(changed.count) changed occurrence(s)"
        )
        return changed
    }

    /// The last start `rule` gives the record, or `nil` past the comparison's reach.
    private func lastStart(of rule: String, in record: TaskRecord) -> Int64? {
        guard let (starts, truncated) = ruleStarts(rule, of: record, limit: Self.compared),
            !truncated
        else { return nil }
        return starts.last
    }

    /// Whether `rule` gives `record` no date but its start: two occurrences looked for.
    private func givesOnlyStart(_ rule: String, _ record: TaskRecord) -> Bool {
        ruleStarts(rule, of: record, limit: 2)?.starts.count == 1
    }

    /// The starts `rule` alone (no other repeat of the record) gives `record` from its start
    /// on, at most `limit` of them, and whether the limit cut them; `nil` when they cannot be
    /// computed.
    private func ruleStarts(_ rule: String, of record: TaskRecord, limit: Int) -> (
        starts: [Int64], truncated: Bool
    )? {
        var alone = record
        alone.recurrence = Recurrence(rule: rule)
        alone.icalExtra = []
        let expansion = Expansion(
            window: record.dateStart..<Timestamp.range.upperBound, limit: limit, zones: zones)
        guard let (found, truncated) = try? expansion.occurrences(of: alone) else { return nil }
        return (found.map(\.dateStart), truncated)
    }

    /// Whether two forms of a record repeat alike: the same starts and ends, as far as
    /// ``compared`` occurrences reach.
    func sameOccurrences(_ one: TaskRecord, _ other: TaskRecord) -> Bool {
        let all = Expansion(
            window: min(one.dateStart, other.dateStart)..<Timestamp.range.upperBound,
            limit: Self.compared, zones: zones)
        guard let (first, _) = try? all.occurrences(of: one),
            let (second, _) = try? all.occurrences(of: other)
        else { return false }
        return first.map { [$0.dateStart, $0.dateFinish] }
            == second.map { [$0.dateStart, $0.dateFinish] }
    }

    // MARK: The calendar

    /// The calendar's lines and kept components every reader takes: lines with a value, and
    /// its zones. Each one left out is said to `note` with its text.
    func shape(_ calendar: CalendarInfo, note: (AppRule, String, String) -> Void)
        -> CalendarInfo
    {
        var shaped = calendar
        if kinds.contains(.emptyValues) {
            shaped.icalExtra = calendar.icalExtra.filter { line in
                guard let parsed = try? ContentLine(parsing: line),
                    Self.isBlank(parsed.value)
                else { return true }
                note(AppRules.anyEmptyValue, "\(parsed.name) without a value left out", line)
                return false
            }
        }
        guard kinds.contains(.keptComponents) else { return shaped }
        shaped.icalComponents = calendar.icalComponents.filter { text in
            let kind = text.prefix(while: { !$0.isNewline }).uppercased()
            if kind == "BEGIN:VTIMEZONE" { return true }
            note(
                AppRules.anyKeptComponent,
                "\(kind.dropFirst("BEGIN:".count)) kept as written left out", text)
            return false
        }
        return shaped
    }
}
