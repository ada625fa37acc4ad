import Foundation
import Locking

/// Time zone names as calendar apps write them, and the system's zones behind them.
public enum TimeZones {
    /// The IANA name the system's zone data knows for a `TZID` as calendar apps write it, or
    /// `nil` when none of these readings finds one:
    /// - the name itself (`Europe/Berlin`), also in other letter case (`europe/berlin`);
    /// - a Windows name (`W. Europe Standard Time`, Outlook) through CLDR's table;
    /// - a name behind a vendor prefix (`/mozilla.org/20050126_1/Europe/Berlin`,
    ///   `/freeassociation.sourceforge.net/Tzfile/…`, `/Europe/Stockholm`);
    /// - a legacy spelling (`US-Eastern`, `US/Eastern`);
    /// - an Outlook display name (`(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm,
    ///   Vienna`, `(UTC-05:00) Eastern Time (US & Canada)`): a city it names, or its
    ///   Windows name, whose standard offset is the one shown;
    /// - a fixed offset in whole hours (`GMT+03:00`, `UTC-5`, `GMT-05.00`) as `Etc/GMT∓N`.
    public static func ianaName(forTZID tzid: String) -> String? {
        // Asked for every zoned time of every event: remembered per TZID.
        if let known = names.withLock({ $0[tzid] }) { return known }
        let found = lookUpIANAName(forTZID: tzid)
        names.withLock { $0[tzid] = .some(found) }
        return found
    }

    /// TZIDs already looked up, and what they resolved to.
    private static let names = Locked<[String: String?]>([:])

    private static let utcNames: Set<String> = [
        "UTC", "ETC/UTC", "GMT", "Z", "UNIVERSAL", "ZULU", "ETC/GMT", "GREENWICH", "ETC/UCT",
        "UCT", "COORDINATED UNIVERSAL TIME", "GMT+0", "GMT-0", "UTC+0", "UTC-0", "GMT0",
        "ETC/GREENWICH", "ETC/UNIVERSAL", "ETC/ZULU", "(UTC) COORDINATED UNIVERSAL TIME",
        "GMT+00:00", "UTC+00:00",
    ]

