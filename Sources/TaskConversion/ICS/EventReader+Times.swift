import ICalendar
import TaskModel

extension ComponentReading {
    /// The times step's properties, in the order its notes name them: unreadable ones, then
    /// second ones (made once; a literal is a new array at each call).
    private static let timeNames = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "DURATION"]
    private static let singleTimeNames = ["DTSTART", "DTEND", "DUE", "DURATION", "RECURRENCE-ID"]

    /// `DTSTART`, `DTEND` or `DURATION`, `DUE`, `RECURRENCE-ID`: the record's times, its zone
    /// and whether it is all-day or floating.
    mutating func times(_ zones: ZoneResolver) {
        for name in Self.timeNames {
            for (raw, reason) in takeUnreadable(named: name) {
                skip(line: raw.line, "its \(name) cannot be read (\(reason))")
            }
        }
        guard !skipped else { return }
        let timeProperties = properties(of: .times)
        for name in Self.singleTimeNames {
            var isFirst = true
            for property in timeProperties where property.name == name {
                if isFirst {
                    isFirst = false
                } else {
                    secondProperty(property)
                }
            }
        }
        guard let startProperty = first("DTSTART") else {
            if kind == .event {
                skip(
                    line: line,
                    "it has no DTSTART, which a record needs (RFC 5545 allows none only in scheduling messages with METHOD)"
                )
                return
            }
            record.unscheduled = true
            due(zones)
            if record.due != nil, let dueProperty = first("DUE") {
                record.allDay = (try? dueProperty.dateTimeValue().isDate) ?? false
            }
            recurrenceID(zones)
            keepForeignTimes()
            return
        }
        guard let start = value(of: startProperty) else { return }
        record.allDay = start.isDate
        let placed = place(start, from: startProperty, zones: zones)
        record.dateStart = placed.epoch
        if !start.isDate {
            record.timeZone = placed.zone
            record.floating = placed.floating
        }
        let zone = calendarZone(for: placed, zones: zones)
        if let kept = SkippedWallTime.parameter(for: start, epoch: placed.epoch, in: zone) {
            record.icalParameters["DTSTART"] =
                record.icalParameters["DTSTART"].map { $0 + ";" + kept } ?? kept
        }
        if kind == .event {
            end(start: start, startEpoch: placed.epoch, zone: zone, zones: zones)
        } else if kind == .journal {
            // RFC 5545 gives a journal entry a date and no end: a DTEND or DURATION is kept
            // as written (keepForeignTimes), not read into a length no writer gives back.
            record.dateFinish = placed.epoch
        } else {
            due(zones)
            // RFC 5545 allows a to-do DUE or DURATION, not both; beside a DUE the DURATION is
            // kept as written (keepForeignTimes), as the writer writes the DUE alone.
            if record.due == nil, let duration = first("DURATION") {
                record.dateFinish = add(duration, to: start, epoch: placed.epoch, zone: zone)
            } else {
                record.dateFinish = placed.epoch
            }
        }
        recurrenceID(zones)
        keepForeignTimes()
    }

    /// Times no field of this kind is read from, kept as written rather than lost: an
    /// event's `DUE`, a to-do's `DTEND` (and its `DURATION` beside a `DUE` or without a
    /// `DTSTART`), a journal's `DTEND`, `DURATION` and `DUE`. RFC 5545 gives these kinds none
    /// of them; apps write them all the same, and the writer writes them back from
    /// `ical_extra` (``RecordMapping/field(governing:in:)`` lets them stand).
    private mutating func keepForeignTimes() {
        let names: [String]
        switch kind {
        case .event: names = ["DUE"]
        case .todo:
            names = record.unscheduled || record.due != nil ? ["DTEND", "DURATION"] : ["DTEND"]
        case .journal: names = ["DTEND", "DURATION", "DUE"]
        }
        for name in names {
            if let property = first(name) { keep(property) }
        }
    }

    /// The value of a date property, or `nil` with the component left out.
    mutating func value(of property: Property) -> DateTimeValue? {
        do {
            return try property.dateTimeValue()
        } catch {
            skip(line: error.line ?? property.lineNumber, error.message)
            return nil
        }
    }

    /// Places `value` through the zones, keeping a `TZID` that is not reproduced.
    mutating func place(_ value: DateTimeValue, from property: Property, zones: ZoneResolver)
        -> ZoneResolver.Placement
    {
        let placed = zones.place(
            value, tzidWritten: property.parameter("TZID"), property: property.name,
            line: property.lineNumber, notes: &notes)
        keepParameters(
            of: property,
            except: placed.keptTZID == nil ? Self.valueAndZone : Self.valueOnly)
        keepValueType(value, of: property.name)
        return placed
    }

    /// What ``place(_:from:zones:)`` reproduces of a date property's parameters: made once,
    /// not for each property read (2% of reading an .ics).
    private static let valueAndZone: Set<String> = ["VALUE", "TZID"]
    private static let valueOnly: Set<String> = ["VALUE"]

    /// A date property whose value type is not the record's (a DATE-TIME on an all-day
    /// record: Outlook's RECURRENCE-ID and EXDATE) keeps its type in `ical_parameters`.
    mutating func keepValueType(_ value: DateTimeValue, of property: String) {
        guard property != "DTSTART", value.isDate != record.allDay else { return }
        let marker = "VALUE=" + (value.isDate ? "DATE" : "DATE-TIME")
        if let existing = record.icalParameters[property] {
            if !existing.contains(marker) {
                record.icalParameters[property] = existing + ";" + marker
            }
        } else {
            record.icalParameters[property] = marker
        }
    }

    /// The zone a placement's wall-clock arithmetic (durations, repeats) runs in.
    func calendarZone(for placed: ZoneResolver.Placement, zones: ZoneResolver) -> CalendarZone {
        guard let name = placed.zone else { return .utc }
        return zones.zone(named: name) ?? .utc
    }

    /// `DTEND`, else `DTSTART` + `DURATION`, else (RFC 5545 §3.6.1) one day for a DATE and
    /// no time for a DATE-TIME.
    private mutating func end(
        start: DateTimeValue, startEpoch: Int64, zone: CalendarZone, zones: ZoneResolver
    ) {
        if let endProperty = first("DTEND") {
            if let duration = first("DURATION") {
                note(
                    .secondProperty, line: duration.lineNumber,
                    "DURATION and DTEND both give the end (RFC 5545 allows one); DTEND is used, DURATION left out",
                    lenient: true)
            }
            guard let end = value(of: endProperty) else { return }
            noteForm(of: end, property: endProperty, start: start)
            if end.isDate != start.isDate {
                // RFC 5545 wants one type for both; readers take the end as it is.
                note(
                    .unreadableValue, line: endProperty.lineNumber,
                    "DTEND is a \(end.isDate ? "DATE" : "DATE-TIME") but DTSTART is not; its instant is kept, its type too",
                    lenient: true)
            }
            let placed = place(end, from: endProperty, zones: zones)
            record.dateFinish = placed.epoch
            if start.isDate && placed.epoch == startEpoch {
                // Seen in the wild; RFC 5545 wants a later DTEND. Apps show one day.
                record.dateFinish = startEpoch + 86_400
                note(
                    .allDayZeroLength, line: endProperty.lineNumber,
                    "the all-day \(name) ends on the day it starts; read as lasting one day")
            } else if placed.epoch < startEpoch && start.isDate {
                record.dateFinish = startEpoch + 86_400
                note(
                    .unreadableValue, line: endProperty.lineNumber,
                    "DTEND is before DTSTART; read as lasting one day", lenient: true)
            } else if placed.epoch < startEpoch {
                swapped(
                    endEpoch: placed.epoch, startEpoch: startEpoch, line: endProperty.lineNumber)
            }
        } else if let duration = first("DURATION") {
            record.dateFinish = add(duration, to: start, epoch: startEpoch, zone: zone)
            if record.dateFinish <= startEpoch && start.isDate && kind == .event {
                record.dateFinish = startEpoch + 86_400
                note(
                    .unreadableValue, line: duration.lineNumber,
                    "the all-day \(name) has no positive DURATION; read as lasting one day",
                    lenient: true)
            } else if record.dateFinish < startEpoch {
                record.dateFinish = startEpoch
                note(
                    .unreadableValue, line: duration.lineNumber,
                    "DURATION is negative; read as no time, the DURATION kept as written",
                    lenient: true)
                keep(duration)
            }
        } else {
            record.dateFinish = start.isDate && kind == .event ? startEpoch + 86_400 : startEpoch
        }
    }

    /// A time whose form (UTC, floating, zoned) is not `start`'s is written back in `start`'s
    /// form, which keeps its instant: said in a note.
    mutating func noteForm(of value: DateTimeValue, property: Property, start: DateTimeValue?) {
        guard let start, !value.isDate, !start.isDate else { return }
        func form(_ zone: DateTimeValue.Zone) -> String {
            switch zone {
            case .utc: "a UTC time"
            case .floating: "a floating time"
            case .tzid: "a zoned time"
            }
        }
        guard form(value.zone) != form(start.zone) else { return }
        note(
            .unreadableValue, line: property.lineNumber,
            "\(property.name) is \(form(value.zone)) but DTSTART is \(form(start.zone)); written back as DTSTART is, at the same instant",
            lenient: true)
    }

    /// `start` + a DURATION: its days are calendar days in `zone` (nominal, RFC 5545
    /// §3.3.6), its hours, minutes and seconds exact.
    private func add(
        _ property: Property, to start: DateTimeValue, epoch: Int64, zone: CalendarZone
    ) -> Int64 {
        let (days, seconds) = property.durationParts
        if start.isDate { return epoch + Int64(days) * 86_400 + Int64(seconds) }
        let local = zone.epoch(ofLocal: start.localSeconds + Int64(days) * 86_400)
        return (days == 0 ? epoch : local) + Int64(seconds)
    }

    /// An end before the start (seen: times typed the wrong way round). A single event is
    /// read as the time between the two, as recurring-ical-events and calendar apps read it,
    /// and written back in order; a repeating one, whose rule, exceptions and changed
    /// occurrences hang on DTSTART, keeps its start and lasts as long after it.
    private mutating func swapped(endEpoch: Int64, startEpoch: Int64, line: Int?) {
        let repeats = first("RRULE") != nil || first("RDATE") != nil
        if repeats {
            record.dateFinish = startEpoch + (startEpoch - endEpoch)
        } else {
            record.dateStart = endEpoch
            record.dateFinish = startEpoch
        }
        note(
            .unreadableValue, line: line,
            repeats
                ? "DTEND is before DTSTART; the repeating \(name) is read as lasting as long after DTSTART"
                : "DTEND is before DTSTART; read as the time between them, as other readers do, and written back in order",
            lenient: true)
    }

    /// A to-do's `DUE`.
    private mutating func due(_ zones: ZoneResolver) {
        guard kind == .todo, let dueProperty = first("DUE"),
            let due = value(of: dueProperty)
        else { return }
        if !record.unscheduled {
            let start = (try? first("DTSTART")?.dateTimeValue()) ?? nil
            noteForm(of: due, property: dueProperty, start: start)
            if let start, start.isDate != due.isDate {
                note(
                    .unreadableValue, line: dueProperty.lineNumber,
                    "DUE is a \(due.isDate ? "DATE" : "DATE-TIME") but DTSTART is not; its instant is kept, its type too",
                    lenient: true)
            }
        }
        let placed = place(due, from: dueProperty, zones: zones)
        if !record.unscheduled && placed.epoch < record.dateStart {
            // Seen in the wild (swapped times); the rules want DUE after DTSTART.
            note(
                .unreadableValue, line: dueProperty.lineNumber,
                "DUE is before DTSTART; read as no due time, the DUE kept as written",
                lenient: true)
            record.icalParameters["DUE"] = nil
            keep(dueProperty)
            return
        }
        record.due = placed.epoch
        if record.unscheduled && !due.isDate {
            record.timeZone = placed.zone
            record.floating = placed.floating
        }
    }

    /// `RECURRENCE-ID`, and `RANGE=THISANDFUTURE`.
    private mutating func recurrenceID(_ zones: ZoneResolver) {
        guard let property = first("RECURRENCE-ID"),
            let value = value(of: property)
        else { return }
        let range = property.parameter("RANGE")?.uppercased()
        let placed = zones.place(
            value, tzidWritten: property.parameter("TZID"), property: property.name,
            line: property.lineNumber, notes: &notes)
        var reproduced: Set<String> = ["VALUE"]
        if placed.keptTZID == nil { reproduced.insert("TZID") }
        if range == "THISANDFUTURE" {
            record.thisAndFuture = true
            reproduced.insert("RANGE")
        }
        if record.allDay, !value.isDate, let zone = placed.zone.flatMap(zones.zone(named:)),
            case let local = zone.local(placed.epoch), local.hour == 0, local.minute == 0,
            local.second == 0
        {
            // Outlook names an occurrence of an all-day series by its local midnight: that
            // is the date (RFC 5545 §3.8.4.4 wants DTSTART's type), as recurring-ical-events
            // and the apps match it, and so it is written back.
            let date = DateTimeValue(
                year: local.year, month: local.month, day: local.day, isDate: true,
                zone: .floating)
            record.recurrenceID = date.epochAsUTC
            reproduced.insert("TZID")
            keepParameters(of: property, except: reproduced)
            note(
                .repairedValue, line: property.lineNumber,
                "RECURRENCE-ID is the local midnight of an all-day occurrence; read as the date \(String(format: "%04d-%02d-%02d", local.year, local.month, local.day)), the type of DTSTART"
            )
            return
        }
        keepParameters(of: property, except: reproduced)
        keepValueType(value, of: property.name)
        record.recurrenceID = placed.epoch
    }
}

extension ZoneResolver {
    /// The zone a record's `time_zone` names: a system zone, or a definition of this input.
    func zone(named name: String) -> CalendarZone? {
        if let defined = keptZone(name) { return defined }
        if let iana = TimeZones.ianaName(forTZID: name) { return CalendarZone.system(iana) }
        return nil
    }
}
