import ICalendar
import TaskModel

/// Zones every reader knows, and values that are something: the repairs of `--for any` that
/// Home Assistant's `ical` and Google Calendar need (IANA names only) and libical (a value of
/// spaces is none).
extension StrictRepairs {
    /// The date properties whose `TZID` the reader keeps as written when it reproduces no zone.
    private static let zonedProperties = [
        "DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "RDATE", "EXDATE",
    ]

    /// Texts of nothing but spaces (`LOCATION: `): libical reads no value there.
    func dropBlankTexts(_ record: inout TaskRecord, say: (AppRule, String) -> Void) {
        var dropped: [String] = []
        if let text = record.description, !text.isEmpty, Self.isBlank(text) {
            record.description = nil
            dropped.append("DESCRIPTION")
        }
        if let text = record.location, !text.isEmpty, Self.isBlank(text) {
            record.location = nil
            dropped.append("LOCATION")
        }
        if let text = record.url, !text.isEmpty, Self.isBlank(text) {
            record.url = nil
            dropped.append("URL")
        }
        guard !dropped.isEmpty else { return }
        say(
            AppRules.anyEmptyValue,
            "\(dropped.joined(separator: ", ")) of only white space left out")
    }

    /// A `TZID` every reader knows on each time: a `TZID` the reader kept as written (a zone
    /// nothing defines, read as floating time, or one on a UTC time) is left out, the time
    /// written as it was read; a record in a zone only the calendar defines goes into the
    /// IANA zone whose offsets agree with the definition at each instant the record uses
    /// (its occurrences, as far as ``compared`` reach), the one that agrees longest over the
    /// year it starts in; where none does, into UTC when its occurrences stay the same.
    func repairZones(_ record: inout TaskRecord, say: (AppRule, String) -> Void) {
        for key in Self.zonedProperties {
            guard let text = record.icalParameters[key],
                var parameters = ParameterText.parse(text),
                let tzid = parameters.first(where: { $0.name == "TZID" })?.value
            else { continue }
            parameters.removeAll { $0.name == "TZID" }
            record.icalParameters[key] =
                parameters.isEmpty ? nil : ParameterText.format(parameters)
            let form =
                record.floating
                ? "a zone nothing defines; written as read, a floating time"
                : "on a UTC time; written as read, in UTC"
            say(AppRules.anyZoneName, "\(key);TZID=\(tzid.prefix(60)) left out: \(form)")
        }
        guard !record.allDay, !record.floating, !record.unscheduled,
            let own = record.timeZone, TimeZones.ianaName(forTZID: own) == nil
        else { return }
        guard knowsCalendarZones else {
            // `lint`: the calendar's definitions are not at hand; the repair is named.
            say(
                AppRules.anyZoneName,
                "TZID=\(own.prefix(60)) is no IANA name: written in the IANA zone whose offsets agree with its VTIMEZONE, or in UTC"
            )
            return
        }
        guard let defined = zones.definition(own) else { return }
        let expansion = Expansion(
            window: record.dateStart..<Timestamp.range.upperBound, limit: Self.compared,
            zones: zones)
        guard let (occurrences, _) = try? expansion.occurrences(of: record) else { return }
        let instants =
            [record.dateStart, record.dateFinish]
            + occurrences.flatMap { [$0.dateStart, $0.dateFinish] }
        let year = DateTimeValue(utcEpoch: record.dateStart).year
        for name in ranking.ranked(own, defined, year: year) {
            guard let system = SystemZone.named(name),
                instants.allSatisfy({ system.offset(at: $0) == defined.offset(at: $0) })
            else { continue }
            var candidate = record
            candidate.timeZone = name
            guard sameOccurrences(record, candidate) else { continue }
            record = candidate
            say(
                AppRules.anyZoneName,
                "TZID=\(own.prefix(60)) is no IANA name: written in \(name), whose offsets agree with its VTIMEZONE"
            )
            return
        }
        var candidate = record
        candidate.timeZone = nil
        guard sameOccurrences(record, candidate) else { return }
        record = candidate
        say(
            AppRules.anyZoneName,
            "TZID=\(own.prefix(60)) is no IANA name and no IANA zone agrees with its VTIMEZONE: written in UTC"
        )
    }
}

/// The system's zones in the order they agree with a zone only a calendar defines over a
/// year (its offset at noon every day, hourly around its changes), best first; among equals
/// a zone whose city the `TZID` names (`Canberra, Melbourne, Sydney`), then the zones
/// Windows names stand for: worked out once per definition and year.
final class ZoneRanking {
    private var ranked: [String: [String]] = [:]

    func ranked(_ tzid: String, _ zone: CalendarZone, year: Int) -> [String] {
        let key = "\(tzid)\u{0}\(year)"
        if let known = ranked[key] { return known }
        let samples = ZoneResolver.samples(of: zone, year: year)
        let words = tzid.lowercased()
        var scored: [(name: String, score: Int, named: Bool)] = []
        for name in ZoneResolver.candidates {
            guard let system = SystemZone.named(name) else { continue }
            let score = samples.reduce(0) {
                $0 + (system.offset(at: $1.instant) == $1.offset ? 1 : 0)
            }
            guard score > 0 else { continue }
            let city = name.split(separator: "/").last.map {
                $0.replacingOccurrences(of: "_", with: " ").lowercased()
            }
            scored.append((name, score, city.map { words.contains($0) } ?? false))
        }
        // A stable sort: equals keep the candidates' order.
        let result = scored.enumerated().sorted { one, other in
            let (a, b) = (one.element, other.element)
            if a.score != b.score { return a.score > b.score }
            if a.named != b.named { return a.named }
            return one.offset < other.offset
        }.map(\.element.name)
        ranked[key] = result
        return result
    }
}
