import CLibical
import Glibc

/// Reads an iCalendar stream one top-level component at a time.
///
/// libical's own whole-text parser has three traps this reader closes (see the project's
/// LIBICAL-NOTES): `icalparser_parse_string` is quadratic on long lines, a tree of the whole
/// file is about eight times the file's size, and the recursive free and serialize overflow
/// the stack on deeply nested `BEGIN`s. So the reader splits the text into lines itself
/// (bounded length, bounded nesting, UTF-8 checked, NUL refused), unfolds them, and hands
/// each content line to `icalparser_add_line`, skipping the `VCALENDAR` wrapper so that every
/// `VEVENT` comes back as soon as its `END` arrives. `VTIMEZONE`s are kept in a holder
/// calendar for the rest of the stream, so `TZID`s resolve through them.
///
/// Memory stays flat: one component at a time, plus the time zones.
public final class ICalendarReader {
    /// One top-level component, or the reasons it could not be read.
    public enum Item {
        /// A component read without errors, attached to the reader's time zones until the
        /// next call to ``ICalendarReader/next()``.
        case component(Component)
        /// A component with errors: its kind, its `BEGIN` line and what is wrong.
        case failed(ComponentKind, line: Int, errors: [ICalendarError])
        /// A top-level component kept as its lines (with
        /// ``ICalendarReader/interpretedProperties`` set): one libical does not interpret
        /// here, such as `VFREEBUSY` or an `X-` component.
        case verbatim(RawComponent)
    }

    /// The longest physical line accepted: RFC 5545 folds at 75 octets, but some exporters
    /// write an inline attachment as one unfolded line; lines are read in linear time.
    public var maximumLineLength = ReadingLimits.lineLength
    /// The longest unfolded content line accepted (a folded inline attachment).
    public var maximumContentLineLength = ReadingLimits.lineLength
    /// The deepest `BEGIN` nesting accepted (VCALENDAR › VEVENT › VALARM is 3).
    public var maximumDepth = ReadingLimits.depth

    /// The properties libical reads in events, to-dos, journals and alarms; `nil` (the
    /// default) gives libical every line. The others are kept as written
    /// (``Component/verbatimLines``) and never reach libical, which cannot keep all of them
    /// (it drops unknown parameters and refuses values of later RFCs). Setting this also
    /// keeps subcomponents other than `VALARM` (and top-level ones other than events,
    /// to-dos, journals and zones) as their lines. Time zones are always read whole.
    public var interpretedProperties: Set<String>? {
        didSet { nameFacts = NameTable() }
    }

    /// What the reader asks of a name as written (`DTSTART`, ` vevent`), answered once per
    /// spelling: each line asked it of four sets, and hashing the names cost 3% of reading
    /// an .ics; making the upper-cased String of each line's name, 2% more.
    struct NameFacts {
        /// The name upper-cased, without blanks at its edges (``upperName(_:)``).
        var name: String
        /// Given to libical (``interpretedProperties``), outside time zones.
        var interpreted: Bool
        /// A name libical's parser refuses the component for: not `X-`, not one it knows.
        var unknownToLibical: Bool
        /// A TEXT property whose edge whitespace libical would lose.
        var text: Bool
        /// The name holds a control character (`END\r`): no content line, and libical reads
        /// it as another name than taskcal does (`END\r:X` closes a component to libical).
        var control: Bool
    }
    /// Keyed by the bytes as written.
    @exclusivity(unchecked) private var nameFacts = NameTable<NameFacts>()

    /// The facts of the name written as `line[range]` (a property's name, or the component
    /// name after `BEGIN:` or `END:`).
    func facts(ofNameIn line: [UInt8], _ range: Range<Int>) -> NameFacts {
        line.withUnsafeBufferPointer { buffer in
            let written = UnsafeBufferPointer(rebasing: buffer[range])
            if let known = nameFacts[bytes: written] { return known }
            let name = Self.upperName(line[range])
            let plainName = name.utf8.allSatisfy {
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0)
            }
            let facts = NameFacts(
                name: name,
                interpreted: interpretedProperties?.contains(name) ?? true,
                unknownToLibical: !name.isEmpty && !name.hasPrefix("X-") && plainName
                    && !PropertyKinds.isKnown(name),
                text: EdgeWhitespace.textProperties.contains(name),
                control: written.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
            // Bounded: a file of made-up names (each line a new X- name) is not remembered.
            if nameFacts.count < 512 { nameFacts[bytes: written] = facts }
            return facts
        }
    }

