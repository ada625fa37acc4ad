/// The file formats taskcal reads and writes.
public enum Format: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A JSON array of task records (or one record).
    case json
    /// One task record per line (`.ndjson`, `.jsonl`), streamed.
    case ndjson
    /// iCalendar (RFC 5545), streamed one component at a time.
    case ics

    /// The format a file name's extension names, if any.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".json") {
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

    /// The usual extension for files of this format.
    public var fileExtension: String { rawValue }
}
