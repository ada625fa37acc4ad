import ICalendar
import TaskModel

/// The repeats a record keeps as written in `ical_extra`, which calendar apps read and count:
/// a second `RRULE` (RFC 2445 allowed several; RFC 5545 says SHOULD NOT, and readers honour
/// them), an `EXRULE` (RFC 2445), an `RDATE` of periods (`VALUE=PERIOD`: each its own start
/// and length), and an `RRULE` libical cannot read, counted from what can be read of it.
///
/// The record keeps the lines as they were written, so .ics → JSON → .ics loses nothing; an
/// expansion adds what they say to the occurrences of ``TaskRecord/recurrence``.
struct VerbatimRecurrence {
    /// Rules whose dates are added (the readable part of a damaged rule among them).
    var rules: [String] = []
    /// Rules whose dates are taken away (but `DTSTART`, which always counts).
    var exceptionRules: [String] = []
    /// Occurrences with their own ends (`RDATE;VALUE=PERIOD`), Unix seconds. A period that
    /// cannot be read counts for nothing (the reader noted the line libical refused).
    var periods: [TimeSpan] = []

    var isEmpty: Bool { rules.isEmpty && exceptionRules.isEmpty && periods.isEmpty }

    /// The verbatim repeats of `record`, its times placed in `zones` (a `TZID` of the line),
    /// its floating times in the record's own zone.
    init(_ record: TaskRecord, zones: ZoneCatalog) {
        for line in record.icalExtra where Self.mayRepeat(line) {
            guard let parsed = try? ContentLine(parsing: line) else { continue }
            switch parsed.name {
            case "RRULE": rule(parsed.value, into: \.rules)
            case "EXRULE": rule(parsed.value, into: \.exceptionRules)
            case "RDATE" where parsed.parameter("VALUE")?.uppercased() == "PERIOD":
                periods(parsed, of: record, zones: zones)
            default: break
            }
        }
    }

    /// Whether `record` repeats by what it keeps as written, without looking further.
    static func repeats(_ record: TaskRecord) -> Bool {
        record.icalExtra.contains(where: mayRepeat)
    }

    /// A line that may be one of these: a cheap test before it is parsed.
    private static func mayRepeat(_ line: String) -> Bool {
        guard let first = line.utf8.first,
            first | 0x20 == UInt8(ascii: "r") || first | 0x20 == UInt8(ascii: "e")
        else { return false }
        let head = line.prefix(6).uppercased()
        return head.hasPrefix("RRULE") || head.hasPrefix("EXRULE") || head.hasPrefix("RDATE")
    }

    private mutating func rule(_ value: String, into list: WritableKeyPath<Self, [String]>) {
        // A rule libical cannot read counts as what it can read of it (the reader said which
        // parts are left out); one with nothing readable, not at all.
        if RecurrenceRule.isReadable(value) {
            self[keyPath: list].append(value)
        } else if let readable = RecurrenceRule.repaired(value)?.rule {
            self[keyPath: list].append(readable)
        }
    }

    /// `start/end` or `start/duration` values, in the line's `TZID`, UTC (`Z`) or the
    /// record's own zone.
    private mutating func periods(_ line: ContentLine, of record: TaskRecord, zones: ZoneCatalog) {
        let zone =
            line.parameter("TZID").flatMap(zones.zone(named:))
            ?? record.timeZone.flatMap(zones.zone(named:))
        for text in line.value.split(separator: ",") {
            let halves = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard halves.count == 2, let start = Self.epoch(halves[0], zone: zone) else {
                continue
            }
            let finish: Int64?
            if halves[1].uppercased().hasPrefix("P") || halves[1].hasPrefix("+P") {
                finish = ISODuration.seconds(halves[1].uppercased()).map { start + Int64($0) }
            } else {
                finish = Self.epoch(halves[1], zone: zone)
            }
            guard let finish, finish >= start else { continue }
            periods.append(TimeSpan(start: start, finish: finish))
        }
    }

    /// `20231213T120000` (in `zone`, else UTC) or `20231213T120000Z`, Unix seconds.
    private static func epoch(_ text: String, zone: CalendarZone?) -> Int64? {
        let bytes = Array(text.utf8)
        let utc = bytes.last == UInt8(ascii: "Z")
        let digits = utc ? bytes.dropLast() : bytes[...]
        guard digits.count == 15, digits[digits.startIndex + 8] == UInt8(ascii: "T") else {
            return nil
        }
        func number(_ offset: Int, _ count: Int) -> Int? {
            let part = digits[(digits.startIndex + offset)..<(digits.startIndex + offset + count)]
            guard part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(String(decoding: part, as: UTF8.self))
        }
        guard let year = number(0, 4), let month = number(4, 2), let day = number(6, 2),
            let hour = number(9, 2), let minute = number(11, 2), let second = number(13, 2)
        else { return nil }
        let value = DateTimeValue(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            zone: .floating)
        guard value.rangeProblem == nil else { return nil }
        if utc || zone == nil { return value.epochAsUTC }
        return zone!.epoch(of: value)
    }
}

extension TaskRecord {
    /// Whether the record repeats: by its ``recurrence`` or by the repeats it keeps as
    /// written (``VerbatimRecurrence``). A changed occurrence does not: it is one occurrence.
    public var repeats: Bool {
        recurrenceID == nil && (recurrence != nil || VerbatimRecurrence.repeats(self))
    }
}
