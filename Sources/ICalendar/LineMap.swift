import CLibical
import Glibc

/// Where a parsed component and its properties stood in the text: the answer to "which line?"
/// for errors found after parsing (a bad date, an unknown zone), and the lines as written.
final class LineMap {
    let begin: Int
    /// Each line libical holds a property for: its name (upper-cased), line number and the
    /// unfolded line as written, in file order.
    ///
    /// This and `index` are met for every line read and every property asked for; they are
    /// checked for exclusivity at compile time only, as the reader's own state is (see
    /// ``ICalendarReader``): a map belongs to one reader or component, used by one thread at
    /// a time, and no access to either is open while another to it runs.
    @exclusivity(unchecked)
    var properties: [PropertyLine] = [] {
        didSet { index = nil }
    }

    /// One line libical holds a property for. A struct, not a tuple: an array of tuples is
    /// copied and destroyed by the runtime walking the tuple's layout, element by element.
    struct PropertyLine {
        /// Upper-cased.
        var name: String
        var line: Int
        /// Unfolded, as written.
        var raw: [UInt8]
    }
    /// Positions in `properties` by name, built on the first look-up: a component with
    /// 20,000 `ATTENDEE` lines is looked up in linear time, not quadratic.
    @exclusivity(unchecked) private var index: [String: [Int]]?
    var children: [LineMap] = []
    /// Lines the reader kept as written and never gave libical (see
    /// ``ICalendarReader/interpretedProperties``), in file order.
    var verbatim: [RawLine] = []
    /// Lines libical could not read, with its reason; left out of the component.
    var unreadable: [(line: RawLine, reason: String)] = []
    /// Subcomponents libical does not interpret (`VLOCATION`, `X-…`), as their lines.
    var verbatimComponents: [RawComponent] = []

    /// The name after `BEGIN:`.
    let name: String

    init(begin: Int, name: String) {
        self.begin = begin
        self.name = name
        // An event has a dozen lines: grown one by one, the list was made four times over.
        properties.reserveCapacity(12)
    }

    /// The line of the `occurrence`-th property named `name`. A line with several values
    /// (`EXDATE:a,b`) becomes several libical properties, so an occurrence past the last
    /// line of that name maps to that last line.
    func line(ofProperty name: String, occurrence: Int) -> Int? {
        entry(ofProperty: name, occurrence: occurrence)?.line ?? begin
    }

    func entry(ofProperty name: String, occurrence: Int) -> PropertyLine? {
        // A typical component has a dozen lines: walking them costs less than building a
        // dictionary of arrays. Long ones (20,000 ATTENDEEs) get the index.
        if properties.count <= 32 {
            let length = name.utf8.count
            var seen = 0
            var last: Int?
            for (position, entry) in properties.enumerated()
            where entry.name.utf8.count == length && entry.name == name {
                if seen == occurrence { return entry }
                seen += 1
                last = position
            }
            return last.map { properties[$0] }
        }
        if index == nil {
            var built: [String: [Int]] = [:]
            for (position, entry) in properties.enumerated() {
                built[entry.name, default: []].append(position)
            }
            index = built
        }
        guard let positions = index?[name], let last = positions.last else { return nil }
        return properties[occurrence < positions.count ? positions[occurrence] : last]
    }
}

extension Component {
    /// The component as the file had it, from `BEGIN` to `END`: every line the reader met,
    /// those libical could not read and those it never saw included, unfolded; `nil` for a
    /// component not read from text.
    public var asWritten: RawComponent? {
        lines.map { RawComponent(name: $0.name, lines: $0.linesAsWritten()) }
    }
}

extension LineMap {
    /// This component's lines in file order, its subcomponents' included.
    func linesAsWritten() -> [RawLine] {
        var blocks: [(line: Int, lines: [RawLine])] = []
        blocks += properties.map { ($0.line, [RawLine(line: $0.line, bytes: $0.raw)]) }
        blocks += verbatim.map { ($0.line, [$0]) }
        blocks += unreadable.map { ($0.line.line, [$0.line]) }
        blocks += verbatimComponents.map { ($0.line, $0.lines) }
        blocks += children.map { ($0.begin, $0.linesAsWritten()) }
        blocks.sort { $0.line < $1.line }
        var result = [RawLine(line: begin, bytes: Array("BEGIN:\(name)".utf8))]
        for block in blocks
        where block.lines.first.map({ $0.line > (result.last?.line ?? 0) }) ?? false {
            result += block.lines
        }
        result.append(
            RawLine(line: (result.last?.line ?? begin) + 1, bytes: Array("END:\(name)".utf8)))
        return result
    }
}

