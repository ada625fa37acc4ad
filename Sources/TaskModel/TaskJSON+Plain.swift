import Foundation

/// Records of the plain shape read straight from their bytes, without a ``JSONValue`` tree.
///
/// Plain means: an object whose members are `id` (a whole number written without fraction
/// or exponent), `date_start` and `date_finish` (decimal strings or such numbers), `name`,
/// and optionally `description`, `uid` (strings), `alarms` (an array of objects with
/// `action` and a relative `trigger`, and optionally `description` and `summary`, all
/// strings) and `attachments` (an array of objects with `data`, base64, or `url`, and
/// optionally `filename` and `mime_type`), each once, none `null`, with no trailing comma.
/// That is what taskcal itself writes for most events, and what most task lists hold.
///
/// A plain record is exactly the record ``TaskRecord/init(json:)`` reads from the same text;
/// anything else (another field, a duplicate, a value of another type or that fails its
/// check) makes the reader return `nil`, and the caller reads the text in full, which finds
/// and words every problem as it always did. Building the tree and asking it for some thirty
/// fields by name cost about four times the parsing (issue 13).
///
/// Read ``TaskJSON/Reading/timesOnly``, the fields a report of times does not read
/// (``TaskRecord/untimedFields``: description, alarms, attachments, location …) may also be
/// there, each once, holding any JSON value: as the general reader does then, their syntax is
/// checked and nothing is built, and the record is its ``TaskRecord/timeSkeleton``.
extension TaskJSON {
    /// The plain record in `data`, which holds one JSON text (an NDJSON line), or `nil`.
    static func plainRecord(_ data: Data, reading: Reading = .whole) -> TaskRecord? {
        data.withUnsafeBytes { plainRecord($0, reading: reading) }
    }

    /// The plain record in `bytes`, which hold one JSON text (an NDJSON line), or `nil`.
    static func plainRecord(_ bytes: UnsafeRawBufferPointer, reading: Reading = .whole)
        -> TaskRecord?
    {
        var reader = PlainReader(
            parser: Parser(bytes: bytes, skipping: nil), reading: reading, depth: 1)
        reader.parser.skipWhitespace()
        guard let record = reader.record() else { return nil }
        reader.parser.skipWhitespace()
        return reader.parser.index == bytes.count ? record : nil
    }

    /// The records of the JSON array in `bytes`, each read as a plain record where it is
    /// one and in full where it is not, or `nil` when the text is not one array of JSON
    /// values (the caller parses it whole, which words the syntax error).
    static func arrayRecords(_ bytes: UnsafeRawBufferPointer, reading: Reading = .whole)
        -> [Result<TaskRecord, RecordProblems>]?
    {
        var parser = Parser(bytes: bytes, skipping: nil)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == JSONByte.beginArray else {
            return nil
        }
        parser.index += 1
        var records: [Result<TaskRecord, RecordProblems>] = []
        parser.skipWhitespace()
        guard parser.index < bytes.count else { return nil }
        if bytes[parser.index] == JSONByte.endArray {
            parser.index += 1
        } else {
            while true {
                // The elements of the top-level array are at depth 1, as the whole parse
                // reads them (the nesting limit counts from there).
                let start = parser.index
                var plain = PlainReader(parser: parser, reading: reading, depth: 2)
                if let record = plain.record(), record.problems.isEmpty {
                    records.append(.success(record))
                    parser.index = plain.parser.index
                } else {
                    parser.index = start
                    var general = Parser(
                        bytes: bytes, skipping: reading.skipping(recordDepth: .array))
                    general.index = start
                    guard let value = try? general.value(depth: 1) else { return nil }
                    let record = TaskJSON.record(value)
                    records.append(
                        reading == .timesOnly
                            ? record.map { $0.isTimeSkeleton ? $0 : $0.timeSkeleton } : record)
                    parser.index = general.index
                }
                parser.skipWhitespace()
                guard parser.index < bytes.count else { return nil }
                if bytes[parser.index] == JSONByte.endArray {
                    parser.index += 1
                    break
                }
                guard bytes[parser.index] == UInt8(ascii: ",") else { return nil }
                parser.index += 1
                parser.skipWhitespace()
                guard parser.index < bytes.count else { return nil }
                if bytes[parser.index] == JSONByte.endArray {  // a trailing comma
                    parser.index += 1
                    break
                }
            }
        }
        parser.skipWhitespace()
        return parser.index == bytes.count ? records : nil
    }
}

