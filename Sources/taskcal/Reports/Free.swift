import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// What `free` and `diary free` ask: the window, the shortest stretch, the hours and days
/// that count.
struct FreeTimeOptions: ParsableArguments {
    @Option(
        help:
            .tr(
                "From this time (default: now): Unix seconds, ISO 8601 (2026-12-01, 2026-12-01T09:00, …Z, …+03:00), today or tomorrow."
            )
    )
    var from: String?

    @Option(help: .tr("Until this time (default: a week after --from)."))
    var to: String?

    @Option(
        name: .customLong("min"),
        help: ArgumentHelp(
            tr("The shortest stretch worth listing: 30m, 1h, 1h30m, 2d or PT45M (default: any)."),
            valueName: "duration"))
    var minimum: String?

    @Option(
        help: ArgumentHelp(
            tr("Only these hours of each day, in --tz: 09:00-18:00; 22:00-06:00 runs overnight."),
            valueName: "HH:MM-HH:MM"))
    var hours: String?

    @Option(
        help: ArgumentHelp(
            tr("Only these weekdays: MO-FR, MO,WE,FR, SA-SU (RFC 5545 names)."), valueName: "days"))
    var days: String?

    @Option(
        help: ArgumentHelp(
            tr("List at most this many stretches (all are counted)."),
            discussion:
                tr(
                    "The text report lists 10,000 unless told otherwise. The JSON report lists every stretch unless told: given --max-slots, it is an object that says whether it is whole, {\"listed\": M, \"total\": N, \"truncated\": true, \"free\": [STRETCH, …]}."
                ),
            valueName: "n"))
    var maxSlots: Int?

    func validate() throws {
        if let minimum, Self.seconds(minimum) == nil {
            throw ValidationError(
                "--min '\(minimum)' is not a duration; expected one such as 30m, 1h, 1h30m, 2d or PT45M"
            )
        }
        if let hours, FreeTime.Hours(hours) == nil {
            throw ValidationError(
                "--hours '\(hours)' is not a range of hours; expected HH:MM-HH:MM such as 09:00-18:00"
            )
        }
        if let days, FreeTime.Days(days) == nil {
            throw ValidationError(
                "--days '\(days)' is not a set of weekdays; expected MO-FR, MO,WE,FR or SA-SU")
        }
        if let maxSlots, maxSlots < 1 {
            throw ValidationError("--max-slots must be at least 1")
        }
    }

    /// `30m`, `1h30m`, `2d`, `90s` or an ISO 8601 duration, in seconds.
    static func seconds(_ text: String) -> Int64? {
        if text.uppercased().hasPrefix("P") {
            return ISODuration.seconds(text.uppercased()).map(Int64.init)
        }
        var total: Int64 = 0
        var digits = ""
        for character in text.lowercased() {
            if character.isNumber && character.isASCII {
                guard digits.count < 9 else { return nil }
                digits.append(character)
                continue
            }
            let unit: Int64
            switch character {
            case "d": unit = 86_400
            case "h": unit = 3_600
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            guard let value = Int64(digits) else { return nil }
            total += value * unit
            digits = ""
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }

    /// The window in `time`: from --from (default now) to --to (default a week later).
    func window(in time: LocalTime) throws -> TimeSpan {
        let start =
            try from.map { try instant($0, option: "--from", time: time) }
            ?? Int64(Date().timeIntervalSince1970) / 60 * 60
        let finish =
            try to.map { try instant($0, option: "--to", time: time) } ?? start + 7 * 86_400
        guard finish > start else {
            throw ValidationError("--to must be after --from")
        }
        return TimeSpan(start: start, finish: finish)
    }

    /// Reads what `inputs` (or `read`) hold in the window and prints the free time; exit 1
    /// when there is none.
    func report(_ reading: ReportInputs, inputs: [String]) throws {
        let time = reading.time
        let window = try window(in: time)
        var busy: [TimeSpan] = []
        try reading.read(inputs, window: window.start..<window.finish, timesOnly: true) {
            record, _ in
            if record.occupiesTime { busy.append(time.occupied(by: record)) }
        }
        let free = FreeTime(
            busy: busy, window: window, time: time, minimum: minimum.flatMap(Self.seconds) ?? 0,
            hours: hours.flatMap(FreeTime.Hours.init), days: days.flatMap(FreeTime.Days.init),
            limit: maxSlots ?? (reading.format == .json ? Int.max : FreeTime.defaultLimit))
        let out = try ReportPrinter(
            reading, inputs: inputs,
            advice:
                "or list fewer stretches with --max-slots N, or a shorter window with --from and --to"
        )
        switch reading.format {
        case .json:
            // Whole unless the user set a limit, and then it says so inside itself.
            try out.write(maxSlots == nil ? free.json() : free.countedJSON())
            try out.finish()
            if free.unlisted > 0 {
                Console.note(
                    "warning: listed the first \(free.slots.count) of \(free.total) free stretches; list more with --max-slots"
                )
            }
        case .text:
            try out.write(free.text(in: time, style: Style.forStandardOutput()))
            try out.finish()
        }
        if free.total == 0 { throw ExitCode(1) }
    }
}

struct Free: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "free",
        abstract: tr("List the free time: the stretches no entry takes up."),
        discussion: tr(
            """
            The inverse of overlaps: reads task files (or a diary with --store) and lists the \
            stretches of the window that no entry occupies, day by day in --tz. Entries that show \
            as free, cancelled ones and those of no length take no time; repeating entries take \
            each occurrence; an all-day entry takes its whole days. Exit code 0 when there is free \
            time, 1 when there is none, 2 on bad input.

            Examples:
              taskcal free diary.json --from 2026-12-01 --to 2026-12-08
              taskcal free work.ics home.ics --hours 09:00-18:00 --days MO-FR --min 30m
              taskcal free --store - --from tomorrow --format json
            """)
    )

    @Argument(help: .taskFiles) var inputs: [String] = []

    @OptionGroup var options: ReportInputs
    @OptionGroup var free: FreeTimeOptions

    func validate() throws {
        try options.refusePictures("free")
        _ = try free.window(in: options.time)
    }

    func run() throws { try free.report(options, inputs: inputs) }
}
