import ICalendar
import Testing

@Suite("A name table answers as a dictionary keyed by the names' bytes")
struct NameTableTests {
    /// Names of 0 to 11 characters, 1 to 4 bytes each (ASCII, Cyrillic, CJK, emoji), with
    /// repeats among the short ones, so that slots collide and the table grows many times.
    /// Each character is picked by a multiplicative hash of the name's number, `seed` and the
    /// character's place: the same names on every run.
    static func names(count: Int, seed: UInt64) -> [String] {
        let alphabet: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789ЖЯ会議😀")
        return (0..<UInt64(count)).map { number in
            let key = (number &+ seed &* 1_000_003) &* 0x9E37_79B9_7F4A_7C15
            return String(
                (0..<(key >> 60) % 12).map { place in
                    alphabet[Int(((key &+ place) &* 0xBF58_476D_1CE4_E5B9) >> 58) % alphabet.count]
                })
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