/// Reads plain records and alarms off a ``Parser``'s position.
private struct PlainReader {
    var parser: Parser
    /// Whether the fields a report of times does not read are skipped (their syntax checked).
    let timesOnly: Bool
    /// The depth of the record's object, as the general parser counts it (for its nesting
    /// limit, which a skipped value meets as a built one would).
    let depth: Int

    init(parser: Parser, reading: TaskJSON.Reading, depth: Int) {
        self.parser = parser
        self.timesOnly = reading == .timesOnly
        self.depth = depth
    }

    private var bytes: UnsafeRawBufferPointer { parser.bytes }

    /// The member names a plain record or alarm may have, and (read times-only) the other
    /// fields a record's skeleton leaves out.
    private enum Name: Int {
        case id, dateStart, dateFinish, name, description, uid, alarms, attachments
        case action, trigger, summary
        case filename, mimeType, data, url
        case location, categories, color, subtasks, organizer, attendees, icalComponents
    }

    /// The name at the parser (its opening quote), when it is one of the plain names written
    /// without escapes; the parser is then past its closing quote.
    private mutating func name() -> Name? {
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "\"") else {
            return nil
        }
        let start = parser.index + 1
        let stop = ByteScan.stringStop(in: bytes, from: start)
        guard stop < bytes.count, bytes[stop] == UInt8(ascii: "\"") else { return nil }
        let name = UnsafeRawBufferPointer(rebasing: bytes[start..<stop])
        func `is`(_ text: StaticString) -> Bool {
            name.count == text.utf8CodeUnitCount
                && memcmp(name.baseAddress!, text.utf8Start, name.count) == 0
        }
        let found: Name?
        switch name.count {
        case 2: found = `is`("id") ? .id : nil
        case 3: found = `is`("uid") ? .uid : `is`("url") ? .url : nil
        case 4: found = `is`("name") ? .name : `is`("data") ? .data : nil
        case 5: found = `is`("color") ? .color : nil
        case 6: found = `is`("alarms") ? .alarms : `is`("action") ? .action : nil
        case 7: found = `is`("trigger") ? .trigger : `is`("summary") ? .summary : nil
        case 8:
            found =
                `is`("filename")
                ? .filename
                : `is`("location")
                    ? .location
                    : `is`("subtasks") ? .subtasks : nil
        case 9:
            found =
                `is`("mime_type")
                ? .mimeType : `is`("organizer") ? .organizer : `is`("attendees") ? .attendees : nil
        case 10: found = `is`("date_start") ? .dateStart : `is`("categories") ? .categories : nil
        case 11:
            found =
                `is`("date_finish")
                ? .dateFinish
                : `is`("description") ? .description : `is`("attachments") ? .attachments : nil
        case 15: found = `is`("ical_components") ? .icalComponents : nil
        default: found = nil
        }
        parser.index = stop + 1
        return found
    }

    /// Past whitespace, the byte `byte` consumed: whether it was there.
    private mutating func consume(_ byte: UInt8) -> Bool {
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == byte else { return false }
        parser.index += 1
        return true
    }

    /// The members of an object, each handed to `member` with the parser at its value;
    /// `false` when the text is not a plain object or `member` refuses.
    private mutating func members(_ member: (inout PlainReader, Name) -> Bool) -> Bool {
        guard consume(JSONByte.beginObject) else { return false }
        parser.skipWhitespace()
        if consume(JSONByte.endObject) { return true }
        while true {
            parser.skipWhitespace()
            guard let name = name(), consume(UInt8(ascii: ":")) else { return false }
            parser.skipWhitespace()
            guard member(&self, name) else { return false }
            if consume(JSONByte.endObject) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    /// A string without problems, its bytes valid UTF-8: a whole NDJSON line is not checked
    /// before it is read plain (``TaskJSON/decodeNDJSONLine(_:reading:)-(UnsafeRawBufferPointer,_)``),
    /// and outside its strings a plain record is ASCII.
    private mutating func string() -> String? {
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "\"") else {
            return nil
        }
        let start = parser.index
        guard case .string(let text)? = try? parser.string() else { return nil }
        // The parser makes its text as String(decoding:) does, with U+FFFD (EF BF BD) for
        // what is not UTF-8: a text without the byte EF had nothing to repair, and one with
        // it (U+F000–U+FFFF, rare) is checked on the bytes it was read from. A check of its
        // own for each string cost more than the line's (the standard library's validating
        // initializer is generic and looks up its metadata on every call).
        let mayBeRepaired =
            text.utf8.withContiguousStorageIfAvailable {
                ByteScan.contains(0xEF, in: UnsafeRawBufferPointer($0))
            } ?? true
        if mayBeRepaired,
            TaskJSON.firstNonText(UnsafeRawBufferPointer(rebasing: bytes[start..<parser.index]))
                != nil
        {
            return nil
        }
        return text
    }

    /// A whole number written as decimal digits (optionally after `-`, no leading zero), of
    /// at most eighteen digits: what ``JSONNumber`` reads as itself.
    private mutating func integer() -> Int64? {
        var index = parser.index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            // Eighteen digits cannot overflow; a nineteenth is read in full.
            guard index - first < 18 else { return nil }
            value = value * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - first
        guard digits > 0, bytes[first] != UInt8(ascii: "0") || digits == 1 else { return nil }
        // A fraction or an exponent follows: read in full.
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"),
                UInt8(ascii: "-"):
                return nil
            default: break
            }
        }
        parser.index = index
        return negative ? -value : value
    }

    /// Unix seconds as ``Fields/timestamp(_:)`` reads them, from a string or a plain number.
    private mutating func timestamp() -> Int64? {
        guard parser.index < bytes.count else { return nil }
        guard bytes[parser.index] == UInt8(ascii: "\"") else { return integer() }
        // Digits between the quotes (nearly every time) are read where they are, without
        // making a string; anything else (an escape, a space) is read as a string and parsed.
        var index = parser.index + 1
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        var value: Int64 = 0
        while index < bytes.count, index - first < 18, bytes[index] &- UInt8(ascii: "0") < 10 {
            value = value * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        guard index > first, index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            return string().flatMap(Timestamp.parse)
        }
        parser.index = index + 1
        return negative ? -value : value
    }

    /// Checks the syntax of the value at the parser and passes over it.
    private mutating func skipValue() -> Bool {
        (try? parser.value(depth: depth, build: false)) != nil
    }

    /// The plain record at the parser, or `nil`.
    mutating func record() -> TaskRecord? {
        var id: Int64?
        var start: Int64?
        var finish: Int64?
        var name: String?
        var description: String?
        var uid: String?
        var alarms: [Alarm]?
        var attachments: [Attachment]?
        var skipped = 0
        let read = members { reader, member in
            if reader.timesOnly {
                switch member {
                case .description, .alarms, .attachments, .location, .categories, .color, .url,
                    .subtasks, .organizer, .attendees, .icalComponents:
                    // Each once, as in a plain record; the general reader words a duplicate.
                    let bit = 1 << member.rawValue
                    guard skipped & bit == 0 else { return false }
                    skipped |= bit
                    return reader.skipValue()
                default: break
                }
            }
            switch member {
            case .id:
                return Self.once(&id) { reader.integer() }
            case .dateStart:
                return Self.once(&start) { reader.timestamp() }
            case .dateFinish:
                return Self.once(&finish) { reader.timestamp() }
            case .name:
                return Self.once(&name) { reader.string() }
            case .description:
                return Self.once(&description) { reader.string() }
            case .uid:
                return Self.once(&uid) { reader.string() }
            case .alarms:
                return Self.once(&alarms) { reader.alarms() }
            case .attachments:
                return Self.once(&attachments) { reader.list { $0.attachment() } }
            default:
                return false
            }
        }
        // The texts and lists are moved out (`take()`), not copied: a copy retains each and
        // the end of this scope releases it again.
        guard read, let id, let start, let finish, let name = name.take() else { return nil }
        return TaskRecord(
            id: id, dateStart: start, dateFinish: finish, name: name,
            description: description.take(), uid: uid.take(),
            attachments: attachments.take() ?? [], alarms: alarms.take() ?? [])
    }

    /// Fills `slot` with what `read` gives, once: `false` for a member named twice or a value
    /// that is not plain (the record is then read the general way).
    private static func once<T>(_ slot: inout T?, _ read: () -> T?) -> Bool {
        guard slot == nil, let value = read() else { return false }
        slot = value
        return true
    }

    /// A plain array of what `element` reads, or `nil`.
    private mutating func list<T>(_ element: (inout PlainReader) -> T?) -> [T]? {
        guard consume(JSONByte.beginArray) else { return nil }
        var items: [T] = []
        if consume(JSONByte.endArray) { return items }
        while true {
            parser.skipWhitespace()
            guard let item = element(&self) else { return nil }
            items.append(item)
            if consume(JSONByte.endArray) { return items }
            guard consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    /// A plain attachment: `data` (base64 that decodes) or `url`, and optionally
    /// `filename` and `mime_type`.
    private mutating func attachment() -> Attachment? {
        var filename: String?
        var mimeType: String?
        var content: Attachment.Content?
        var base64: String?
        let read = members { reader, member in
            switch member {
            case .filename:
                return Self.once(&filename) { reader.string() }
            case .mimeType:
                return Self.once(&mimeType) { reader.string() }
            case .data:
                guard content == nil, let text = reader.string(),
                    let data = Data(base64Encoded: text)
                else { return false }
                content = .inline(data)
                base64 = text
                return true
            case .url:
                guard content == nil, let text = reader.string() else { return false }
                content = .url(text)
                return true
            default:
                return false
            }
        }
        guard read, let content = content.take() else { return nil }
        if case .inline(let data) = content, let base64 = base64.take() {
            return Attachment(
                filename: filename.take(), mimeType: mimeType.take(), data: data, base64: base64)
        }
        return Attachment(filename: filename.take(), mimeType: mimeType.take(), content: content)
    }

    /// A plain array of plain alarms, or `nil`.
    private mutating func alarms() -> [Alarm]? {
        list { $0.alarm() }
    }

    /// A plain alarm: `action`, a relative `trigger`, and `description` or `summary`.
    private mutating func alarm() -> Alarm? {
        var action: Alarm.Action?
        var trigger: String?
        var description: String?
        var summary: String?
        let read = members { reader, member in
            switch member {
            case .action:
                guard action == nil, let text = reader.string() else { return false }
                action = Alarm.Action(rawValue: text.lowercased())
                return action != nil
            case .trigger:
                guard trigger == nil, let text = reader.string(),
                    ISODuration.seconds(text) != nil
                else { return false }
                trigger = text
                return true
            case .description:
                return Self.once(&description) { reader.string() }
            case .summary:
                return Self.once(&summary) { reader.string() }
            default:
                return false
            }
        }
        guard read, let action, let trigger = trigger.take() else { return nil }
        return Alarm(
            action: action, trigger: .relative(trigger, fromEnd: false),
            description: description.take(), summary: summary.take())
    }
}
