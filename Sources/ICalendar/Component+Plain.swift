import CLibical

/// A `VEVENT` of the shape most exported events have, read in one pass over libical's
/// properties, without a ``Property`` per line.
///
/// Plain means: every property line libical holds is one of `UID`, `DTSTART`, `DTEND`,
/// `SUMMARY`, `DESCRIPTION` (each at most once) written without parameters, or an `ATTACH`
/// with no parameters but `VALUE`, `ENCODING`, `FMTTYPE` and `FILENAME`; no line was
/// unreadable and no subcomponent was kept as its lines; every subcomponent is a `VALARM`
/// whose lines are plain in the same way (`ACTION`, `TRIGGER`, `DESCRIPTION`, `SUMMARY`)
/// and that has an `ACTION` and a `TRIGGER`. Lines the reader kept as written (outside
/// ``ICalendarReader/interpretedProperties``) are handed on as they are.
///
/// Reading a record field by field through ``Property`` objects cost about five times what
/// libical's own parsing of such an event does (issue 13); a caller reads plain events from
/// this and every other one property by property, the same way it always did.
package struct PlainEvent {
    package var uid: String?
    package var start: DateTimeValue?
    package var end: DateTimeValue?
    package var summary: String?
    package var description: String?
    package var alarms: [PlainAlarm] = []
    /// The `ATTACH`es, in file order.
    package var attachments: [PlainAttachment] = []
    /// The lines the reader kept as written, in file order (``Component/verbatimLines``).
    package var verbatimLines: [RawLine]
}

/// A plain `ATTACH` of a ``PlainEvent``: its value and the two parameters it may have.
package struct PlainAttachment {
    /// As ``Property/attachment`` reads it.
    package var value: Attachment
    /// `FILENAME`.
    package var filename: String?
    /// `FMTTYPE`.
    package var mimeType: String?
}

/// A plain `VALARM` of a ``PlainEvent``.
package struct PlainAlarm {
    /// The 1-based line of its `BEGIN`.
    package var line: Int
    /// As ``Property/action`` reads it: upper-cased.
    package var action: String
    package var trigger: Trigger
    package var description: String?
    package var summary: String?
}

extension Component {
    /// This component as a ``PlainEvent``, or `nil` when it is not one (read it property by
    /// property). Dates are read as ``Property/dateTimeValue()`` reads them; one that it
    /// refuses makes the event not plain.
    package func plainEvent() -> PlainEvent? {
        guard let lines, icalcomponent_isa(pointer) == ICAL_VEVENT_COMPONENT,
            lines.unreadable.isEmpty, lines.verbatimComponents.isEmpty,
            Self.withoutParameters(lines.properties)
        else { return nil }
        var event = PlainEvent(verbatimLines: lines.verbatim)
        var count = 0
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        while let current = property {
            count += 1
            switch icalproperty_isa(current) {
            case ICAL_UID_PROPERTY:
                guard event.uid == nil else { return nil }
                event.uid = Property.text(of: current)
            case ICAL_DTSTART_PROPERTY:
                guard event.start == nil,
                    let value = try? Property.dateTimeValue(of: current, name: "", line: nil)
                else { return nil }
                event.start = value
            case ICAL_DTEND_PROPERTY:
                guard event.end == nil,
                    let value = try? Property.dateTimeValue(of: current, name: "", line: nil)
                else { return nil }
                event.end = value
            case ICAL_SUMMARY_PROPERTY:
                guard event.summary == nil else { return nil }
                event.summary = Property.text(of: current)
            case ICAL_DESCRIPTION_PROPERTY:
                guard event.description == nil else { return nil }
                event.description = Property.text(of: current)
            case ICAL_ATTACH_PROPERTY:
                guard let value = Property.attachment(of: current) else { return nil }
                event.attachments.append(
                    PlainAttachment(
                        value: value,
                        filename: Property.parameter(named: "FILENAME", of: current),
                        mimeType: Property.parameter(named: "FMTTYPE", of: current)))
            default:
                return nil
            }
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        // One libical property a line: none was split (lists) or dropped.
        guard count == lines.properties.count else { return nil }
        var index = 0
        var child = icalcomponent_begin_component(pointer, ICAL_ANY_COMPONENT)
        while let current = icalcompiter_deref(&child) {
            guard index < lines.children.count,
                let alarm = Self.plainAlarm(current, lines: lines.children[index])
            else { return nil }
            event.alarms.append(alarm)
            index += 1
            icalcompiter_next(&child)
        }
        guard index == lines.children.count else { return nil }
        return event
    }

    private static func plainAlarm(_ pointer: OpaquePointer, lines: LineMap) -> PlainAlarm? {
        guard icalcomponent_isa(pointer) == ICAL_VALARM_COMPONENT,
            icalcomponent_count_components(pointer, ICAL_ANY_COMPONENT) == 0,
            lines.children.isEmpty, lines.unreadable.isEmpty, lines.verbatim.isEmpty,
            lines.verbatimComponents.isEmpty, withoutParameters(lines.properties)
        else { return nil }
        var action: String?
        var trigger: Trigger?
        var description: String?
        var summary: String?
        var count = 0
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        while let current = property {
            count += 1
            switch icalproperty_isa(current) {
            case ICAL_ACTION_PROPERTY:
                guard action == nil else { return nil }
                action = Property.action(of: current)
            case ICAL_TRIGGER_PROPERTY:
                guard trigger == nil else { return nil }
                trigger = Property.trigger(of: current)
            case ICAL_DESCRIPTION_PROPERTY:
                guard description == nil else { return nil }
                description = Property.text(of: current)
            case ICAL_SUMMARY_PROPERTY:
                guard summary == nil else { return nil }
                summary = Property.text(of: current)
            default:
                return nil
            }
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        guard count == lines.properties.count, let action, let trigger else { return nil }
        return PlainAlarm(
            line: lines.begin, action: action, trigger: trigger, description: description,
            summary: summary)
    }

    /// Whether no line has parameters: no `;` before the first `:` (as
    /// ``RawLine/hasParameters`` decides), but an `ATTACH`, which may have those
    /// ``attachmentParameters`` names.
    private static func withoutParameters(_ properties: [LineMap.PropertyLine]) -> Bool {
        for entry in properties {
            for byte in entry.raw {
                if byte == UInt8(ascii: ";") {
                    guard entry.name == "ATTACH",
                        let line = try? ContentLine.lex(entry.raw),
                        line.parameters.allSatisfy({ attachmentParameters.contains($0.name) })
                    else { return false }
                    break
                }
                if byte == UInt8(ascii: ":") { break }
            }
        }
        return true
    }

    /// The parameters a plain `ATTACH` may have: those its value and ``PlainAttachment``
    /// hold.
    private static let attachmentParameters: Set<String> = [
        "VALUE", "ENCODING", "FMTTYPE", "FILENAME",
    ]
}
