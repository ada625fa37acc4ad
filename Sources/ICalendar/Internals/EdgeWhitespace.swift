import Glibc

/// Keeps the leading and trailing whitespace of TEXT values that libical's parser trims.
///
/// libical's parser strips spaces and tabs from both ends of every value (`strstriplt` and
/// `make_segment` in icalparser.c) and drops a property whose value is empty, so
/// `SUMMARY: indented ` comes back as `indented` and `DESCRIPTION:` disappears. RFC 5545
/// keeps both. Before a line reaches libical, the reader replaces each edge space or tab of
/// a TEXT value with a two-byte marker that libical treats as ordinary text, and an empty
/// value with a third; ``restore(_:)`` turns them back when the value is read.
///
/// The markers start with the byte 0xFF, which never occurs in UTF-8; the reader rejects
/// input that is not UTF-8 before protecting it, so no real text can contain a marker.
enum EdgeWhitespace {
    static let marker: UInt8 = 0xFF
    static let space: UInt8 = UInt8(ascii: "S")
    static let tab: UInt8 = UInt8(ascii: "T")
    static let empty: UInt8 = UInt8(ascii: "E")
    /// A backslash in a value written verbatim (see ``Property/init(verbatim:)``): libical
    /// would double it; the serializer turns the marker back into one backslash.
    static let backslash: UInt8 = UInt8(ascii: "B")
    /// A comma and a semicolon inside one value of a list (`CATEGORIES:Meeting\, John,Work`):
    /// libical separates list values with commas and escapes neither.
    static let comma: UInt8 = UInt8(ascii: "C")
    static let semicolon: UInt8 = UInt8(ascii: "M")

    /// What a marker stands for in serialized output, or `nil` for a byte that is no
    /// marker code.
    static func output(for code: UInt8) -> [UInt8]? {
        switch code {
        case space: [0x20]
        case tab: [0x09]
        case empty: []
        case backslash: [UInt8(ascii: "\\")]
        case comma: [UInt8(ascii: "\\"), UInt8(ascii: ",")]
        case semicolon: [UInt8(ascii: "\\"), UInt8(ascii: ";")]
        default: nil
        }
    }

    /// Single-valued TEXT properties whose values are kept exactly.
    static let textProperties: Set<String> = [
        "SUMMARY", "DESCRIPTION", "LOCATION", "COMMENT", "CONTACT",
    ]

    /// Rewrites the value of the content line `line` (no line end, no NUL) in place.
    static func protect(_ line: inout [UInt8], valueStart: Int) {
        let end = line.count
        var leading = valueStart
        while leading < end, line[leading] == 0x20 || line[leading] == 0x09 { leading += 1 }
        if leading == end && valueStart == end {
            line.append(contentsOf: [marker, empty])
            return
        }
        var trailing = end
        while trailing > leading, line[trailing - 1] == 0x20 || line[trailing - 1] == 0x09 {
            trailing -= 1
        }
        guard leading > valueStart || trailing < end else { return }
        var rewritten = Array(line[..<valueStart])
        rewritten.reserveCapacity(line.count + 8)
        for byte in line[valueStart..<leading] {
            rewritten += [marker, byte == 0x20 ? space : tab]
        }
        rewritten += line[leading..<trailing]
        for byte in line[trailing..<end] { rewritten += [marker, byte == 0x20 ? space : tab] }
        line = rewritten
    }

    /// `text` with the markers turned back (for libical's messages, which quote values).
    static func restore(_ text: String) -> String {
        text.withCString { restore($0) }
    }

    /// The Swift string for a value libical returns, with the markers turned back.
    static func restore(_ cString: UnsafePointer<CChar>?) -> String {
        guard let cString else { return "" }
        let bytes = UnsafeRawBufferPointer(start: cString, count: strlen(cString))
        // memchr: a generic contains() went byte by byte over every text value read.
        guard bytes.count > 0, memchr(cString, Int32(marker), bytes.count) != nil else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == marker, index + 1 < bytes.count {
                switch bytes[index + 1] {
                case space: out.append(0x20)
                case tab: out.append(0x09)
                case empty: break
                default: out += [byte, bytes[index + 1]]
                }
                index += 2
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
