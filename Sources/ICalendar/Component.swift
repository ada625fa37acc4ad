import CLibical
import Glibc

/// The kind of an iCalendar component (`BEGIN:VEVENT` is ``event``).
public enum ComponentKind: Sendable, Hashable, CustomStringConvertible {
    case calendar, event, todo, journal, freeBusy, timeZone, alarm, standard, daylight
    /// An `X-` or IANA component that libical does not know by name, or one it rejected.
    case other(String)

    var libicalKind: icalcomponent_kind {
        switch self {
        case .calendar: ICAL_VCALENDAR_COMPONENT
        case .event: ICAL_VEVENT_COMPONENT
        case .todo: ICAL_VTODO_COMPONENT
        case .journal: ICAL_VJOURNAL_COMPONENT
        case .freeBusy: ICAL_VFREEBUSY_COMPONENT
        case .timeZone: ICAL_VTIMEZONE_COMPONENT
        case .alarm: ICAL_VALARM_COMPONENT
        case .standard: ICAL_XSTANDARD_COMPONENT
        case .daylight: ICAL_XDAYLIGHT_COMPONENT
        case .other: ICAL_X_COMPONENT
        }
    }

    init(_ kind: icalcomponent_kind, name: @autoclosure () -> String) {
        switch kind {
        case ICAL_VCALENDAR_COMPONENT: self = .calendar
        case ICAL_VEVENT_COMPONENT: self = .event
        case ICAL_VTODO_COMPONENT: self = .todo
        case ICAL_VJOURNAL_COMPONENT: self = .journal
        case ICAL_VFREEBUSY_COMPONENT: self = .freeBusy
        case ICAL_VTIMEZONE_COMPONENT: self = .timeZone
        case ICAL_VALARM_COMPONENT: self = .alarm
        case ICAL_XSTANDARD_COMPONENT: self = .standard
        case ICAL_XDAYLIGHT_COMPONENT: self = .daylight
        default: self = .other(name())
        }
    }

    /// The name as written after `BEGIN:`.
    public var description: String {
        switch self {
        case .calendar: "VCALENDAR"
        case .event: "VEVENT"
        case .todo: "VTODO"
        case .journal: "VJOURNAL"
        case .freeBusy: "VFREEBUSY"
        case .timeZone: "VTIMEZONE"
        case .alarm: "VALARM"
        case .standard: "STANDARD"
        case .daylight: "DAYLIGHT"
        case .other(let name): name
        }
    }
}

/// An iCalendar component (`VCALENDAR`, `VEVENT`, `VALARM` …) held by libical.
///
/// A component is either a *root*, which owns its libical tree and frees it when the last
/// reference goes, or a *view* of a component inside another tree, which keeps its parent
/// (and so the whole tree) alive. Adding a root to another component turns it into a view: libical's
/// `icalcomponent_add_component` hands ownership to the parent.
///
/// Not `Sendable`: libical trees must never be shared across threads. Convert to Swift
/// values first and send those.
public final class Component {
    let pointer: OpaquePointer
    /// The object that keeps the tree alive: `nil` while this component is a root.
    private var owner: AnyObject?
    /// Line numbers of the `BEGIN` line and of each property line, when parsed from text.
    let lines: LineMap?

    /// Creates an empty root component, e.g. `Component(kind: .event)`.
    public init(kind: ComponentKind) {
        Libical.ensureReady()
        if case .other(let name) = kind {
            pointer = icalcomponent_new_x(name)
        } else {
            pointer = icalcomponent_new(kind.libicalKind)
        }
        owner = nil
        lines = nil
    }

    init(root pointer: OpaquePointer, lines: LineMap? = nil) {
        self.pointer = pointer
        self.owner = nil
        self.lines = lines
    }

    init(view pointer: OpaquePointer, owner: AnyObject, lines: LineMap?) {
        self.pointer = pointer
        self.owner = owner
        self.lines = lines
    }

    deinit {
        if owner == nil { icalcomponent_free(pointer) }
    }

    /// True while this component owns its tree.
    var isRoot: Bool { owner == nil }

    /// Makes this (root) component a view owned by `newOwner`, after libical has taken it.
    func becomeView(of newOwner: AnyObject) {
        precondition(owner == nil, "a component can be added to a parent only once")
        owner = newOwner
    }

