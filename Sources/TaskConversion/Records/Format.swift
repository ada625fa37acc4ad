/// The file formats taskcal reads and writes.
public enum Format: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A JSON array of task records (or one record).
    case json
    /// One task record per line (`.ndjson`, `.jsonl`), streamed.
    case ndjson
    /// iCalendar (RFC 5545), streamed one component at a time.
    case ics
    /// jCal (RFC 7265): iCalendar as JSON (`.jcal`), read whole.
    case jcal
    /// JSCalendar (RFC 8984): a Group of Events and Tasks (`.jscal.json`, `.jscal`), read
    /// whole.
    case jscalendar

    /// The format a file name's extension names, if any.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".jscal.json") || lower.hasSuffix(".jscal") {
            self = .jscalendar
        } else if lower.hasSuffix(".jcal") {
            self = .jcal
        } else if lower.hasSuffix(".json") {
            self = .json
        } else if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") {
            self = .ndjson
        } else if lower.hasSuffix(".ics") || lower.hasSuffix(".ical")
            || lower.hasSuffix(".icalendar")
        {
            self = .ics
        } else {
            return nil
        }
    }

    public var description: String { rawValue }

    /// Whether it is a calendar format (.ics, jCal) rather than the task format: a
    /// conversion goes from one family to the other unless told otherwise.
    public var isCalendar: Bool { self == .ics || self == .jcal || self == .jscalendar }

    /// The usual extension for files of this format.
    public var fileExtension: String { self == .jscalendar ? "jscal.json" : rawValue }
}
