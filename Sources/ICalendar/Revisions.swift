/// The revisions in one iCalendar input: components of one kind with the same `UID` (and the
/// same `RECURRENCE-ID`, or none), of which one is the event and the others are superseded.
/// An event and a to-do that share a UID are two things, not two revisions of one.
///
/// A calendar server keeps one object per UID, and RFC 5546 §2.1.5 says which revision wins:
/// the one with the highest `SEQUENCE` (none is 0), then the one with the latest `DTSTAMP`;
/// of revisions alike in both, the first in the file (as recurring-ical-events and calendar
/// apps keep it). A superseded revision read as an event of its own would show every
/// occurrence twice in the app the file goes into.
///
/// Found by a scan of the input's lines before it is read: a revision can come anywhere after
/// the one it supersedes, and the first has to be known as superseded before it is read.
public struct Revisions: Sendable {
    /// One component of a group: where it begins, its `SEQUENCE` and `DTSTAMP`.
    public struct Revision: Sendable, Hashable {
        /// The line of its `BEGIN`.
        public var line: Int
        public var sequence: Int
        /// Its `DTSTAMP` as written (`20240820T210909Z`; compared as text, which orders UTC
        /// times written alike).
        public var stamp: String
    }

    /// The components of one UID (and one `RECURRENCE-ID`, when they change one occurrence).
    public struct Group: Sendable {
        public var uid: String
        /// The `RECURRENCE-ID` as written after its name (parameters and value), or `nil`
        /// for the series (or single event) itself.
        public var recurrenceID: String?
        /// The revision that is the event.
        public var chosen: Revision
        /// The others, in file order.
        public var superseded: [Revision]
    }

    /// Every UID with more than one revision, in the order of their first component.
    public private(set) var groups: [Group] = []
    /// The `BEGIN` lines of the superseded revisions.
    public private(set) var superseded: Set<Int> = []

    /// No revisions.
    public init() {}

    /// The components of a UID found in the input: more than one makes a group.
    private struct Candidates {
        var uid: String
        var recurrenceID: String?
        var revisions: [Revision]
    }

    /// The revisions of the input `lines` give (read to the end). Lines past the reading
    /// limit end the scan; the reader reports them in its turn.
    public static func scan(_ lines: LineSource) -> Revisions {
        var scanner = Scanner()
        var number = 0
        while let range = try? lines.nextLineRange(
            limit: ReadingLimits.lineLength, lineNumber: number + 1)
        {
            number += 1
            lines.withBuffer { scanner.take(UnsafeBufferPointer(rebasing: $0[range]), at: number) }
        }
        return scanner.revisions()
    }

    /// Whether `a` supersedes `b`: a higher `SEQUENCE`, else a later `DTSTAMP`.
    static func supersedes(_ a: Revision, _ b: Revision) -> Bool {
        a.sequence != b.sequence ? a.sequence > b.sequence : a.stamp > b.stamp
    }

    /// The line-by-line state of a scan. It looks at the bytes of a line, and makes text only
    /// of the values it keeps (a UID, a RECURRENCE-ID, a SEQUENCE, a DTSTAMP): most lines of
    /// a calendar are neither, and a scan is a pass over the whole input before it is read.
    private struct Scanner {
        /// How many components are open.
        var depth = 0
        /// Whether the outermost open component is a VCALENDAR (the top-level components are
        /// then the ones inside it).
        var inCalendar = false
        /// The top-level component being read (an event, a to-do, a journal entry).
        var current: Current?
        /// Which property the next continuation line (a folded line) belongs to.
        var folding: WritableKeyPath<Current, String?>?
        /// Where each key's candidates are in `found`, which keeps the order of first sight.
        var places: [Key: Int] = [:]
        var found: [Candidates] = []

        typealias Current = (
            line: Int, kind: String, uid: String?, recurrenceID: String?, sequence: Int,
            stamp: String
        )

        /// What makes components revisions of one another.
        struct Key: Hashable {
            var kind: String
            var uid: String
            var recurrenceID: String?
        }

        mutating func take(_ line: UnsafeBufferPointer<UInt8>, at number: Int) {
            guard let first = line.first else { return }
            if first == 0x20 || first == 0x09 {
                // A folded line continues the value of the property before it.
                if let folding, current != nil {
                    current![keyPath: folding]? += String(decoding: line.dropFirst(), as: UTF8.self)
                }
                return
            }
            folding = nil
            switch first | 0x20 {
            case UInt8(ascii: "b"):
                if let name = Self.value(line, after: "BEGIN") { begin(name, at: number) }
            case UInt8(ascii: "e"):
                if Self.value(line, after: "END") != nil { end() }
            case UInt8(ascii: "u"), UInt8(ascii: "r"), UInt8(ascii: "s"), UInt8(ascii: "d"):
                guard current != nil, depth == topDepth else { return }
                property(line)
            default:
                return
            }
        }

