/// What a calendar file says about itself rather than about its entries: its name, colour,
/// `METHOD`, refresh interval (`X-WR-CALNAME`, RFC 7986 `NAME`, `COLOR` …), the zones it
/// defines that are no IANA zone, and components the task format has no records for
/// (`VFREEBUSY`, `X-…`).
///
/// In JSON it is the `calendar` member of the object form of a file,
/// `{"calendar": {…}, "records": […]}`, written only when there is something to keep, and the
/// first line of NDJSON (`{"calendar": {…}}`). The plain array of records stays the format
/// for everything else.
public struct CalendarInfo: Sendable, Hashable {
    /// Calendar-level content lines as written, other than `VERSION`, `PRODID` and `CALSCALE`,
    /// which taskcal writes itself (`METHOD:PUBLISH`, `X-WR-CALNAME:Work`).
    public var icalExtra: [String] = []
    /// Whole components as written, `BEGIN` to `END` with CRLF line ends: `VTIMEZONE`s that
    /// match no IANA zone (records name them in `time_zone`), `VFREEBUSY`, `X-…` components.
    public var icalComponents: [String] = []

    /// Creates calendar data.
    public init(icalExtra: [String] = [], icalComponents: [String] = []) {
        self.icalExtra = icalExtra
        self.icalComponents = icalComponents
    }

    /// True when there is nothing to keep.
    public var isEmpty: Bool { icalExtra.isEmpty && icalComponents.isEmpty }

    /// Adds what `other` holds that this does not (several inputs into one output). A
    /// component one file holds several times (twenty empty `VEVENT`s, kept as written) stays
    /// as many times; one that two files both hold (the same `VTIMEZONE`) is kept once.
    public mutating func merge(_ other: CalendarInfo) {
        for line in other.icalExtra where !icalExtra.contains(line) { icalExtra.append(line) }
        var held: [String: Int] = [:]
        for component in icalComponents { held[component, default: 0] += 1 }
        for component in other.icalComponents {
            if let count = held[component], count > 0 {
                held[component] = count - 1
            } else {
                icalComponents.append(component)
            }
        }
    }

    /// The name (`X-WR-CALNAME` or RFC 7986 `NAME`), when the calendar has one.
    public var name: String? {
        for line in icalExtra {
            let upper = line.uppercased()
            for prefix in ["X-WR-CALNAME:", "NAME:"] where upper.hasPrefix(prefix) {
                return String(line.dropFirst(prefix.count))
            }
        }
        return nil
    }

    /// Sets the name: one `NAME` (RFC 7986) and one `X-WR-CALNAME` (Apple, Google) line,
    /// replacing the ones there were. `name` is TEXT and is escaped here.
    public mutating func setName(_ name: String) {
        icalExtra.removeAll {
            let upper = $0.uppercased()
            return upper.hasPrefix("NAME:") || upper.hasPrefix("NAME;")
                || upper.hasPrefix("X-WR-CALNAME:") || upper.hasPrefix("X-WR-CALNAME;")
        }
        var escaped = ""
        for character in name {
            switch character {
            case "\\": escaped += "\\\\"
            case ",": escaped += "\\,"
            case ";": escaped += "\\;"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        icalExtra.insert(contentsOf: ["NAME:" + escaped, "X-WR-CALNAME:" + escaped], at: 0)
    }
}
