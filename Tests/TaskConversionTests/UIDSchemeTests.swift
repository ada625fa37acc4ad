import TaskConversion
import Testing

@Suite("A UID read back gives its id, and whether this scheme makes exactly that UID")
struct UIDSchemeTests {
    static let scheme = UIDScheme(namespace: "bench")

    /// What `parse` gives: the id, and whether the scheme derives that very UID.
    struct Read: Equatable {
        var id: Int64
        var isDerived: Bool
        init(_ id: Int64, _ isDerived: Bool) {
            self.id = id
            self.isDerived = isDerived
        }
    }

    static func read(_ uid: String, by scheme: UIDScheme = scheme) -> Read? {
        scheme.parse(uid).map { Read($0.id, $0.isDerived) }
    }

    @Test("the scheme's own UIDs are derived; other namespaces, domains and forms are not")
    func derived() {
        for id: Int64 in [0, 7, -3, 1_234_567_890_123, .max, .min] {
            let uid = Self.scheme.uid(for: id)
            #expect(Self.read(uid) == Read(id, true), "\(uid)")
            let other = UIDScheme(namespace: "other").uid(for: id)
            #expect(Self.read(other) == Read(id, false), "\(other)")
            let elsewhere = UIDScheme(domain: "example.org", namespace: "bench").uid(for: id)
            #expect(Self.read(elsewhere) == Read(id, false))
            // The old form without a tag, and a scheme without a namespace.
            let old = UIDScheme().uid(for: id)
            #expect(Self.read(old) == Read(id, false), "\(old)")
            #expect(Self.read(uid, by: UIDScheme()) == Read(id, false))
        }
        // The tag in capitals is read, but it is not the one this scheme writes.
        let upper = Self.scheme.uid(for: 5).uppercased().replacingOccurrences(
            of: "TASKCAL-", with: "taskcal-")
        #expect(Self.scheme.parse(upper)?.isDerived == false, "\(upper)")
        // A longer domain that begins with this one.
        #expect(Self.scheme.parse(Self.scheme.uid(for: 5) + "x")?.isDerived == false)
    }

    @Test("a domain beyond ASCII is compared as Swift compares text: é precomposed or not")
    func unicodeDomain() {
        let scheme = UIDScheme(domain: "caf\u{E9}.example", namespace: "bench")
        let decomposed = UIDScheme(domain: "cafe\u{301}.example", namespace: "bench")
        #expect(Self.read(scheme.uid(for: 9), by: scheme) == Read(9, true))
        #expect(Self.read(decomposed.uid(for: 9), by: scheme) == Read(9, true))
        #expect(scheme.parse(UIDScheme(domain: "cafe.example").uid(for: 9))?.isDerived == false)
    }

    @Test("what is no UID of taskcal's gives no id")
    func notOurs() {
        for uid in [
            "", "taskcal-", "taskcal-@x", "taskcal-7", "taskcal-7@", "taskcal-07@x", "taskcal--0@x",
            "taskcal-9223372036854775808@x", "taskcal--9223372036854775809@x",
            "taskcal-9999999999999999999@x", "taskcal-7-abc@x", "taskcal-7-0123456789abcdeg@x",
            "TASKCAL-7@x", "event-7@taskcal.invalid", "taskcal-x7@x",
        ] {
            #expect(Self.scheme.parse(uid) == nil, "\(uid)")
        }
    }
}
