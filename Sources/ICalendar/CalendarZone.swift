import CLibical
import Locking

/// A time zone to place wall-clock times in: UTC, a zone of the system's tz database, or one
/// that a `VTIMEZONE` of a file defines.
///
/// IANA zones are computed from the system's TZif files (``SystemZone``), never from libical's
/// built-in copies. A zone only a file defines is libical's to interpret: its `VTIMEZONE` is
/// iCalendar, and libical reads it.
public struct CalendarZone: Sendable, Hashable {
    /// The name written in `TZID` parameters.
    public let tzid: String
    let rules: Rules

    enum Rules: Sendable, Hashable {
        case utc
        case system(SystemZone)
        case defined(DefinedZone)
    }

    /// UTC.
    public static let utc = CalendarZone(tzid: "UTC", rules: .utc)

    /// The system zone named `name` (an IANA name, or `UTC`), or `nil` when there is none.
    public static func system(_ name: String) -> CalendarZone? {
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" || name == "Z" { return .utc }
        return SystemZone.named(name).map { CalendarZone(tzid: name, rules: .system($0)) }
    }

    /// The zone that `definition`, a `VTIMEZONE`, defines.
    ///
    /// - Throws: ``ICalendarError/Kind/invalidValue`` when the definition has no `TZID`, no
    ///   observance, or rules that would make libical work without bound (see
    ///   ``ReadingLimits``).
    public init(defining definition: Component) throws(ICalendarError) {
        let zone = try DefinedZone(definition)
        self.init(tzid: zone.tzid, rules: .defined(zone))
    }

    init(tzid: String, rules: Rules) {
        self.tzid = tzid
        self.rules = rules
    }

    /// The IANA name when this is a system zone (`UTC` for UTC), else `nil`.
    public var ianaName: String? {
        switch rules {
        case .utc: "UTC"
        case .system(let zone): zone.name
        case .defined: nil
        }
    }

    /// The system zone behind this zone, when it is one.
    public var systemZone: SystemZone? {
        if case .system(let zone) = rules { return zone }
        return nil
    }

    /// The `VTIMEZONE` of a zone a file defined, as libical holds it (a copy).
    public var definition: Component? {
        if case .defined(let zone) = rules { return zone.definition() }
        return nil
    }

    /// Seconds east of UTC at the instant `epoch`.
    public func offset(at epoch: Int64) -> Int {
        switch rules {
        case .utc: 0
        case .system(let zone): zone.offset(at: epoch)
        case .defined(let zone): zone.offset(at: epoch)
        }
    }

    /// The instant of a wall-clock time given as seconds since 1970-01-01T00:00 local
    /// (``DateTimeValue/localSeconds``).
    public func epoch(ofLocal local: Int64) -> Int64 {
        switch rules {
        case .utc: local
        case .system(let zone): zone.epoch(ofLocal: local)
        case .defined(let zone): zone.epoch(ofLocal: local)
        }
    }

    /// Whether the wall-clock time of `epoch` here names more than one instant (the hour
    /// repeated when clocks go back): readers do not agree which one it is (RFC 5545 and
    /// zoneinfo take the first, libical the second).
    public func isAmbiguous(at epoch: Int64) -> Bool {
        guard case .utc = rules else {
            let local = epoch + Int64(offset(at: epoch))
            return LocalTimeRule.candidates(ofLocal: local) { offset(at: $0) }.count > 1
        }
        return false
    }

    /// The wall-clock fields of `epoch` here, as a DATE-TIME with this zone's `TZID`.
    public func local(_ epoch: Int64) -> DateTimeValue {
        var value = DateTimeValue(localSeconds: epoch + Int64(offset(at: epoch)))
        value.zone = self == .utc ? .utc : .tzid(tzid)
        return value
    }

    /// The instant of `value`'s wall-clock fields here.
    public func epoch(of value: DateTimeValue) -> Int64 {
        epoch(ofLocal: value.localSeconds)
    }
}

/// A zone defined by a `VTIMEZONE`, held as a libical zone of its own.
///
/// libical computes a zone's changes lazily and caches them in the zone, so every use goes
/// through a lock; the zone is never shared with a parsed tree.
final class DefinedZone: Sendable, Hashable {
    let tzid: String
    /// The definition as libical prints it: what makes two definitions the same zone.
    let text: String
    /// The libical zone's address; only ever used under this lock.
    private let zone: Locked<UInt>

    init(_ definition: Component) throws(ICalendarError) {
        Libical.ensureReady()
        guard definition.kind == .timeZone,
            let tzid = definition.firstProperty(named: "TZID")?.text, !tzid.isEmpty
        else {
            throw ICalendarError(
                .invalidValue, line: definition.lineNumber, "a VTIMEZONE needs a TZID")
        }
        try Self.checkBounded(definition, tzid: tzid)
        let copy = icalcomponent_new_clone(definition.pointer)!
        let zone = icaltimezone_new()!
        guard icaltimezone_set_component(zone, copy) != 0 else {
            icalcomponent_free(copy)
            icaltimezone_free(zone, 1)
            throw ICalendarError(
                .invalidValue, line: definition.lineNumber,
                "the VTIMEZONE '\(tzid)' is not one libical can use")
        }
        self.tzid = tzid
        self.text = definition.serialized()
        self.zone = Locked(UInt(bitPattern: zone))
    }

