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
    private struct NameFacts {
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
    private func facts(ofNameIn line: [UInt8], _ range: Range<Int>) -> NameFacts {
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
    public private(set) var calendarProperties: [String: String] = [:]
    /// Every calendar-level line in file order, as written (all `VCALENDAR`s).
    public private(set) var calendarLines: [RawLine] = []
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

    private func note(_ line: Int, _ message: String, _ kind: Note.Kind) {
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
    public private(set) var calendarCount = 0

    // The state below is read and changed for every line. As stored properties of a class,
    // each access was checked for exclusivity at run time (a look-up in the thread's set of
    // accesses): about 5% of reading an .ics (issue 13). `@exclusivity(unchecked)` leaves
    // the compile-time checks only. That is sound here: the properties are private, a reader
    // is used by one thread at a time (it is not Sendable), and no access to one of them
    // runs while another access to the same one is open (no closure or callee that reaches
    // the reader while one of them is being changed).

    private let source: LineSource
    /// Physical lines into content lines.
    @exclusivity(unchecked) private var unfolder = Unfolder()
    private var finished = false

    @exclusivity(unchecked) private var parser: OpaquePointer
    private let holder: Component
    @exclusivity(unchecked) private var current: Component?

    /// Open components: name and the line of its `BEGIN`.
    @exclusivity(unchecked) private var stack: [OpenComponent] = []

    /// A component whose `BEGIN` was read. This, and ``FedLine``, are structs, not tuples:
    /// arrays of tuples are copied and destroyed by the runtime walking the tuple's layout.
    private struct OpenComponent {
        var name: String
        var line: Int
    }
    @exclusivity(unchecked) private var lineMaps: [LineMap] = []
    /// Every line given to libical for the top-level component being read, with the name
    /// of the component it belongs to: to rebuild the component without a line libical
    /// rejected.
    @exclusivity(unchecked) private var fed: [FedLine] = []

    /// A line given to libical.
    private struct FedLine {
        var bytes: [UInt8]
        var line: Int
        /// The name of the component it belongs to.
        var component: String
        var isProperty: Bool
    }
    /// A component being kept as its lines, and how deep inside it the reader is.
    @exclusivity(unchecked) private var capture: (component: RawComponent, depth: Int)?
    /// The line map of the top-level component being read.
    @exclusivity(unchecked) private var currentTop: LineMap?
    private var sawAnyComponent = false
    /// A calendar component came without a `VCALENDAR` around it.
    private var sawBareComponent = false
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
    private struct Unfolder {
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

    // MARK: - Structure

    private func handle(_ line: [UInt8], at number: Int) throws(ICalendarError) -> Item? {
        guard UTF8Check.isValid(line) else {
            throw ICalendarError(
                .invalidEncoding, line: number,
                "the line is not valid UTF-8 (RFC 5545 text is UTF-8; re-encode the file)")
        }
        let nameEnd =
            line.firstIndex { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") } ?? line.count
        let facts = facts(ofNameIn: line, 0..<nameEnd)
        let name = facts.name
        let valueStart = Self.valueStart(of: line, from: nameEnd)

        if name == "BEGIN" || name == "END" {
            guard let valueStart else {
                throw ICalendarError(.malformedLine, line: number, "\(name) has no component name")
            }
            let component = self.facts(ofNameIn: line, valueStart..<line.count).name
            return name == "BEGIN"
                ? try begin(component, line: line, at: number)
                : try end(component, line: line, at: number)
        }
        if capture != nil {
            // Kept as written, so it must be a content line to be written back.
            guard (try? ContentLine.lex(line)) != nil else {
                note(number, "'\(Self.excerpt(line))' is not a content line; left out", .leftOut)
                return nil
            }
            capture!.component.lines.append(RawLine(line: number, bytes: line))
            return nil
        }
        guard let open = stack.last else {
            try outsideCalendar(line, at: number)
            return nil
        }
        if stack.count == 1 && open.name == "VCALENDAR" {
            calendarProperty(line, name: name, valueStart: valueStart, at: number)
        } else {
            property(line, of: open, facts: facts, valueStart: valueStart, at: number)
        }
        return nil
    }

    /// A line after the calendar's END: kept with the calendar (seen: a cache note), or,
    /// before any calendar or under `--strict`, the error that this is no calendar.
    private func outsideCalendar(_ line: [UInt8], at number: Int) throws(ICalendarError) {
        guard calendarCount > 0 && !strict else {
            throw ICalendarError(
                calendarCount > 0 ? .malformedLine : .noCalendarData, line: number,
                calendarCount > 0
                    ? "expected BEGIN:VCALENDAR, found '\(Self.excerpt(line))'"
                    : Self.notCalendar(line)
            )
        }
        note(number, "a line after END:VCALENDAR is kept with the calendar", .structure)
        calendarLines.append(RawLine(line: number, bytes: line))
    }

    /// A calendar-level property (VERSION, METHOD, X-WR-TIMEZONE …): kept as text.
    private func calendarProperty(
        _ line: [UInt8], name: String, valueStart: Int?, at number: Int
    ) {
        guard (try? ContentLine.lex(line)) != nil else {
            note(number, "'\(Self.excerpt(line))' is not a content line; left out", .leftOut)
            return
        }
        if let valueStart, calendarProperties[name] == nil {
            calendarProperties[name] = String(decoding: line[valueStart...], as: UTF8.self)
        }
        calendarLines.append(RawLine(line: number, bytes: line))
    }

    /// A property of a component: kept as written, left out with a warning, or (repaired
    /// where libical would lose it) fed to libical.
    private func property(
        _ line: [UInt8], of open: OpenComponent, facts: NameFacts, valueStart: Int?,
        at number: Int
    ) {
        let name = facts.name
        if facts.control {
            note(number, "'\(Self.excerpt(line))' is not a content line; left out", .leftOut)
            return
        }
        if valueStart == nil, line.contains(UInt8(ascii: ":")), line.contains(UInt8(ascii: "\"")) {
            // The only ':' is inside a quoted parameter value that is never closed: libical
            // would take the rest of the line, parameters and all, as the value. Left out as
            // libical's own rejects are (a warning, an error under --strict).
            lineMaps.last?.unreadable.append(
                (RawLine(line: number, bytes: line), "a quoted parameter value is not closed"))
            return
        }
        if name == "X-LIC-ERROR" {
            // Written by another libical program into its export; not part of the data.
            note(
                number, "an X-LIC-ERROR line another program left in the file was left out",
                .leftOut)
            return
        }
        if !facts.interpreted, !Self.isZoneComponent(open.name) {
            // Kept as written; libical never sees it.
            lineMaps.last?.verbatim.append(RawLine(line: number, bytes: line))
            return
        }
        if valueStart != nil, facts.unknownToLibical {
            // A name registered after libical 3.0 (LINK, PROXIMITY) or a vendor's own without
            // the X- prefix (SUBCALENDAR-ID): libical's parser refuses the whole component.
            if interpretedProperties != nil {
                lineMaps.last?.verbatim.append(RawLine(line: number, bytes: line))
            } else {
                note(number, "\(name) is a property libical 3.0 cannot read; left out", .leftOut)
            }
            return
        }
        if let valueStart,
            line[valueStart...].allSatisfy({ $0 == 0x20 || $0 == 0x09 }),
            !facts.text, name != "ATTACH"
        {
            // `RRULE:`, `CATEGORIES:`, `CLASS:` say nothing; libical would drop the property
            // with an error.
            note(number, "\(name) has no value; left out", .emptyValue)
            return
        }
        let content = repaired(line, facts: facts, valueStart: valueStart, at: number)
        lineMaps.last?.properties.append(LineMap.PropertyLine(name: name, line: number, raw: line))
        fed.append(FedLine(bytes: content, line: number, component: open.name, isProperty: true))
        // A property never finishes a component; should libical take it for an END, the
        // component it hands back is freed, never lost with its memory.
        if let stray = feed(content) { icalcomponent_free(stray) }
    }

    /// `line` as libical must get it to read it as written: a duration's sign put in front,
    /// a lone backslash at the end of a text doubled, the edge spaces of a text protected.
    private func repaired(
        _ line: [UInt8], facts: NameFacts, valueStart: Int?, at number: Int
    ) -> [UInt8] {
        let name = facts.name
        var content = line
        if let valueStart,
            let repaired = Self.repairedDuration(content, name: name, from: valueStart)
        {
            note(
                number,
                "\(name): '\(String(decoding: content[valueStart...], as: UTF8.self))' has its sign inside; read as '\(String(decoding: repaired[valueStart...], as: UTF8.self))'",
                .repairedValue)
            content = repaired
        }
        if let valueStart, facts.text {
            var trailing = 0
            while content.count - trailing > valueStart,
                content[content.count - 1 - trailing] == UInt8(ascii: "\\")
            {
                trailing += 1
            }
            if trailing % 2 == 1 {
                // A lone backslash at the end escapes nothing; libical would drop it.
                content.append(UInt8(ascii: "\\"))
                note(
                    number, "\(name) ends in a lone backslash; read as a backslash", .repairedValue)
            }
            EdgeWhitespace.protect(&content, valueStart: valueStart)
        } else if let valueStart, valueStart == content.count, name == "ATTACH" {
            EdgeWhitespace.protect(&content, valueStart: valueStart)  // an empty file, inline
        }
        return content
    }

    /// Whether every line of a component named `name` goes to libical: zone definitions.
    static func isZoneComponent(_ name: String) -> Bool {
        name == "VTIMEZONE" || name == "STANDARD" || name == "DAYLIGHT"
    }

    /// Whether a component named `name` inside `parent` (nil at the top) is given to libical
    /// when only some properties are interpreted.
    private static func isInterpreted(_ name: String, inside parent: String?) -> Bool {
        switch parent {
        case nil, "VCALENDAR": ["VEVENT", "VTODO", "VJOURNAL", "VTIMEZONE"].contains(name)
        case "VEVENT", "VTODO", "VJOURNAL": name == "VALARM"
        case "VTIMEZONE": name == "STANDARD" || name == "DAYLIGHT"
        default: false
        }
    }

    private func begin(_ component: String, line: [UInt8], at number: Int) throws(ICalendarError)
        -> Item?
    {
        guard stack.count < maximumDepth else {
            throw ICalendarError(
                .nestingTooDeep, line: number,
                "BEGIN:\(component) is nested \(stack.count + 1) deep; the limit is \(maximumDepth)"
            )
        }
        let parent = stack.last?.name
        if stack.isEmpty && component != "VCALENDAR" && requiresCalendar && calendarCount == 0
            && !sawBareComponent
        {
            guard !strict, Self.calendarComponents.contains(component) else {
                throw ICalendarError(
                    .noCalendarData, line: number,
                    Self.notCalendar(Array("BEGIN:\(component)".utf8)))
            }
            // Python's icalendar and libical read a bare component; so does taskcal, saying so.
            sawBareComponent = true
            note(
                number,
                "BEGIN:\(component) is not inside BEGIN:VCALENDAR; read as if it were", .structure)
        }
        stack.append(OpenComponent(name: component, line: number))
        if capture != nil {
            capture!.component.lines.append(RawLine(line: number, bytes: line))
            capture!.depth += 1
            return nil
        }
        if component == "VCALENDAR" && stack.count == 1 {
            calendarCount += 1
            return nil
        }
        let isTopLevel = stack.count == 1 || (stack.count == 2 && stack[0].name == "VCALENDAR")
        if (interpretedProperties != nil && !Self.isInterpreted(component, inside: parent))
            || (isTopLevel && !keptWhole.isEmpty && keptWhole.contains(number))
        {
            capture = (
                RawComponent(name: component, lines: [RawLine(line: number, bytes: line)]), 1
            )
            return nil
        }
        if isTopLevel {
            lineMaps = []
            fed.removeAll(keepingCapacity: true)
        }
        let map = LineMap(begin: number, name: component)
        lineMaps.last?.children.append(map)
        lineMaps.append(map)
        if lineMaps.count == 1 { currentTop = map }
        fed.append(FedLine(bytes: line, line: number, component: component, isProperty: false))
        if let stray = feed(line) { icalcomponent_free(stray) }
        return nil
    }

    private func end(_ component: String, line: [UInt8], at number: Int) throws(ICalendarError)
        -> Item?
    {
        guard let open = stack.last else {
            throw ICalendarError(
                .unbalancedComponents, line: number, "END:\(component) without a BEGIN")
        }
        var line = line
        if open.name == "VCALENDAR" && Self.strayEnds.contains(component) && !strict {
            // `END:VEVENT` with no VEVENT open would end the whole calendar: it closes nothing.
            // (A name that is no component, `END:VCALENDARD`, still ends the calendar.)
            note(
                number, "END:\(component) closes nothing (no BEGIN:\(component) is open); left out",
                .structure)
            return nil
        }
        if open.name != component {
            guard !strict else {
                throw ICalendarError(
                    .unbalancedComponents, line: number,
                    "END:\(component) closes BEGIN:\(open.name) of line \(open.line); expected END:\(open.name)"
                )
            }
            // libical and other readers close the innermost component, whatever the END says.
            note(
                number,
                "END:\(component) closes BEGIN:\(open.name) of line \(open.line); read as END:\(open.name)",
                .structure)
            line = Array("END:\(open.name)".utf8)
        }
        let component = open.name
        stack.removeLast()
        if var (raw, depth) = capture {
            raw.lines.append(RawLine(line: number, bytes: line))
            depth -= 1
            guard depth == 0 else {
                capture = (raw, depth)
                return nil
            }
            capture = nil
            let topLevel = stack.isEmpty || (stack.count == 1 && stack[0].name == "VCALENDAR")
            guard topLevel, lineMaps.isEmpty else {
                lineMaps.last?.verbatimComponents.append(raw)
                return nil
            }
            sawAnyComponent = true
            return .verbatim(raw)
        }
        if component == "VCALENDAR" && stack.isEmpty { return nil }
        let map = lineMaps.removeLast()
        fed.append(FedLine(bytes: line, line: number, component: component, isProperty: false))
        guard var made = feed(line) else { return nil }
        sawAnyComponent = true
        var failed: [ICalendarError] = []
        if icalcomponent_count_errors(made) > 0 {
            (made, failed) = rebuild(made)
        }
        fed.removeAll(keepingCapacity: true)
        let result = Component(root: made, lines: map)
        let kind = result.kind
        if !failed.isEmpty {
            return .failed(kind, line: map.begin, errors: failed)
        }
        holder.add(result)
        if kind == .timeZone { return nil }  // kept in the holder for TZID look-ups
        current = result
        return .component(result)
    }

    /// The component again without the property lines libical rejected (each noted in its
    /// line map as unreadable, with libical's reason), or, when that does not help, the
    /// component with its errors.
    private func rebuild(_ made: OpaquePointer) -> (OpaquePointer, [ICalendarError]) {
        var maps: [Int: LineMap] = [:]
        func collect(_ map: LineMap) {
            maps[map.begin] = map
            map.children.forEach(collect)
        }
        if let currentTop { collect(currentTop) }
        // Which property lines libical rejects on their own.
        var rejected: [Int: String] = [:]
        var open: [Int] = []
        for entry in fed {
            if !entry.isProperty {
                if entry.bytes.starts(with: Array("BEGIN".utf8))
                    || entry.bytes.starts(with: Array("begin".utf8))
                {
                    open.append(entry.line)
                } else if !open.isEmpty {
                    open.removeLast()
                }
                continue
            }
            if let reason = Self.rejection(of: entry.bytes, in: entry.component) {
                rejected[entry.line] = reason
            }
        }
        guard !rejected.isEmpty else {
            return (
                made,
                Self.errorProperties(of: made).map {
                    ICalendarError(.malformedLine, line: fed.first?.line, $0)
                }
            )
        }
        let again = icalparser_new()!
        defer { icalparser_free(again) }
        var rebuilt: OpaquePointer?
        for entry in fed where rejected[entry.line] == nil {
            var terminated = entry.bytes
            terminated.append(0)
            let result = terminated.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    icalparser_add_line(again, $0)
                }
            }
            if let result { rebuilt = result }
        }
        guard let rebuilt, icalcomponent_count_errors(rebuilt) == 0 else {
            if let rebuilt { icalcomponent_free(rebuilt) }
            return (
                made,
                Self.errorProperties(of: made).map {
                    ICalendarError(.malformedLine, line: fed.first?.line, $0)
                }
            )
        }
        icalcomponent_free(made)
        // Move the rejected lines out of the line maps' properties (so occurrences still map
        // to their lines) into their unreadable lists.
        for map in maps.values {
            var kept: [LineMap.PropertyLine] = []
            for entry in map.properties {
                if let reason = rejected[entry.line] {
                    map.unreadable.append((RawLine(line: entry.line, bytes: entry.raw), reason))
                } else {
                    kept.append(entry)
                }
            }
            map.properties = kept
        }
        return (rebuilt, [])
    }

    /// Why libical rejects the property line `line` inside a component `component` when it
    /// is parsed on its own, or `nil` when it accepts it.
    static func rejection(of line: [UInt8], in component: String) -> String? {
        let probe = icalparser_new()!
        defer { icalparser_free(probe) }
        var begin = Array("BEGIN:\(component)".utf8CString)
        var copy = line.map { CChar(bitPattern: $0) } + [0]
        _ = icalparser_add_line(probe, &begin)
        _ = icalparser_add_line(probe, &copy)
        let failed = icalparser_get_state(probe) == ICALPARSER_ERROR
        // The result of icalparser_clean stays owned by the parser: read it, never free it.
        let tree = icalparser_clean(probe)
        let messages = tree.map { errorProperties(of: $0).filter { !$0.hasPrefix("Missing END") } }
        if let first = messages?.first { return first }
        return failed ? "libical cannot parse '\(clean(excerpt(line)))'" : nil
    }

    /// Hands one content line to libical; returns a finished top-level component, which the
    /// caller owns.
    private func feed(_ line: [UInt8]) -> OpaquePointer? {
        // A NUL-terminated copy on the stack where it fits (the line itself is shared with
        // the line maps, so appending to it copied it to the heap for every line).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: line.count + 1) { buffer in
            line.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
            }
            buffer[line.count] = 0
            return icalparser_add_line(parser, buffer.baseAddress)
        }
    }

    // MARK: - Helpers

    /// The index just past the first `:` that is not inside a quoted parameter value.
    static func valueStart(of line: [UInt8], from index: Int) -> Int? {
        var quoted = false
        var position = index
        while position < line.count {
            switch line[position] {
            case UInt8(ascii: "\""): quoted.toggle()
            case UInt8(ascii: ":") where !quoted: return position + 1
            default: break
            }
            position += 1
        }
        return nil
    }

    /// A file that ends inside a component (a download cut short): the components still open
    /// are left out, with a note; the calendar's whole components stay.
    private func leaveOutTruncated() throws(ICalendarError) {
        let top = stack.first { $0.name != "VCALENDAR" }
        if let top {
            note(
                top.line,
                "BEGIN:\(top.name) has no END:\(top.name) before the end of the file; left out",
                .structure)
        }
        if stack.first?.name == "VCALENDAR" {
            note(
                stack[0].line, "BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file",
                .structure)
        }
        stack = []
        capture = nil
        lineMaps = []
        fed = []
        // The parser still holds the unfinished component: start afresh.
        icalparser_free(parser)
        parser = icalparser_new()
    }

    /// A `TRIGGER` or `DURATION` with its sign inside (`PT-2H`, written by some exporters)
    /// with the sign moved to the front (`-PT2H`), or `nil` when the value is not of that
    /// form. libical refuses the inner sign and would drop the property.
    static func repairedDuration(_ line: [UInt8], name: String, from valueStart: Int)
        -> [UInt8]?
    {
        guard name == "TRIGGER" || name == "DURATION", valueStart < line.count,
            line[valueStart] == UInt8(ascii: "P")
        else { return nil }
        let value = line[valueStart...]
        guard let minus = value.firstIndex(of: UInt8(ascii: "-")),
            value.filter({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }).count == 1
        else { return nil }
        var repaired = Array(line[..<valueStart])
        repaired.append(UInt8(ascii: "-"))
        repaired += value.enumerated().compactMap { offset, byte in
            valueStart + offset == minus ? nil : byte
        }
        return repaired
    }

    private func finish() throws(ICalendarError) {
        if let open = stack.last {
            guard !strict, capture == nil, stack.count == 1, open.name == "VCALENDAR" else {
                if !strict, stack.first?.name == "VCALENDAR" || !requiresCalendar {
                    try leaveOutTruncated()
                    return
                }
                throw ICalendarError(
                    .unbalancedComponents, line: open.line,
                    "BEGIN:\(open.name) has no END:\(open.name) before the end of the input")
            }
            // A calendar cut after its last component: everything in it is whole.
            note(
                open.line, "BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file",
                .structure)
            stack = []
        }
        if calendarCount == 0 && !sawBareComponent && (requiresCalendar || !sawAnyComponent) {
            throw ICalendarError(
                .noCalendarData, line: unfolder.lineNumber == 0 ? nil : 1,
                "not an iCalendar file: no BEGIN:VCALENDAR")
        }
    }

    static func errorProperties(of component: OpaquePointer) -> [String] {
        var messages: [String] = []
        var property = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
        while let current = property {
            if let text = icalproperty_get_xlicerror(current) {
                messages.append(clean(String(cString: text)))
            }
            property = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
        }
        var child = icalcomponent_begin_component(component, ICAL_ANY_COMPONENT)
        while let current = icalcompiter_deref(&child) {
            messages += errorProperties(of: current)
            icalcompiter_next(&child)
        }
        return messages
    }

    /// libical's message, with the edge-whitespace markers shown as what they stand for.
    private static func clean(_ message: String) -> String {
        EdgeWhitespace.restore(message)
    }

    /// Why a file whose first line (past blank ones) is `line` is no iCalendar file; a file
    /// whose lines end in CR alone (classic Mac OS) is named as such.
    public static func notCalendar(_ line: [UInt8]) -> String {
        if line.contains(0x0D) {
            return
                "not an iCalendar file as read: its lines end in CR alone (classic Mac OS); iCalendar lines end in CRLF or LF (convert it first: tr '\\r' '\\n' < FILE > FIXED.ics)"
        }
        let text = excerpt(line)
        return text.hasPrefix("BEGIN:")
            ? "not an iCalendar file: expected BEGIN:VCALENDAR, found \(text)"
            : "not an iCalendar file: expected BEGIN:VCALENDAR, found '\(text)'"
    }

    /// The name of the wide encoding a first line is in (by its byte-order mark, or the zero
    /// bytes ASCII text has in UTF-16), or `nil`.
    static func wideEncoding(_ line: [UInt8]) -> String? {
        let head = Array(line.prefix(4))
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32LE" }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32BE" }
        if head.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
        if head.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
        if head.count == 4, head[0] != 0, head[1] == 0, head[2] != 0, head[3] == 0 {
            return "UTF-16LE"
        }
        if head.count == 4, head[0] == 0, head[1] != 0, head[2] == 0, head[3] != 0 {
            return "UTF-16BE"
        }
        return nil
    }

    /// Components an `END` inside the calendar itself cannot mean to close the calendar with.
    public static let strayEnds: Set<String> = [
        "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VALARM", "VTIMEZONE", "STANDARD",
        "DAYLIGHT", "VAVAILABILITY", "AVAILABLE", "VLOCATION", "VRESOURCE", "PARTICIPANT",
    ]

    static func excerpt(_ line: [UInt8]) -> String {
        let text = String(decoding: line.prefix(60), as: UTF8.self)
        return line.count > 60 ? text + "…" : text
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