        /// The depth of a top-level component: inside VCALENDAR, or bare.
        var topDepth: Int { inCalendar ? 2 : 1 }

        mutating func begin(_ name: UnsafeBufferPointer<UInt8>, at number: Int) {
            depth += 1
            if depth == 1 { inCalendar = Self.named(name, "VCALENDAR") }
            guard depth == topDepth else { return }
            let kind =
                Self.named(name, "VEVENT")
                ? "VEVENT"
                : Self.named(name, "VTODO")
                    ? "VTODO" : Self.named(name, "VJOURNAL") ? "VJOURNAL" : nil
            if let kind { current = (number, kind, nil, nil, 0, "") }
        }

        mutating func end() {
            if depth == topDepth, let done = current {
                current = nil
                if let uid = done.uid {
                    let key = Key(kind: done.kind, uid: uid, recurrenceID: done.recurrenceID)
                    let revision = Revision(
                        line: done.line, sequence: done.sequence, stamp: done.stamp)
                    // One look-up for a UID seen first (nearly all of them).
                    if let place = places.updateValue(found.count, forKey: key) {
                        places[key] = place
                        found[place].revisions.append(revision)
                    } else {
                        found.append(
                            Candidates(
                                uid: uid, recurrenceID: done.recurrenceID, revisions: [revision]))
                    }
                }
            }
            if depth > 0 { depth -= 1 }
        }

        mutating func property(_ line: UnsafeBufferPointer<UInt8>) {
            if let uid = Self.value(line, after: "UID") {
                current!.uid = Self.text(uid)
                folding = \.uid
            } else if let id = Self.rest(line, after: "RECURRENCE-ID") {
                current!.recurrenceID = Self.text(id)
                folding = \.recurrenceID
            } else if let sequence = Self.value(line, after: "SEQUENCE") {
                current!.sequence = Int(Self.text(sequence).trimmedOfBlanks()) ?? 0
            } else if let stamp = Self.value(line, after: "DTSTAMP") {
                current!.stamp = Self.text(stamp)
            }
        }

        static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
            String(decoding: bytes, as: UTF8.self)
        }

        /// Whether `name` is `expected` (upper case), in any case.
        static func named(_ name: UnsafeBufferPointer<UInt8>, _ expected: StaticString) -> Bool {
            guard name.count == expected.utf8CodeUnitCount else { return false }
            for index in 0..<name.count {
                let byte = name[index]
                let upper =
                    byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
                if upper != expected.utf8Start[index] { return false }
            }
            return true
        }

        /// The value of a line `NAME:value` or `NAME;params:value` (case aside), or `nil`
        /// when the line is another property.
        static func value(_ line: UnsafeBufferPointer<UInt8>, after name: StaticString)
            -> UnsafeBufferPointer<UInt8>?
        {
            guard let rest = rest(line, after: name),
                let colon = rest.firstIndex(of: UInt8(ascii: ":"))
            else { return nil }
            return UnsafeBufferPointer(rebasing: rest[(colon + 1)...])
        }

        /// What follows the name `name` on a line of that property, parameters and value.
        static func rest(_ line: UnsafeBufferPointer<UInt8>, after name: StaticString)
            -> UnsafeBufferPointer<UInt8>?
        {
            let count = name.utf8CodeUnitCount
            guard line.count > count else { return nil }
            for index in 0..<count where line[index] | 0x20 != name.utf8Start[index] | 0x20 {
                return nil
            }
            let next = line[count]
            guard next == UInt8(ascii: ":") || next == UInt8(ascii: ";") else { return nil }
            return UnsafeBufferPointer(rebasing: line[count...])
        }

        func revisions() -> Revisions {
            var result = Revisions()
            for found in found where found.revisions.count > 1 {
                var chosen = found.revisions[0]
                for revision in found.revisions.dropFirst()
                where Revisions.supersedes(revision, chosen) {
                    chosen = revision
                }
                let others = found.revisions.filter { $0.line != chosen.line }
                result.groups.append(
                    Group(
                        uid: found.uid, recurrenceID: found.recurrenceID, chosen: chosen,
                        superseded: others))
                result.superseded.formUnion(others.map(\.line))
            }
            return result
        }
    }
}

extension String {
    /// The text without the spaces and tabs at its ends.
    fileprivate func trimmedOfBlanks() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
