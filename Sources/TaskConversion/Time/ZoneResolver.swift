import Foundation
import ICalendar
import TaskModel

/// Places the DATE-TIMEs of one input on the time line: `TZID`s through the file's own
/// `VTIMEZONE`s, then the system's zones under the many names calendar apps write, floating
/// times in the zone the user chose; and says which zone a record is in.
///
/// Its readings, where the input allows several or none, are notes the caller turns into
/// warnings (or errors with `--strict`):
/// - an unknown `TZID` is read as floating time in the fallback zone and kept as written;
/// - a `TZID` on a UTC time (`…Z`) is read as UTC;
/// - a time before its `VTIMEZONE`'s first onset is read with the system's history of the
///   zone (when it has a name the system knows) or the definition's earliest offset;
/// - a `VTIMEZONE` that comes after the first time using it is found by reading ahead.
///
/// A zone only the file defines is matched, as Thunderbird does, to the IANA zone whose
/// offsets agree with it over the year in use; where none agrees it is kept
/// (``keptDefinitions``) and records name it.
final class ZoneResolver {
    /// The zone for floating times when the user chose one (`--tz`).
    let chosenZone: String?
    /// The calendar's own zone for floating times (`X-WR-TIMEZONE`), as an IANA name.
    var calendarZone: String?
    /// Where the file's `VTIMEZONE`s are.
    private let reader: ICalendarReader
    /// All `VTIMEZONE`s of the whole file, for reading ahead (`nil`: standard input).
    private let lookahead: (@Sendable () -> [UInt8]?)?
    private var lookedAhead = false

    private var definitions: [String: CalendarZone?] = [:]
    private var matches: [String: String?] = [:]
    /// Definitions that match no IANA zone, by `TZID`: the calendar keeps them.
    private(set) var keptDefinitions: [String: String] = [:]
    private var warnedFloating = false

    init(
        chosenZone: String?, reader: ICalendarReader,
        lookahead: (@Sendable () -> [UInt8]?)?
    ) {
        self.chosenZone = chosenZone
        self.reader = reader
        self.lookahead = lookahead
    }

    /// The definition of a zone the calendar keeps (one that matched no IANA zone).
    func keptZone(_ tzid: String) -> CalendarZone? {
        guard keptDefinitions[tzid] != nil else { return nil }
        return definitions[tzid] ?? nil
    }

    /// The zone floating times are read in: `--tz`, else `X-WR-TIMEZONE`, else local.
    var floatingZone: String { chosenZone ?? calendarZone ?? TimeZones.localName }

    /// Where one value lands.
    struct Placement {
        /// Unix seconds.
        var epoch: Int64
        /// The record's `time_zone`: an IANA name, or the `TZID` of a definition the
        /// calendar keeps; `nil` for UTC.
        var zone: String?
        /// The value has no zone of its own (floating, or an unknown `TZID` read as such).
        var floating = false
        /// The value's `TZID` as written, when it is not reproduced from ``zone`` (an unknown
        /// zone, or a `TZID` on a UTC time): kept so that it goes back out as it came.
        var keptTZID: String?
    }

    /// Places `value` (read from `property` on `line`); notes go to `notes`.
    func place(
        _ value: DateTimeValue, tzidWritten: String?, property: String, line: Int?,
        notes: inout [ReadingNote]
    ) -> Placement {
        if value.isDate { return Placement(epoch: value.epochAsUTC) }
        switch value.zone {
        case .utc:
            if let tzidWritten {
                notes.append(
                    ReadingNote(
                        .zoneOnUTCTime, line: line,
                        "\(property) has TZID=\(tzidWritten) and a UTC time (…Z); read as UTC, the TZID kept as written",
                        lenient: true))
                return Placement(epoch: value.epochAsUTC, keptTZID: tzidWritten)
            }
            return Placement(epoch: value.epochAsUTC)
        case .floating:
            let zone = floatingZone
            if chosenZone == nil && calendarZone == nil && !warnedFloating {
                warnedFloating = true
                notes.append(
                    ReadingNote(
                        .floatingTime, line: line,
                        "\(property) is a floating time (no zone); read in the local zone \(zone). Use --tz ZONE to choose"
                    ))
            }
            let placed = CalendarZone.system(zone) ?? .utc
            return Placement(epoch: placed.epoch(of: value), zone: zone, floating: true)
        case .tzid(let tzid):
            return place(value, tzid: tzid, property: property, line: line, notes: &notes)
        }
    }

