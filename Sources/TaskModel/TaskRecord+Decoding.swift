import Foundation

/// Collects every problem of one JSON object while its fields are read, instead of stopping
/// at the first.
struct FieldReader {
    let fields: Fields
    var problems: [Problem] = []

    init(_ json: JSONValue, known: FieldNames, what: String) throws {
        guard case .object(let members) = json else {
            throw RecordProblems([Problem(field: "", "expected a JSON object (\(what))")])
        }
        fields = Fields(members: members)
        var unknown: [String] = []
        for member in members where !known.contains(member.name) {
            if !unknown.contains(member.name) { unknown.append(member.name) }
        }
        if !unknown.isEmpty {
            let expected = known.names.sorted().joined(separator: ", ")
            for key in unknown.sorted() {
                problems.append(Problem(field: key, "unknown field; expected one of \(expected)"))
            }
        }
    }

    func has(_ name: String) -> Bool { fields.has(name) }

    mutating func required<T>(_ name: String, _ read: (Fields, String) throws -> T?) -> T? {
        switch fields.value(name) {
        case nil:
            problems.append(Problem(field: name, "missing; this field is required"))
            return nil
        case .null?:
            // `null` is no value: reading it as absent would leave a required field unset.
            problems.append(Problem(field: name, "is null; this field is required"))
            return nil
        default:
            return reading(name, read)
        }
    }

    mutating func optional<T>(_ name: String, _ read: (Fields, String) throws -> T?) -> T? {
        guard has(name) else { return nil }
        return reading(name, read)
    }

    /// `read` of the member `name`, which is there and not null; its problems are noted.
    private mutating func reading<T>(_ name: String, _ read: (Fields, String) throws -> T?) -> T? {
        do {
            return try read(fields, name)
        } catch let error as RecordProblems {
            problems += error.problems.map { $0.nested(in: name) }
        } catch let error as Problem {
            problems.append(error.nested(in: name))
        } catch {
            problems.append(Problem(field: name, Self.describe(error)))
        }
        return nil
    }

    func finish() throws {
        if !problems.isEmpty { throw RecordProblems(problems) }
    }

    static func describe(_ error: any Error) -> String {
        if let problems = error as? RecordProblems { return problems.description }
        if let problem = error as? Problem { return problem.message }
        return "\(error)"
    }
}

/// The field names an object of the task format may have, looked up by comparing a name
/// with the few of its length instead of hashing it: every member of every record is looked
/// up, and hashing was the most of reading a record's names.
struct FieldNames: ExpressibleByArrayLiteral, Sendable {
    let names: Set<String>
    /// The names of each length (in UTF-8 bytes) below 32; longer ones are in the last.
    private let byLength: [[String]]

    init(arrayLiteral names: String...) {
        self.names = Set(names)
        var byLength = [[String]](repeating: [], count: 33)
        for name in self.names { byLength[min(name.utf8.count, 32)].append(name) }
        self.byLength = byLength
    }

    func contains(_ name: String) -> Bool {
        byLength[min(name.utf8.count, 32)].contains(name)
    }
}

/// The member names of the task format, each made once: the JSON reader finds a record's
/// names here by their bytes instead of making (and checking as UTF-8) a String for each name
/// of every record. A name not found, or one that shares its slot with another, is made as
/// any string is.
struct KnownNames: Sendable {
    /// Per slot: the name's length (0 for an empty slot) and its bytes as two words.
    private var keys = [UInt64](repeating: 0, count: 256 * 3)
    private var names = [String?](repeating: nil, count: 256)

    static let taskFormat: KnownNames = {
        var names = TaskRecord.fields.names
        for more in [
            CalendarInfo.fields, Person.fields, Recurrence.fields, Attachment.fields,
            Alarm.fields,
        ] {
            names.formUnion(more.names)
        }
        names.formUnion(["calendar", "records"])
        var table = KnownNames()
        // Sorted, so that which of two names sharing a slot wins does not depend on hashing.
        for name in names.sorted() {
            var bytes = Array(name.utf8)
            let length = bytes.count
            guard length <= 16 else { continue }
            bytes += [UInt8](repeating: 0, count: 16 - length)
            let (low, high) = bytes.withUnsafeBytes {
                (
                    $0.loadUnaligned(as: UInt64.self),
                    $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                )
            }
            let slot = Self.slot(length, low, high)
            if table.names[slot] == nil {
                table.keys[slot * 3] = UInt64(length)
                table.keys[slot * 3 + 1] = low
                table.keys[slot * 3 + 2] = high
                table.names[slot] = name
            }
        }
        return table
    }()