    private static func lookUpIANAName(forTZID tzid: String) -> String? {
        var trimmed = tzid.trimmingCharacters(in: .whitespaces)
        if trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") {
            trimmed = String(trimmed.dropFirst().dropLast())
        }
        if utcNames.contains(trimmed.uppercased()) { return "UTC" }
        if isKnown(trimmed) { return trimmed }
        if let windows = WindowsZones.ianaName(for: trimmed) {
            return windows == "Etc/UTC" ? "UTC" : (isKnown(windows) ? windows : nil)
        }
        if let name = caseInsensitive(trimmed) { return name }
        // A prefix of path segments: try each shorter suffix that still has a slash.
        let segments = trimmed.split(separator: "/")
        if segments.count >= 2 {
            for start in 0..<(segments.count - 1) {
                let candidate = segments[start...].joined(separator: "/")
                if let name = isKnown(candidate) ? candidate : caseInsensitive(candidate) {
                    return name
                }
            }
        }
        // `US-Eastern`, `America-New_York`: a dash where a slash belongs.
        if !trimmed.contains("/"), let dash = trimmed.firstIndex(of: "-"),
            dash != trimmed.startIndex
        {
            var slashed = trimmed
            slashed.replaceSubrange(dash...dash, with: "/")
            if let name = caseInsensitive(slashed) { return name }
        }
        if let name = displayName(trimmed) { return name }
        return fixedOffset(trimmed)
    }

    /// Every zone name the system has, by its lower-cased form.
    private static let lowercased: [String: String] = {
        var result: [String: String] = [:]
        let root = SystemZone.directory
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        while let path = walker.nextObject() as? String {
            if path == "posix" || path == "right" {
                walker.skipDescendants()
                continue
            }
            guard path.first?.isUppercase == true, !path.hasSuffix(".tab"),
                !path.hasSuffix(".zi")
            else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                result[path.lowercased()] = path
            }
        }
        return result
    }()

    private static func caseInsensitive(_ name: String) -> String? {
        let key = name.lowercased().replacingOccurrences(of: " ", with: "_")
        guard let found = lowercased[key], isKnown(found) else { return nil }
        return found
    }

    /// `(UTC+01:00) Amsterdam, Berlin, …` and `(GMT+01.00) Amsterdam / Berlin / …`: a city
    /// named, or the Windows name of the text, whose standard offset is the one shown.
    private static func displayName(_ text: String) -> String? {
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")") else { return nil }
        let label = text[text.index(after: text.startIndex)..<close]
        let rest = text[text.index(after: close)...].trimmingCharacters(in: .whitespaces)
        guard let offset = offsetSeconds(String(label)) ?? (label.uppercased() == "UTC" ? 0 : nil)
        else { return nil }
        let cities = rest.split(whereSeparator: { $0 == "," || $0 == "/" }).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var candidates: [String] = []
        for city in cities where !city.isEmpty {
            let key = city.replacingOccurrences(of: " ", with: "_").lowercased()
            candidates += lowercased.filter { $0.key.hasSuffix("/" + key) }.map(\.value).sorted()
        }
        // `Eastern Time (US & Canada)` is the Windows zone `Eastern Standard Time`.
        let base =
            rest.split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? rest
        if base.hasSuffix(" Time") {
            let windows = base.dropLast(5) + " Standard Time"
            if let name = WindowsZones.ianaName(for: String(windows)) { candidates.append(name) }
        }
        if let name = WindowsZones.ianaName(for: rest) { candidates.append(name) }
        return candidates.first { standardOffset(of: $0) == offset }
    }

    /// The smaller of a zone's offsets in January and July this century: its standard offset.
    private static func standardOffset(of name: String) -> Int? {
        guard let zone = SystemZone.named(name) else { return nil }
        let january: Int64 = 1_767_225_600  // 2026-01-01
        let july: Int64 = 1_782_864_000  // 2026-07-01
        return min(zone.offset(at: january), zone.offset(at: july))
    }

    /// `GMT+03:00`, `UTC-5`, `GMT-05.00`, `UTC+0530`: a whole-hour offset as `Etc/GMT∓N`
    /// (POSIX signs are reversed in those names). A name with a second offset after it
    /// (`GMT-05.00/-04.00`, daylight saving) is no fixed zone: `nil`.
    private static func fixedOffset(_ text: String) -> String? {
        guard let seconds = offsetSeconds(text), seconds % 3600 == 0 else { return nil }
        let hours = seconds / 3600
        if hours == 0 { return "UTC" }
        let name = "Etc/GMT\(hours > 0 ? "-" : "+")\(abs(hours))"
        return isKnown(name) ? name : nil
    }

    /// Seconds east of UTC of `UTC+01:00`, `GMT-05.00`, `GMT +0100`, `UTC+1`; nothing else
    /// may follow.
    static func offsetSeconds(_ text: String) -> Int? {
        var rest = Substring(text.uppercased())
        guard rest.hasPrefix("UTC") || rest.hasPrefix("GMT") else { return nil }
        rest = rest.dropFirst(3).drop { $0 == " " }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " }
        let digits = rest.filter(\.isNumber)
        guard rest.allSatisfy({ $0.isNumber || $0 == ":" || $0 == "." }), !digits.isEmpty
        else { return nil }
        var hours = 0
        var minutes = 0
        let parts = rest.split(whereSeparator: { $0 == ":" || $0 == "." })
        if parts.count == 2 {
            guard let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
            (hours, minutes) = (h, m)
        } else if digits.count <= 2 {
            hours = Int(digits)!
        } else if digits.count == 4 {
            hours = Int(digits.prefix(2))!
            minutes = Int(digits.suffix(2))!
        } else {
            return nil
        }
        guard hours <= 14, minutes < 60 else { return nil }
        return (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
    }

    /// The zones CLDR's table gives Windows names: the one each common region is known by,
    /// sorted.
    public static let commonZones: [String] = Array(Set(WindowsZones.table.values)).filter {
        isKnown($0)
    }.sorted()

    /// Every zone name the system has (links included), sorted.
    public static var allNames: [String] { lowercased.values.sorted() }

    /// True when the system zone data knows `name`.
    public static func isKnown(_ name: String) -> Bool {
        CalendarZone.system(name) != nil
    }

    /// A `VTIMEZONE` for the system zone named `name`, with `TZID` set to that name; built
    /// from the system's tz database (see ``SystemZone/vtimezone(tzid:covering:)``), for the
    /// instants in `span` (default: from 1970 on).
    public static func vtimezone(
        named name: String, covering span: ClosedRange<Int64>? = nil
    ) throws(ICalendarError) -> Component {
        guard let zone = SystemZone.named(name) else {
            throw ICalendarError(
                .invalidValue,
                "unknown time zone '\(name)': expected an IANA name such as Europe/Moscow")
        }
        return zone.vtimezone(tzid: name, covering: span)
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