    /// Makes this view a root again, after libical has handed it back.
    func becomeRoot() { owner = nil }

    /// The component's kind. The corresponding libical function is `icalcomponent_isa`.
    public var kind: ComponentKind {
        let kind = icalcomponent_isa(pointer)
        return ComponentKind(kind, name: Self.xName(pointer, lines: lines))
    }

    /// A name for a component libical has no kind for. libical 3.0 keeps no name for `X-`
    /// components (and returns NULL for their kind), so the name comes from the line map.
    private static func xName(_ pointer: OpaquePointer, lines: LineMap?) -> String {
        if let name = lines?.name { return name }
        guard let text = icalcomponent_kind_to_string(icalcomponent_isa(pointer)) else {
            return "X-UNKNOWN"
        }
        return String(cString: text)
    }

    /// The 1-based line of this component's `BEGIN`, when it was parsed from text.
    public var lineNumber: Int? { lines?.begin }

    // MARK: - Children

    /// The direct subcomponents, in file order, optionally only those of one kind.
    ///
    /// Uses libical's external iterator: the internal one (`get_first/next_component`) is
    /// shared state, and nested loops over the same parent end early.
    public func subcomponents(ofKind kind: ComponentKind? = nil) -> [Component] {
        var result: [Component] = []
        var iterator = icalcomponent_begin_component(pointer, ICAL_ANY_COMPONENT)
        var index = 0
        while let child = icalcompiter_deref(&iterator) {
            let childLines =
                lines?.children.indices.contains(index) == true
                ? lines?.children[index] : nil
            if kind == nil
                || ComponentKind(
                    icalcomponent_isa(child), name: Self.xName(child, lines: childLines)) == kind
            {
                result.append(Component(view: child, owner: self, lines: childLines))
            }
            index += 1
            icalcompiter_next(&iterator)
        }
        return result
    }

    /// Adds `child`, a root, as the last subcomponent; `child` becomes a view of this tree.
    public func add(_ child: Component) {
        precondition(child.isRoot, "only a root component can be added")
        icalcomponent_add_component(pointer, child.pointer)
        child.becomeView(of: self)
    }

    /// Removes `child`, a direct subcomponent, which becomes a root of its own again.
    func remove(_ child: Component) {
        icalcomponent_remove_component(pointer, child.pointer)
        child.becomeRoot()
    }

    // MARK: - Properties

    /// All properties in file order, or only those named `name` (case-insensitive).
    public func properties(named name: String? = nil) -> [Property] {
        let wanted = name?.uppercasedName()
        let index = propertyIndex()
        var result: [Property] = []
        if wanted == nil { result.reserveCapacity(index.count) }
        for entry in index where wanted == nil || entry.name == wanted {
            result.append(
                Property(
                    view: entry.pointer, owner: self, line: entry.line, raw: entry.raw,
                    name: entry.name))
        }
        return result
    }

    /// How many properties are named `name` (case-insensitive), without making a
    /// ``Property`` of each.
    public func propertyCount(named name: String) -> Int {
        let wanted = name.uppercasedName()
        return propertyIndex().reduce(0) { $0 + ($1.name == wanted ? 1 : 0) }
    }

    /// One property of the index: libical's pointer, its name and where the file had it.
    private struct IndexedProperty {
        var pointer: OpaquePointer
        var name: String
        var line: Int?
        var raw: [UInt8]?
    }

    /// The properties' pointers, names and lines, read from libical once: reading an event
    /// asks for its properties a dozen times (by name and all of them), and each walk named
    /// every property and looked up its line again (15% of reading an .ics). ``add(_:)-(Property)``
    /// clears it; nothing else changes a component's list of properties.
    private var cachedIndex: [IndexedProperty]?

