/// RFC 5545 durations (`dur-value`): `P1W`, `-PT15M`, `P1DT2H30M`.
public enum ISODuration {
    /// The duration's length in seconds (days as 86 400 s), or `nil` when `text` is not an
    /// RFC 5545 duration.
    public static func seconds(_ text: String) -> Int? {
        var scalars = Substring(text).unicodeScalars[...]
        var sign = 1
        if scalars.first == "+" || scalars.first == "-" {
            if scalars.first == "-" { sign = -1 }
            scalars = scalars.dropFirst()
        }
        guard scalars.first == "P" else { return nil }
        scalars = scalars.dropFirst()
        func number() -> Int? {
            var value = 0
            var digits = 0
            while let scalar = scalars.first, ("0"..."9").contains(scalar) {
                value = value &* 10 &+ Int(scalar.value - 48)
                digits += 1
                scalars = scalars.dropFirst()
                guard digits <= 9 else { return nil }
            }
            return digits == 0 ? nil : value
        }
        var total = 0
        if scalars.first != "T" {
            guard let count = number(), let unit = scalars.first else { return nil }
            scalars = scalars.dropFirst()
            switch unit {
            case "W": return scalars.isEmpty ? sign * count * 604_800 : nil
            case "D": total = count * 86_400
            default: return nil
            }
            if scalars.isEmpty { return sign * total }
        }
        guard scalars.first == "T" else { return nil }
        scalars = scalars.dropFirst()
        var allowed: [Unicode.Scalar] = ["H", "M", "S"]
        var any = false
        while !scalars.isEmpty {
            guard let count = number(), let unit = scalars.first,
                let position = allowed.firstIndex(of: unit)
            else { return nil }
            scalars = scalars.dropFirst()
            allowed.removeFirst(position + 1)
            total += count * (unit == "H" ? 3600 : unit == "M" ? 60 : 1)
            any = true
        }
        return any ? sign * total : nil
    }
}