    deinit {
        zone.withLock { address in icaltimezone_free(OpaquePointer(bitPattern: address), 1) }
    }

    /// Runs `body` with the libical zone, under the lock.
    private func withZone<T>(_ body: (OpaquePointer) -> T) -> T {
        zone.withLock { address in body(OpaquePointer(bitPattern: address)!) }
    }

    static func == (lhs: DefinedZone, rhs: DefinedZone) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// A copy of the definition.
    func definition() -> Component {
        withZone { pointer in
            Component(root: icalcomponent_new_clone(icaltimezone_get_component(pointer)))
        }
    }

    /// Seconds in 400 Gregorian years, after which every yearly rule repeats exactly.
    private static let gregorianCycle: Int64 = 146_097 * 86_400
    /// 2500-01-01T00:00Z: libical expands a zone's changes only up to 2582 and, asked about a
    /// later year, expands them all again on every call (seconds each). Instants from here
    /// on are read 400 years (or a multiple) earlier, where the same rules give the same
    /// offset.
    private static let lastExpandedInstant: Int64 = 16_725_225_600

    func offset(at epoch: Int64) -> Int {
        var epoch = epoch
        if epoch >= Self.lastExpandedInstant {
            epoch -=
                ((epoch - Self.lastExpandedInstant) / Self.gregorianCycle + 1) * Self.gregorianCycle
        }
        return withZone { pointer in
            var time = icaltime_from_timet_with_zone(time_t(epoch), 0, nil)
            var daylight: Int32 = 0
            return Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, &daylight))
        }
    }

    /// The instant of a wall-clock time, by RFC 5545 §3.3.5's rules as ``SystemZone`` reads
    /// them: the first of two instants in a repeated hour, the offset before a gap. libical's
    /// own reading of local times takes the second in a repeated hour, so only its
    /// UTC-to-offset direction is used.
    func epoch(ofLocal local: Int64) -> Int64 {
        LocalTimeRule.epoch(ofLocal: local) { offset(at: $0) }
    }

    /// Refuses definitions whose expansion would not be bounded: libical expands every
    /// observance's rule from its onset up to the year asked about, so a rule that repeats
    /// more than yearly, or thousands of observances, would run for minutes.
    static func checkBounded(_ definition: Component, tzid: String) throws(ICalendarError) {
        let observances = definition.subcomponents()
        func refuse(_ reason: String) -> ICalendarError {
            ICalendarError(
                .invalidValue, line: definition.lineNumber,
                "the VTIMEZONE '\(tzid)' \(reason); it is not used")
        }
        guard !observances.isEmpty else { throw refuse("has no STANDARD or DAYLIGHT") }
        guard observances.count <= ReadingLimits.zoneObservances else {
            throw refuse(
                "has \(observances.count) observances, more than the limit of \(ReadingLimits.zoneObservances)"
            )
        }
        var dates = 0
        for observance in observances {
            guard observance.kind == .standard || observance.kind == .daylight else { continue }
            dates += observance.properties(named: "RDATE").count
            let onset = observance.firstProperty(named: "DTSTART").map {
                icalproperty_get_dtstart($0.pointer)
            }
            for rule in observance.properties(named: "RRULE") {
                guard let onset, icaltime_is_null_time(onset) == 0 else {
                    throw refuse("has an observance with a rule and no DTSTART")
                }
                if let problem = RecurrenceRule.zoneRuleProblem(rule.text, start: onset) {
                    throw refuse("has an observance that \(problem)")
                }
            }
        }
        guard dates <= ReadingLimits.zoneDates else {
            throw refuse(
                "lists \(dates) onset dates, more than the limit of \(ReadingLimits.zoneDates)")
        }
    }
}

/// Wall-clock time to instant for any zone whose offset is known at each instant.
enum LocalTimeRule {
    /// The earliest instant whose offset makes it the wall-clock time `local`; in a gap, the
    /// wall-clock time read with the offset before the gap.
    static func epoch(ofLocal local: Int64, offset: (Int64) -> Int) -> Int64 {
        let found = candidates(ofLocal: local, offset: offset)
        return found.min() ?? local - Int64(offset(local - Int64(offset(local)) - 86_400))
    }

    /// Every instant whose wall-clock time is `local`: none in a gap, two in a repeated hour.
    static func candidates(ofLocal local: Int64, offset: (Int64) -> Int) -> Set<Int64> {
        let guess = local - Int64(offset(local))
        var found: Set<Int64> = []
        for probe in [guess - 86_400, guess, guess + 86_400] {
            let candidate = local - Int64(offset(probe))
            if Int64(offset(candidate)) == local - candidate { found.insert(candidate) }
        }
        return found
    }
}
