import ICalendar
import TaskModel

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
    /// The kind of problem, stable for scripts (`unknown-time-zone`).
    public var code: DiagnosticCode

    /// Creates a diagnostic.
    public init(
        _ severity: Severity, _ location: Location, _ message: String,
        code: DiagnosticCode = .invalid
    ) {
        self.severity = severity
        self.location = location
        self.message = message
        self.code = code
    }

    /// The diagnostic as one JSON object: `file`, `line` / `index` / `field` where known,
    /// `severity`, `code`, `message`.
    public var json: String {
        var writer = JSONWriter()
        writer.begin()
        writer.field("file", string: location.file)
        if let line = location.line { writer.field("line", number: Int64(line)) }
        if let index = location.index { writer.field("index", number: Int64(index)) }
        if let field = location.field, !field.isEmpty { writer.field("field", string: field) }
        writer.field("severity", string: severity.rawValue)
        writer.field("code", string: code.rawValue)
        writer.field("message", string: message)
        writer.end()
        return writer.text
    }

    /// `FILE:LINE: message`, prefixed with `warning: ` for warnings.
    public var description: String {
        (severity == .warning ? "warning: " : "") + "\(location): \(message)"
    }
}

/// A stable name for each kind of problem, for scripts: `validate --format json` and batch
/// reports carry it; messages may change wording, codes do not.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Reading .ics: readings chosen where the input allows several or none (errors under
    // --strict).
    /// A `TZID` no `VTIMEZONE` defines and the system does not know: read as floating.
    public static let unknownTimeZone = Self(rawValue: "unknown-time-zone")
    /// A `TZID` on a UTC time (`DTSTART;TZID=…:…Z`): read as UTC.
    public static let zoneOnUTCTime = Self(rawValue: "zone-on-utc-time")
    /// A time before the first onset its `VTIMEZONE` defines.
    public static let beforeZoneDefinition = Self(rawValue: "before-zone-definition")
    /// A `VTIMEZONE` after the first time that uses it: found by reading ahead.
    public static let zoneDefinedLate = Self(rawValue: "zone-defined-late")
    /// A `VTIMEZONE` refused as unbounded (see the limits) or unusable.
    public static let zoneRefused = Self(rawValue: "zone-refused")
    /// A line libical cannot read: kept as written, not interpreted.
    public static let unreadableValue = Self(rawValue: "unreadable-value")
    /// A value read for its obvious intent (`TRIGGER:PT-2H` as `-PT2H`).
    public static let repairedValue = Self(rawValue: "repaired-value")
    /// A component that cannot become a record (no `DTSTART`, an unreadable time): left out.
    public static let componentSkipped = Self(rawValue: "component-skipped")
    /// A property that may occur once, occurring again: the second is left out.
    public static let secondProperty = Self(rawValue: "second-property")
    /// A line left out: an `X-LIC-ERROR` another program wrote, a name libical cannot read.
    public static let leftOut = Self(rawValue: "left-out")
    /// A line that is not a content line at all: left out.
    public static let malformedLine = Self(rawValue: "malformed-line")

    // Reading .ics: worth knowing.
    /// A floating time read in the local zone (no --tz, no X-WR-TIMEZONE).
    public static let floatingTime = Self(rawValue: "floating-time")
    /// A component without `UID`: given a fresh id.
    public static let noUID = Self(rawValue: "no-uid")
    /// Two components with one `UID` and no `RECURRENCE-ID`: the second gets its own id.
    public static let duplicateUID = Self(rawValue: "duplicate-uid")
    /// Revisions of one `UID`: the newest is the event, the others are kept with the calendar.
    public static let revisions = Self(rawValue: "revisions")
    /// A property with no value (`RRULE:`): it says nothing and is left out.
    public static let emptyValue = Self(rawValue: "empty-value")
    /// A component the task format has no records for, kept at the calendar level.
    public static let notConverted = Self(rawValue: "not-converted")
    /// An all-day event ending on the day it starts: read as one day.
    public static let allDayZeroLength = Self(rawValue: "all-day-zero-length")
    /// A component without `SUMMARY`: named `(untitled)`.
    public static let noSummary = Self(rawValue: "no-summary")
    /// A repeating entry cut short or not expanded.
    public static let expansion = Self(rawValue: "expansion")
    /// A record changed or left out for the app it is written for (`convert --for`).
    public static let appProfile = Self(rawValue: "app-profile")

    // Errors.
    /// A record that breaks the task format's rules.
    public static let invalid = Self(rawValue: "invalid")
    /// Text that is not JSON.
    public static let invalidJSON = Self(rawValue: "invalid-json")
    /// Two records with one id, or one uid (and recurrence_id).
    public static let duplicateID = Self(rawValue: "duplicate-id")
    /// Damage to a file's structure: unbalanced BEGIN/END, no calendar at all (read past
    /// with a warning where other readers do, an error under --strict or when nothing is left).
    public static let structure = Self(rawValue: "structure")
    /// Bytes that are not UTF-8, NUL bytes.
    public static let encoding = Self(rawValue: "encoding")
    /// A limit of `ReadingLimits` passed.
    public static let limit = Self(rawValue: "limit")
    /// A file that cannot be opened, read or written.
    public static let io = Self(rawValue: "io")
    /// Two inputs that would write one output, an output inside an input, and such.
    public static let usage = Self(rawValue: "usage")
}

extension ICalendarError.Kind {
    /// The diagnostic code of a reading error of this kind.
    var code: DiagnosticCode {
        switch self {
        case .lineTooLong, .nestingTooDeep: .limit
        case .unbalancedComponents, .noCalendarData: .structure
        case .invalidEncoding: .encoding
        case .io: .io
        case .malformedLine: .malformedLine
        case .invalidValue, .missingProperty: .invalid
        }
    }
}
