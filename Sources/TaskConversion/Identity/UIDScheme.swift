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
    public var namespace: String? {
        didSet { if namespace != oldValue { tag = namespace.map(Self.hash) } }
    }
    /// The namespace's tag in UIDs: 16 hex digits of its FNV-1a hash (worked out when the
    /// namespace is set, not for every UID).
    private(set) var tag: String?

    /// The default domain, `taskcal.invalid`.
    public static let defaultDomain = "taskcal.invalid"

    /// Creates a scheme.
    public init(domain: String = UIDScheme.defaultDomain, namespace: String? = nil) {
        self.domain = domain
        self.namespace = namespace
        self.tag = namespace.map(Self.hash)
    }

    /// The default namespace of records read from `path`: its file name without extension
    /// (`-` is `standard input`).
    public static func defaultNamespace(forFile path: String) -> String {
        guard path != "-" else { return "standard input" }
        var name = (path as NSString).lastPathComponent
        for suffix in [
            ".jscal.json", ".json", ".ndjson", ".jsonl", ".ics", ".ical", ".icalendar", ".jcal",
            ".jscal",
        ]
        where name.lowercased().hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
            break
        }
        return name
    }

    /// The UID for `id`.
    public func uid(for id: Int64) -> String {
        // Written byte by byte into one String: every record written asks for its UID, and
        // interpolation appended five times.
        let number = String(id)
        let count =
            8 + number.utf8.count + (tag.map { $0.utf8.count + 1 } ?? 0) + 1 + domain.utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            Self.put("taskcal-", into: buffer, at: &index)
            Self.put(number, into: buffer, at: &index)
            if let tag {
                Self.put("-", into: buffer, at: &index)
                Self.put(tag, into: buffer, at: &index)
            }
            Self.put("@", into: buffer, at: &index)
            Self.put(domain, into: buffer, at: &index)
            return index
        }
    }

    private static func put(
        _ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: inout Int
    ) {
        func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            precondition(index + bytes.count <= buffer.count)
            (buffer.baseAddress! + index).update(from: source, count: bytes.count)
            index += bytes.count
        }
        // A native string lends its bytes as it is; `withUTF8` would need a copy of it to
        // mutate (a retain and a release for each of the three parts of every UID).
        if text.utf8.withContiguousStorageIfAvailable(copy) == nil {
            var text = text
            text.withUTF8(copy)
        }
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
    ///
    /// Read on the UTF-8 bytes: every record read asks this of its UID.
    public func parse(_ uid: String) -> Parsed? {
        var text = uid
        return text.withUTF8 { bytes in parse(uid, bytes: bytes) }
    }

    private func parse(_ uid: String, bytes: UnsafeBufferPointer<UInt8>) -> Parsed? {
        let prefix = Self.prefix.count
        guard bytes.count > prefix,
            Self.prefix.withUnsafeBufferPointer({
                memcmp(bytes.baseAddress!, $0.baseAddress!, prefix)
            })
                == 0,
            let at = bytes.firstIndex(of: UInt8(ascii: "@")), at >= prefix, at + 1 < bytes.count
        else { return nil }
        var numberEnd = at
        if let dash = bytes[prefix..<at].lastIndex(of: UInt8(ascii: "-")), dash != prefix {
            let hex = bytes[(dash + 1)..<at]
            guard hex.count == 16, hex.allSatisfy({ Self.isHexDigit($0) }) else { return nil }
            numberEnd = dash
        }
        let number = bytes[prefix..<numberEnd]
        // Digits with an optional minus and no leading zero: the id as String(id) writes it.
        let digits = number.first == UInt8(ascii: "-") ? number.dropFirst() : number[...]
        guard !digits.isEmpty, digits.count <= 19,
            digits.allSatisfy({ (0x30...0x39).contains($0) }),
            digits.first != UInt8(ascii: "0") || digits.count == 1,
            !(number.first == UInt8(ascii: "-") && digits.elementsEqual([UInt8(ascii: "0")])),
            let id = Self.id(digits, negative: number.first == UInt8(ascii: "-"))
        else { return nil }
        guard namespace != nil, let tag else { return Parsed(id: id, isDerived: false) }
        // Derived when the tag and the domain are this scheme's (the number is `id` as
        // `uid(for:)` writes it, checked above): compared on the bytes, without making the
        // UID again (every record read asks this).
        let tagMatches = numberEnd != at && Self.equal(bytes[(numberEnd + 1)..<at], tag)
        let rest = bytes[(at + 1)...]
        var isDerived = tagMatches && Self.equal(rest, domain)
        if tagMatches && !isDerived
            && (rest.contains { $0 >= 0x80 } || !domain.utf8.allSatisfy { $0 < 0x80 })
        {
            // A domain beyond ASCII: String's == (canonical equivalence) decides, as before.
            isDerived = uid == self.uid(for: id)
        }
        return Parsed(id: id, isDerived: isDerived)
    }

    /// The id written by `digits` (at most 19, checked), `nil` past `Int64`'s range. (Read
    /// in place: a String made of them for `Int64.init` was a fifth of a parse, and every
    /// record read is parsed.)
    private static func id(_ digits: Slice<UnsafeBufferPointer<UInt8>>, negative: Bool) -> Int64? {
        var magnitude: UInt64 = 0  // 19 digits stay below UInt64.max
        for digit in digits { magnitude = magnitude * 10 + UInt64(digit &- 0x30) }
        let limit = UInt64(Int64.max) + (negative ? 1 : 0)
        guard magnitude <= limit else { return nil }
        return negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
    }

    /// Whether `bytes` are `text`'s UTF-8 (`memcmp`: `elementsEqual` walked both generically).
    private static func equal(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { expected in
            expected.count == bytes.count
                && (expected.isEmpty
                    || memcmp(
                        expected.baseAddress!, bytes.base.baseAddress! + bytes.startIndex,
                        expected.count) == 0)
        } ?? bytes.elementsEqual(text.utf8)
    }

    /// What every UID taskcal makes begins with.
    private static let prefix = Array("taskcal-".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
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