    /// Calendar-level properties seen so far (`X-WR-TIMEZONE`, `METHOD` …), upper-cased
    /// names to raw values; the first of each name.
    public internal(set) var calendarProperties: [String: String] = [:]
    /// Every calendar-level line in file order, as written (all `VCALENDAR`s).
    public internal(set) var calendarLines: [RawLine] = []
    /// Things the reader left out or repaired and why, with their lines; taken with
    /// ``takeNotes()``.
    private var notes: [Note] = []

    /// Something the reader left out, repaired or read past, and where.
    public struct Note: Sendable, Hashable {
        /// What kind of thing it is.
        public enum Kind: Sendable, Hashable {
            /// A property with no value (`RRULE:`): it says nothing.
            case emptyValue
            /// A value read for its obvious intent (`TRIGGER:PT-2H`).
            case repairedValue
            /// A line another libical program left (`X-LIC-ERROR`), or one libical cannot read.
            case leftOut
            /// Damage to the structure read past: an `END` that closes another component,
            /// a missing `END`, a line outside the calendar (errors when ``strict``).
            case structure
        }
        public var line: Int
        public var message: String
        public var kind: Kind
    }

    /// The notes since the last call.
    public func takeNotes() -> [Note] {
        defer { notes = [] }
        return notes
    }

    func note(_ line: Int, _ message: String, _ kind: Note.Kind) {
        notes.append(Note(line: line, message: message, kind: kind))
    }

    /// Refuse damage to the structure (a mismatched or missing `END`, lines outside the
    /// calendar) instead of reading past it with a note.
    public var strict = false
    /// The `BEGIN` lines of top-level components to keep whole as written, not read: the
    /// revisions a later one supersedes (``Revisions``). They come out as
    /// ``Item/verbatim(_:)``.
    public var keptWhole: Set<Int> = []
    /// Require a `VCALENDAR` around the components (false for bare components the program
    /// itself hands over: batches of a large file, zone definitions).
    public var requiresCalendar = true
    /// How many `VCALENDAR`s have begun.
    public internal(set) var calendarCount = 0

    // The state below is read and changed for every line. As stored properties of a class,
    // each access was checked for exclusivity at run time (a look-up in the thread's set of
    // accesses): about 5% of reading an .ics (issue 13). `@exclusivity(unchecked)` leaves
    // the compile-time checks only. That is sound here: the properties are private, a reader
    // is used by one thread at a time (it is not Sendable), and no access to one of them
    // runs while another access to the same one is open (no closure or callee that reaches
    // the reader while one of them is being changed).

    private let source: LineSource
    /// Physical lines into content lines.
    @exclusivity(unchecked) var unfolder = Unfolder()
    private var finished = false

    @exclusivity(unchecked) var parser: OpaquePointer
    let holder: Component
    @exclusivity(unchecked) var current: Component?

    /// Open components: name and the line of its `BEGIN`.
    @exclusivity(unchecked) var stack: [OpenComponent] = []

    /// A component whose `BEGIN` was read. This, and ``FedLine``, are structs, not tuples:
    /// arrays of tuples are copied and destroyed by the runtime walking the tuple's layout.
    struct OpenComponent {
        var name: String
        var line: Int
    }
    @exclusivity(unchecked) var lineMaps: [LineMap] = []
    /// Every line given to libical for the top-level component being read, with the name
    /// of the component it belongs to: to rebuild the component without a line libical
    /// rejected.
    @exclusivity(unchecked) var fed: [FedLine] = []

