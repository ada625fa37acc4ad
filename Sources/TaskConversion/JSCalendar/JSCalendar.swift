import Foundation
import ICalendar
import TaskModel

/// JSCalendar (RFC 8984) and the task format, one into the other, as JSON values.
///
/// A record becomes an `Event` or a `Task` with the properties RFC 8984 gives for what it
/// holds: `title`, `start` in its `timeZone` with a `duration`, `showWithoutTime` for an
/// all-day record, `keywords`, `locations`, `links` (attachments, inline ones as `data:`
/// URIs, and the `url`), `participants`, `alerts`, `recurrenceRules` and
/// `recurrenceOverrides`, `relatedTo` for subtasks; a changed occurrence is an object of its
/// own with `recurrenceId`. What JSCalendar has no property for (an alarm's text, `ical_extra`
/// lines, an audio alarm, a zone the calendar defines) goes into the vendor property
/// `taskcal.invalid:fields` (RFC 8984 §3.3) of the object it belongs to, as task-format
/// fields: the object is read back and whatever reading it would not give back exactly is
/// written there, so records → JSCalendar → records loses nothing by construction.
///
/// Reading maps every RFC 8984 property the task format has a field for; the others are
/// left out with a warning that names them.
enum JSCalendar {
    /// The vendor property that holds task-format fields an object does not say itself. Its
    /// domain is reserved (RFC 6761) so that it can never be anyone else's.
    static let fieldsKey = "taskcal.invalid:fields"
    /// The vendor property of a `Group` that holds the calendar's own data (`CalendarInfo`).
    static let calendarKey = "taskcal.invalid:calendar"

    /// What reading and writing need to know beyond the object.
    struct Context {
        /// How ids become UIDs, with the namespace of the file records come from.
        var uidScheme: UIDScheme
        /// Writing: the zone of records that have none (`--tz`); `nil` is UTC.
        var zone: String?
        /// Reading: the zone floating times are read in.
        var floatingZone: String
        /// `updated`, Unix seconds (`SOURCE_DATE_EPOCH` or now).
        var timestamp: Int64
    }

    /// One record read from a JSCalendar object: task-format JSON, whether its id is still to
    /// be given (a UID that is not taskcal's and no id kept), and where it came from.
    struct Entry {
        var task: [JSONValue.Member]
        var needsID: Bool
        var path: String
        /// Why it cannot be a record (empty when it can).
        var problems: [Problem] = []
        /// A changed occurrence given as a patch in its series' `recurrenceOverrides`.
        var isPatch = false
    }

    // MARK: - Times

    /// How a record's times are written: at UTC, in a zone, floating (the wall-clock times
    /// in the zone they were read in), or as dates (all-day, the record's UTC midnights).
    enum Placement: Equatable {
        case utc
        case zone(String)
        case floating(String?)
        case allDay

        /// The wall-clock fields of `epoch`, or `nil` when they would not name it alone (a
        /// time in the hour repeated when clocks go back, or out of range).
        func local(_ epoch: Int64) -> DateTimeValue? {
            let value: DateTimeValue
            switch self {
            case .utc, .allDay: value = DateTimeValue(utcEpoch: epoch)
            case .floating(let zone):
                value =
                    zone.flatMap(CalendarZone.system)?.local(epoch)
                    ?? DateTimeValue(utcEpoch: epoch)
            case .zone(let name):
                guard let zone = CalendarZone.system(name) else { return nil }
                let local = zone.local(epoch)
                guard zone.epoch(of: local) == epoch, !zone.isAmbiguous(at: epoch) else {
                    return nil
                }
                value = local
            }
            guard (1...9999).contains(value.year) else { return nil }
            return value
        }

        /// The instant of wall-clock fields.
        func epoch(_ local: DateTimeValue) -> Int64 {
            var fields = local
            fields.zone = .floating
            switch self {
            case .utc, .allDay: return fields.epochAsUTC
            case .floating(let zone):
                return zone.flatMap(CalendarZone.system)?.epoch(of: fields) ?? fields.epochAsUTC
            case .zone(let name):
                return CalendarZone.system(name)?.epoch(of: fields) ?? fields.epochAsUTC
            }
        }
    }

