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
        var result: [Property] = []
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        let wanted = name?.uppercased()
        var seen: [String: Int] = [:]
        while let current = property {
            let currentName = Property.name(of: current)
            if wanted == nil || currentName == wanted {
                var line: Int?
                if let lines {
                    let occurrence = seen[currentName, default: 0]
                    seen[currentName] = occurrence + 1
                    line = lines.line(ofProperty: currentName, occurrence: occurrence)
                }
                result.append(Property(view: current, owner: self, line: line))
            }
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        return result
    }

    /// The first property named `name`, if any.
    public func firstProperty(named name: String) -> Property? {
        let upper = name.uppercased()
        let kind = PropertyKinds.kind(of: upper)
        guard kind != ICAL_X_PROPERTY && kind != ICAL_NO_PROPERTY else {
            return properties(named: upper).first
        }
        // A known kind: libical finds it without walking every property.
        guard let found = icalcomponent_get_first_property(pointer, kind) else { return nil }
        return Property(
            view: found, owner: self, line: lines?.line(ofProperty: upper, occurrence: 0))
    }

    /// Adds `property`, a new one, as the last property; it becomes a view of this tree.
    public func add(_ property: Property) {
        precondition(property.isFreestanding, "a property can be added to a component only once")
        icalcomponent_add_property(pointer, property.pointer)
        property.becomeView(of: self)
    }

    /// Adds a new property named `name` with `value` and `parameters`.
    public func addProperty(
        _ name: String, _ value: PropertyValue, parameters: [Parameter] = []
    ) {
        add(Property(name, value, parameters: parameters))
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
    ///   code; see ``EdgeWhitespace``): a backslash of a verbatim value, edge whitespace.
    ///   Each becomes what it stands for; when libical folded between the two bytes, the
    ///   fold stays in front of the character.
    public func serialize(into buffer: inout [UInt8]) {
        guard let text = icalcomponent_as_ical_string_r(pointer) else { return }
        defer { icalmemory_free_buffer(text) }
        Self.repair(UnsafeRawBufferPointer(start: text, count: strlen(text)), into: &buffer)
    }

    static func repair(_ bytes: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        let count = bytes.count
        buffer.reserveCapacity(buffer.count + count)
        var copied = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            guard byte == 0x0D || byte == EdgeWhitespace.marker else {
                index += 1
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

    /// A deep copy of this component as a new root. The corresponding libical function is
    /// `icalcomponent_new_clone`.
    public func clone() -> Component {
        Component(root: icalcomponent_new_clone(pointer), lines: lines)
    }
}

@available(*, unavailable)
extension Component: Sendable {}

/// Where a parsed component and its properties stood in the text: the answer to "which line?"
/// for errors found after parsing (a bad date, an unknown zone).
final class LineMap {
    let begin: Int
    /// Each property line's name (upper-cased) and line number, in file order.
    var properties: [(name: String, line: Int)] = []
    var children: [LineMap] = []

    /// The name after `BEGIN:`.
    let name: String

    init(begin: Int, name: String) {
        self.begin = begin
        self.name = name
    }

    /// The line of the `occurrence`-th property named `name`. A line with several values
    /// (`EXDATE:a,b`) becomes several libical properties, so an occurrence past the last
    /// line of that name maps to that last line.
    func line(ofProperty name: String, occurrence: Int) -> Int? {
        var last: Int?
        var count = 0
        for entry in properties where entry.name == name {
            if count == occurrence { return entry.line }
            last = entry.line
            count += 1
        }
        return last ?? begin
    }
}
