import CLibical
import Foundation
import Synchronization

/// Time zones from the system's zone data (Debian's `tzdata`), as libical loads them.
public enum TimeZones {
    /// The libical zone for an IANA name (`Europe/Moscow`) or `UTC`.
    ///
    /// libical's own zone ids carry a `/freeassociation.sourceforge.net/` prefix; this takes
    /// the plain name, as calendar apps write it.
    static func zone(named name: String) throws(ICalendarError) -> OpaquePointer {
        Libical.ensureReady()
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" || name == "Z" {
            return icaltimezone_get_utc_timezone()
        }
        guard let zone = builtin(name) else {
            throw ICalendarError(
                .invalidValue,
                "unknown time zone '\(name)': expected an IANA name such as Europe/Moscow")
        }
        return zone
    }

    /// The IANA name the system zone data knows for a `TZID` as calendar apps write it: the
    /// name itself (`Europe/Berlin`), a Windows name (`W. Europe Standard Time`, Outlook) via
    /// CLDR's mapping, or a name behind a vendor prefix
    /// (`/mozilla.org/20050126_1/Europe/Berlin`, `/freeassociation.sourceforge.net/…`).
    /// `nil` when none of these is known.
    public static func ianaName(forTZID tzid: String) -> String? {
        // Asked for every zoned time of every event: remembered per TZID.
        if let known = names.withLock({ $0[tzid] }) { return known }
        let found = lookUpIANAName(forTZID: tzid)
        names.withLock { $0[tzid] = .some(found) }
        return found
    }

    /// TZIDs already looked up, and what they resolved to.
    private static let names = Mutex<[String: String?]>([:])
    /// Built-in zones by name, as addresses: libical's look-up is a linear scan, and built-in
    /// zones live as long as the process.
    private static let builtins = Mutex<[String: UInt]>([:])

    /// `icaltimezone_get_builtin_timezone`, remembered.
    private static func builtin(_ name: String) -> OpaquePointer? {
        if let address = builtins.withLock({ $0[name] }) {
            return OpaquePointer(bitPattern: address)
        }
        let zone = icaltimezone_get_builtin_timezone(name)
        builtins.withLock { $0[name] = UInt(bitPattern: zone) }
        return zone
    }

    private static func lookUpIANAName(forTZID tzid: String) -> String? {
        let trimmed = tzid.trimmingCharacters(in: .whitespaces)
        if trimmed == "UTC" || trimmed == "Etc/UTC" || trimmed == "GMT" || trimmed == "Z" {
            return "UTC"
        }
        if isKnown(trimmed) { return trimmed }
        if let windows = WindowsZones.ianaName(for: trimmed) {
            return windows == "Etc/UTC" ? "UTC" : (isKnown(windows) ? windows : nil)
        }
        // A prefix of path segments: try each shorter suffix that still has a slash.
        let segments = trimmed.split(separator: "/")
        if segments.count > 2 {
            for start in 1..<(segments.count - 1) {
                let candidate = segments[start...].joined(separator: "/")
                if isKnown(candidate) { return candidate }
            }
        }
        return nil
    }

    /// Whether the system's zone `systemZone` should be used for `time` instead of the file's
    /// definition `fileZone`: they disagree about its offset and `time` comes before the file's
    /// first onset. Comparing offsets first keeps the walk over the definition off the common
    /// path, where both agree.
    static func fileZoneFallsShort(
        _ time: icaltimetype, fileZone: OpaquePointer, systemZone: String
    ) -> Bool {
        guard let system = try? zone(named: systemZone), system != fileZone else { return false }
        var local = time
        local.zone = nil
        var daylight: Int32 = 0
        let fileOffset = icaltimezone_get_utc_offset(fileZone, &local, &daylight)
        let systemOffset = icaltimezone_get_utc_offset(system, &local, &daylight)
        return fileOffset != systemOffset && isBeforeFirstOnset(time, of: fileZone)
    }

    /// Whether the wall-clock `time` comes before every onset (`DTSTART` of `STANDARD` and
    /// `DAYLIGHT`) of `zone`'s definition, where RFC 5545 leaves the offset undefined.
    static func isBeforeFirstOnset(_ time: icaltimetype, of zone: OpaquePointer) -> Bool {
        guard let definition = icaltimezone_get_component(zone) else { return false }
        var earliest: icaltimetype?
        var child = icalcomponent_get_first_component(definition, ICAL_ANY_COMPONENT)
        while let current = child {
            let onset = icalcomponent_get_dtstart(current)
            if icaltime_is_null_time(onset) == 0 {
                if let known = earliest {
                    if icaltime_compare(onset, known) < 0 { earliest = onset }
                } else {
                    earliest = onset
                }
            }
            child = icalcomponent_get_next_component(definition, ICAL_ANY_COMPONENT)
        }
        guard var first = earliest else { return false }
        var local = time
        local.zone = nil
        first.zone = nil
        return icaltime_compare(local, first) < 0
    }

    /// True when the system zone data knows `name`.
    public static func isKnown(_ name: String) -> Bool {
        (try? zone(named: name)) != nil
    }

    /// A `VTIMEZONE` for the zone named `name`, with `TZID` set to the plain name.
    ///
    /// libical never adds `VTIMEZONE`s on its own, and the one it holds belongs to the zone,
    /// so this is a clone. Its `TZID` would read `/freeassociation.sourceforge.net/…`, which
    /// other calendar apps do not resolve; it is rewritten to the plain IANA name.
    public static func vtimezone(named name: String) throws(ICalendarError) -> Component {
        let zone = try zone(named: name)
        guard let held = icaltimezone_get_component(zone) else {
            throw ICalendarError(.invalidValue, "no VTIMEZONE data for '\(name)'")
        }
        let copy = icalcomponent_new_clone(held)!
        if let tzid = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) {
            icalproperty_set_tzid(tzid, name)
        }
        // X-LIC-LOCATION repeats the name in a libical-only property; leave it out.
        while let location = icalcomponent_get_first_property(copy, ICAL_X_PROPERTY) {
            icalcomponent_remove_property(copy, location)
            icalproperty_free(location)
        }
        return Component(root: copy)
    }

    /// The local zone's IANA name: `$TZ`, else the `/etc/localtime` link, else `UTC`.
    public static var localName: String {
        if let tz = ProcessInfo.processInfo.environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if isKnown(name) { return name }
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "/etc/localtime"),
            let range = target.range(of: "zoneinfo/")
        {
            let name = String(target[range.upperBound...])
            if isKnown(name) { return name }
        }
        if let name = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), isKnown(name)
        {
            return name
        }
        return "UTC"
    }
}
