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

    /// The revisions of the input `lines` give (read to the end). Lines past the reading
    /// limit end the scan; the reader reports them in its turn.
    public static func scan(_ lines: LineSource) -> Revisions {
        scan(lines, hashMask: ~0)
    }

    /// ``scan(_:)`` with the keys' hashes cut to `hashMask` (tests make them collide).
    package static func scan(_ lines: LineSource, hashMask: Int) -> Revisions {
        var scanner = Scanner(hashMask: hashMask)
        var number = 0
        while true {
            // The lines in the buffer in one go; then one more, which reads the next block.
            _ = lines.takeBufferedLines(limit: ReadingLimits.lineLength) { line in
                number += 1
                scanner.look(at: line, number: number)
            }
            guard
                let range = try? lines.nextLineRange(
                    limit: ReadingLimits.lineLength, lineNumber: number + 1)
            else { break }
            number += 1
            lines.withBuffer {
                scanner.look(at: UnsafeBufferPointer(rebasing: $0[range]), number: number)
            }
        }
        return scanner.revisions()
    }

    /// Whether `a` supersedes `b`: a higher `SEQUENCE`, else a later `DTSTAMP`.
    static func supersedes(_ a: Revision, _ b: Revision) -> Bool {
        a.sequence != b.sequence ? a.sequence > b.sequence : a.stamp > b.stamp
    }

    /// The line-by-line state of a scan. It looks at the bytes of a line and keeps bytes: the
    /// values of every component (its UID, RECURRENCE-ID and DTSTAMP) one after another in one
    /// array, found again by a hash of the key. Text is made only for the components of a
    /// group, a few of a file or none. (The scan is a pass over the whole input before it is
    /// read; a dictionary keyed by strings, and a string and an array made per component,
    /// were a seventh of a one-core .ics conversion.)
    ///
    /// UIDs are compared as bytes, as calendar servers and recurring-ical-events compare them.
    fileprivate struct Scanner {
        /// How many components are open.
        var depth = 0
        /// Whether the outermost open component is a VCALENDAR (the top-level components are
        /// then the ones inside it).
        var inCalendar = false
        /// The top-level component being read (an event, a to-do, a journal entry).
        var current: Current?
        /// The current component's values, in buffers kept from one component to the next.
        var uid: [UInt8] = []
        var recurrenceID: [UInt8] = []
        var stamp: [UInt8] = []
        /// Which value the next continuation line (a folded line) belongs to.
        var folding: Folding?
        /// Every component with a UID, in file order.
        var seen: [Seen] = []
        /// The values of ``seen``, one component's after another's.
        var values: [UInt8] = []
        /// The first component of each key, by the key's hash.
        var firsts: [Int: Int] = [:]
        /// The bits of a hash kept.
        let hashMask: Int

        init(hashMask: Int) { self.hashMask = hashMask }

        enum Folding { case uid, recurrenceID }

        struct Current {
            var line: Int
            var kind: UInt8
            var hasUID = false
            var hasRecurrenceID = false
            var sequence = 0
        }

        /// A component with a UID, its values in ``values`` from `start`: the UID, then the
        /// RECURRENCE-ID (`recurrenceIDCount` is -1 without one), then the DTSTAMP.
        struct Seen {
            var line: Int
            var sequence: Int
            var start: Int
            var uidCount: Int32
            var recurrenceIDCount: Int32
            var stampCount: Int32
            var kind: UInt8
            /// Whether it is the first of its key; the first keeps the last (`tail`).
            var isFirst = false
            /// The next component of the same key, and (on a first) the first of another key
            /// whose hash is the same; -1 for none.
            var next = -1
            var otherKey = -1
            var tail = -1
        }

        /// Whether a line beginning with `first` can matter: BEGIN, END, a property the scan
        /// keeps (UID, RECURRENCE-ID, SEQUENCE, DTSTAMP) or a continuation.
        static func mayTake(_ first: UInt8) -> Bool {
            switch first | 0x20 {
            case UInt8(ascii: "b"), UInt8(ascii: "e"), UInt8(ascii: "u"), UInt8(ascii: "r"),
                UInt8(ascii: "s"), UInt8(ascii: "d"), 0x20, 0x09 | 0x20:
                return true
            default:
                return false
            }
        }

        /// Takes line `number` in, deciding on its first byte whether it can matter.
        mutating func look(at line: UnsafeBufferPointer<UInt8>, number: Int) {
            guard let first = line.first else { return }
            guard Self.mayTake(first) else {
                folding = nil
                return
            }
            take(line, at: number)
        }

        mutating func take(_ line: UnsafeBufferPointer<UInt8>, at number: Int) {
            guard let first = line.first else { return }
            if first == 0x20 || first == 0x09 {
                // A folded line continues the value of the property before it.
                guard current != nil else { return }
                switch folding {
                case .uid?: uid.append(contentsOf: line.dropFirst())
                case .recurrenceID?: recurrenceID.append(contentsOf: line.dropFirst())
                case nil: break
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
            let kind: UInt8? =
                Self.named(name, "VEVENT")
                ? 1 : Self.named(name, "VTODO") ? 2 : Self.named(name, "VJOURNAL") ? 3 : nil
            guard let kind else { return }
            current = Current(line: number, kind: kind)
            stamp.removeAll(keepingCapacity: true)
        }

        mutating func end() {
            if depth == topDepth, let done = current {
                current = nil
                if done.hasUID { keep(done) }
            }
            if depth > 0 { depth -= 1 }
        }

        /// Files a component away under its key: the first of the key, or the next of one.
        mutating func keep(_ done: Current) {
            var hasher = Hasher()
            hasher.combine(done.kind)
            uid.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(done.hasRecurrenceID)
            if done.hasRecurrenceID { recurrenceID.withUnsafeBytes { hasher.combine(bytes: $0) } }
            let hash = hasher.finalize() & hashMask
            let index = seen.count
            seen.append(
                Seen(
                    line: done.line, sequence: done.sequence, start: values.count,
                    uidCount: Int32(uid.count),
                    recurrenceIDCount: done.hasRecurrenceID ? Int32(recurrenceID.count) : -1,
                    stampCount: Int32(stamp.count), kind: done.kind))
            values.append(contentsOf: uid)
            if done.hasRecurrenceID { values.append(contentsOf: recurrenceID) }
            values.append(contentsOf: stamp)
            // One look-up for a key seen first (nearly all of them).
            guard var first = firsts.updateValue(index, forKey: hash) else {
                seen[index].isFirst = true
                seen[index].tail = index
                return
            }
            firsts[hash] = first
            while !sameKey(first, index) {
                guard seen[first].otherKey >= 0 else {
                    // Another key with the same hash: a first of its own.
                    seen[first].otherKey = index
                    seen[index].isFirst = true
                    seen[index].tail = index
                    return
                }
                first = seen[first].otherKey
            }
            seen[seen[first].tail].next = index
            seen[first].tail = index
        }

        /// Whether two seen components have one key: kind, UID and RECURRENCE-ID.
        func sameKey(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (seen[a], seen[b])
            guard x.kind == y.kind, x.uidCount == y.uidCount,
                x.recurrenceIDCount == y.recurrenceIDCount
            else { return false }
            let length = Int(x.uidCount) + max(0, Int(x.recurrenceIDCount))
            return values[x.start..<x.start + length].elementsEqual(
                values[y.start..<y.start + length])
        }

        mutating func property(_ line: UnsafeBufferPointer<UInt8>) {
            if let value = Self.value(line, after: "UID") {
                uid.removeAll(keepingCapacity: true)
                uid.append(contentsOf: value)
                current!.hasUID = true
                folding = .uid
            } else if let id = Self.rest(line, after: "RECURRENCE-ID") {
                recurrenceID.removeAll(keepingCapacity: true)
                recurrenceID.append(contentsOf: id)
                current!.hasRecurrenceID = true
                folding = .recurrenceID
            } else if let sequence = Self.value(line, after: "SEQUENCE") {
                current!.sequence = Int(Self.text(sequence).trimmedOfBlanks()) ?? 0
            } else if let value = Self.value(line, after: "DTSTAMP") {
                stamp.removeAll(keepingCapacity: true)
                stamp.append(contentsOf: value)
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

        /// A seen component as a revision, its stamp made text.
        func revision(_ index: Int) -> Revision {
            let component = seen[index]
            let stampStart =
                component.start + Int(component.uidCount)
                + max(0, Int(component.recurrenceIDCount))
            let stamp = values[stampStart..<stampStart + Int(component.stampCount)]
            return Revision(
                line: component.line, sequence: component.sequence,
                stamp: String(decoding: stamp, as: UTF8.self))
        }

        func revisions() -> Revisions {
            var result = Revisions()
            for index in seen.indices where seen[index].isFirst && seen[index].next >= 0 {
                var revisions = [revision(index)]
                var next = seen[index].next
                while next >= 0 {
                    revisions.append(revision(next))
                    next = seen[next].next
                }
                var chosen = revisions[0]
                for revision in revisions.dropFirst() where Revisions.supersedes(revision, chosen) {
                    chosen = revision
                }
                let others = revisions.filter { $0.line != chosen.line }
                let first = seen[index]
                let uidEnd = first.start + Int(first.uidCount)
                result.groups.append(
                    Group(
                        uid: String(decoding: values[first.start..<uidEnd], as: UTF8.self),
                        recurrenceID: first.recurrenceIDCount < 0
                            ? nil
                            : String(
                                decoding: values[uidEnd..<uidEnd + Int(first.recurrenceIDCount)],
                                as: UTF8.self),
                        chosen: chosen, superseded: others))
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
