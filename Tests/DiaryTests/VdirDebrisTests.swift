import Diary
import Foundation
import Testing

@Suite("A vdir's debris: an atomic write's temporary file is known without a regular expression")
struct VdirDebrisTests {
    /// The expression the test replaced, as Foundation reads it.
    static let expression = #"^\..+\.taskcal-[A-Za-z0-9]{6}$"#

    @Test("agrees with the regular expression on names near and far from the pattern")
    func agreesWithExpression() {
        var names = [
            ".a.taskcal-AbC123", "..taskcal-diary.taskcal-x1Y2z3", ".taskcal-AbC123",
            "..taskcal-AbC123", ".a.taskcal-AbC12", ".a.taskcal-AbC1234", ".a.taskcal-AbC12_",
            "a.taskcal-AbC123", ".a.taskcal-AbC12é", ".é.taskcal-000000", ".a\n.taskcal-000000",
            ".a\r.taskcal-000000", ".a\u{2028}.taskcal-000000", ".a\u{85}b.taskcal-000000",
            ".a.taskcaI-AbC123", ".a.taskcal_AbC123", ".a.taskcal-AbC123.ics", "", ".",
            ".x.taskcal-ZZZZZZ", ".entry.ics.taskcal-q8Lm0P",
        ]
        // Every cut and one-byte change of a matching name.
        let base = ".entry.ics.taskcal-q8Lm0P"
        for offset in 0..<base.utf8.count {
            var bytes = Array(base.utf8)
            names.append(String(decoding: bytes[..<offset], as: UTF8.self))
            for replacement in ["-", ".", "0", "Z", "~"] {
                bytes[offset] = replacement.utf8.first!
                names.append(String(decoding: bytes, as: UTF8.self))
                bytes = Array(base.utf8)
            }
        }
        var matches = 0
        for name in names {
            let expected = name.range(of: Self.expression, options: .regularExpression) != nil
            #expect(VdirDiary.isWriteTemporary(name) == expected, "\(name.debugDescription)")
            if expected { matches += 1 }
        }
        #expect(matches > 20 && matches < names.count - 20)
    }
}
