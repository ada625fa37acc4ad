import Foundation
import ICalendar
import TaskModel

/// Builds `VEVENT`s, `VTODO`s and `VJOURNAL`s from task records through libical, per
/// `RecordMapping`: the same steps as ``EventReader``, in the same order, in
/// `ComponentWriting`.
public struct EventWriter: Sendable {
    /// How ids become UIDs.
    public var uidScheme: UIDScheme {
        get { settings.uidScheme }
        set { uniqueSettings().uidScheme = newValue }
    }
    /// `DTSTAMP`, Unix seconds: `SOURCE_DATE_EPOCH` when set, so output is reproducible.
    public var timestamp: Int64 {
        get { settings.timestamp }
        set { uniqueSettings().timestamp = newValue }
    }
    /// Write times as local times in this IANA zone (`TZID` + `VTIMEZONE`) instead of UTC,
    /// for records without a `time_zone` of their own.
    public var zone: String? {
        get { settings.zone }
        set { uniqueSettings().zone = newValue }
    }
    /// Leave out the records' `ical_extra` lines (`--drop-extra`).
    public var dropExtra: Bool {
        get { settings.dropExtra }
        set { uniqueSettings().dropExtra = newValue }
    }
    /// Write a disabled alarm as an RFC 9074 `VALARM` with `ACTION:NONE` (its action kept in
    /// `X-TASKCAL-ACTION`) instead of the `X-` component files get: for CalDAV servers,
    /// which keep a `VALARM` but may drop an unknown component (Radicale does).
    public var disabledAlarmsAsActionNone: Bool {
        get { settings.disabledAlarmsAsActionNone }
        set { uniqueSettings().disabledAlarmsAsActionNone = newValue }
    }
    /// Zones the calendar defines itself (kept `VTIMEZONE`s), by `TZID`.
    public var zones: ZoneCatalog {
        get { settings.zones }
        set { uniqueSettings().zones = newValue }
    }

    /// The settings above, behind one reference and copied only when a writer that two
    /// values share is changed (copy on write). A writer is copied for each record written
    /// (into the record's ``ComponentWriting``, and with each record's file on several
    /// cores), and each copy retained and released the scheme's strings, the zone's name
    /// and the zones' table: four copies a record, 1% of writing (issue 59).
    private final class Settings: @unchecked Sendable {
        // Sendable: a Settings two writers share is never changed (uniqueSettings()).
        var uidScheme: UIDScheme
        var timestamp: Int64
        var zone: String?
        var dropExtra = false
        var disabledAlarmsAsActionNone = false
        var zones = ZoneCatalog()

        init(uidScheme: UIDScheme, timestamp: Int64, zone: String?) {
            self.uidScheme = uidScheme
            self.timestamp = timestamp
            self.zone = zone
        }

        func copy() -> Settings {
            let copy = Settings(uidScheme: uidScheme, timestamp: timestamp, zone: zone)
            copy.dropExtra = dropExtra
            copy.disabledAlarmsAsActionNone = disabledAlarmsAsActionNone
            copy.zones = zones
            return copy
        }
    }
    private var settings: Settings

    /// The settings, unshared first when another writer holds them too.
    private mutating func uniqueSettings() -> Settings {
        if !isKnownUniquelyReferenced(&settings) { settings = settings.copy() }
        return settings
    }

    /// The `PRODID` taskcal writes.
    public static let productID = "-//taskcal//taskcal 1.0//EN"
    /// Marks a `DESCRIPTION`/`SUMMARY` that taskcal filled in because RFC 5545 requires one
    /// but the record's alarm had none; reading drops it again, so nothing is invented.
    static let filledParameter = Parameter("X-TASKCAL-FILLED", "TRUE")
    /// Keeps the action of a disabled alarm written as RFC 9074 `ACTION:NONE` (as earlier
    /// versions wrote it; still read).
    static let disabledActionProperty = "X-TASKCAL-ACTION"
    /// A disabled alarm: a component no calendar app fires (calcurse shows `ACTION:NONE`
    /// alarms as active), holding the alarm's lines.
    static let disabledAlarmComponent = "X-TASKCAL-DISABLED-VALARM"
    /// What precedes each property name inside ``disabledAlarmComponent``.
    static let disabledPrefix = "X-TASKCAL-"
    /// Calendar-level properties taskcal writes itself.
    static let ownCalendarProperties: Set<String> = ["VERSION", "PRODID", "CALSCALE"]

    /// Creates a writer.
    public init(
        uidScheme: UIDScheme = UIDScheme(), timestamp: Int64, zone: String? = nil
    ) {
        settings = Settings(uidScheme: uidScheme, timestamp: timestamp, zone: zone)
    }

    /// `DTSTAMP` from `SOURCE_DATE_EPOCH` when it holds Unix seconds, else now.
    public static func timestampFromEnvironment() -> Int64 {
        if let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"],
            let value = Int64(text)
        {
            return value
        }
        return Int64(Date().timeIntervalSince1970)
    }

