import CLibical
import Glibc

extension ICalendarReader {
    // MARK: - Structure

    func handle(_ line: [UInt8], at number: Int) throws(ICalendarError) -> Item? {
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
}