    /// A line given to libical.
    struct FedLine {
        var bytes: [UInt8]
        var line: Int
        /// The name of the component it belongs to.
        var component: String
        var isProperty: Bool
    }
    /// A component being kept as its lines, and how deep inside it the reader is.
    @exclusivity(unchecked) var capture: (component: RawComponent, depth: Int)?
    /// The line map of the top-level component being read.
    @exclusivity(unchecked) var currentTop: LineMap?
    var sawAnyComponent = false
    /// A calendar component came without a `VCALENDAR` around it.
    var sawBareComponent = false
    /// The components a calendar holds, which may stand without their `VCALENDAR`.
    static let calendarComponents: Set<String> = [
        "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY",
    ]

    /// Reads the file at `path`; `-` is standard input.
    public convenience init(path: String) throws(ICalendarError) {
        self.init(source: try LineSource(path: path))
    }

    /// Reads `bytes`, whose first line is line `firstLine` of a larger file (for messages).
    public convenience init(bytes: [UInt8], firstLine: Int = 1) {
        self.init(source: LineSource(bytes: bytes))
        unfolder.lineNumber = firstLine - 1
    }

    /// Parses the `VTIMEZONE`s in `bytes` (a calendar or bare components) and keeps them for
    /// this reader's `TZID` look-ups, as if they had come earlier in its own stream. Zones
    /// with a `TZID` this reader already has are not added again.
    public func addTimeZones(from bytes: [UInt8]) throws(ICalendarError) {
        let other = ICalendarReader(bytes: bytes)
        other.requiresCalendar = false
        other.maximumLineLength = maximumLineLength
        other.maximumDepth = maximumDepth
        while try other.next() != nil {}
        let known = Set(timeZoneIDs)
        for zone in other.holder.subcomponents(ofKind: .timeZone) {
            other.holder.remove(zone)
            if let tzid = zone.firstProperty(named: "TZID")?.text, known.contains(tzid) { continue }
            holder.add(zone)
        }
    }

    /// The `TZID`s of the `VTIMEZONE`s read so far, in file order.
    public var timeZoneIDs: [String] {
        holder.subcomponents(ofKind: .timeZone).compactMap { $0.firstProperty(named: "TZID")?.text }
    }

    /// The `VTIMEZONE`s read so far, in file order (views into the reader's holder, valid
    /// until the reader goes away).
    public var timeZones: [Component] { holder.subcomponents(ofKind: .timeZone) }

    /// Reads UTF-8 `text`.
    public convenience init(text: String) {
        self.init(bytes: Array(text.utf8))
    }

    private init(source: LineSource) {
        Libical.ensureReady()
        self.source = source
        self.parser = icalparser_new()
        self.holder = Component(kind: .calendar)
    }

    deinit {
        if let current { holder.remove(current) }
        icalparser_free(parser)
    }

    /// The next top-level component (`VEVENT`, `VTODO` …; `VTIMEZONE`s are kept, not
    /// returned), or `nil` at the end of the stream.
    ///
    /// - Throws: ``ICalendarError`` for damage that leaves the rest of the stream unreadable:
    ///   unreadable input, bytes that are not UTF-8, an over-long line, over-deep nesting, an
    ///   `END` that does not match its `BEGIN`, a `BEGIN` never closed, or no calendar at all.
    public func next() throws(ICalendarError) -> Item? {
        if let current {
            holder.remove(current)
            self.current = nil
        }
        while true {
            guard let (line, number) = try nextContentLine() else {
                try finish()
                return nil
            }
            if let item = try handle(line, at: number) { return item }
        }
    }

    // MARK: - Lines

    /// The next unfolded content line and the number of its first physical line.
    private func nextContentLine() throws(ICalendarError) -> ([UInt8], Int)? {
        try unfolder.next(
            from: source, lineLimit: maximumLineLength, contentLimit: maximumContentLineLength)
    }