    /// The name whose UTF-8 is the `length` bytes at `start` of `bytes`, if it is one of the
    /// table's.
    @inline(__always)
    func name(in bytes: UnsafeRawBufferPointer, at start: Int, length: Int) -> String? {
        guard length > 0, length <= 16 else { return nil }
        var low: UInt64
        var high: UInt64 = 0
        if start + 16 <= bytes.count {
            // Two loads, the bytes past the name masked off.
            low = bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)
            if length < 8 {
                low &= (1 << UInt64(8 * length)) &- 1
            } else {
                high = bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
                if length < 16 { high &= (1 << UInt64(8 * (length - 8))) &- 1 }
            }
        } else {
            low = 0
            for offset in 0..<length {
                let byte = UInt64(bytes[start + offset])
                if offset < 8 {
                    low |= byte << UInt64(8 * offset)
                } else {
                    high |= byte << UInt64(8 * (offset - 8))
                }
            }
        }
        let slot = Self.slot(length, low, high)
        guard keys[slot * 3] == UInt64(length), keys[slot * 3 + 1] == low,
            keys[slot * 3 + 2] == high
        else { return nil }
        return names[slot]
    }

    @inline(__always)
    private static func slot(_ length: Int, _ low: UInt64, _ high: UInt64) -> Int {
        let mixed =
            (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F)
            ^ UInt64(truncatingIfNeeded: length)
        return Int(truncatingIfNeeded: mixed >> 56)
    }
}

/// Typed reads of one JSON object's fields; each throws a ``Problem`` saying what was expected.
struct Fields {
    let members: [JSONValue.Member]
    /// One bit for each length (modulo 64) of the names present: a record is asked for some
    /// thirty names and holds a handful, and a name whose bit is clear is known absent
    /// without a comparison.
    private let present: UInt64

    init(members: [JSONValue.Member]) {
        self.members = members
        var present: UInt64 = 0
        for member in members { present |= Self.bit(member.name) }
        self.present = present
    }

    @inline(__always)
    private static func bit(_ name: String) -> UInt64 {
        1 << (UInt64(truncatingIfNeeded: name.utf8.count) & 63)
    }

    /// The member `name` (the first of that name), `null` included.
    func value(_ name: String) -> JSONValue? {
        guard present & Self.bit(name) != 0 else { return nil }
        // Lengths first: == on strings that differ takes its slow Unicode path, and most names
        // asked for differ from most present in length (the names asked for are ASCII, which
        // no spelling of another length equals).
        let length = name.utf8.count
        for member in members where member.name.utf8.count == length && member.name == name {
            return member.value
        }
        return nil
    }

    func has(_ name: String) -> Bool {
        switch value(name) {
        case nil, .null?: false
        default: true
        }
    }

    func string(_ name: String) throws -> String {
        try Self.string(value(name) ?? .null)
    }

    static func string(_ value: JSONValue) throws -> String {
        switch value {
        case .string(let text): return text
        case .invalidString(let reason):
            throw Problem(field: "", "is not valid text (\(reason)); expected a string")
        default: throw Problem(field: "", "expected a string")
        }
    }

    func bool(_ name: String) throws -> Bool {
        guard case .bool(let value)? = value(name) else {
            throw Problem(field: "", "expected true or false")
        }
        return value
    }

    func integer(_ name: String) throws -> Int64 {
        guard case .number(let text)? = value(name) else {
            throw Problem(field: "", "expected a whole number")
        }
        switch JSONNumber(text) {
        case .whole(let value): return value
        case .outOfRange(let number):
            throw Problem(
                field: "",
                "\(number < 0 ? "-" : "")\(number.magnitude >= 1e19 ? "a number of \(Int(log10(number.magnitude)) + 1) digits" : "the number") is out of range; expected a whole number from -9223372036854775808 to 9223372036854775807"
            )
        case .fraction, .invalid: throw Problem(field: "", "expected a whole number")
        }
    }

