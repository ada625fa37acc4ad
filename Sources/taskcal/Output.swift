import Foundation
import TaskConversion

/// Messages for people go to standard error as `taskcal: …`; data goes to standard output.
enum Console {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data("taskcal: \(text)\n".utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data("taskcal: \(text)\n".utf8))
    }

    /// Prints every error and warning of `report`.
    static func show(_ report: ConversionReport, quiet: Bool) {
        for error in report.errors { Console.error(error.description) }
        if report.suppressedErrors > 0 {
            Console.error("… and \(report.suppressedErrors) more errors")
        }
        if !quiet {
            for warning in report.warnings { Console.note(warning.description) }
        }
    }
}