    /// The state of unfolding, in a value of its own: as stored properties of the reader,
    /// each of the four was checked for exclusive access at run time at every line (1.5% of
    /// reading an .ics, issue 13).
    struct Unfolder {
        /// The physical lines read so far.
        var lineNumber = 0
        var pendingLine: [UInt8] = []
        var pendingLineNumber = 0
        var hasPending = false

        /// The next unfolded content line and the number of its first physical line.
        mutating func next(from source: LineSource, lineLimit: Int, contentLimit: Int)
            throws(ICalendarError) -> ([UInt8], Int)?
        {
            while true {
                guard
                    let range = try source.nextLineRange(
                        limit: lineLimit, lineNumber: lineNumber + 1)
                else {
                    if hasPending {
                        hasPending = false
                        return (pendingLine, pendingLineNumber)
                    }
                    return nil
                }
                lineNumber += 1
                let step: Result<([UInt8], Int)?, ICalendarError>
                if lineNumber == 1 {
                    var physical = source.withBuffer { Array($0[range]) }
                    if physical.starts(with: [0xEF, 0xBB, 0xBF]) {
                        physical.removeFirst(3)  // a UTF-8 byte-order mark
                    }
                    if let wide = ICalendarReader.wideEncoding(physical) {
                        throw ICalendarError(
                            .invalidEncoding, line: 1,
                            "the file is \(wide), not UTF-8 as iCalendar must be (RFC 5545 §3.1.4); re-encode it, for example with iconv -f \(wide) -t UTF-8"
                        )
                    }
                    step = physical.withUnsafeBufferPointer { take($0, contentLimit: contentLimit) }
                } else {
                    // Read where it lies: a folded continuation goes straight onto the line
                    // it continues, without an array of its own.
                    step = source.withBuffer {
                        take(UnsafeBufferPointer(rebasing: $0[range]), contentLimit: contentLimit)
                    }
                }
                if let line = try step.get() { return line }
            }
        }

        /// Takes one physical line: the content line it ends, if any.
        private mutating func take(_ physical: UnsafeBufferPointer<UInt8>, contentLimit: Int)
            -> Result<([UInt8], Int)?, ICalendarError>
        {
            // memchr: a generic contains(0) compared byte by byte (a third of unfolding).
            if physical.count > 0 && memchr(physical.baseAddress!, 0, physical.count) != nil {
                return .failure(
                    ICalendarError(
                        .invalidEncoding, line: lineNumber, "the line contains a NUL byte"))
            }
            if let first = physical.first, first == 0x20 || first == 0x09, hasPending {
                // A folded continuation: drop the one whitespace character that marks it.
                guard pendingLine.count + physical.count <= contentLimit else {
                    return .failure(
                        ICalendarError(
                            .lineTooLong, line: pendingLineNumber,
                            "the unfolded content line is longer than \(contentLimit) octets"))
                }
                pendingLine.append(contentsOf: UnsafeBufferPointer(rebasing: physical.dropFirst()))
                return .success(nil)
            }
            if physical.isEmpty || physical.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                return .success(nil)  // blank lines carry nothing; libical skips them too
            }
            let fresh = Array(physical)
            defer {
                pendingLine = fresh
                pendingLineNumber = lineNumber
                hasPending = true
            }
            return .success(hasPending ? (pendingLine, pendingLineNumber) : nil)
        }
    }

}

@available(*, unavailable)
extension ICalendarReader: Sendable {}

extension ICalendarReader {
    /// A name (`DTSTART`, `VEVENT`) upper-cased without the spaces and tabs at its edges.
    /// ASCII, the rule for names, is done on the bytes (every line of a file asks this); any
    /// other text goes through String's upper-casing, as before.
    package static func upperName(_ bytes: ArraySlice<UInt8>) -> String {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let trimmed = bytes[start..<end]
        guard trimmed.allSatisfy({ $0 < 0x80 }) else {
            return String(decoding: bytes, as: UTF8.self).uppercased().trimmingASCIIWhitespace()
        }
        guard trimmed.contains(where: { (0x61...0x7A).contains($0) }) else {
            return String(decoding: trimmed, as: UTF8.self)
        }
        return String(
            decoding: trimmed.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