    /// Unix seconds as a decimal string (`"147600000"`) or a JSON number.
    func timestamp(_ name: String) throws -> Int64 {
        switch value(name) {
        case .string(let text)?:
            guard let value = Timestamp.parse(text) else {
                throw Problem(
                    field: "",
                    "'\(text.prefix(40))' is not a timestamp; expected Unix seconds such as \"147600000\""
                )
            }
            return value
        case .number(let text)?:
            switch JSONNumber(text) {
            case .whole(let value): return value
            case .outOfRange(let value), .fraction(let value):
                throw Problem(
                    field: "",
                    "\(value) is not whole seconds; expected Unix seconds such as \"147600000\"")
            case .invalid: break
            }
        default: break
        }
        throw Problem(
            field: "", "expected Unix seconds as a string such as \"147600000\" or a number")
    }

    func array<T>(_ name: String, _ element: @escaping (JSONValue) throws -> T) throws -> [T] {
        guard case .array(let values)? = value(name) else {
            throw Problem(field: "", "expected an array")
        }
        var result: [T] = []
        var problems: [Problem] = []
        for (index, item) in values.enumerated() {
            do {
                result.append(try element(item))
            } catch let error as RecordProblems {
                problems += error.problems.map {
                    Problem(
                        field: "[\(index)]" + ($0.field.isEmpty ? "" : ".\($0.field)"), $0.message)
                }
            } catch let error as Problem {
                problems.append(
                    Problem(
                        field: "[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)"),
                        error.message))
            } catch {
                problems.append(Problem(field: "[\(index)]", FieldReader.describe(error)))
                break
            }
        }
        if !problems.isEmpty { throw RecordProblems(problems) }
        return result
    }

    /// One of an enumeration's raw values, case-insensitive.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type, what: String)
        throws -> T where T.RawValue == String
    {
        let text = try string(name)
        guard let value = T(rawValue: text.lowercased()) else {
            let expected = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw Problem(field: "", "'\(text)' is not \(what); expected one of \(expected)")
        }
        return value
    }

    /// A nested object, its problems reported under this field.
    func object<T>(_ name: String, _ read: @escaping (JSONValue) throws -> T) throws -> T {
        do {
            return try read(value(name) ?? .null)
        } catch let error as Problem {
            throw RecordProblems([error])
        }
    }

    /// An array of Unix-seconds timestamps (strings or numbers).
    func timestamps(_ name: String) throws -> [Int64] {
        guard case .array(let values)? = value(name) else {
            throw Problem(field: "", "expected an array of Unix seconds")
        }
        var result: [Int64] = []
        var problems: [Problem] = []
        for (index, item) in values.enumerated() {
            var value: Int64?
            switch item {
            case .string(let text): value = Timestamp.parse(text)
            case .number(let text):
                if case .whole(let number) = JSONNumber(text) { value = number }
            default: break
            }
            if let value {
                result.append(value)
            } else {
                problems.append(
                    Problem(field: "[\(index)]", "expected Unix seconds such as \"147600000\""))
            }
        }
        if !problems.isEmpty { throw RecordProblems(problems) }
        return result
    }

    /// An object of string values (`{"SUMMARY": "LANGUAGE=de"}`), or `nil` when it is not one.
    func stringDictionary(_ name: String) -> [String: String]? {
        guard case .object(let members)? = value(name) else { return nil }
        var result: [String: String] = [:]
        for member in members {
            guard case .string(let text) = member.value else { return nil }
            if result[member.name] == nil { result[member.name] = text }
        }
        return result
    }

    /// An object of string values (`{"SUMMARY": "LANGUAGE=de"}`).
    func stringObject(_ name: String) throws -> [String: String] {
        guard let result = stringDictionary(name) else {
            throw Problem(field: "", "expected an object of property names and parameter text")
        }
        return result
    }

    func strings(_ name: String) throws -> [String] {
        guard case .array(let values)? = value(name) else {
            throw Problem(field: "", "expected an array of strings")
        }
        var result: [String] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard case .string(let text) = value else {
                throw Problem(field: "", "expected an array of strings")
            }
            result.append(text)
        }
        return result
    }
}

/// What a JSON number is to a field that wants a whole number.
enum JSONNumber {
    /// A whole number in Int64's range (`1`, `1.0`, `1e2`, `-0`).
    case whole(Int64)
    /// A whole number past Int64's range.
    case outOfRange(Double)
    /// A number with a fraction.
    case fraction(Double)
    /// Not a JSON number (`01`, `1.`, `--1`), or one past Double's range.
    case invalid

