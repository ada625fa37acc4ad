import Foundation
import ICalendar
import TaskModel

/// A record as `taskcal diff` compares it: the key it is matched by, and its meaning as
/// iCalendar property names with normalized values, so that what only changes the form (a
/// time in another zone or in UTC, `DTEND` or `DURATION`, the order of properties,
/// parameters and list items, quoting, the case of names) compares equal.
public struct ComparedRecord: Sendable {
    /// The UID it is matched by: the record's, or the one taskcal derives from its id.
    public var uid: String
    /// The start the occurrence had in its series (`RECURRENCE-ID`), Unix seconds.
    public var recurrenceID: Int64?
    /// `SUMMARY`, for people.
    public var name: String
    /// Where it was read.
    public var source: Location
    /// False for a component that had no `UID`: matched by its start and name instead.
    public var hasUID: Bool
    /// The start, for matching records without a UID and for showing times.
    public var start: Int64
    /// The zone its times are shown in (its own; UTC when it has none).
    public var zone: String?
    /// The record as read and its parent's UID, which `fields` and `form` are made of when
    /// asked: two records equal as read are the same without normalizing either (the common
    /// case of `--verify` and of a migration's diff, and a third of their time).
    var read: (record: TaskRecord, parent: String?)?
    private var madeFields: [String: FieldValue]?
    private var madeForm: [String: FieldValue]?

    /// The meaning, property by property: each value normalized (a list sorted where its
    /// order means nothing), absent properties left out.
    public var fields: [String: FieldValue] {
        get { madeFields ?? read.map { Self.fields(of: $0.record, parent: $0.parent) } ?? [:] }
        set {
            madeFields = newValue
            madeForm = form
            read = nil
        }
    }
    /// What only changes the form (the zone a time is written in, `DTEND` against
    /// `DURATION`), compared under `--strict` only.
    public var form: [String: FieldValue] {
        get { madeForm ?? read.map { Self.form(of: $0.record) } ?? [:] }
        set {
            madeFields = fields
            madeForm = newValue
            read = nil
        }
    }

    /// True when `self` and `other` are the same without comparing their fields: records
    /// equal as read, under the same parent.
    func isIdentical(to other: ComparedRecord) -> Bool {
        guard let mine = read, let theirs = other.read else { return false }
        return mine.parent == theirs.parent && mine.record == theirs.record
    }

    /// Creates the comparable form of `record` read from `source`; `scheme` derives the UID
    /// of a record that has none of its own (the namespace of the file it was read from).
    public init(
        _ record: TaskRecord, source: Location, scheme: UIDScheme, hasUID: Bool = true,
        parent: String? = nil
    ) {
        uid = record.uid ?? scheme.uid(for: record.id)
        let wall = Self.wallClock(of: record)
        recurrenceID = record.recurrenceID.map(wall)
        name = record.name
        self.source = source
        self.hasUID = hasUID
        start = wall(record.dateStart)
        zone = record.floating && !record.allDay ? Self.floating : record.timeZone
        read = (record, parent)
    }

    /// The ``zone`` of a record with floating times: they are compared, and shown, as the
    /// wall-clock times they are (see ``wallClock(of:)``).
    public static let floating = "floating"

    /// A floating record's times as the wall clock they show, counted as if in UTC. Its
    /// `time_zone` is the zone it was read in (`--floating-zone`), which is the reader's, not
    /// the record's: `07:00` read in São Paulo and read back in UTC is the same `07:00`.
    static func wallClock(of record: TaskRecord) -> (Int64) -> Int64 {
        guard record.floating, !record.allDay, let name = record.timeZone,
            let local = try? LocalTime(zone: name)
        else { return { $0 } }
        return { $0 + Int64(local.utcOffset(at: $0)) }
    }

    /// The key a record is matched by: its UID and recurrence id.
    public struct Key: Hashable, Sendable {
        public var uid: String
        public var recurrenceID: Int64?
    }

    public var key: Key { Key(uid: uid, recurrenceID: recurrenceID) }
}

