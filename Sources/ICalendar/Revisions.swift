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
    ///
    /// Two passes when the input can be read again (a file, bytes): the first keeps only a
    /// hash of each component's key (kind, UID, RECURRENCE-ID) and notes the hashes met
    /// twice; only when there are any, the second reads those components whole and groups
    /// them by their keys, compared as text. A file without revisions, most of them, costs
    /// one pass and a table of hashes (a million events: 16 MB; keeping every key as text
    /// was 126 MB and a tenth of the conversion's time).
    public static func scan(_ lines: LineSource) -> Revisions {
        scan(lines, hashMask: ~0)
    }

    /// ``scan(_:)`` with the keys' hashes cut to `hashMask` (tests make them collide).
    package static func scan(_ lines: LineSource, hashMask: Int) -> Revisions {
        guard lines.canRewind else {
            // A pipe gives its bytes once: every component is kept whole in one pass.
            var scanner = Scanner(mode: .whole(nil), hashMask: hashMask)
            read(lines, into: &scanner)
            return scanner.revisions()
        }
        var hashes = Scanner(mode: .hashes, hashMask: hashMask)
        read(lines, into: &hashes)
        // (A rewind fails only if seeking the file that could seek a moment ago fails.)
        guard !hashes.repeated.isEmpty, lines.rewind() else { return Revisions() }
        var scanner = Scanner(mode: .whole(hashes.repeated), hashMask: hashMask)
        read(lines, into: &scanner)
        return scanner.revisions()
    }

    /// Hands every line of `lines` to `scanner`, with its number.
    private static func read(_ lines: LineSource, into scanner: inout Scanner) {
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
    }

    /// Whether `a` supersedes `b`: a higher `SEQUENCE`, else a later `DTSTAMP`.
    static func supersedes(_ a: Revision, _ b: Revision) -> Bool {
        a.sequence != b.sequence ? a.sequence > b.sequence : a.stamp > b.stamp
    }

    /// The line-by-line state of a pass. It looks at the bytes of a line, and keeps bytes of
    /// the values of the component being read (its UID, RECURRENCE-ID and DTSTAMP) in
    /// buffers used again for the next; text is made only for components kept whole.
    ///
    /// UIDs are compared as bytes, as calendar servers and recurring-ical-events compare them.
    fileprivate struct Scanner {
        enum Mode {
            /// Only the hashes of the keys, and which came twice (``repeated``).
            case hashes
            /// The components whose key's hash is in the set (`nil`: all of them) kept whole.
            case whole(Set<Int>?)
        }
        let mode: Mode
        /// The bits of a hash kept.
        let hashMask: Int

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

        /// The hashes seen (``Mode/hashes``), and those seen more than once.
        var seen = HashSet()
        var repeated: Set<Int> = []

        /// Where each key's candidates are in `found`, which keeps the order of first sight
        /// (``Mode/whole``).
        var places: [Key: Int] = [:]
        var found: [Candidates] = []

        init(mode: Mode, hashMask: Int) {
            self.mode = mode
            self.hashMask = hashMask
        }

        enum Folding { case uid, recurrenceID }

        struct Current {
            var line: Int
            var kind: UInt8
            var hasUID = false
            var hasRecurrenceID = false
            var sequence = 0
        }

        /// What makes components revisions of one another.
        struct Key: Hashable {
            var kind: UInt8
            var uid: [UInt8]
            var recurrenceID: [UInt8]?
        }

        /// The components of a key kept whole: more than one makes a group.
        struct Candidates {
            var key: Key
            var revisions: [Revision]
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
            take(line, first: first, at: number)
        }

        /// Takes a line beginning with `first` that can matter.
        mutating func take(_ line: UnsafeBufferPointer<UInt8>, first: UInt8, at number: Int) {
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

        /// The hash of the current component's key (seeded anew in each process).
        func keyHash(_ done: Current) -> Int {
            var hasher = Hasher()
            hasher.combine(done.kind)
            uid.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(done.hasRecurrenceID)
            if done.hasRecurrenceID { recurrenceID.withUnsafeBytes { hasher.combine(bytes: $0) } }
            return hasher.finalize() & hashMask
        }

        /// Notes a finished component: its hash, or the component whole.
        mutating func keep(_ done: Current) {
            switch mode {
            case .hashes:
                let hash = keyHash(done)
                if !seen.insert(hash) { repeated.insert(hash) }
            case .whole(let chosen):
                // Every component when there is no choice (a pipe): no hash needed.
                if let chosen, !chosen.contains(keyHash(done)) { return }
                let key = Key(
                    kind: done.kind, uid: uid,
                    recurrenceID: done.hasRecurrenceID ? recurrenceID : nil)
                let revision = Revision(
                    line: done.line, sequence: done.sequence,
                    stamp: String(decoding: stamp, as: UTF8.self))
                // One look-up for a key seen first.
                if let place = places.updateValue(found.count, forKey: key) {
                    places[key] = place
                    found[place].revisions.append(revision)
                } else {
                    found.append(Candidates(key: key, revisions: [revision]))
                }
            }
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
            } else if case .hashes = mode {
                // The order of revisions is read only of the components kept whole.
                return
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
                        uid: String(decoding: found.key.uid, as: UTF8.self),
                        recurrenceID: found.key.recurrenceID.map {
                            String(decoding: $0, as: UTF8.self)
                        },
                        chosen: chosen, superseded: others))
                result.superseded.formUnion(others.map(\.line))
            }
            return result
        }
    }

    /// A set of hashes in one array (open addressing, at most half full): a million
    /// components' take 16 MB, and a look-up is one place in memory, not the three of a
    /// dictionary.
    fileprivate struct HashSet {
        /// 0 is a free place (a hash of 0 is kept as 1: two hashes taken for one make one
        /// more component read whole, never a wrong group).
        private var places = [Int](repeating: 0, count: 1 << 10)
        private var count = 0

        /// Adds `hash`; false when it was there.
        mutating func insert(_ hash: Int) -> Bool {
            if (count + 1) * 2 > places.count { grow() }
            let added = places.withUnsafeMutableBufferPointer {
                Self.insert(hash == 0 ? 1 : hash, into: $0)
            }
            if added { count += 1 }
            return added
        }

        private static func insert(_ value: Int, into places: UnsafeMutableBufferPointer<Int>)
            -> Bool
        {
            let mask = places.count - 1
            var index = value & mask
            while places[index] != 0 {
                if places[index] == value { return false }
                index = (index + 1) & mask
            }
            places[index] = value
            return true
        }

        private mutating func grow() {
            var larger = [Int](repeating: 0, count: places.count * 2)
            larger.withUnsafeMutableBufferPointer { larger in
                for value in places where value != 0 { _ = Self.insert(value, into: larger) }
            }
            places = larger
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