    private func place(
        _ value: DateTimeValue, tzid: String, property: String, line: Int?,
        notes: inout [ReadingNote]
    ) -> Placement {
        var defined = definition(tzid, line: line, notes: &notes)
        let iana = TimeZones.ianaName(forTZID: tzid)
        if defined == nil, iana == nil, let found = readAhead(for: tzid, line: line, notes: &notes)
        {
            defined = found
        }
        if let defined {
            let local = value.localSeconds
            let epoch = defined.epoch(ofLocal: local)
            if let onset = Self.firstOnset(of: defined), local < onset {
                let year = DateTimeValue(localSeconds: onset).year
                if let iana, let system = CalendarZone.system(iana) {
                    let systemEpoch = system.epoch(ofLocal: local)
                    if systemEpoch != epoch {
                        // Exporters write a VTIMEZONE with only recent rules; before its
                        // first onset the file says nothing, and the system's history applies.
                        notes.append(
                            ReadingNote(
                                .beforeZoneDefinition, line: line,
                                "\(property) is before \(year), where the VTIMEZONE '\(tzid)' begins; read with the system's history of \(iana)",
                                lenient: true))
                    }
                    // Read in the system's zone, the record is in it: written back, it gets
                    // the system's VTIMEZONE, which every reader reads the same way.
                    return Placement(epoch: systemEpoch, zone: iana)
                } else {
                    notes.append(
                        ReadingNote(
                            .beforeZoneDefinition, line: line,
                            "\(property) is before \(year), where the VTIMEZONE '\(tzid)' begins; read with its earliest offset",
                            lenient: true))
                }
            }
            if let iana, agrees(defined, with: iana, around: epoch) {
                return Placement(epoch: epoch, zone: iana)
            }
            if let match = match(defined, tzid: tzid, around: epoch) {
                return Placement(epoch: epoch, zone: match)
            }
            if let iana, CalendarZone.system(iana) != nil {
                // A file's own rules for a zone the system knows by that name, off from the
                // system's here (an onset an hour late): the instant is the file's, the zone
                // the system's. Keeping the file's VTIMEZONE as well would put two
                // definitions under one TZID in the output, one for the records read
                // before this one and one for the rest.
                return Placement(epoch: epoch, zone: iana)
            }
            if keptDefinitions[tzid] == nil, let text = defined.definition?.serialized() {
                keptDefinitions[tzid] = text
            }
            return Placement(epoch: epoch, zone: tzid)
        }
        if let iana, let system = CalendarZone.system(iana) {
            return Placement(epoch: system.epoch(of: value), zone: iana)
        }
        let zone = floatingZone
        notes.append(
            ReadingNote(
                .unknownTimeZone, line: line,
                "\(property): unknown time zone '\(tzid)' (no VTIMEZONE defines it and the system knows no such name); read as floating time in \(zone), the TZID kept as written",
                lenient: true))
        let placed = CalendarZone.system(zone) ?? .utc
        return Placement(epoch: placed.epoch(of: value), zone: zone, floating: true, keptTZID: tzid)
    }

    /// The zone the file's `VTIMEZONE` with this `TZID` defines, when there is one.
    private func definition(_ tzid: String, line: Int?, notes: inout [ReadingNote])
        -> CalendarZone?
    {
        if let known = definitions[tzid] { return known }
        guard
            let component = reader.timeZones.first(where: {
                $0.firstProperty(named: "TZID")?.text == tzid
            })
        else { return nil }
        do {
            let zone = try CalendarZone(defining: component)
            definitions[tzid] = zone
            return zone
        } catch {
            notes.append(
                ReadingNote(.zoneRefused, line: error.line ?? line, error.message, lenient: true))
            definitions[tzid] = .some(nil)
            return nil
        }
    }

    /// Reads the whole file's `VTIMEZONE`s once, when a `TZID` has none yet.
    private func readAhead(for tzid: String, line: Int?, notes: inout [ReadingNote])
        -> CalendarZone?
    {
        guard !lookedAhead, let lookahead else { return nil }
        lookedAhead = true
        guard let zones = lookahead(), !zones.isEmpty,
            (try? reader.addTimeZones(from: zones)) != nil
        else { return nil }
        definitions = definitions.filter { $0.value != nil }
        guard let found = definition(tzid, line: line, notes: &notes) else { return nil }
        notes.append(
            ReadingNote(
                .zoneDefinedLate, line: line,
                "the VTIMEZONE '\(tzid)' comes after its first use; read ahead to find it",
                lenient: true))
        return found
    }

