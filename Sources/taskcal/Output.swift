import ArgumentParser
import Foundation
import ICalendar
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

/// The `--tz` checks and zone every command shares.
enum Zone {
    /// Refuses a zone the system data does not know, with the form expected.
    static func validate(_ tz: String?) throws {
        if let tz, !TimeZones.isKnown(tz) {
            throw ValidationError(
                "unknown time zone '\(tz)': expected an IANA name such as Europe/Moscow or UTC")
        }
    }

    /// Calendar arithmetic in `tz`, else the local zone (which falls back to UTC).
    static func time(_ tz: String?) -> LocalTime {
        (try? LocalTime(zone: tz ?? TimeZones.localName)) ?? (try! LocalTime(zone: "UTC"))
    }
}
