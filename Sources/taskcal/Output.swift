import ArgumentParser
import Foundation
import ICalendar
import Localization
import TaskConversion

/// Messages for people go to standard error as `taskcal: …`; data goes to standard output.
///
/// Messages are made in English (the same text goes into JSON reports, which never change
/// with the locale) and shown in the user's language (``Localization/message(_:)``).
enum Console {
    static func error(_ text: String) {
        standardError("taskcal: \(Localization.message(text))\n")
    }

    static func note(_ text: String) {
        standardError("taskcal: \(Localization.message(text))\n")
    }

    /// A note already in the user's language (made with ``tr(_:_:)``).
    static func noteTranslated(_ text: String) {
        standardError("taskcal: \(text)\n")
    }

    /// A sentence for people on standard output, in their language.
    static func say(_ text: String) {
        print(Localization.message(text))
    }

    /// Writes to standard error with write(2). FileHandle's `write` traps when the write
    /// fails (standard error on a full disk, past `ulimit -f`, or closed): a message that
    /// cannot be shown must not turn a clean failure into a crash.
    static func standardError(_ text: String) {
        writeAll(Array(text.utf8)[...], to: STDERR_FILENO)
    }

    /// Writes `bytes` to `descriptor` whole, or until a write fails.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) {
        var bytes = bytes
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress, $0.count)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Writes UTF-8 to standard output with write(2), without making a String of it first:
    /// for a report that prints nothing else there (what `print` buffers would come after).
    static func standardOutput(_ bytes: [UInt8]) {
        writeAll(bytes[...], to: STDOUT_FILENO)
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