    /// The calendar's opening: `VCALENDAR` with `VERSION`, `PRODID`, `CALSCALE`, the
    /// calendar's own lines and zones, and the `VTIMEZONE` of ``zone`` when set, covering
    /// `zoneSpan` (default: from 1970 on; see ``zoneSpans(for:)``).
    public func calendarHeader(
        _ calendar: CalendarInfo = CalendarInfo(), zoneSpan: ClosedRange<Int64>? = nil
    ) throws(ICalendarError) -> Component {
        let header = Component(kind: .calendar)
        header.addProperty("VERSION", .literal("2.0"))
        header.addProperty("PRODID", .text(Self.productID))
        header.addProperty("CALSCALE", .literal("GREGORIAN"))
        for (index, text) in calendar.icalExtra.enumerated() {
            let line: ContentLine
            do {
                line = try ContentLine(parsing: text)
            } catch {
                throw ICalendarError(
                    .invalidValue, "calendar.ical_extra[\(index)]: \(error.message)")
            }
            if Self.ownCalendarProperties.contains(line.name) { continue }
            header.add(Property(verbatim: line))
        }
        for text in calendar.icalComponents where ZoneCatalog.isTimeZone(text) {
            header.add(try Component.verbatim(text))
        }
        if let zone, zone != "UTC", zones.definition(zone) == nil {
            header.add(try TimeZones.vtimezone(named: zone, covering: zoneSpan))
        }
        return header
    }

    /// The calendar's own components that are no zone (`VFREEBUSY`, `X-…`), written after
    /// the records.
    public func calendarTrailer(_ calendar: CalendarInfo) throws(ICalendarError) -> [Component] {
        var result: [Component] = []
        for text in calendar.icalComponents where !ZoneCatalog.isTimeZone(text) {
            result.append(try Component.verbatim(text))
        }
        return result
    }

    /// The system zones `record` and its subtasks are written in, each with the span of
    /// instants written in it (unbounded after a repeating record's start): what the zone's
    /// `VTIMEZONE` must cover. Records in ``zone`` are
    /// listed under its name; zones the calendar defines itself, and UTC, are left out.
    public func zoneSpans(for record: TaskRecord) -> [(zone: String, span: ClosedRange<Int64>)] {
        var found: [(zone: String, span: ClosedRange<Int64>)] = []
        func visit(_ record: TaskRecord) {
            defer { record.subtasks.forEach(visit) }
            guard !record.allDay, !record.floating else { return }
            let name: String
            if let own = record.timeZone {
                guard zones.definition(own) == nil, let iana = TimeZones.ianaName(forTZID: own)
                else { return }
                name = iana
            } else if let zone {
                name = zone
            } else {
                return
            }
            guard name != "UTC", let span = Self.span(of: record) else { return }
            if let index = found.firstIndex(where: { $0.zone == name }) {
                let old = found[index].span
                found[index].span =
                    min(old.lowerBound, span.lowerBound)...max(old.upperBound, span.upperBound)
            } else {
                found.append((name, span))
            }
        }
        visit(record)
        return found
    }

    /// The instants `record` writes as local times; unbounded above for a repeating record.
    static func span(of record: TaskRecord) -> ClosedRange<Int64>? {
        var times: [Int64] = record.unscheduled ? [] : [record.dateStart, record.dateFinish]
        if let due = record.due { times.append(due) }
        if let recurrenceID = record.recurrenceID { times.append(recurrenceID) }
        if let recurrence = record.recurrence {
            times += recurrence.exdates
            times += recurrence.rdates
        }
        guard let earliest = times.min(), let latest = times.max() else { return nil }
        return earliest...(record.recurrence?.rule != nil ? Int64.max : latest)
    }

    /// The components for `record`: its `VEVENT`, `VTODO` or `VJOURNAL`, then one `VTODO`
    /// for each subtask (depth first) naming its parent in `RELATED-TO`. Relative attachment
    /// `path`s are read from the folder `attachmentBase` (that of the file the record came
    /// from).
    ///
    /// - Throws: `Problem` when a field cannot be written (an attachment `path` that cannot
    ///   be read, an unknown zone, a rule libical refuses).
    public func components(
        for record: TaskRecord, attachmentBase: URL? = nil
    ) throws -> [Component] {
        var result: [Component] = []
        func add(_ record: TaskRecord, parent: String?, path: String) throws {
            do {
                let component = try event(for: record, attachmentBase: attachmentBase)
                if let parent { component.addProperty("RELATED-TO", .text(parent)) }
                result.append(component)
            } catch let problem as Problem where !path.isEmpty {
                throw problem.nested(in: path)
            }
            // Made only for a parent: nearly every record has no subtask, and a UID made for
            // nothing was 1.3% of writing (issue 59).
            guard !record.subtasks.isEmpty else { return }
            let uid = record.uid ?? uidScheme.uid(for: record.id)
            for (index, subtask) in record.subtasks.enumerated() {
                try add(
                    subtask, parent: uid,
                    path: path + (path.isEmpty ? "" : ".") + "subtasks[\(index)]")
            }
        }
        try add(record, parent: nil, path: "")
        return result
    }

    /// The component for `record` alone (without its subtasks).
    ///
    /// - Throws: `Problem` when a field cannot be written.
    public func event(for record: TaskRecord, attachmentBase: URL? = nil) throws -> Component {
        let writing = try ComponentWriting(record: record, writer: self)
        writing.identity()
        try writing.times()
        writing.text()
        try writing.people()
        try writing.attachments(base: attachmentBase)
        try writing.recurrence()
        try writing.verbatim()
        try writing.alarms()
        return writing.component
    }
}
