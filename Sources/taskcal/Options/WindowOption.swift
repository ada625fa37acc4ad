import ArgumentParser
import Localization
import TaskConversion

/// What `--from` and `--to` bound for a command, in its words.
protocol WindowMeaning {
    static var fromHelp: String { get }
    static var toHelp: String { get }
}

/// `--from TIME --to TIME`, declared once for the commands that look at a window of time and
/// nothing more (`overlaps`, `diary list`, `diary alarms`, `caldav pull`): both take the same
/// forms everywhere (Unix seconds, ISO 8601, `today`, `tomorrow`, `yesterday`), read in the
/// command's zone. `free` and `stats` take theirs with their defaults (`FreeTimeOptions`,
/// `StatisticsOptions`), read the same way (``instant(_:option:time:)``).
struct WindowOption<Meaning: WindowMeaning>: ParsableArguments {
    @Option(help: ArgumentHelp(Meaning.fromHelp)) var from: String?
    @Option(help: ArgumentHelp(Meaning.toHelp)) var to: String?

    /// Whether either end was given.
    var isBounded: Bool { from != nil || to != nil }

    /// `--from` in `time`, or `nil` when not given.
    func lower(in time: LocalTime) throws -> Int64? {
        try from.map { try instant($0, option: "--from", time: time) }
    }

    /// `--to` in `time`, or `nil` when not given.
    func upper(in time: LocalTime) throws -> Int64? {
        try to.map { try instant($0, option: "--to", time: time) }
    }
}

/// `overlaps`: the pairs listed.
enum OverlapWindow: WindowMeaning {
    static var fromHelp: String {
        tr(
            "Only overlaps from this time: Unix seconds or ISO 8601 (2026-11-22, 2026-11-22T14:00, …Z, …+03:00)."
        )
    }
    static var toHelp: String { tr("Only overlaps before this time (same forms as --from).") }
}

/// `diary list`: the entries listed.
enum ListWindow: WindowMeaning {
    static var fromHelp: String { tr("Only entries touching this time or later.") }
    static var toHelp: String { tr("Only entries before this time.") }
}

/// `diary alarms`: the alarms listed.
enum AlarmWindow: WindowMeaning {
    static var fromHelp: String { tr("From this time (default: now).") }
    static var toHelp: String { tr("Until this time (default: 7 days after --from).") }
}

/// `caldav pull`: what the server is asked for.
enum PullWindow: WindowMeaning {
    static var fromHelp: String { tr("Only what touches this time or later.") }
    static var toHelp: String { tr("Only what touches times before this.") }
}