    // MARK: - The calendar

    /// A Group's properties for what a calendar says of itself: its name (`title`), RFC
    /// 7986 `DESCRIPTION` (or `X-WR-CALDESC`), `COLOR` and `SOURCE`.
    static func groupProperties(of info: CalendarInfo) -> [JSONValue.Member] {
        var group = Members()
        if let title = info.name { group.set("title", .string(title)) }
        for line in info.icalExtra {
            guard let property = try? ContentLine(parsing: line) else { continue }
            switch property.name {
            case "DESCRIPTION", "X-WR-CALDESC":
                if group["description"] == nil {
                    group.set("description", .string(ContentLine.unescapedText(property.value)))
                }
            case "COLOR": group.set("color", .string(property.value))
            case "SOURCE": group.set("source", .string(property.value))
            default: break
            }
        }
        return group.list
    }

    /// The calendar data a Group's own properties give (``groupProperties(of:)`` read back).
    static func calendarInfo(fromGroup group: [JSONValue.Member]) -> CalendarInfo {
        var info = CalendarInfo()
        let members = Members(list: group)
        if case .string(let description)? = members["description"] {
            info.icalExtra.append("DESCRIPTION:" + ContentLine.escapedText(description))
        }
        if case .string(let color)? = members["color"] { info.icalExtra.append("COLOR:" + color) }
        if case .string(let source)? = members["source"] {
            info.icalExtra.append("SOURCE;VALUE=URI:" + source)
        }
        if case .string(let title)? = members["title"] { info.setName(title) }
        return info
    }

