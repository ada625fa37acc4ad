/// The entries of a `.strings` file (`"key" = "value";`, comments `/* … */` and `// …`,
/// escapes `\\`, `\"`, `\n`, `\t`, `\r` and `\Uxxxx`), read on bytes.
///
/// Foundation's `PropertyListSerialization` reads the same files, but it took 16 ms of a
/// 40 ms run for the catalogue's thousand entries; taskcal reads its catalogue on every run
/// in Russian, so this is the one that does.
enum StringsFile {
    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var expected: String
        var description: String { "line \(line): \(expected) expected" }
    }

    static func entries(_ bytes: [UInt8]) throws(Malformed) -> [String: String] {
        var reader = Reader(bytes: bytes)
        var entries: [String: String] = [:]
        while true {
            try reader.skipBlanks()
            guard reader.more else { return entries }
            let key = try reader.quoted()
            try reader.skipBlanks()
            try reader.expect(UInt8(ascii: "="))
            try reader.skipBlanks()
            let value = try reader.quoted()
            try reader.skipBlanks()
            try reader.expect(UInt8(ascii: ";"))
            entries[key] = value
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0
        var line = 1

        var more: Bool { at < bytes.count }

        /// Skips white space and comments.
        mutating func skipBlanks() throws(Malformed) {
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\n"):
                    line += 1
                    at += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    at += 1
                case UInt8(ascii: "/")
                where at + 1 < bytes.count && bytes[at + 1] == UInt8(ascii: "*"):
                    at += 2
                    while at + 1 < bytes.count
                        && !(bytes[at] == UInt8(ascii: "*") && bytes[at + 1] == UInt8(ascii: "/"))
                    {
                        if bytes[at] == UInt8(ascii: "\n") { line += 1 }
                        at += 1
                    }
                    guard at + 1 < bytes.count else {
                        throw Malformed(line: line, expected: "the end of a comment (*/)")
                    }
                    at += 2
                case UInt8(ascii: "/")
                where at + 1 < bytes.count && bytes[at + 1] == UInt8(ascii: "/"):
                    while at < bytes.count && bytes[at] != UInt8(ascii: "\n") { at += 1 }
                default:
                    return
                }
            }
        }

        mutating func expect(_ byte: UInt8) throws(Malformed) {
            guard at < bytes.count, bytes[at] == byte else {
                throw Malformed(line: line, expected: "'\(Character(Unicode.Scalar(byte)))'")
            }
            at += 1
        }

        /// A quoted string, its escapes resolved.
        mutating func quoted() throws(Malformed) -> String {
            try expect(UInt8(ascii: "\""))
            var text: [UInt8] = []
            var start = at
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    text += bytes[start..<at]
                    at += 1
                    return String(decoding: text, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\n") { line += 1 }
                guard byte == UInt8(ascii: "\\") else {
                    at += 1
                    continue
                }
                text += bytes[start..<at]
                guard at + 1 < bytes.count else { break }
                let escaped = bytes[at + 1]
                at += 2
                switch escaped {
                case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "r"): text.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "U"), UInt8(ascii: "u"):
                    let digits = bytes[at..<min(at + 4, bytes.count)]
                    guard digits.count == 4,
                        let code = UInt32(String(decoding: digits, as: UTF8.self), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { throw Malformed(line: line, expected: "four hex digits after \\U") }
                    text += Array(String(Character(scalar)).utf8)
                    at += 4
                default: text.append(escaped)
                }
                start = at
            }
            throw Malformed(line: line, expected: "the closing quote of a string")
        }
    }
}