    init(_ text: String) {
        guard Self.isJSONNumber(text.utf8) else {
            self = .invalid
            return
        }
        if let value = Int64(text) {
            self = .whole(value)
            return
        }
        guard let value = Double(text), value.isFinite else {
            self = .invalid
            return
        }
        if value.rounded() != value {
            self = .fraction(value)
        } else if let whole = Int64(exactly: value) {
            self = .whole(whole)
        } else {
            self = .outOfRange(value)
        }
    }

    /// RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ text: String.UTF8View) -> Bool {
        var bytes = text.makeIterator()
        var next = bytes.next()
        func digits() -> Int {
            var count = 0
            while let byte = next, (0x30...0x39).contains(byte) {
                count += 1
                next = bytes.next()
            }
            return count
        }
        if next == UInt8(ascii: "-") { next = bytes.next() }
        if next == UInt8(ascii: "0") {
            next = bytes.next()
        } else if digits() == 0 {
            return false
        }
        if next == UInt8(ascii: ".") {
            next = bytes.next()
            if digits() == 0 { return false }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            next = bytes.next()
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { next = bytes.next() }
            if digits() == 0 { return false }
        }
        return next == nil
    }
}

extension Problem: Error {}

/// Unix-seconds parsing shared by JSON and the command line.
public enum Timestamp {
    /// The smallest and largest instants iCalendar can write: years 0001 to 9999 (UTC).
    public static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// `text` as Unix seconds: an optional `-` and decimal digits, nothing else.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            let negative = bytes.first == UInt8(ascii: "-")
            let digits = negative ? bytes.count - 1 : bytes.count
            // Eighteen digits cannot overflow.
            guard digits > 0, digits <= 18 else { return nil }
            var value: Int64 = 0
            for byte in bytes[(negative ? 1 : 0)...] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return negative ? -value : value
        }
    }
}

extension TaskRecord: Decodable {
    /// Decodes a record through any `Decoder`, reporting every problem of the record at once
    /// (as ``RecordProblems``). taskcal itself reads records with ``init(json:)``.
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    static let fields: FieldNames = [
        "id", "date_start", "date_finish", "name", "kind", "description", "uid", "recurrence_id",
        "all_day", "time_zone", "due", "done", "status", "free", "location", "categories",
        "color", "class", "url", "organizer", "attendees", "recurrence", "attachments", "alarms",
        "subtasks", "ical_extra", "floating", "this_and_future", "ical_parameters",
        "ical_components", "private",
    ]