/// One unfolded content line as the file had it, and where.
public struct RawLine: Sendable, Hashable {
    /// The 1-based number of its first physical line.
    public var line: Int
    /// The unfolded bytes, UTF-8, without the line end.
    public var bytes: [UInt8]

    /// The line as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the line has parameters: a `;` comes before the first `:` (a name holds
    /// neither). Most lines have none, and this looks at the name only, where ``lexed()``
    /// reads the whole value (a 4 KB attachment).
    public var hasParameters: Bool {
        for byte in bytes {
            if byte == UInt8(ascii: ";") { return true }
            if byte == UInt8(ascii: ":") { return false }
        }
        return false
    }

    /// Whether the line is `name:value`, the name written as given, no parameters, and a
    /// value ``lexed()`` accepts: what lexing it would say of such a line, without making
    /// its ``ContentLine`` (every event's `DTSTAMP` is asked this).
    public func isParameterless(named name: String) -> Bool {
        var name = name
        return name.withUTF8 { name in
            guard bytes.count > name.count, bytes[name.count] == UInt8(ascii: ":") else {
                return false
            }
            return bytes.withUnsafeBufferPointer { line in
                memcmp(line.baseAddress!, name.baseAddress!, name.count) == 0
            } && !ContentLine.hasControlCharacter(bytes[(name.count + 1)...])
        }
    }

    /// The line split into name, parameters and value.
    public func lexed() throws(ICalendarError) -> ContentLine {
        do {
            return try ContentLine.lex(bytes)
        } catch {
            throw ICalendarError(error.kind, line: line, error.message)
        }
    }
}

/// A component kept as its lines (`BEGIN` to `END`), for what libical does not interpret.
public struct RawComponent: Sendable, Hashable {
    /// The name after `BEGIN:`, upper-cased.
    public var name: String
    /// Every line from `BEGIN` to `END`.
    public var lines: [RawLine]

    /// The 1-based line of the `BEGIN`.
    public var line: Int { lines.first?.line ?? 0 }
}

extension Component {
    /// Creates a component from its text (`BEGIN:NAME` … `END:NAME`) kept verbatim: every
    /// component of it is built by name and every line as ``Property/init(verbatim:)`` builds it, so
    /// libical prints it back as it was written, whatever libical makes of it.
    ///
    /// - Throws: ``ICalendarError/Kind/malformedLine`` when the text is not one whole
    ///   component of content lines.
    public static func verbatim(_ text: String) throws(ICalendarError) -> Component {
        var stack: [(component: Component, name: String)] = []
        var result: Component?
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        for (number, rawLine) in lines.enumerated() {
            let line = try ContentLine(parsing: String(rawLine))
            guard result == nil else {
                throw ICalendarError(
                    .malformedLine, line: number + 1, "text after the END of the component")
            }
            switch line.name {
            case "BEGIN":
                guard stack.count < ReadingLimits.depth else {
                    throw ICalendarError(.nestingTooDeep, line: number + 1, "nested too deep")
                }
                let name = line.value.uppercased()
                stack.append((Component(kind: .other(name)), name))
            case "END":
                guard let open = stack.popLast(), open.name == line.value.uppercased() else {
                    throw ICalendarError(
                        .unbalancedComponents, line: number + 1,
                        "END:\(line.value) does not close a BEGIN")
                }
                if let parent = stack.last {
                    parent.component.add(open.component)
                } else {
                    result = open.component
                }
            default:
                guard let open = stack.last else {
                    throw ICalendarError(
                        .malformedLine, line: number + 1, "expected BEGIN:NAME first")
                }
                open.component.add(Property(verbatim: line))
            }
        }
        guard let result, stack.isEmpty else {
            throw ICalendarError(.unbalancedComponents, "the component has no END")
        }
        return result
    }

    /// The lines of this component that the reader kept as written instead of giving them to
    /// libical, in file order: properties outside ``ICalendarReader/interpretedProperties``.
    public var verbatimLines: [RawLine] { lines?.verbatim ?? [] }

    /// Lines libical could not read, each with libical's reason, in file order. They are not
    /// in the component; the caller decides whether that is fatal.
    public var unreadableLines: [(line: RawLine, reason: String)] { lines?.unreadable ?? [] }

    /// Every line of this component as the file had it (not its subcomponents'), in file
    /// order: what libical holds, what it never saw, what it could not read.
    public var rawLines: [RawLine] {
        guard let lines else { return [] }
        let held = lines.properties.map { RawLine(line: $0.line, bytes: $0.raw) }
        return (held + lines.verbatim + lines.unreadable.map(\.line)).sorted { $0.line < $1.line }
    }

    /// Subcomponents kept as their lines (`BEGIN:VLOCATION` … `END:VLOCATION`).
    public var verbatimComponents: [RawComponent] { lines?.verbatimComponents ?? [] }
}
