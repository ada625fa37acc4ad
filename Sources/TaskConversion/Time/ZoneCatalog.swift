import Foundation
import ICalendar
import TaskModel

/// Where the zones of a calendar's own `VTIMEZONE`s are: the definitions a calendar keeps
/// because no IANA zone matches them, by `TZID`.
public struct ZoneCatalog: Sendable {
    private var defined: [String: CalendarZone] = [:]

    /// An empty catalog: only the system's zones.
    public init() {}

    /// The zones `calendar`'s `VTIMEZONE`s define.
    ///
    /// - Throws: `ICalendarError` for a definition libical cannot read or that is not bounded.
    public init(calendar: CalendarInfo) throws(ICalendarError) {
        for text in calendar.icalComponents where Self.isTimeZone(text) {
            let reader = ICalendarReader(text: "BEGIN:VCALENDAR\r\n" + text + "END:VCALENDAR\r\n")
            while try reader.next() != nil {}
            for component in reader.timeZones {
                let zone = try CalendarZone(defining: component)
                defined[zone.tzid] = zone
            }
        }
    }

    /// The zone the calendar defines under `tzid`, if it does.
    public func definition(_ tzid: String) -> CalendarZone? { defined[tzid] }

    /// The zone `name` stands for: a definition of the calendar, else a system zone under any
    /// name calendar apps write.
    public func zone(named name: String) -> CalendarZone? {
        if let zone = defined[name] { return zone }
        return TimeZones.ianaName(forTZID: name).flatMap(CalendarZone.system)
    }

    /// The `TZID` a `VTIMEZONE` kept verbatim defines, or `nil` for another component.
    static func definedTZID(_ text: String) -> String? {
        guard isTimeZone(text) else { return nil }
        let reader = ICalendarReader(text: "BEGIN:VCALENDAR\r\n" + text + "END:VCALENDAR\r\n")
        while (try? reader.next()) != nil {}
        return reader.timeZones.first?.firstProperty(named: "TZID")?.text
    }

    /// Whether a component kept verbatim (`icalComponents`) is a `VTIMEZONE`.
    static func isTimeZone(_ text: String) -> Bool {
        text.uppercased().hasPrefix("BEGIN:VTIMEZONE")
    }
}
