import ICalendar
import Testing

@Suite("A name table answers as a dictionary keyed by the names' bytes")
struct NameTableTests {
    /// Names of every length from 0 to 40 bytes: ASCII, Cyrillic, CJK and emoji, with
    /// repeats, so that slots collide and the table grows many times.
    static func names(count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix(seed: seed)
        let alphabet: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789ЖЯ会議😀")
        return (0..<count).map { _ in
            let length = Int(generator.next() % 12)
            return String((0..<length).map { _ in alphabet[Int(generator.next() % 41)] })
        }
    }

    @Test("2,000 names set, replaced and looked up, present and absent")
    func dictionary() {
        let names = Self.names(count: 2_000, seed: 7)
        var table = NameTable<Int>()
        var expected: [[UInt8]: Int] = [:]
        for (index, name) in names.enumerated() {
            table[name] = index
            expected[Array(name.utf8)] = index
        }
        #expect(table.count == expected.count)
        for name in names + Self.names(count: 2_000, seed: 8) {
            #expect(table[name] == expected[Array(name.utf8)], "\(name)")
        }
        // Setting nil stores nothing.
        table["ABSENT-NAME"] = nil
        #expect(table["ABSENT-NAME"] == nil)
        #expect(table.count == expected.count)
    }

    @Test("of two pairs with one name the first is kept; spellings are told apart by bytes")
    func firstAndBytes() {
        let table = NameTable([("DTSTART", 1), ("DTEND", 2), ("DTSTART", 3), ("", 4)])
        #expect(table["DTSTART"] == 1)
        #expect(table["DTEND"] == 2)
        #expect(table[""] == 4)
        #expect(table.count == 3)
        #expect(table["dtstart"] == nil)
        // A precomposed and a decomposed É are equal Strings but different bytes.
        let composed = NameTable([("\u{C9}", 1)])
        #expect(composed["\u{C9}"] == 1)
        #expect(composed["E\u{301}"] == nil)
    }
}

/// A small deterministic generator (SplitMix64), so that a failure can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