    private func propertyIndex() -> [IndexedProperty] {
        if let cachedIndex { return cachedIndex }
        var index: [IndexedProperty] = []
        index.reserveCapacity(Int(icalcomponent_count_properties(pointer, ICAL_ANY_PROPERTY)))
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        // How often each name came before: counted back along the index for the dozen
        // properties of a typical component (a dictionary per component cost 3% of reading
        // an .ics), in a dictionary once a component has many (20,000 ATTENDEEs).
        var seen: [String: Int]?
        while let current = property {
            let name = Property.name(of: current)
            var line: Int?
            var raw: [UInt8]?
            if let lines {
                let occurrence: Int
                if index.count < 32 {
                    occurrence = index.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
                } else {
                    if seen == nil {
                        seen = index.reduce(into: [:]) { $0[$1.name, default: 0] += 1 }
                    }
                    occurrence = seen?[name, default: 0] ?? 0
                    seen?[name] = occurrence + 1
                }
                let entry = lines.entry(ofProperty: name, occurrence: occurrence)
                line = entry?.line ?? lines.begin
                raw = entry?.raw
            }
            index.append(IndexedProperty(pointer: current, name: name, line: line, raw: raw))
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        cachedIndex = index
        return index
    }

    /// The first property named `name`, if any.
    public func firstProperty(named name: String) -> Property? {
        let upper = name.uppercasedName()
        let kind = PropertyKinds.kind(of: upper)
        guard kind != ICAL_X_PROPERTY && kind != ICAL_NO_PROPERTY else {
            return properties(named: upper).first
        }
        // A known kind: libical finds it without walking every property.
        guard let found = icalcomponent_get_first_property(pointer, kind) else { return nil }
        let entry = lines?.entry(ofProperty: upper, occurrence: 0)
        return Property(
            view: found, owner: self, line: entry?.line ?? lines?.begin, raw: entry?.raw,
            name: upper)
    }

    /// Adds `property`, a new one, as the last property; it becomes a view of this tree.
    public func add(_ property: Property) {
        precondition(property.isFreestanding, "a property can be added to a component only once")
        icalcomponent_add_property(pointer, property.pointer)
        property.becomeView(of: self)
        cachedIndex = nil
    }

    /// Adds a new property named `name` with `value` and `parameters`.
    public func addProperty(
        _ name: String, _ value: PropertyValue, parameters: [Parameter] = []
    ) {
        // Straight into libical's tree: a Property object for each field written, made and
        // freed at once, was a fifth of building an event (issue 13).
        icalcomponent_add_property(pointer, Property.make(name, value, parameters: parameters))
        cachedIndex = nil
    }

    /// ``addProperty(_:_:parameters:)-(String,_,_)`` with a name whose kind is known: what a
    /// writer that adds the same names to every component uses.
    public func addProperty(
        _ name: PropertyName, _ value: PropertyValue, parameters: [Parameter] = []
    ) {
        icalcomponent_add_property(pointer, Property.make(name, value, parameters: parameters))
        cachedIndex = nil
    }

    // MARK: - Serialization

    /// The component as iCalendar text: CRLF line ends, lines folded at 75 octets,
    /// text escaped. The corresponding libical function is `icalcomponent_as_ical_string_r`.
    public func serialized() -> String {
        var bytes: [UInt8] = []
        serialize(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the serialized component to `buffer` without an intermediate `String`.
    ///
    /// Two repairs of libical's output happen on the way, in one pass:
    /// - libical 3.0 folds a line whose content ends exactly at the 75-octet boundary between
    ///   the `\r` and the `\n` of its line end (`…\r` `\r\n ` `\n`): readers then see a stray
    ///   carriage return, and trailing whitespace of the value is lost. That sequence cannot
    ///   occur otherwise (text values escape line breaks), so it becomes a plain `\r\n`.
    /// - Values that libical cannot print as they are carry two-byte markers (0xFF and a
    ///   code; see `EdgeWhitespace`): a backslash of a verbatim value, edge whitespace.
    ///   Each becomes what it stands for; when libical folded between the two bytes, the
    ///   fold stays in front of the character.
    ///
    /// libical 3.0 also ends every `X-` component with `END:X` (it prints the kind's name,
    /// not the component's); such an `END` gets the name of the `BEGIN` it closes.
    public func serialize(into buffer: inout [UInt8]) {
        guard let text = icalcomponent_as_ical_string_r(pointer) else { return }
        defer { icalmemory_free_buffer(text) }
        let start = buffer.count
        let count = strlen(text)
        let bytes = UnsafeRawBufferPointer(start: text, count: count)
        if Self.contains(bytes, Self.xEnd) {
            var repaired: [UInt8] = []
            Self.repair(bytes, into: &repaired)
            Self.nameXEnds(repaired, into: &buffer)
        } else {
            Self.repair(bytes, into: &buffer)
        }
        Self.keepEscapesWhole(&buffer, from: start)
    }

    private static let foldAfterBackslash: [UInt8] = [0x5C, 0x0D, 0x0A, 0x20]

    /// libical folds a line before any ASCII byte, so also between a backslash and the
    /// character it escapes (`\` CRLF SP `n`). RFC 5545 allows it (readers unfold first),
    /// but Google Calendar reads the halves apart and garbles the text. A line folded so is
    /// folded again, at most 75 octets a line, never inside an escape or a UTF-8 character.
    static func keepEscapesWhole(_ buffer: inout [UInt8], from start: Int) {
        let suspect = buffer.withUnsafeBytes {
            contains(UnsafeRawBufferPointer(rebasing: $0[start...]), foldAfterBackslash)
        }
        guard suspect else { return }
        func oddBackslashes(_ bytes: [UInt8], before end: Int, from floor: Int) -> Bool {
            var count = 0
            var index = end - 1
            while index >= floor, bytes[index] == 0x5C {
                count += 1
                index -= 1
            }
            return count % 2 == 1
        }
        // Only the new part is rebuilt: a caller serializing many components into one buffer
        // must stay linear.
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count - start + 64)
        var index = start
        let end = buffer.count
        while index < end {
            // One logical line: its physical lines, the folds taken out.
            let logicalStart = index
            var content: [UInt8] = []
            var splitEscape = false
            var lineEnd = end
            while true {
                var cr = index
                while cr + 1 < end, !(buffer[cr] == 0x0D && buffer[cr + 1] == 0x0A) { cr += 1 }
                if cr + 1 >= end { cr = end }
                content.append(contentsOf: buffer[index..<cr])
                let next = min(cr + 2, end)
                if next < end, buffer[next] == 0x20 {
                    if oddBackslashes(content, before: content.count, from: 0) {
                        splitEscape = true
                    }
                    index = next + 1
                    continue
                }
                lineEnd = next
                index = next
                break
            }
            guard splitEscape else {
                out.append(contentsOf: buffer[logicalStart..<lineEnd])
                continue
            }
            var position = 0
            var first = true
            while position < content.count {
                var cut = min(position + (first ? 75 : 74), content.count)
                while cut < content.count, cut > position + 1,
                    content[cut] & 0xC0 == 0x80
                        || oddBackslashes(content, before: cut, from: position)
                {
                    cut -= 1
                }
                if !first { out += [0x0D, 0x0A, 0x20] }
                out.append(contentsOf: content[position..<cut])
                position = cut
                first = false
            }
            out += [0x0D, 0x0A]
        }
        buffer.removeLast(buffer.count - start)
        buffer.append(contentsOf: out)
    }

    private static let xEnd = Array("\r\nEND:X\r\n".utf8)

    /// Replaces each `END:X` line by `END:` and the name of the `BEGIN` it closes.
    static func nameXEnds(_ bytes: [UInt8], into buffer: inout [UInt8]) {
        var open: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end + 1 < bytes.count, !(bytes[end] == 0x0D && bytes[end + 1] == 0x0A) {
                end += 1
            }
            let lineEnd = min(end + 2, bytes.count)
            let line = bytes[start..<end]
            if line.starts(with: Array("BEGIN:".utf8)) {
                open.append(line.dropFirst(6))
                buffer.append(contentsOf: bytes[start..<lineEnd])
            } else if line.starts(with: Array("END:".utf8)) {
                let name = open.popLast()
                if line.elementsEqual(Array("END:X".utf8)), let name {
                    buffer.append(contentsOf: Array("END:".utf8))
                    buffer.append(contentsOf: name)
                    buffer.append(contentsOf: bytes[end..<lineEnd])
                } else {
                    buffer.append(contentsOf: bytes[start..<lineEnd])
                }
            } else {
                buffer.append(contentsOf: bytes[start..<lineEnd])
            }
            start = lineEnd
        }
    }

    /// Whether `needle` occurs in `bytes`: memchr to each candidate, memcmp there. (Not
    /// DataProtocol.firstRange(of:): Foundation's generic search compares element by element
    /// at every position, and took a tenth of a whole JSON → .ics conversion.)
    static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = bytes.baseAddress, let first = needle.first, bytes.count >= needle.count
        else { return needle.isEmpty }
        return needle.withUnsafeBytes { pattern in
            let last = bytes.count - needle.count
            var offset = 0
            while offset <= last {
                guard let found = memchr(base + offset, Int32(first), last - offset + 1) else {
                    return false
                }
                if memcmp(found, pattern.baseAddress!, needle.count) == 0 { return true }
                offset = base.distance(to: UnsafeRawPointer(found)) + 1
            }
            return false
        }
    }

