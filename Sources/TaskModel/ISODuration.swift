/// RFC 5545 durations (`dur-value`): `P1W`, `-PT15M`, `P1DT2H30M`.
public enum ISODuration {
    /// The duration's length in seconds (days as 86 400 s), or `nil` when `text` is not an
    /// RFC 5545 duration.
    ///
    /// Read on the UTF-8 bytes: every alarm read and written asks it, and walking Unicode
    /// scalars took some 2,800 instructions for `-PT15M` (issue 59).
    public static func seconds(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { seconds(utf8: $0) }
    }

    private static func seconds(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
        func number() -> Int? {
            var value = 0
            var digits = 0
            while let byte = peek(), byte &- UInt8(ascii: "0") < 10 {
                value = value &* 10 &+ Int(byte &- UInt8(ascii: "0"))
                digits += 1
                index += 1
                guard digits <= 9 else { return nil }
            }
            return digits == 0 ? nil : value
        }
        var sign = 1
        if let first = peek(), first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            if first == UInt8(ascii: "-") { sign = -1 }
            index += 1
        }
        guard peek() == UInt8(ascii: "P") else { return nil }
        index += 1
        var total = 0
        if peek() != UInt8(ascii: "T") {
            guard let count = number(), let unit = peek() else { return nil }
            index += 1
            switch unit {
            case UInt8(ascii: "W"): return index == bytes.count ? sign * count * 604_800 : nil
            case UInt8(ascii: "D"): total = count * 86_400
            default: return nil
            }
            if index == bytes.count { return sign * total }
        }
        guard peek() == UInt8(ascii: "T") else { return nil }
        index += 1
        // Hours, minutes and seconds, each at most once and in that order.
        var next = 0
        var any = false
        while index < bytes.count {
            guard let count = number(), let unit = peek() else { return nil }
            let position: Int
            switch unit {
            case UInt8(ascii: "H"): position = 0
            case UInt8(ascii: "M"): position = 1
            case UInt8(ascii: "S"): position = 2
            default: return nil
            }
            guard position >= next else { return nil }
            index += 1
            next = position + 1
            total += count * (position == 0 ? 3600 : position == 1 ? 60 : 1)
            any = true
        }
        return any ? sign * total : nil
    }
}
