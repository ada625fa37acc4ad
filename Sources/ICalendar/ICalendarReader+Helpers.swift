import CLibical
import Glibc

extension ICalendarReader {
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

    func finish() throws(ICalendarError) {
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
    static func clean(_ message: String) -> String {
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
