import CLibical

/// One unfolded iCalendar content line split into its parts as written (RFC 5545 §3.1):
/// `NAME *(";" PARAM "=" VALUE *("," VALUE)) ":" VALUE`.
///
/// This is lexing, not interpretation: values stay as written (escapes and all), and only
/// the structure is checked. libical interprets the values; the lexer exists because
/// libical 3.0 loses or changes parts of lines it cannot interpret (parameters it does not
/// know, escapes in `X-` values, values of later RFCs) and because a line kept verbatim must
/// be checked before it is written back.
public struct ContentLine: Sendable, Hashable {
    /// The property name, upper-cased (`DTSTART`, `X-WR-CALNAME`).
    public var name: String
    /// The parameters in order, names upper-cased, values unquoted and RFC 6868-decoded
    /// (`^n` is a line break, `^'` a double quote, `^^` a caret). A parameter with several
    /// values keeps them each quoted, joined by commas (`"a","b"`).
    public var parameters: [Parameter]
    /// The value exactly as written: escapes (`\,` `\n`) are not undone.
    public var value: String

    /// Creates a line from its parts.
    public init(name: String, parameters: [Parameter] = [], value: String) {
        self.name = name.uppercasedName()
        self.parameters = parameters
        self.value = value
    }

    /// Whether libical 3.0's parser refuses a property of this name, and with it the whole
    /// component: a name registered after it (RFC 9253 `LINK`) or a vendor's own without the
    /// `X-` prefix (`EVENT-ID`). RFC 5545 allows both; taskcal keeps them as written.
    public var nameUnknownToLibical: Bool {
        !name.hasPrefix("X-") && !PropertyKinds.isKnown(name)
    }

    /// Lexes `text`, one unfolded content line without its line end.
    ///
    /// - Throws: ``ICalendarError/Kind/malformedLine`` naming what is wrong: a name with
    ///   characters outside letters, digits and `-`, a parameter without `=`, an unclosed
    ///   quote, no `:` before the value, control characters.
    public init(parsing text: String) throws(ICalendarError) {
        self = try Self.lex(Array(text.utf8))
    }

