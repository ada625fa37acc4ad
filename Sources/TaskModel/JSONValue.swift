import Foundation

/// A JSON value as the task format reads it: parsed from bytes in one pass, with object
/// members in their order (the first of two members with one name is the one read).
///
/// The task format reads JSON through this instead of Foundation's JSONDecoder, whose generic
/// containers cost more than half of a JSON → .ics conversion (issue 13). What it accepts and
/// how it words a syntax error follow what the JSONDecoder-based reader did, so every error
/// message and location stays as it was: a trailing comma in an array or object is accepted;
/// a number that is not a JSON number (`01`, `1.`), a string with a raw control character, a
/// bad escape or half a UTF-16 pair are read as values that fail when a field asks for them
/// (a problem of that field, not of the whole file).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as written.
    case number(String)
    case string(String)
    /// A string that is no text: why (a raw control character, a bad escape, half a UTF-16
    /// pair).
    case invalidString(String)
    case array([JSONValue])
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        public var name: String
        public var value: JSONValue

        /// Creates a member.
        public init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The member `name` of an object (the first of that name), or `nil`.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.name == name { return member.value }
        return nil
    }

    /// Nesting deeper than this is refused, as Foundation's parser refused it.
    static let depthLimit = 512

    /// A syntax error: why, and the byte offset it was found at (`nil`: the text ended).
    public struct SyntaxError: Error, Sendable {
        public var reason: String
        public var offset: Int?
    }

    /// Members a reader does not want built: their values are checked for JSON syntax only
    /// and read as `null`, so no string or array is made for them.
    ///
    /// Reports read a record's times, id and name; a million records' descriptions,
    /// attachments and alarms need not become Strings for that (issue 13).
    public struct Skipping: Sendable {
        /// The names as UTF-8; a member is skipped when its name is written without escapes
        /// and equals one of them.
        private let names: [[UInt8]]
        /// Bit `d` set: members of objects at depth `d` are skipped (1 is the top-level
        /// object, 2 an object in it or in a top-level array, and so on).
        private let depthBits: UInt64

        /// Skips members named in `names` of the objects at `depths` (1 to 63).
        public init(_ names: Set<String>, depths: Set<Int>) {
            self.names = names.sorted().map { Array($0.utf8) }
            depthBits = depths.reduce(0) { $1 > 0 && $1 < 64 ? $0 | 1 << UInt64($1) : $0 }
        }

        fileprivate func skipsMembers(atDepth depth: Int) -> Bool {
            depth < 64 && depthBits & 1 << UInt64(depth) != 0
        }

        fileprivate func skips(_ name: UnsafeRawBufferPointer) -> Bool {
            for candidate in names where candidate.count == name.count {
                if candidate.withUnsafeBytes({
                    memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0
                }) {
                    return true
                }
            }
            return false
        }
    }

    /// Parses one JSON text (leading and trailing whitespace allowed, nothing else after it).
    ///
    /// With `skipping`, the members it names read as `null`; the text is still checked whole,
    /// so a syntax error anywhere is found and worded as without it.
    public static func parse(_ bytes: UnsafeRawBufferPointer, skipping: Skipping? = nil)
        throws(SyntaxError) -> JSONValue
    {
        var parser = Parser(bytes: bytes, skipping: skipping)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw SyntaxError(reason: "Invalid value", offset: parser.index)
        }
        return value
    }

    /// ``parse(_:skipping:)-(UnsafeRawBufferPointer,_)`` for `Data`.
    public static func parse(_ data: Data, skipping: Skipping? = nil) throws(SyntaxError)
        -> JSONValue
    {
        try data.withUnsafeBytes { bytes in
            Result { () throws(SyntaxError) -> JSONValue in try parse(bytes, skipping: skipping) }
        }.get()
    }
}