    /// Reads a record from a JSON value, reporting every problem of the record at once (as
    /// ``RecordProblems``), including unknown fields, which are never silently dropped.
    public init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a task record")
        let kind =
            reader.optional("kind") { fields, name -> Kind? in
                try fields.choice(name, Kind.self, what: "a kind")
            } ?? .event
        let id = reader.required("id") { try $0.integer($1) }
        // A to-do or a journal entry need not be scheduled: it may leave out both times.
        let unscheduled =
            kind != .event && !reader.has("date_start") && !reader.has("date_finish")
        let start = unscheduled ? 0 : reader.required("date_start") { try $0.timestamp($1) }
        let finish = unscheduled ? 0 : reader.required("date_finish") { try $0.timestamp($1) }
        let name = reader.required("name") { try $0.string($1) }
        let description = reader.optional("description") { try $0.string($1) }
        let uid = reader.optional("uid") { try $0.string($1) }
        let recurrenceID = reader.optional("recurrence_id") { try $0.timestamp($1) }
        let allDay = reader.optional("all_day") { try $0.bool($1) }
        let timeZone = reader.optional("time_zone") { try $0.string($1) }
        let due = reader.optional("due") { try $0.timestamp($1) }
        let done = reader.optional("done") { try $0.bool($1) }
        let status = reader.optional("status") { fields, name -> Status? in
            try fields.choice(name, Status.self, what: "a status")
        }
        let free = reader.optional("free") { try $0.bool($1) }
        let location = reader.optional("location") { try $0.string($1) }
        let categories = reader.optional("categories") { try $0.strings($1) }
        let color = reader.optional("color") { try $0.string($1) }
        var classification = reader.optional("class") { fields, name -> Classification? in
            try fields.choice(name, Classification.self, what: "a class")
        }
        // `"private": true` is the short way to say `"class": "confidential"`: a protected
        // entry. It may stand beside a class that agrees with it, never one that does not.
        if let protected = reader.optional("private", { try $0.bool($1) }) {
            let protectedClass = classification == .private || classification == .confidential
            if classification == nil {
                classification = protected ? .confidential : nil
            } else if protected != protectedClass {
                reader.problems.append(
                    Problem(
                        field: "private",
                        "\(protected) contradicts \"class\": \"\(classification!.rawValue)\"; give one of them"
                    ))
            }
        }
        let url = reader.optional("url") { try $0.string($1) }
        let organizer = reader.optional("organizer") { try $0.object($1, Person.init(json:)) }
        let attendees = reader.optional("attendees") { try $0.array($1, Person.init(json:)) }
        let recurrence = reader.optional("recurrence") {
            try $0.object($1, Recurrence.init(json:))
        }
        let attachments = reader.optional("attachments") {
            try $0.array($1, Attachment.init(json:))
        }
        let alarms = reader.optional("alarms") { try $0.array($1, Alarm.init(json:)) }
        let subtasks = reader.optional("subtasks") { try $0.array($1, TaskRecord.init(json:)) }
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let floating = reader.optional("floating") { try $0.bool($1) }
        let thisAndFuture = reader.optional("this_and_future") { try $0.bool($1) }
        let parameters = reader.optional("ical_parameters") { try $0.stringObject($1) }
        let components = reader.optional("ical_components") { try $0.strings($1) }
        try reader.finish()
        guard let id, let start, let finish, let name else {
            // Unreachable while `required` reports every field it leaves unset; never a crash.
            throw RecordProblems([Problem(field: "", "a required field has no value")])
        }
        self.init(
            id: id, dateStart: start, dateFinish: finish, name: name, description: description,
            uid: uid, allDay: allDay ?? false, status: status, free: free ?? false,
            attachments: attachments ?? [], alarms: alarms ?? [])
        self.kind = kind
        self.unscheduled = unscheduled
        self.recurrenceID = recurrenceID
        self.timeZone = timeZone
        self.due = due
        self.done = done ?? false
        self.location = location
        self.categories = categories ?? []
        self.color = color
        self.classification = classification
        self.url = url
        self.organizer = organizer
        self.attendees = attendees ?? []
        self.recurrence = recurrence
        self.subtasks = subtasks ?? []
        self.icalExtra = extra ?? []
        self.floating = floating ?? false
        self.thisAndFuture = thisAndFuture ?? false
        self.icalParameters = parameters ?? [:]
        self.icalComponents = components ?? []
    }
}

extension CalendarInfo: Decodable {
    static let fields: FieldNames = ["ical_extra", "ical_components", "name"]

    /// Decodes the `calendar` member through any `Decoder`, reporting every problem at once.
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    /// Reads the `calendar` member from a JSON value, reporting every problem at once.
    public init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "calendar data")
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let components = reader.optional("ical_components") { try $0.strings($1) }
        let name = reader.optional("name") { try $0.string($1) }
        try reader.finish()
        self.init(icalExtra: extra ?? [], icalComponents: components ?? [])
        if let name { setName(name) }
    }
}

extension Person {
    static let fields: FieldNames = ["address", "name", "parameters"]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a person")
        let address = reader.required("address") { try $0.string($1) }
        let name = reader.optional("name") { try $0.string($1) }
        let parameters = reader.optional("parameters") { fields, name -> [String: String]? in
            guard let parameters = fields.stringDictionary(name) else {
                throw Problem(field: "", "expected an object of parameter names and string values")
            }
            return parameters
        }
        try reader.finish()
        guard let address else {
            throw RecordProblems([Problem(field: "address", "has no value")])
        }
        self.init(
            address: address, name: name,
            parameters: (parameters ?? [:]).map { ($0.key, $0.value) })
    }
}

extension Recurrence {
    static let fields: FieldNames = ["rule", "exdates", "rdates"]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a recurrence")
        let rule = reader.optional("rule") { try $0.string($1) }
        let exdates = reader.optional("exdates") { try $0.timestamps($1) }
        let rdates = reader.optional("rdates") { try $0.timestamps($1) }
        try reader.finish()
        self.init(rule: rule, exdates: exdates ?? [], rdates: rdates ?? [])
    }
}