    // MARK: - Matching definitions to IANA zones

    /// The wall-clock time of the earliest onset of a defined zone.
    private static func firstOnset(of zone: CalendarZone) -> Int64? {
        guard let definition = zone.definition else { return nil }
        var earliest: Int64?
        for observance in definition.subcomponents() {
            guard let start = try? observance.firstProperty(named: "DTSTART")?.dateTimeValue()
            else { continue }
            earliest = min(earliest ?? start.localSeconds, start.localSeconds)
        }
        return earliest
    }

    /// Candidates in order: what the name says, then the zones Windows names stand for (the
    /// common ones), then every other zone.
    static let candidates: [String] = {
        var seen = Set<String>()
        var result: [String] = []
        for name in WindowsZoneNames.all + SystemZoneNames.all where seen.insert(name).inserted {
            result.append(name)
        }
        return result
    }()

    private func match(_ zone: CalendarZone, tzid: String, around epoch: Int64) -> String? {
        let year = DateTimeValue(utcEpoch: epoch).year
        let key = "\(tzid)\u{0}\(year)"
        if let known = matches[key] { return known }
        let samples = Self.samples(of: zone, year: year)
        // A zone with one offset all year is that offset (Etc/UTC, Etc/GMT-3), not the first
        // place that happens to keep it (Africa/Sao_Tome for +00:00).
        if let offset = samples.first?.offset, samples.allSatisfy({ $0.offset == offset }),
            offset % 3600 == 0, abs(offset) <= 14 * 3600
        {
            let hours = -offset / 3600
            let name = offset == 0 ? "Etc/UTC" : "Etc/GMT\(hours > 0 ? "+" : "")\(hours)"
            if SystemZone.named(name) != nil {
                matches[key] = .some(name)
                return name
            }
        }
        let found = Self.candidates.first { name in
            guard let system = SystemZone.named(name) else { return false }
            return samples.allSatisfy { system.offset(at: $0.instant) == $0.offset }
        }
        matches[key] = .some(found)
        return found
    }

    private func agrees(_ zone: CalendarZone, with name: String, around epoch: Int64) -> Bool {
        guard let system = SystemZone.named(name) else { return false }
        let year = DateTimeValue(utcEpoch: epoch).year
        return Self.samples(of: zone, year: year).allSatisfy {
            system.offset(at: $0.instant) == $0.offset
        }
    }

    /// The defined zone's offsets at noon UTC on every day of `year`, and hourly on the days
    /// its offset changes: enough to tell zones apart by their rules and change times.
    static func samples(of zone: CalendarZone, year: Int) -> [(instant: Int64, offset: Int)] {
        let first = DateTimeValue(year: year, month: 1, day: 1, zone: .utc).epochAsUTC
        var result: [(Int64, Int)] = []
        var previous: Int?
        for day in 0..<366 {
            let noon = first + Int64(day) * 86_400 + 43_200
            let offset = zone.offset(at: noon)
            if let previous, previous != offset {
                for hour in stride(from: -36, through: 0, by: 1) {
                    let instant = noon + Int64(hour) * 3600
                    result.append((instant, zone.offset(at: instant)))
                }
            }
            result.append((noon, offset))
            previous = offset
        }
        return result
    }
}

/// One thing the reader noticed in a component, with the line it concerns.
public struct ReadingNote: Sendable, Hashable {
    /// The kind of thing, stable for scripts.
    public var code: DiagnosticCode
    public var line: Int?
    public var message: String
    /// A reading was chosen where the input allows several or none: an error under `--strict`.
    public var lenient: Bool

    public init(_ code: DiagnosticCode, line: Int?, _ message: String, lenient: Bool = false) {
        self.code = code
        self.line = line
        self.message = message
        self.lenient = lenient
    }
}

/// The zones CLDR's Windows table names: the zone each common region is known by.
enum WindowsZoneNames {
    static let all: [String] = TimeZones.commonZones
}

/// Every zone the system has, sorted.
enum SystemZoneNames {
    static let all: [String] = TimeZones.allNames
}