extension JSONValue: Decodable {
    /// Any JSON value, through any `Decoder` (for callers that decode task records with
    /// their own decoder: the record's fields are then read from this value).
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try object.allKeys.map {
                    Member(
                        name: $0.stringValue, value: try object.decode(JSONValue.self, forKey: $0))
                })
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? single.decode(Double.self) {
            self = .number(String(value))
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else {
            self = .invalidString("not a JSON value")
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The recursive-descent parser behind ``JSONValue/parse(_:skipping:)-(UnsafeRawBufferPointer,_)``.
///
/// `build: false` checks a value's syntax exactly as building it would (the same errors at
/// the same offsets) and returns `null` without making strings, arrays or members.
struct Parser {
    let bytes: UnsafeRawBufferPointer
    let skipping: JSONValue.Skipping?
    let knownNames = KnownNames.taskFormat
    var index = 0

    init(bytes: UnsafeRawBufferPointer, skipping: JSONValue.Skipping?) {
        self.bytes = bytes
        self.skipping = skipping
    }

    private func fail(_ reason: String, at offset: Int) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(reason: reason, offset: offset)
    }

    private var ended: JSONValue.SyntaxError {
        JSONValue.SyntaxError(reason: "Unexpected end of file", offset: nil)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int, build: Bool = true) throws(JSONValue.SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw ended }
        switch bytes[index] {
        case JSONByte.beginObject: return try object(depth: depth + 1, build: build)
        case JSONByte.beginArray: return try array(depth: depth + 1, build: build)
        case UInt8(ascii: "\""): return try build ? string() : skipString()
        case UInt8(ascii: "t"): return try literal("true", build ? .bool(true) : .null)
        case UInt8(ascii: "f"): return try literal("false", build ? .bool(false) : .null)
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(build: build)
        default: throw fail("Invalid value", at: index)
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue)
        throws(JSONValue.SyntaxError) -> JSONValue
    {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw ended }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            throw fail("Invalid value", at: index)
        }
        index += count
        return value
    }

    /// The characters a number may hold, taken as written; whether they are a JSON number
    /// is asked when a field reads it.
    private mutating func number(build: Bool) -> JSONValue {
        let start = index
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                break scan
            }
        }
        return build ? .number(String(decoding: bytes[start..<index], as: UTF8.self)) : .null
    }

    private mutating func array(depth: Int, build: Bool) throws(JSONValue.SyntaxError) -> JSONValue
    {
        index += 1
        if depth > JSONValue.depthLimit {
            throw fail("Too many nested arrays or dictionaries", at: index)
        }
        var values: [JSONValue] = []
        skipWhitespace()
        guard index < bytes.count else { throw ended }
        if bytes[index] == JSONByte.endArray {
            index += 1
            return build ? .array(values) : .null
        }
        while true {
            let element = try value(depth: depth, build: build)
            if build { values.append(element) }
            skipWhitespace()
            guard index < bytes.count else { throw ended }
            switch bytes[index] {
            case JSONByte.endArray:
                index += 1
                return build ? .array(values) : .null
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                guard index < bytes.count else { throw ended }
                // A trailing comma, as the earlier reader accepted.
                if bytes[index] == JSONByte.endArray {
                    index += 1
                    return build ? .array(values) : .null
                }
            default:
                throw fail("Invalid value", at: index)
            }
        }
    }

    private mutating func object(depth: Int, build: Bool) throws(JSONValue.SyntaxError) -> JSONValue
    {
        let skipsHere = build && skipping?.skipsMembers(atDepth: depth) == true
        index += 1
        if depth > JSONValue.depthLimit {
            throw fail("Too many nested arrays or dictionaries", at: index)
        }
        var members: [JSONValue.Member] = []
        skipWhitespace()
        guard index < bytes.count else { throw ended }
        if bytes[index] == JSONByte.endObject {
            index += 1
            return build ? .object(members) : .null
        }
        while true {
            guard index < bytes.count else { throw ended }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail("Invalid value", at: index) }
            let nameStart = index + 1
            let name: String
            if build, let known = knownName() {
                name = known
            } else {
                switch try build ? string() : skipString() {
                case .string(let text): name = text
                case .invalidString(let reason): name = "(\(reason))"
                default: name = ""
                }
            }
            let skipped =
                skipsHere
                && skipping?.skips(UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index - 1]))
                    == true
            skipWhitespace()
            guard index < bytes.count else { throw ended }
            guard bytes[index] == UInt8(ascii: ":") else { throw fail("Invalid value", at: index) }
            index += 1
            skipWhitespace()
            let member = try value(depth: depth, build: build && !skipped)
            if build { members.append(JSONValue.Member(name: name, value: member)) }
            skipWhitespace()
            guard index < bytes.count else { throw ended }
            switch bytes[index] {
            case JSONByte.endObject:
                index += 1
                return build ? .object(members) : .null
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                guard index < bytes.count else { throw ended }
                if bytes[index] == JSONByte.endObject {
                    index += 1
                    return build ? .object(members) : .null
                }
            default:
                throw fail("Invalid value", at: index)
            }
        }
    }

    /// The member name at `index` (its opening quote) when it is one of the task format's,
    /// written plainly: taken from ``KnownNames``, with `index` past its closing quote.
    private mutating func knownName() -> String? {
        let start = index + 1
        let stop = ByteScan.stringStop(in: bytes, from: start)
        guard stop < bytes.count, bytes[stop] == UInt8(ascii: "\""),
            let name = knownNames.name(in: bytes, at: start, length: stop - start)
        else { return nil }
        index = stop + 1
        return name
    }

    /// A string: its text, or why it is none (the whole string is read either way).
    mutating func string() throws(JSONValue.SyntaxError) -> JSONValue {
        index += 1
        let start = index
        // The common case: no escape, no control character; one copy into a String.
        index = ByteScan.stringStop(in: bytes, from: index)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            return .string(text)
        }
        guard index < bytes.count else { throw ended }
        var text: [UInt8] = []
        text.reserveCapacity(2 * (index - start) + 32)
        text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        var problem: String?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                if let problem { return .invalidString(problem) }
                return .string(String(decoding: text, as: UTF8.self))
            }
            if byte < 0x20 {
                problem = problem ?? "a control character (U+\(hex(byte, 4))) that is not escaped"
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "\\") else {
                // The plain run up to the next quote, backslash or control character, copied
                // at once: byte by byte, a description with escapes cost a tenth of reading
                // a record.
                let stop = ByteScan.stringStop(in: bytes, from: index)
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<stop]))
                index = stop
                continue
            }
            guard index + 1 < bytes.count else { throw ended }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else {
                    problem = problem ?? "a \\u escape without four hex digits"
                    continue
                }
                var scalar = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit) {
                    // A high surrogate needs its low half in the next escape.
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        if let low = hexUnit(), (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                        } else {
                            problem = problem ?? Self.halfPair
                            continue
                        }
                    } else {
                        problem = problem ?? Self.halfPair
                        continue
                    }
                } else if (0xDC00...0xDFFF).contains(unit) {
                    problem = problem ?? Self.halfPair
                    continue
                }
                if let character = Unicode.Scalar(scalar) {
                    text.append(contentsOf: String(Character(character)).utf8)
                }
            default:
                problem =
                    problem ?? "an escape \\\(Character(Unicode.Scalar(escaped))) that JSON has not"
            }
        }
        throw ended
    }

    /// A string's syntax only: where it ends, without its text; `null`.
    ///
    /// Consumes what ``string()`` consumes: a backslash and the byte after it, every other
    /// byte alone (the digits of a `\\u` escape are plain bytes, never a quote or a backslash).
    private mutating func skipString() throws(JSONValue.SyntaxError) -> JSONValue {
        index += 1
        while true {
            index = ByteScan.stringStop(in: bytes, from: index)
            guard index < bytes.count else { throw ended }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return .null
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw ended }
                index += 2
            default:
                index += 1
            }
        }
    }

    static let halfPair = "a \\u escape of half a UTF-16 pair, such as \\uD800, is no character"

    /// Four hex digits after `\u`, consumed; `nil` (nothing consumed) when they are not.
    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    private func hex(_ byte: UInt8, _ width: Int) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