    static func repair(_ bytes: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        assert(EdgeWhitespace.marker == 0xFF)  // what the eight-byte test below looks for
        let count = bytes.count
        // Grown geometrically: an exact reserve on every call would copy the whole buffer each
        // time a caller serializes many components into one buffer (quadratic).
        if buffer.capacity < buffer.count + count {
            buffer.reserveCapacity(max(buffer.count + count, buffer.capacity * 2))
        }
        guard needsRepair(bytes) else {
            buffer.append(contentsOf: bytes)
            return
        }
        var copied = 0
        var index = 0
        while index < count {
            // Eight bytes at a time past those with nothing to repair: no CR, no marker
            // (0xFF) and no 0xEF, which differ only in 0x10 (4% of writing an .ics, bytewise).
            if index + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if !WordScan.hasByte(word, 0x0D)
                    && !WordScan.hasByte(word | 0x1010_1010_1010_1010, 0xFF)
                {
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            guard byte == 0x0D || byte == EdgeWhitespace.marker || byte == 0xEF else {
                index += 1
                continue
            }
            if byte == 0xEF {
                // The punctuation of a parameter value list (Property.ParameterList).
                if index + 2 < count, bytes[index + 1] == 0xB7,
                    (0x90...0x93).contains(bytes[index + 2])
                {
                    buffer.append(contentsOf: bytes[copied..<index])
                    buffer.append(Property.ParameterList.punctuation[Int(bytes[index + 2] - 0x90)])
                    index += 3
                    copied = index
                } else {
                    index += 1
                }
                continue
            }
            if byte == 0x0D {
                // `\r` `\r\n ` `\n`: a fold inside the line end.
                if index + 4 < count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A,
                    bytes[index + 3] == 0x20, bytes[index + 4] == 0x0A
                {
                    buffer.append(contentsOf: bytes[copied..<index])
                    buffer += [0x0D, 0x0A]
                    index += 5
                    copied = index
                } else {
                    index += 1
                }
                continue
            }
            // A marker: its code follows at once, or after a fold.
            var codeIndex = index + 1
            var folded = false
            if codeIndex + 2 < count, bytes[codeIndex] == 0x0D, bytes[codeIndex + 1] == 0x0A,
                bytes[codeIndex + 2] == 0x20
            {
                codeIndex += 3
                folded = true
            }
            guard codeIndex < count, let replacement = EdgeWhitespace.output(for: bytes[codeIndex])
            else {
                index += 1
                continue
            }
            buffer.append(contentsOf: bytes[copied..<index])
            if folded { buffer += [0x0D, 0x0A, 0x20] }
            buffer += replacement
            index = codeIndex + 1
            copied = index
        }
        buffer.append(contentsOf: bytes[copied..<count])
    }

    /// Whether `bytes` hold anything ``repair(_:into:)`` changes: a marker (0xFF), the
    /// start of a parameter list's punctuation (0xEF 0xB7), or two carriage returns in a row
    /// (a fold inside a line end). Each is rare and found with memchr, so most events are
    /// copied at once; the eight-byte scan met a carriage return in every line (a tenth of
    /// serializing an event).
    private static func needsRepair(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        let count = bytes.count
        if memchr(base, Int32(EdgeWhitespace.marker), count) != nil { return true }
        func pair(_ first: UInt8, _ second: UInt8) -> Bool {
            var offset = 0
            while offset < count, let found = memchr(base + offset, Int32(first), count - offset) {
                let index = base.distance(to: UnsafeRawPointer(found))
                if index + 1 < count, bytes[index + 1] == second { return true }
                offset = index + 1
            }
            return false
        }
        return pair(0xEF, 0xB7) || pair(0x0D, 0x0D)
    }

    /// A deep copy of this component as a new root. The corresponding libical function is
    /// `icalcomponent_new_clone`.
    public func clone() -> Component {
        Component(root: icalcomponent_new_clone(pointer), lines: lines)
    }
}

@available(*, unavailable)
extension Component: Sendable {}
