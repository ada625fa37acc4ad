/// Where something was found: a file and a line (iCalendar, NDJSON) or a JSON index and field.
public struct Location: Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it (`-` for standard input).
    public var file: String
    /// The 1-based line, for iCalendar and NDJSON.
    public var line: Int?
    /// The 0-based index of the record in a JSON array.
    public var index: Int?
    /// The field inside the record (`alarms[0].trigger`).
    public var field: String?

    /// Creates a location.
    public init(file: String, line: Int? = nil, index: Int? = nil, field: String? = nil) {
        self.file = file
        self.line = line
        self.index = index
        self.field = field
    }

    /// `FILE:LINE`, `FILE: [INDEX].field`, or `FILE:LINE: field` — the form DESIGN.md fixes.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        var path = ""
        if let index { path = "[\(index)]" }
        if let field, !field.isEmpty {
            path += path.isEmpty ? field : (field.hasPrefix("[") ? field : ".\(field)")
        }
        if !path.isEmpty { text += ": \(path)" }
        return text
    }
}

/// A problem or a warning found while reading or writing, with its location.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible, Error {
    /// How serious it is.
    public enum Severity: String, Sendable, Hashable {
        /// The input is wrong: the command fails and writes nothing.
        case error
        /// Worth knowing, but the output is complete and right.
        case warning
    }

    public var severity: Severity
    public var location: Location
    public var message: String

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ location: Location, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// `FILE:LINE: message`, prefixed with `warning: ` for warnings.
    public var description: String {
        (severity == .warning ? "warning: " : "") + "\(location): \(message)"
    }
}
