import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// Output formats of the reports.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Output formats of the reports that draw: the two above, or a picture.
enum ReportOutput: String, ExpressibleByArgument, CaseIterable {
    case text, json, svg, html

    /// An SVG or HTML picture.
    var isPicture: Bool { self == .svg || self == .html }
}

/// What every report reads: input files, their format, and the zone to show times in.
struct ReportInputs: ParsableArguments {
    @OptionGroup var zone: ZoneOption<ReportZone>
    var tz: String? { zone.tz }

    @Option(
        help:
            .tr(
                "Format of the inputs when the names do not tell it (standard input)."
            )
    )
    var inputFormat: Format?

    @Flag(
        help: .tr("Refuse unclear .ics input instead of reading it with a warning (see convert)."))
    var strict = false

    @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

    @Option(
        help: ArgumentHelp(
            tr("The most occurrences of repeating entries considered, all together."),
            discussion:
                tr("Past it, later occurrences are left out with a warning."),
            valueName: "n"))
    var maxOccurrences: Int = Expansion.defaultLimit

    @Option(
        help: ArgumentHelp(
            tr("The most the report may print: a size (200MB, 1GiB) or none."),
            discussion:
                tr(
                    "Unless told, 64 MiB or four times what the report reads, whichever is more: a few repeating entries can overlap one another millions of times. Past it the report prints nothing and fails (exit 2), saying how to ask for less."
                ),
            valueName: "size"))
    var maxOutput: String?

    /// `--max-output` in bytes, when given.
    var outputLimit: Int? { maxOutput.flatMap(OutputLimit.bytes) }

    @OptionGroup var picture: PictureFormatOption
    var output: ReportOutput { picture.output }

    /// Text or JSON: what reports that draw no picture write.
    var format: ReportFormat { output == .json ? .json : .text }

    /// Refuses --format svg and html for a report that draws no picture.
    func refusePictures(_ command: String) throws {
        guard output.isPicture else { return }
        throw ValidationError(
            "--format \(output.rawValue): \(command) draws no picture; stats, month and overlaps do (text and json here)"
        )
    }

    func validate() throws {
        try Zone.validate(tz)
        if maxOccurrences < 1 { throw ValidationError("--max-occurrences must be at least 1") }
        if let maxOutput, OutputLimit.bytes(maxOutput) == nil {
            throw ValidationError(
                "--max-output '\(maxOutput)' is not a size such as 200MB, 1GiB or 5000000, nor none"
            )
        }
    }

    var time: LocalTime { Zone.time(tz) }

    @Option(
        help:
            .tr(
                "Report on a diary instead of files: a SQLite file, vdir:DIR or postgres://USER@HOST/DB?diary=NAME; - for the default diary."
            )
    )
    var store: String?

    @Flag(
        help:
            .tr(
                "With --store: show private entries' texts, unlocking the diary's key (else their times and \"(private)\" only)."
            )
    )
    var reveal = false

    /// Reads every scheduled record of `inputs` (or of the diary, with --store) into `body`,
    /// repeating ones as their occurrences in `window` (default: from the first start to a
    /// year past the last); on any problem prints them and exits 2.
    ///
    /// `timesOnly`: the report shows no more than ids, names and times, so each record is held
    /// as ``TaskRecord/timeSkeleton`` (a million records with descriptions and attachments
    /// would otherwise be held whole until the window is known), and JSON records are read so
    /// (``TaskJSON/Reading/timesOnly``): the fields no report shows are neither built nor
    /// checked; `taskcal lint` and `convert` check them.
    ///
    /// Records are passed on as they are read until the first that repeats or changes an
    /// occurrence; from there on they are held until every series is known.
    ///
    /// `unscheduled` gets the records with no time (to-dos), `series` each repeating record
    /// before it is expanded.
    func read(
        _ inputs: [String], window: Range<Int64>?, timesOnly: Bool = false,
        unscheduled: ((TaskRecord) -> Void)? = nil, series: ((TaskRecord) -> Void)? = nil,
        _ body: (TaskRecord, Location) -> Void
    ) throws {
        // Two days of margin: all-day dates are UTC midnights, the window is local time.
        let margin: Int64 = 2 * 86_400
        let explicit = window.map {
            max($0.lowerBound, Timestamp.range.lowerBound + margin) - margin..<min(
                $0.upperBound, Timestamp.range.upperBound - margin) + margin
        }
        var bounds = Expansion.Bounds()
        var held: [(TaskRecord, Location)] = []
        var holding = false
        func take(_ record: TaskRecord, _ location: Location) {
            bounds.include(record)
            holding = holding || record.repeats || record.recurrenceID != nil
            if holding {
                held.append((record, location))
            } else if explicit.map({ Expansion.contains($0, record) }) ?? true {
                // Without a window every single record is inside the default one, which
                // runs from the first start to a year past the last finish.
                body(record, location)
            }
        }
        try readAll(inputs, timesOnly: timesOnly) { record, location in
            guard !record.unscheduled else {
                unscheduled?(record)
                return
            }
            // A record read times-only is passed on as it is, not copied.
            if timesOnly && !record.isTimeSkeleton {
                take(record.timeSkeleton, location)
            } else {
                take(record, location)
            }
        }
        guard !held.isEmpty else { return }
        if let series {
            for (record, _) in held where record.repeats { series(record) }
        }
        let expansion = Expansion(window: explicit ?? bounds.window, limit: maxOccurrences)
        let (occurrences, warnings) = expansion.expand(held)
        // Said even with --format json (on standard error): a report cut short must say so.
        warnings.forEach { Console.note("warning: " + $0) }
        for (record, location) in occurrences { body(record, location) }
    }

    private func readAll(
        _ inputs: [String], timesOnly: Bool, _ body: (TaskRecord, Location) -> Void
    ) throws {
        if let store {
            guard inputs.isEmpty else {
                throw ValidationError("give either task files or --store, not both")
            }
            let location: StoreLocation
            do {
                location = try StoreLocation.resolve(store == "-" ? nil : store)
            } catch {
                Console.error(error.description)
                throw ExitCode(2)
            }
            do {
                for record in try openDiary(location, reveal: reveal).allEntries() {
                    body(record, Location(file: location.description, field: "#\(record.id)"))
                }
            } catch {
                Console.error("\(location): \(error)")
                throw ExitCode(2)
            }
            return
        }
        guard !inputs.isEmpty else {
            throw ValidationError("name at least one task file, or a diary with --store")
        }
        if reveal {
            throw ValidationError(
                "--reveal opens a diary's private entries (with --store); task files are read as they are"
            )
        }
        if inputs.contains("-") && inputFormat == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
        var options = ReadOptions(format: inputFormat, floatingZone: tz)
        options.strict = strict
        options.readsEveryRevision = revisions == .all
        if timesOnly { options.reading = .timesOnly }
        // Large NDJSON and .ics inputs are read on every core; what is read is the same.
        options.parallelism = ProcessInfo.processInfo.activeProcessorCount
        let report = Converter.read(inputs: inputs, options: options, body)
        Console.show(report, quiet: format == .json)
        guard report.succeeded else {
            Console.error(
                "no report: fix the \(report.errors.count + report.suppressedErrors) error(s) above"
            )
            throw ExitCode(2)
        }
    }
}

extension ArgumentHelp {
    /// The inputs of a report.
    static var taskFiles: ArgumentHelp {
        .tr(
            "Task files (JSON, NDJSON, .ics, .jcal, .jscal.json; - for standard input), or --store."
        )
    }
}