    /// Whether `bytes` hold a control character other than a tab (RFC 5545's CONTROL),
    /// eight bytes at a time: an inline attachment's value is kilobytes long, and the
    /// byte-by-byte test cost more than a dozen instructions a byte.
    static func hasControlCharacter(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            let count = raw.count
            var index = 0
            while index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if WordScan.hasByte(word, below: 0x20) || WordScan.hasByte(word, 0x7F) {
                    for offset in index..<(index + 8) where isControl(raw[offset]) { return true }
                }
                index += 8
            }
            while index < count {
                if isControl(raw[index]) { return true }
                index += 1
            }
            return false
        }
    }

    @inline(__always)
    private static func isControl(_ byte: UInt8) -> Bool {
        byte < 0x20 && byte != 0x09 || byte == 0x7F
    }

    /// Lexes raw bytes (already checked to be UTF-8).
    public static func lex(_ bytes: [UInt8]) throws(ICalendarError) -> ContentLine {
        func fail(_ message: String) -> ICalendarError {
            ICalendarError(.malformedLine, message)
        }
        var index = 0
        let count = bytes.count
        while index < count, isNameByte(bytes[index]) { index += 1 }
        guard index > 0 else {
            throw fail(
                "'\(excerpt(bytes))' is not a content line: expected a property name such as SUMMARY"
            )
        }
        let name = String(decoding: bytes[..<index], as: UTF8.self).uppercasedName()
        var parameters: [Parameter] = []
        while index < count, bytes[index] == UInt8(ascii: ";") {
            index += 1
            let nameStart = index
            while index < count, isNameByte(bytes[index]) { index += 1 }
            guard index > nameStart, index < count, bytes[index] == UInt8(ascii: "=") else {
                throw fail("\(name): a parameter must be NAME=VALUE ('\(excerpt(bytes))')")
            }
            let parameterName = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            index += 1
            var values: [(text: [UInt8], quoted: Bool)] = []
            // A parameter of one value keeps an unquoted comma (`CN=Society\, 2014`).
            let splitsAtCommas = !singleValued.contains(parameterName.uppercased())
            while true {
                if index < count, bytes[index] == UInt8(ascii: "\"") {
                    let start = index + 1
                    guard let close = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else {
                        throw fail("\(name): the quoted value of \(parameterName) is not closed")
                    }
                    values.append((Array(bytes[start..<close]), true))
                    index = close + 1
                } else {
                    let start = index
                    while index < count,
                        !isSeparator(bytes[index])
                            || (!splitsAtCommas && bytes[index] == UInt8(ascii: ","))
                    {
                        index += 1
                    }
                    if index < count, bytes[index] == UInt8(ascii: "\"") {
                        throw fail("\(name): a quote inside the value of \(parameterName)")
                    }
                    values.append((Array(bytes[start..<index]), false))
                }
                guard index < count, bytes[index] == UInt8(ascii: ",") else { break }
                index += 1
            }
            let value: String
            if values.count == 1 {
                value = decodeCaret(String(decoding: values[0].text, as: UTF8.self))
            } else {
                value = values.map { "\"" + String(decoding: $0.text, as: UTF8.self) + "\"" }
                    .joined(separator: ",")
            }
            parameters.append(Parameter(parameterName, value))
        }
        guard index < count, bytes[index] == UInt8(ascii: ":") else {
            throw fail("\(name): expected ':' before the value ('\(excerpt(bytes))')")
        }
        let valueBytes = bytes[(index + 1)...]
        if hasControlCharacter(valueBytes) {
            throw fail("\(name): the value holds a control character")
        }
        return ContentLine(
            name: name, parameters: parameters,
            value: String(decoding: valueBytes, as: UTF8.self))
    }

    /// Whether a parameter value holds several values, each quoted: `"a","b"`. A quote
    /// stands only around each value (a value cannot hold one), so a single value that
    /// merely looks alike (`","a"`, a file name) is not taken for a list.
    /// A parameter RFC 5545 (or RFC 8607, `FILENAME`) gives one value never is a list: a
    /// person's name `"a","b"` stays one name.
    public static func isValueList(_ value: String, named name: String) -> Bool {
        guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 5,
            !singleValued.contains(name)
        else {
            return false
        }
        let values = value.dropFirst().dropLast().components(separatedBy: "\",\"")
        return values.count > 1 && !values.contains { $0.contains("\"") }
    }

    private static let singleValued: Set<String> = [
        "ALTREP", "CN", "CUTYPE", "DIR", "ENCODING", "FMTTYPE", "FBTYPE", "LANGUAGE",
        "PARTSTAT", "RANGE", "RELATED", "RELTYPE", "ROLE", "RSVP", "SENT-BY", "TZID", "VALUE",
        "FILENAME", "X-FILENAME", "X-APPLE-FILENAME", "X-LABEL",
    ]

    /// The value of the first parameter named `name` (upper-case), if any.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The line as text, for messages and for comparing (parameters quoted where needed).
    public var text: String {
        var result = name
        for parameter in parameters {
            result += ";\(parameter.name)="
            let value = parameter.value
            if value.contains("\"") {
                result += value
            } else if value.isEmpty
                || value.contains(where: { $0 == ";" || $0 == ":" || $0 == "," })
            {
                result += "\"\(value)\""
            } else {
                result += value
            }
        }
        return result + ":" + value
    }

    // MARK: - Bytes

    public static func isNameByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-")
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ";") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",")
            || byte == UInt8(ascii: "\"")
    }

    /// RFC 6868: `^n` (or `^N`) is a line break, `^'` a double quote, `^^` a caret; any other
    /// caret stays as it is.
    static func decodeCaret(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "^")) else { return text }
        var result = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "^" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "n", "N": result.append("\n")
            case "'": result.append("\"")
            case "^": result.append("^")
            case let other?: result += "^" + String(other)
            case nil: result.append("^")
            }
        }
        return result
    }

    /// A parameter value as RFC 6868 writes it: the inverse of the lexer's decoding, a line
    /// break as `^n`, a double quote as `^'`, and a caret as `^^` where it would otherwise
    /// start one of those (a lone `^a` stays as written).
    /// With `caretsOnly`, line breaks and quotes are left for libical, which encodes them
    /// itself but leaves `^` as it is.
    public static func encodeCaret(_ text: String, caretsOnly: Bool = false) -> String {
        // Most values hold none of the four, found on the bytes (by Character, a parameter of
        // every tenth event written cost 7,000 instructions); a lone CR goes the long way and
        // comes out as it was.
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: "^") || $0 == 0x0A || $0 == 0x0D || $0 == UInt8(ascii: "\"")
            })
        else { return text }
        var result = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            switch character {
            case "\n" where !caretsOnly, "\r\n" where !caretsOnly: result += "^n"
            case "\"" where !caretsOnly: result += "^'"
            case "^":
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let special: Set<Character> = ["n", "N", "'", "^", "\n", "\r\n", "\""]
                result += next.map(special.contains) == true ? "^^" : "^"
            default: result.append(character)
            }
        }
        return result
    }

    static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(60), as: UTF8.self)
        return bytes.count > 60 ? text + "…" : text
    }
}

extension ContentLine {
    /// The values of a list property's value as written (`CATEGORIES:Work,Meeting\, John`):
    /// split at the commas no backslash escapes, each unescaped by libical as TEXT.
    ///
    /// libical's own split takes the comma of `\\,` (an escaped backslash, then a separator)
    /// for an escaped one and glues two values together.
    public static func textList(_ value: String) -> [String] {
        parts(of: value, separatedBy: ",").map(unescapedText)
    }

    /// `value` split at each `separator` no backslash escapes, the escapes kept
    /// (`REQUEST-STATUS:2.0;Success\; done` at `;`).
    public static func parts(of value: String, separatedBy separator: Character) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == separator {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items
    }

    /// `text` as a TEXT value is written, escaped by libical: the inverse of
    /// ``unescapedText(_:)``.
    public static func escapedText(_ text: String) -> String {
        written(Property("SUMMARY", .text(text))) ?? text
    }

    /// `items` as a list of TEXT values is written (`CATEGORIES`): the inverse of
    /// ``textList(_:)``.
    public static func escapedTextList(_ items: [String]) -> String {
        written(Property("CATEGORIES", .textList(items))) ?? items.joined(separator: ",")
    }

    /// The value of `property` as a component writes it (escapes, edge whitespace kept).
    private static func written(_ property: Property) -> String? {
        let holder = Component(kind: .event)
        holder.add(property)
        let lines = holder.serialized().unfoldedLine().components(separatedBy: "\r\n")
        return lines.count > 1 ? (try? ContentLine(parsing: lines[1]).value) : nil
    }

    /// A TEXT value as written, unescaped by libical (`\n`, `\,`, `\;`, `\\`).
    public static func unescapedText(_ text: String) -> String {
        Libical.ensureReady()
        guard text.contains("\\") else { return text }
        guard let value = icalvalue_new_from_string(ICAL_TEXT_VALUE, text) else { return text }
        defer { icalvalue_free(value) }
        return Libical.copyString(icalvalue_get_text(value)) ?? text
    }
}