    /// `2026-01-15T13:00:00` (RFC 8984 LocalDateTime).
    static func localText(_ value: DateTimeValue) -> String {
        String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", value.year, value.month, value.day,
            value.hour, value.minute, value.second)
    }

    /// `2026-01-15T10:00:00Z` (RFC 8984 UTCDateTime).
    static func utcText(_ epoch: Int64) -> String {
        localText(DateTimeValue(utcEpoch: epoch)) + "Z"
    }

    /// The fields of a LocalDateTime (`Z` not allowed) or, with `utc`, of a UTCDateTime
    /// (`Z` required). Fractions of a second are allowed and dropped.
    static func dateTime(_ text: String, utc: Bool = false) -> DateTimeValue? {
        var body = Substring(text)
        if utc {
            guard body.hasSuffix("Z") else { return nil }
            body = body.dropLast()
        }
        if let dot = body.firstIndex(of: ".") {
            let fraction = body[body.index(after: dot)...]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            body = body[..<dot]
        }
        let bytes = Array(body.utf8)
        guard bytes.count == 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54,
            bytes[13] == 0x3A, bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16),
            let second = number(17..<19), (1...9999).contains(year), (1...12).contains(month),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let value = DateTimeValue(
            year: year, month: month, day: day, hour: hour, minute: minute,
            second: min(second, 59), zone: .floating)
        guard (1...LocalTime.Day(year: year, month: month, day: 1).daysInMonth).contains(day)
        else { return nil }
        return value
    }

    /// A duration as weeks and days (nominal: wall-clock days) and seconds (exact).
    struct Duration: Equatable {
        var negative = false
        var days: Int64 = 0
        var seconds: Int64 = 0

        /// `P1DT2H`, `-PT15M`, `P2W`: RFC 8984 Duration and SignedDuration (RFC 5545's form).
        init?(_ text: String, signed: Bool) {
            var rest = Substring(text)
            if signed, let first = rest.first, first == "+" || first == "-" {
                negative = first == "-"
                rest = rest.dropFirst()
            }
            guard rest.first == "P", rest.count > 1 else { return nil }
            rest = rest.dropFirst()
            var inTime = false
            var digits = ""
            var seen = false
            // Each unit at most once, in order (W D, then after T: H M S), so the sum of at
            // most five 12-digit numbers cannot overflow.
            var rank = -1
            for character in rest {
                if character.isASCIIDigit {
                    guard digits.count < 12 else { return nil }
                    digits.append(character)
                    continue
                }
                if character == "T" {
                    guard !inTime, digits.isEmpty else { return nil }
                    inTime = true
                    continue
                }
                guard let value = Int64(digits) else { return nil }
                digits = ""
                seen = true
                let unit: (rank: Int, days: Int64, seconds: Int64)
                switch (character, inTime) {
                case ("W", false): unit = (0, 7, 0)
                case ("D", false): unit = (1, 1, 0)
                case ("H", true): unit = (2, 0, 3600)
                case ("M", true): unit = (3, 0, 60)
                case ("S", true): unit = (4, 0, 1)
                default: return nil
                }
                guard unit.rank > rank else { return nil }
                rank = unit.rank
                days += value * unit.days
                seconds += value * unit.seconds
            }
            guard digits.isEmpty, seen, !(inTime && rank < 2) else { return nil }
        }

        /// Exact seconds only: `PT1H30M`, `PT0S`.
        init(seconds: Int64) { self.seconds = seconds }

        /// Days only: `P3D`.
        init(days: Int64) { self.days = days }

        /// The text, with the sign when negative.
        var text: String {
            var text = negative ? "-P" : "P"
            if days > 0 { text += "\(days)D" }
            if seconds > 0 || days == 0 {
                text += "T"
                let hours = seconds / 3600
                let minutes = seconds % 3600 / 60
                let rest = seconds % 60
                if hours > 0 { text += "\(hours)H" }
                if minutes > 0 { text += "\(minutes)M" }
                if rest > 0 || seconds == 0 { text += "\(rest)S" }
            }
            return text
        }

        /// The instant this long after `start` in `placement`: days on the wall clock, then
        /// seconds on the time line.
        func end(after start: Int64, in placement: Placement) -> Int64? {
            let sign: Int64 = negative ? -1 : 1
            var end = start
            // Past 10,000 years no instant is in range.
            guard days <= 3_660_000, seconds <= 3_660_000 * 86_400 else { return nil }
            if days != 0 {
                guard let local = placement.local(start) ?? Placement.utc.local(start) else {
                    return nil
                }
                let shifted = DateTimeValue(
                    utcEpoch: local.epochAsUTC + sign * days * 86_400)
                guard (1...9999).contains(shifted.year) else { return nil }
                end = placement.epoch(shifted)
            }
            return end + sign * seconds
        }
    }

    // MARK: - Values

    /// A JSON number of an integer.
    static func number(_ value: Int64) -> JSONValue { .number(String(value)) }

    /// Members with the `@type` first.
    static func typed(_ type: String, _ members: [JSONValue.Member]) -> JSONValue {
        .object([JSONValue.Member(name: "@type", value: .string(type))] + members)
    }

    /// Builds an object's members in order.
    struct Members {
        var list: [JSONValue.Member] = []
        mutating func set(_ name: String, _ value: JSONValue?) {
            guard let value else { return }
            list.removeAll { $0.name == name }
            list.append(JSONValue.Member(name: name, value: value))
        }
        subscript(name: String) -> JSONValue? {
            list.first { $0.name == name }?.value
        }
        mutating func remove(_ name: String) { list.removeAll { $0.name == name } }
    }

    /// The members of `original` that `reread` does not give back as they are; `null` for
    /// a member that reading gives but the original has not. Empty when reading gives back
    /// the original exactly. An object both have is kept as what differs inside it (a JSON
    /// merge patch, RFC 7386, which ``overlaid(_:with:)`` applies): a recurrence whose rule
    /// reads back in another order keeps its rule alone, not its dates as instants, which
    /// are wrong for a floating record read in another zone.
    static func residual(_ original: [JSONValue.Member], _ reread: [JSONValue.Member])
        -> [JSONValue.Member]
    {
        var result: [JSONValue.Member] = []
        for member in original {
            let other = reread.first { $0.name == member.name }?.value
            if let other, same(other, member.value) { continue }
            if case .object(let mine) = member.value, case .object(let theirs)? = other {
                result.append(
                    JSONValue.Member(name: member.name, value: .object(residual(mine, theirs))))
            } else {
                result.append(member)
            }
        }
        for member in reread where !original.contains(where: { $0.name == member.name }) {
            result.append(JSONValue.Member(name: member.name, value: .null))
        }
        return result
    }

    /// Whether two values say the same in the task format: objects are compared member by
    /// member whatever their order.
    static func same(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { member in
                    b.contains { $0.name == member.name && same($0.value, member.value) }
                }
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        default:
            return left == right
        }
    }

    /// `overlay`'s members on top of `base`'s: a `null` removes the member, an object on
    /// an object is laid on it member by member (see ``residual(_:_:)``).
    static func overlaid(_ base: [JSONValue.Member], with overlay: [JSONValue.Member])
        -> [JSONValue.Member]
    {
        var result = Members(list: base)
        for member in overlay {
            if member.value == .null {
                result.remove(member.name)
            } else if case .object(let patch) = member.value,
                case .object(let under)? = result[member.name]
            {
                result.set(member.name, .object(overlaid(under, with: patch)))
            } else {
                result.set(member.name, member.value)
            }
        }
        return result.list
    }

    /// The members of `value` when it is an object.
    static func members(_ value: JSONValue?) -> [JSONValue.Member]? {
        if case .object(let members)? = value { return members }
        return nil
    }

    /// A value in task-format JSON.
    static func taskJSON(_ write: (inout JSONWriter) -> Void) -> [JSONValue.Member] {
        var writer = JSONWriter()
        write(&writer)
        return members(try? JSONValue.parse(Data(writer.bytes))) ?? []
    }

    /// The iCalendar `UNTIL` of a LocalDateTime in a record's placement.
    static func untilText(_ local: DateTimeValue, placement: Placement) -> String {
        let compact = localText(local).filter { $0 != "-" && $0 != ":" }
        switch placement {
        case .allDay: return String(compact.prefix(8))
        case .floating: return compact
        case .utc, .zone: return DateTimeValue(utcEpoch: placement.epoch(local)).compactUTC
        }
    }

    /// The LocalDateTime of an iCalendar `UNTIL` value in a record's placement.
    static func untilLocal(_ text: String, placement: Placement) -> DateTimeValue? {
        let digits = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            Int(String(decoding: digits[range], as: UTF8.self))
        }
        guard digits.count >= 8, let year = number(0..<4), let month = number(4..<6),
            let day = number(6..<8)
        else { return nil }
        var value = DateTimeValue(year: year, month: month, day: day, zone: .floating)
        if digits.count == 8 { return value }
        guard digits.count >= 15, digits[8] == 0x54, let hour = number(9..<11),
            let minute = number(11..<13), let second = number(13..<15)
        else { return nil }
        value.hour = hour
        value.minute = minute
        value.second = second
        if digits.count == 16, digits[15] == 0x5A {
            return placement.local(
                DateTimeValue(
                    year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                    zone: .utc
                ).epochAsUTC) ?? value
        }
        return digits.count == 15 ? value : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension TaskRecord {
    /// The record as `--to jscalendar` writes it (RFC 8984): its own `Event` or `Task`, then
    /// a `Task` for each subtask. Records without a zone are written in `zone` (default
    /// UTC); `updated` is `timestamp`.
    ///
    /// - Throws: `Problem` when an attachment `path` cannot be read.
    public func jscalendarObjects(
        uidScheme: UIDScheme = UIDScheme(), zone: String? = nil, timestamp: Int64 = 0,
        attachmentBase: URL? = nil
    ) throws(Problem) -> [JSONValue] {
        try JSCalendar.objects(
            for: self,
            context: JSCalendar.Context(
                uidScheme: uidScheme, zone: zone, floatingZone: "UTC", timestamp: timestamp),
            attachmentBase: attachmentBase)
    }
}
