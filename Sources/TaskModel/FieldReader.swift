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
