import Foundation

/// How a record's `id` becomes an iCalendar `UID` and back.
///
/// RFC 5545 asks for UIDs that are unique everywhere, and calendar apps replace an event by
/// another with the same UID: two task files that both have an id 7 must not give the same
/// UID. So a UID carries a namespace, a 64-bit hash of something that identifies where the
/// records come from: `taskcal-7-3f2a9c1d0b8e4a71@taskcal.invalid`.
///
/// - `convert` uses the input file's name without its extension (`tasks` for `tasks.json`;
///   in batch mode its path inside the input folder, `alice/tasks`) unless `--uid-namespace`
///   names one (a project name, an email address, a UUID): the same file gives the same UIDs
///   every time, wherever it lies, so a calendar app updates its events instead of
///   duplicating them; and `tasks.ics` written from `tasks.json` reads back to the same
///   records. Give a namespace to keep UIDs when files are renamed, or when two files of one
///   name in different folders go to one calendar.
/// - The diary uses its own identity, a random UUID made when the store is created.
/// - `--uid-domain` sets the part after `@` (default `taskcal.invalid`, reserved as
///   never-real by RFC 6761).
///
/// Reading back, any `taskcal-ID-HASH@DOMAIN` (and the old `taskcal-ID@DOMAIN` of earlier
/// versions) gives its id. The record keeps the UID in `uid` unless this scheme derives the
/// very same one, so a UID once given never changes.
public struct UIDScheme: Sendable, Hashable {
    /// The part after `@`.
    public var domain: String
    /// What the UIDs are unique to, as given; `nil` writes the old form `taskcal-ID@DOMAIN`.
    public var namespace: String?

    /// The default domain, `taskcal.invalid`.
    public static let defaultDomain = "taskcal.invalid"

    /// Creates a scheme.
    public init(domain: String = UIDScheme.defaultDomain, namespace: String? = nil) {
        self.domain = domain
        self.namespace = namespace
    }

    /// The default namespace of records read from `path`: its file name without extension
    /// (`-` is `standard input`).
    public static func defaultNamespace(forFile path: String) -> String {
        guard path != "-" else { return "standard input" }
        var name = (path as NSString).lastPathComponent
        for suffix in [".json", ".ndjson", ".jsonl", ".ics", ".ical", ".icalendar"]
        where name.lowercased().hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
            break
        }
        return name
    }

    /// The namespace's tag in UIDs: 16 hex digits of its FNV-1a hash.
    var tag: String? {
        namespace.map { Self.hash($0) }
    }

    /// The UID for `id`.
    public func uid(for id: Int64) -> String {
        if let tag { return "taskcal-\(id)-\(tag)@\(domain)" }
        return "taskcal-\(id)@\(domain)"
    }

    /// What a UID says.
    public struct Parsed: Sendable, Hashable {
        /// The record id it carries.
        public var id: Int64
        /// True when this scheme derives exactly this UID from the id: the record needs no
        /// `uid` of its own.
        public var isDerived: Bool
    }

    /// The id of a UID taskcal made (with any namespace and domain), or `nil` for others.
    public func parse(_ uid: String) -> Parsed? {
        guard uid.hasPrefix("taskcal-"), let at = uid.firstIndex(of: "@") else { return nil }
        let local = uid[uid.index(uid.startIndex, offsetBy: 8)..<at]
        let domain = uid[uid.index(after: at)...]
        guard !domain.isEmpty else { return nil }
        var number = local
        if let dash = local.lastIndex(of: "-"), dash != local.startIndex {
            let hex = local[local.index(after: dash)...]
            guard hex.count == 16, hex.allSatisfy(\.isHexDigit) else { return nil }
            number = local[..<dash]
        }
        guard let id = Int64(number), String(id) == number else { return nil }
        return Parsed(id: id, isDerived: namespace != nil && uid == self.uid(for: id))
    }

    /// FNV-1a, 64 bits, as 16 lower-case hex digits: stable across runs and machines (unlike
    /// Swift's `Hasher`).
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
