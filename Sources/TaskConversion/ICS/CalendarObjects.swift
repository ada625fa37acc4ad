import Foundation
import ICalendar
import TaskModel

/// One calendar object resource (RFC 4791 §4.1): a `VCALENDAR` with the components of one
/// UID (an event and its changed occurrences, or one to-do) and the `VTIMEZONE`s they use.
public struct CalendarObject: Sendable, Equatable {
    /// The UID its components share.
    public var uid: String
    /// The whole `VCALENDAR`, CRLF line ends.
    public var bytes: [UInt8]
}

/// Calendar data as a CalDAV server keeps it: one object per UID.
public enum CalendarObjects {
    /// The objects of an iCalendar stream (what taskcal wrote): each UID's components with
    /// the zones they name, under taskcal's `VERSION`, `PRODID` and `CALSCALE`, in the order
    /// of their first component. The calendar's own lines (`X-WR-CALNAME`, `METHOD`) stay out,
    /// as RFC 4791 wants of an object.
    ///
    /// - Throws: ``Diagnostic`` for a stream libical cannot read, or a component without UID.
    public static func split(_ bytes: [UInt8], name: String) throws(Diagnostic) -> [CalendarObject]
    {
        let reader = ICalendarReader(bytes: bytes)
        var order: [String] = []
        var members: [String: [Component]] = [:]
        var zonesUsed: [String: [String]] = [:]
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                throw Diagnostic(.error, Location(file: name, line: error.line), error.message)
            }
            guard let item else { break }
            switch item {
            case .component(let component):
                guard let uid = component.firstProperty(named: "UID")?.text, !uid.isEmpty else {
                    throw Diagnostic(
                        .error, Location(file: name, line: component.lineNumber),
                        "a \(component.kind) has no UID; a calendar server keeps none without one"
                    )
                }
                if members[uid] == nil { order.append(uid) }
                members[uid, default: []].append(component.clone())
                for zone in zoneIDs(of: component) where !(zonesUsed[uid] ?? []).contains(zone) {
                    zonesUsed[uid, default: []].append(zone)
                }
            case .failed(let kind, let line, let errors):
                throw Diagnostic(
                    .error, Location(file: name, line: line),
                    "\(kind): " + errors.map(\.message).joined(separator: "; "))
            case .verbatim(let raw):
                throw Diagnostic(
                    .error, Location(file: name, line: raw.line),
                    "a top-level \(raw.name) is not a calendar object a server keeps")
            }
        }
        var zones: [String: Component] = [:]
        for zone in reader.timeZones {
            if let id = zone.firstProperty(named: "TZID")?.text { zones[id] = zone }
        }
        return order.map { uid in
            let calendar = Component(kind: .calendar)
            calendar.addProperty("VERSION", .literal("2.0"))
            calendar.addProperty("PRODID", .text(EventWriter.productID))
            calendar.addProperty("CALSCALE", .literal("GREGORIAN"))
            for id in zonesUsed[uid] ?? [] {
                if let zone = zones[id] { calendar.add(zone.clone()) }
            }
            for component in members[uid] ?? [] { calendar.add(component) }
            var bytes: [UInt8] = []
            calendar.serialize(into: &bytes)
            return CalendarObject(uid: uid, bytes: bytes)
        }
    }

    /// The `TZID`s the properties of `component` and its subcomponents name.
    static func zoneIDs(of component: Component) -> [String] {
        var found: [String] = []
        for property in component.properties() {
            if let zone = property.parameter("TZID"), !found.contains(zone) { found.append(zone) }
        }
        for child in component.subcomponents() {
            for zone in zoneIDs(of: child) where !found.contains(zone) { found.append(zone) }
        }
        return found
    }

    /// Objects as one iCalendar stream for the readers: each object's `VCALENDAR` in turn, so
    /// that a to-do and its subtasks, kept apart on the server, nest again.
    /// No objects give an empty `VCALENDAR` (an empty calendar is a calendar).
    public static func joined(_ objects: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        if objects.isEmpty {
            let calendar = Component(kind: .calendar)
            calendar.addProperty("VERSION", .literal("2.0"))
            calendar.addProperty("PRODID", .text(EventWriter.productID))
            calendar.serialize(into: &bytes)
            return bytes
        }
        for object in objects {
            bytes += object
            if let last = object.last, last != UInt8(ascii: "\n") { bytes += [0x0D, 0x0A] }
        }
        return bytes
    }
}