/// One property's value as compared: normalized text items, and for times the instants
/// (shown in the record's zone).
public struct FieldValue: Hashable, Sendable {
    /// The items, normalized; one for a single value.
    public var items: [String]
    /// For a time property: the instant and whether it is a date (all-day).
    public var instant: Int64?
    /// The time is a date (all-day).
    public var isDate = false
    /// The property holds a list (JSON writes it as an array even of one item).
    public var isList = false

    /// A text value.
    public init(_ text: String) { items = [text] }

    /// A list whose order means nothing: sorted.
    public init(unordered items: [String]) {
        self.items = items.sorted()
        isList = true
    }

    /// A time: compared as its instant (a date as the date); a floating one as its wall
    /// clock, written without `Z`.
    public init(time: Int64, date: Bool, floating: Bool = false) {
        instant = time
        isDate = date
        items = [Self.utc(time, date: date, floating: floating)]
    }

    /// Several times whose order means nothing (`EXDATE`, `RDATE`).
    public init(times: [Int64], date: Bool, floating: Bool = false) {
        isDate = date
        isList = true
        items = Set(times).sorted().map { Self.utc($0, date: date, floating: floating) }
    }

    /// ``utc(_:date:)``, without the `Z` for a floating time.
    static func utc(_ epoch: Int64, date: Bool, floating: Bool) -> String {
        let text = utc(epoch, date: date)
        return floating && !date ? String(text.dropLast()) : text
    }

