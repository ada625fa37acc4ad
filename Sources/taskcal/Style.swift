import Foundation
import Reports

/// Terminal styling: ANSI colours only when writing to a terminal and `NO_COLOR` is unset.
struct Style: ReportStyle {
    /// Whether to emit escape sequences.
    var colour: Bool

    /// Colour when standard output is a terminal, `NO_COLOR` is unset or empty, and `TERM`
    /// is not `dumb`.
    static func forStandardOutput() -> Style {
        let environment = ProcessInfo.processInfo.environment
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        return Style(colour: isatty(STDOUT_FILENO) == 1 && !noColour)
    }

    func strong(_ text: String) -> String { wrap(text, "1") }
    func faint(_ text: String) -> String { wrap(text, "2") }
    func conflict(_ text: String) -> String { wrap(text, "31") }
    func entry(_ text: String) -> String { wrap(text, "36") }
    func marked(_ text: String) -> String { wrap(text, "7") }

    private func wrap(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