extension Attachment {
    static let fields: FieldNames = [
        "filename", "mime_type", "data", "url", "path", "ical_parameters",
    ]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "an attachment")
        let filename = reader.optional("filename") { try $0.string($1) }
        let mimeType = reader.optional("mime_type") { try $0.string($1) }
        var contents: [Content] = []
        if let data = reader.optional("data", { try $0.string($1) }) {
            if let bytes = Data(base64Encoded: data) {
                contents.append(.inline(bytes))
            } else {
                reader.problems.append(
                    Problem(field: "data", "invalid base64 (RFC 4648, no line breaks)"))
            }
        }
        if let url = reader.optional("url", { try $0.string($1) }) { contents.append(.url(url)) }
        if let path = reader.optional("path", { try $0.string($1) }) {
            contents.append(.path(path))
        }
        let parameters = reader.optional("ical_parameters") { try $0.string($1) }
        if contents.count != 1 && reader.problems.isEmpty {
            reader.problems.append(Problem(field: "", "needs exactly one of data, url or path"))
        }
        try reader.finish()
        self.init(filename: filename, mimeType: mimeType, content: contents[0])
        icalParameters = parameters
    }
}

extension Alarm {
    static let fields: FieldNames = [
        "action", "trigger", "related", "trigger_at", "description", "summary", "attendees",
        "sound",
        "repeat", "repeat_interval", "enabled", "ical_extra", "ical_parameters",
    ]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "an alarm")
        let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
        let action = reader.required("action") { fields, name -> Action? in
            let text = try fields.string(name)
            guard let action = Action(rawValue: text.lowercased()) else {
                throw Problem(
                    field: "", "'\(text)' is not an alarm action; expected one of \(actions)")
            }
            return action
        }
        let relative = reader.optional("trigger") { fields, name -> String? in
            let text = try fields.string(name)
            guard ISODuration.seconds(text) != nil else {
                throw Problem(
                    field: "", "'\(text)' is not an RFC 5545 duration such as -PT15M or P1D")
            }
            return text
        }
        let related = reader.optional("related") { fields, name -> Bool? in
            switch try fields.string(name).lowercased() {
            case "start": return false
            case "end": return true
            default: throw Problem(field: "", "expected \"start\" or \"end\"")
            }
        }
        let absolute = reader.optional("trigger_at") { try $0.timestamp($1) }
        let description = reader.optional("description") { try $0.string($1) }
        let summary = reader.optional("summary") { try $0.string($1) }
        let attendees = reader.optional("attendees") { try $0.strings($1) }
        let sound = reader.optional("sound") { try $0.string($1) }
        let repeatCount = reader.optional("repeat") { Int(try $0.integer($1)) }
        let repeatInterval = reader.optional("repeat_interval") { fields, name -> String? in
            let text = try fields.string(name)
            guard ISODuration.seconds(text) != nil else {
                throw Problem(field: "", "'\(text)' is not an RFC 5545 duration such as PT5M")
            }
            return text
        }
        let enabled = reader.optional("enabled") { try $0.bool($1) }
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let parameters = reader.optional("ical_parameters") { try $0.stringObject($1) }
        var trigger: Trigger?
        switch (relative, absolute) {
        case (let relative?, nil): trigger = .relative(relative, fromEnd: related ?? false)
        case (nil, let absolute?):
            trigger = .absolute(absolute)
            if related != nil {
                reader.problems.append(
                    Problem(field: "related", "applies only to a relative trigger"))
            }
        case (nil, nil):
            if !reader.has("trigger") && !reader.has("trigger_at") {
                reader.problems.append(
                    Problem(field: "trigger", "missing; give trigger (a duration) or trigger_at"))
            }
        case (_?, _?):
            reader.problems.append(
                Problem(field: "trigger_at", "give either trigger or trigger_at, not both"))
        }
        try reader.finish()
        guard let action, let trigger else {
            throw RecordProblems([Problem(field: "trigger", "has no value")])
        }
        self.init(
            action: action, trigger: trigger, description: description, summary: summary,
            attendees: attendees ?? [], sound: sound, repeatCount: repeatCount,
            repeatInterval: repeatInterval,
            enabled: enabled ?? true)
        icalExtra = extra ?? []
        icalParameters = parameters ?? [:]
    }
}
