/// An error in iCalendar data or in a request to libical, with the line where it was found.
///
/// libical reports problems three ways: a `nil` result, the thread-local `icalerrno`, and
/// `X-LIC-ERROR` properties that it inserts into the tree where a line failed. ``ICalendar``
/// turns each of them into this one error type, so callers never see libical's conventions.
public struct ICalendarError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem this is; scripts and tests match on it, people read ``message``.
    public enum Kind: String, Sendable, Equatable {
        /// A line that is not a content line (`NAME[;PARAM=…]:VALUE`) or a value libical rejected.
        case malformedLine
        /// A physical line longer than the reader accepts (RFC 5545 folds lines at 75 octets).
        case lineTooLong
        /// `BEGIN` blocks nested deeper than the reader accepts.
        case nestingTooDeep
        /// A `BEGIN` without its `END`, or an `END` that closes another component.
        case unbalancedComponents
        /// Bytes that are not UTF-8, or a NUL byte.
        case invalidEncoding
        /// A value that parses but cannot be right: 2024-02-30, 25:00, an unknown zone.
        case invalidValue
        /// A property that the component needs is not there.
        case missingProperty
        /// The input holds no iCalendar data at all.
        case noCalendarData
        /// Reading or writing a file failed.
        case io
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// The 1-based physical line where the problem is, when it is known.
    public var line: Int?
    /// What is wrong and, where it helps, what was expected.
    public var message: String

    /// Creates an error of `kind` at `line`.
    public init(_ kind: Kind, line: Int? = nil, _ message: String) {
        self.kind = kind
        self.line = line
        self.message = message
    }

    /// `line N: message`, or just the message when the line is unknown.
    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}
