/// How text reports mark what they stress: headings, the faint parts, a conflict, an entry,
/// today. Reports are plain text by default; the command line gives ANSI colours on a
/// terminal.
public protocol ReportStyle: Sendable {
    /// A heading, a busy day.
    func strong(_ text: String) -> String
    /// What is there to read past: places, hours, notes.
    func faint(_ text: String) -> String
    /// A double booking.
    func conflict(_ text: String) -> String
    /// An entry in the agenda.
    func entry(_ text: String) -> String
    /// Today in the month view.
    func marked(_ text: String) -> String
}

extension ReportStyle {
    public func strong(_ text: String) -> String { text }
    public func faint(_ text: String) -> String { text }
    public func conflict(_ text: String) -> String { text }
    public func entry(_ text: String) -> String { text }
    public func marked(_ text: String) -> String { text }
}

/// Text as it is: for files, pipes and tests.
public struct PlainStyle: ReportStyle {
    public init() {}
}