    /// `2026-11-27T08:00:00Z`, or `2026-11-27` for a date.
    /// Written digit by digit: `String(format:)` took a third of `diff`'s time.
    public static func utc(_ epoch: Int64, date: Bool) -> String {
        let fields = DateTimeValue(utcEpoch: epoch)
        guard (0...9999).contains(fields.year) else {
            let day = String(format: "%04d-%02d-%02d", fields.year, fields.month, fields.day)
            guard !date else { return day }
            return day
                + String(format: "T%02d:%02d:%02dZ", fields.hour, fields.minute, fields.second)
        }
        let zero = UInt8(ascii: "0")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        func digits(_ value: Int, _ count: Int) {
            var divisor = count == 4 ? 1000 : 10
            while divisor > 0 {
                bytes.append(zero + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(fields.year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(fields.month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(fields.day, 2)
        if !date {
            bytes.append(UInt8(ascii: "T"))
            digits(fields.hour, 2)
            bytes.append(UInt8(ascii: ":"))
            digits(fields.minute, 2)
            bytes.append(UInt8(ascii: ":"))
            digits(fields.second, 2)
            bytes.append(UInt8(ascii: "Z"))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension ComparedRecord {
    /// Properties that say when or how a record was written, not what it is: never a
    /// difference (`DTSTAMP`), or taskcal's own marks.
    static let ignoredLines: Set<String> = ["DTSTAMP", "X-LIC-ERROR", "X-LIC-ERRORTYPE"]

    static func fields(of record: TaskRecord, parent: String?) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        let parameters = record.icalParameters
        /// Sets a text property, with the parameters the record kept for it.
        func text(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            fields[name] = FieldValue(withParameters(parameters[name]) + value)
        }
        let component =
            switch record.kind {
            case .event: "VEVENT"
            case .todo: "VTODO"
            case .journal: "VJOURNAL"
            }
        if component != "VEVENT" { fields["COMPONENT"] = FieldValue(component) }
        text("SUMMARY", record.name)
        text("DESCRIPTION", record.description)
        text("LOCATION", record.location)
        text("URL", record.url)
        text("COLOR", record.color?.lowercased())
        text("CLASS", record.classification?.rawValue.uppercased())
        if record.done {
            fields["STATUS"] = FieldValue("COMPLETED")
        } else {
            text("STATUS", record.status?.rawValue.uppercased())
        }
        if record.free { fields["TRANSP"] = FieldValue("TRANSPARENT") }
        let wall = wallClock(of: record)
        let floating = record.floating && !record.allDay
        func time(_ epoch: Int64) -> FieldValue {
            FieldValue(time: wall(epoch), date: record.allDay, floating: floating)
        }
        func times(_ epochs: [Int64]) -> FieldValue {
            FieldValue(times: epochs.map(wall), date: record.allDay, floating: floating)
        }
        if !record.unscheduled {
            fields["DTSTART"] = time(record.dateStart)
            if record.kind != .todo || record.due == nil {
                fields["DTEND"] = time(record.dateFinish)
            }
        }
        if let due = record.due { fields["DUE"] = time(due) }
        if record.thisAndFuture { fields["RANGE"] = FieldValue("THISANDFUTURE") }
        if !record.categories.isEmpty {
            fields["CATEGORIES"] = FieldValue(unordered: record.categories)
        }
        if let organizer = record.organizer { fields["ORGANIZER"] = FieldValue(person(organizer)) }
        if !record.attendees.isEmpty {
            fields["ATTENDEE"] = FieldValue(unordered: record.attendees.map(person))
        }
        if let recurrence = record.recurrence {
            if let rule = recurrence.rule {
                fields["RRULE"] = FieldValue(unordered: [normalizedRule(rule)])
            }
            if !recurrence.exdates.isEmpty { fields["EXDATE"] = times(recurrence.exdates) }
            if !recurrence.rdates.isEmpty { fields["RDATE"] = times(recurrence.rdates) }
        }
        if !record.attachments.isEmpty {
            fields["ATTACH"] = FieldValue(unordered: record.attachments.map(attachment))
        }
        if !record.alarms.isEmpty {
            fields["VALARM"] = FieldValue(unordered: record.alarms.map(alarm))
        }
        if let parent { fields["RELATED-TO"] = FieldValue(parent) }
        // Lines the format has no field for, by property name; parameters of mapped
        // properties were added to their values above.
        var extra: [String: [String]] = [:]
        for line in record.icalExtra {
            guard let lexed = try? ContentLine(parsing: line) else {
                extra["(unreadable)", default: []].append(line)
                continue
            }
            guard !ignoredLines.contains(lexed.name) else { continue }
            // A second RRULE is kept as written; compared as the first is, in any order.
            extra[lexed.name, default: []].append(normalized(lexed))
        }
        for (name, values) in extra {
            // A property the record holds in a field and as written too (a second RRULE, an
            // RDATE of periods beside RDATEs of dates): one list.
            fields[name] = FieldValue(unordered: (fields[name]?.items ?? []) + values)
        }
        var components: [String: [String]] = [:]
        for text in record.icalComponents {
            let (name, normalizedText) = normalizedComponent(text)
            components[name, default: []].append(normalizedText)
        }
        for (name, values) in components { fields[name] = FieldValue(unordered: values) }
        for (name, value) in parameters where fields[name] == nil && !value.isEmpty {
            // Parameters of a property the record has no value for (DTSTART's X- ones).
            fields[name + ";"] = FieldValue(withParameters(value))
        }
        return fields
    }

    /// The form of the times: the zone they are written in, floating or not.
    static func form(of record: TaskRecord) -> [String: FieldValue] {
        var form: [String: FieldValue] = [:]
        if record.floating {
            form["TZID"] = FieldValue("(floating)")
        } else if let zone = record.timeZone, !record.allDay {
            form["TZID"] = FieldValue(zone)
        }
        return form
    }

    /// `;NAME=VALUE…:` for kept parameters (`LANGUAGE=de`), sorted, or nothing.
    static func withParameters(_ parameters: String?) -> String {
        guard let parameters, !parameters.isEmpty,
            let lexed = try? ContentLine(parsing: "X;\(parameters):")
        else { return "" }
        return lexed.parameters.map { "\($0.name)=\($0.value)" }.sorted()
            .map { ";" + $0 }.joined() + ":"
    }

    /// A content line as compared: parameters sorted, their names upper-cased and values
    /// unquoted (the lexer's), `VALUE=TEXT` left out of an X- property (TEXT is its type when
    /// none is said: Radicale writes `X-WR-CALNAME;VALUE=TEXT:…`), the value as written.
    static func normalized(_ line: ContentLine) -> String {
        let parameters = line.parameters.filter {
            !(line.name.hasPrefix("X-") && $0.name == "VALUE" && $0.value.uppercased() == "TEXT")
        }.map { "\($0.name)=\($0.value)" }.sorted()
        return (parameters.isEmpty ? "" : ";" + parameters.joined(separator: ";") + ":")
            + normalizedValue(of: line.name, line.value)
    }

    /// A value as compared: numbers as numbers (`GEO:+51.70;+14.30` is `51.7;14.3`,
    /// `PRIORITY:01` is `1`: jCal writes them as JSON numbers), the rest as written.
    static func normalizedValue(of name: String, _ value: String) -> String {
        func number(_ text: Substring) -> String? {
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)),
                number.isFinite
            else { return nil }
            return number == number.rounded() && abs(number) < 1e15
                ? String(Int64(number)) : String(number)
        }
        switch name {
        case "GEO":
            let parts = value.split(separator: ";", omittingEmptySubsequences: false)
            let numbers = parts.compactMap(number)
            return numbers.count == parts.count ? numbers.joined(separator: ";") : value
        case "PRIORITY", "SEQUENCE", "PERCENT-COMPLETE", "REPEAT":
            return number(value[...]) ?? value
        case "RRULE", "EXRULE":
            return normalizedRule(value)
        default:
            return value
        }
    }

    /// A component kept whole, as compared: unfolded, each line normalized, the lines of
    /// each level sorted (their order means nothing), `DTSTAMP` left out.
    static func normalizedComponent(_ text: String) -> (name: String, text: String) {
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
            .replacingOccurrences(of: "\r\n\t", with: "").replacingOccurrences(of: "\n ", with: "")
        var name = "COMPONENT"
        var stack: [[String]] = [[]]
        for raw in unfolded.split(whereSeparator: \.isNewline) {
            guard let line = try? ContentLine(parsing: String(raw)) else { continue }
            if line.name == "BEGIN" {
                if stack.count == 1 && stack[0].isEmpty { name = line.value.uppercased() }
                stack.append(["BEGIN:" + line.value.uppercased()])
            } else if line.name == "END", stack.count > 1 {
                let done = stack.removeLast()
                stack[stack.count - 1].append(
                    ([done[0]] + done.dropFirst().sorted()).joined(separator: "\n"))
            } else if !ignoredLines.contains(line.name) {
                stack[stack.count - 1].append(line.name + normalizedValue(line))
            }
        }
        return (name, stack[0].sorted().joined(separator: "\n"))
    }

    private static func normalizedValue(_ line: ContentLine) -> String {
        let text = normalized(line)
        return text.hasPrefix(";") ? text : ":" + text
    }

    /// A person: the address (a `mailto:` scheme in any case is one), the name, the
    /// parameters sorted.
    static func person(_ person: Person) -> String {
        var address = person.address
        if address.lowercased().hasPrefix("mailto:") {
            address = "mailto:" + address.dropFirst(7).lowercased()
        }
        var parts = [address]
        if let name = person.name, !name.isEmpty { parts.append("CN=\(name)") }
        parts += person.parameters.map { "\($0.name)=\($0.value)" }.sorted()
        return parts.joined(separator: ";")
    }

    /// An attachment: its bytes (their length and hash) or its link, its name and type.
    static func attachment(_ attachment: TaskModel.Attachment) -> String {
        var parts: [String] = []
        switch attachment.content {
        case .inline(let data): parts.append(bytesSummary(data))
        case .url(let url): parts.append(url)
        case .path(let path):
            if let data = FileManager.default.contents(atPath: path) {
                parts.append(bytesSummary(data))
            } else {
                parts.append("file " + path)
            }
        }
        if let filename = attachment.filename { parts.append("FILENAME=\(filename)") }
        if let type = attachment.mimeType { parts.append("FMTTYPE=\(type.lowercased())") }
        return parts.joined(separator: "; ")
    }

    /// An alarm: what it does, when (a relative trigger in seconds, an absolute one as the
    /// instant), its texts, people, sound and repeats.
    static func alarm(_ alarm: Alarm) -> String {
        var parts = [alarm.enabled ? alarm.action.rawValue.uppercased() : "NONE"]
        switch alarm.trigger {
        case .relative(let duration, let fromEnd):
            let seconds = ISODuration.seconds(duration).map { "\($0) s" } ?? duration
            parts.append("TRIGGER=\(seconds)\(fromEnd ? " from the end" : "")")
        case .absolute(let time):
            parts.append("TRIGGER=\(FieldValue.utc(time, date: false))")
        }
        if let text = alarm.description { parts.append("DESCRIPTION=\(text)") }
        if let text = alarm.summary { parts.append("SUMMARY=\(text)") }
        for attendee in alarm.attendees.sorted() { parts.append("ATTENDEE=\(attendee)") }
        if let sound = alarm.sound { parts.append("ATTACH=\(sound)") }
        if let count = alarm.repeatCount {
            parts.append("REPEAT=\(count)")
            if let interval = alarm.repeatInterval {
                parts.append(
                    "DURATION=\(ISODuration.seconds(interval).map { "\($0) s" } ?? interval)")
            }
        }
        for line in alarm.icalExtra.sorted() {
            guard let lexed = try? ContentLine(parsing: line) else { continue }
            parts.append(lexed.name + normalizedValue(lexed))
        }
        return parts.joined(separator: "; ")
    }

    /// `3,120 bytes (FNV-1a 64 9f2c…)`: an attachment's bytes stand for themselves by their
    /// length and hash (the texts compared hold no megabytes of base64).
    static func bytesSummary(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { buffer in
            for byte in buffer {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return "\(data.count) bytes, FNV-1a \(String(repeating: "0", count: 16 - hex.count) + hex)"
    }

    /// `20261223T070000Z` as `2026-12-23T07:00:00Z` (a date as `2026-12-23`); other forms as
    /// written.
    static func readableTime(_ text: String) -> String {
        let digits = Array(text.utf8)
        func isDigit(_ range: Range<Int>) -> Bool {
            range.upperBound <= digits.count && digits[range].allSatisfy { (48...57).contains($0) }
        }
        guard isDigit(0..<8) else { return text }
        let date = "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.dropFirst(6).prefix(2))"
        if digits.count == 8 { return date }
        guard digits.count >= 15, digits[8] == UInt8(ascii: "T"), isDigit(9..<15) else {
            return text
        }
        let time =
            "\(text.dropFirst(9).prefix(2)):\(text.dropFirst(11).prefix(2)):\(text.dropFirst(13).prefix(2))"
        return date + "T" + time + text.dropFirst(15)
    }

    /// A rule as compared: parts in a fixed order, names upper-cased, the defaults a reader
    /// assumes (`INTERVAL=1`, `WKST=MO`) left out, `UNTIL` as its instant.
    static func normalizedRule(_ rule: String) -> String {
        var parts: [(String, String)] = []
        for part in rule.split(separator: ";") where !part.isEmpty {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else {
                parts.append((pieces[0].uppercased(), ""))
                continue
            }
            let name = pieces[0].uppercased()
            var value = pieces[1].uppercased()
            if (name == "INTERVAL" && value == "1") || (name == "WKST" && value == "MO") {
                continue
            }
            if name == "UNTIL" { value = readableTime(value) }
            if name.hasPrefix("BY") {
                // `+3WE` is `3WE`, `BYMONTHDAY=01` is `1` (libical writes them so).
                value = value.split(separator: ",").map { element in
                    let signless = element.hasPrefix("+") ? element.dropFirst() : element[...]
                    let digits = signless.prefix { $0 == "-" || $0.isNumber }
                    guard let number = Int(digits) else { return String(signless) }
                    return String(number) + signless.dropFirst(digits.count)
                }.sorted().joined(separator: ",")
            }
            parts.append((name, value))
        }
        return parts.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
    }
}
