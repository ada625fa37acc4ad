/// One thing wrong with a record, and where: `date_finish`, `alarms[0].trigger`.
public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// The field's path inside the record; empty for the record as a whole.
    public var field: String
    /// What is wrong and what is expected.
    public var message: String

    /// Creates a problem with `field`.
    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String {
        field.isEmpty ? message : "\(field): \(message)"
    }

    /// This problem inside `parent` (`alarms[0]` + `trigger` is `alarms[0].trigger`).
    public func nested(in parent: String) -> Problem {
        if field.isEmpty { return Problem(field: parent, message) }
        if field.hasPrefix("[") { return Problem(field: parent + field, message) }
        return Problem(field: "\(parent).\(field)", message)
    }
}

/// A record that could not be read, with every problem found in it.
public struct RecordProblems: Error, Sendable, CustomStringConvertible {
    /// All problems, in field order.
    public var problems: [Problem]

    /// Creates the error.
    public init(_ problems: [Problem]) { self.problems = problems }

    /// The problems, separated by `; `.
    public var description: String {
        problems.map(\.description).joined(separator: "; ")
    }
}
