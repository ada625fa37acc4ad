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
    @Option(
        help: ArgumentHelp(
            tr("IANA zone to show times in and to read floating .ics times in (default: local)."),
            valueName: "zone"),
        completion: .custom { _, _, prefix in TimeZones.allNames.filter { $0.hasPrefix(prefix) } })
    var tz: String?

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

    @Option(
        name: .customLong("format"),
        help: .tr(
            "text for people, json for scripts; svg or html, a picture (stats, month and overlaps)."
        ))
    var output: ReportOutput = .text

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
                "Report on a diary (a SQLite file or vdir:DIR) instead of files; - for the default diary."
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

struct Overlaps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlaps",
        abstract: tr("Report every pair of entries whose times overlap."),
        discussion: tr(
            """
            Reads JSON, NDJSON and .ics files (several at once, mixed) and lists every pair of \
            entries whose half-open intervals intersect, with the time they share: 14:00–15:00 and \
            15:00–16:00 do not overlap; entries of no length overlap nothing. Cancelled entries \
            and those that show as free (.ics STATUS:CANCELLED, TRANSP:TRANSPARENT) are left out \
            unless --include-free. Of JSON records only what the report shows (ids, names, times, \
            zones, repetition, status) is checked; taskcal validate checks the rest. Exit code 1 \
            when any overlap exists, 0 when none, 2 on bad input.

            Examples:
              taskcal overlaps diary.json work.ics
              taskcal overlaps export.ics --from 2026-12-01 --to 2026-12-08 \\
                  --tz Europe/Berlin
              taskcal overlaps diary.ndjson --format json | jq '.[].overlap_start'
            """)
    )

    @Argument(help: .taskFiles) var inputs: [String] = []

    @OptionGroup var options: ReportInputs

    @Option(
        help:
            .tr(
                "Only overlaps from this time: Unix seconds or ISO 8601 (2026-11-22, 2026-11-22T14:00, …Z, …+03:00)."
            )
    )
    var from: String?

    @Option(help: .tr("Only overlaps before this time (same forms as --from)."))
    var to: String?

    @Flag(help: .tr("Count cancelled entries and those that show as free too."))
    var includeFree = false

    @Option(
        help: ArgumentHelp(
            tr("List at most this many overlapping pairs (all are counted)."),
            discussion:
                tr(
                    "The text report lists 10,000 unless told otherwise and ends with \"… and N more\" past them. The JSON report lists every pair unless told: given --max-pairs, it is an object that says whether it is whole, {\"listed\": M, \"total\": N, \"truncated\": true, \"overlaps\": [PAIR, …]}."
                ),
            valueName: "n"))
    var maxPairs: Int?

    @Flag(
        help: ArgumentHelp(
            tr("List the pairs of a repeating entry's own occurrences too."),
            discussion: tr(
                "A repeating entry whose occurrences overlap one another (an event every minute that lasts four hours, a daily one of 25 hours) is one finding: how many occurrences each overlaps and how many pairs that makes. This lists every such pair instead, as for two different entries."
            )))
    var seriesPairs = false

    @Flag(help: .hidden) var timing = false

    func validate() throws {
        if let from, options.time.parse(from) == nil {
            throw ValidationError("--from '\(from)' is not a time; \(timeForms)")
        }
        if let to, options.time.parse(to) == nil {
            throw ValidationError("--to '\(to)' is not a time; \(timeForms)")
        }
        if let maxPairs, maxPairs < 1 {
            throw ValidationError("--max-pairs must be at least 1")
        }
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var entries: [ReportEntry] = []
        let time = options.time
        var expansionWindow: Range<Int64>?
        if from != nil || to != nil {
            let lower = from.flatMap(time.parse) ?? Timestamp.range.lowerBound
            let upper = to.flatMap(time.parse) ?? Timestamp.range.upperBound
            expansionWindow = lower..<max(lower, upper)
        }
        try options.read(inputs, window: expansionWindow, timesOnly: true) { record, location in
            if includeFree || record.occupiesTime || record.dateFinish == record.dateStart {
                entries.append(ReportEntry(record, source: location, time: time))
            }
        }
        let read = clock.now
        let readPeak = timing ? Self.peakMemory() : ""
        var window: TimeSpan?
        if from != nil || to != nil {
            window = TimeSpan(
                start: from.flatMap(time.parse) ?? Timestamp.range.lowerBound,
                finish: to.flatMap(time.parse) ?? Timestamp.range.upperBound)
        }
        let out = try ReportPrinter(
            options, inputs: inputs,
            advice:
                "or list fewer pairs with --max-pairs N (all are counted), or a shorter window with --from and --to"
        )
        // Machine output is whole unless the user set a limit, and then says so inside itself.
        if options.format == .json && maxPairs == nil {
            let total = try OverlapReport.writeAllJSON(
                entries: entries, window: window, seriesPairs: seriesPairs,
                bytes: out.write(bytes:))
            try out.finish()
            if timing {
                timingNote(started: started, read: read, readPeak: readPeak, entries, total)
            }
            if total > 0 { throw ExitCode(1) }
            return
        }
        let report = OverlapReport(
            entries: entries, window: window, limit: maxPairs ?? OverlapReport.defaultLimit,
            seriesPairs: seriesPairs)
        let found = clock.now
        if options.output.isPicture {
            try Pictures.write(
                options.output, title: tr("Overlaps"), [report.svg(in: time)],
                table: report.table(in: time), to: out)
            if report.total > 0 || !report.series.isEmpty { throw ExitCode(1) }
            return
        }
        // The pairs listed are held already (at most --max-pairs): a write past the limit
        // stops the report at the end of the listing.
        var failure: Error?
        switch options.format {
        case .json:
            report.countedJSON(bytes: { bytes in
                guard failure == nil else { return }
                do { try out.write(bytes: bytes) } catch { failure = error }
            })
            if let failure { throw failure }
            try out.finish()
            if report.unlisted > 0 {
                Console.note(
                    "warning: listed the first \(report.overlaps.count) of \(report.total) overlapping pairs; list more with --max-pairs"
                )
            }
        case .text:
            report.text(
                in: time, style: Style.forStandardOutput(),
                to: { text in
                    guard failure == nil else { return }
                    do { try out.write(text) } catch { failure = error }
                })
            if let failure { throw failure }
            try out.finish()
        }
        if timing {
            timingNote(
                started: started, read: read, readPeak: readPeak, entries, report.total,
                found: found)
        }
        if report.total > 0 || !report.series.isEmpty { throw ExitCode(1) }
    }
}

extension Overlaps {
    /// `--timing`: how long reading, finding and writing took, and the memory they needed
    /// (finding and writing apart when `found` says when finding ended).
    func timingNote(
        started: ContinuousClock.Instant, read: ContinuousClock.Instant, readPeak: String,
        _ entries: [ReportEntry], _ total: Int, found: ContinuousClock.Instant? = nil
    ) {
        let now = ContinuousClock.now
        if let found {
            Console.note(
                "timing: read \(read - started) (peak memory \(readPeak)), overlaps \(found - read), output \(now - found) (peak memory \(Self.peakMemory())); \(entries.count) entries, \(total) overlaps"
            )
        } else {
            Console.note(
                "timing: read \(read - started) (peak memory \(readPeak)), overlaps and output \(now - read) (peak memory \(Self.peakMemory())); \(entries.count) entries, \(total) overlaps"
            )
        }
    }

    /// The process's peak resident memory so far (`VmHWM` of /proc/self/status), for --timing.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.dropFirst(6).filter(\.isNumber))
        else { return "unknown" }
        return "\(kilobytes / 1024) MB"
    }
}

let timeForms =
    "expected Unix seconds or ISO 8601 such as 2026-11-22, 2026-11-22T14:00, 2026-11-22T14:00Z or 2026-11-22T14:00+03:00"

struct Agenda: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agenda",
        abstract: tr("Show a day as hour slots with the entries in each."),
        discussion: tr(
            """
            The day screen of a diary: one row an hour from midnight to midnight in --tz (23 or 25 \
            rows on a daylight-saving change), each with the entries that fall in it; an entry \
            spanning several hours appears in each. DATE is YYYY-MM-DD, today or tomorrow (default \
            today).

            Examples:
              taskcal agenda diary.json
              taskcal agenda 2026-11-27 diary.json work.ics --tz Europe/Moscow
              taskcal agenda tomorrow export.ics --format json
            """)
    )

    @Argument(help: ArgumentHelp(tr("[DATE] then the task files."), valueName: "date-and-inputs"))
    var arguments: [String] = []

    @OptionGroup var options: ReportInputs

    func validate() throws { try options.refusePictures("agenda") }

    func run() throws {
        let time = options.time
        let (day, inputs) = try Self.split(arguments, time: time)
        let span = time.span(of: day)
        var records: [TaskRecord] = []
        try options.read(inputs, window: span.start..<span.finish) { record, _ in
            let entry = time.occupied(by: record)
            if entry.overlaps(span)
                || (entry.isEmpty && entry.start >= span.start && entry.start < span.finish)
            {
                records.append(record)
            }
        }
        let agenda = Reports.Agenda(day: day, time: time, records: records)
        let out = try ReportPrinter(options, inputs: inputs, advice: "")
        switch options.format {
        case .json: try agenda.json(to: out.write(_:))
        case .text: try out.write(agenda.text(style: Style.forStandardOutput()))
        }
        try out.finish()
    }

    static func split(_ arguments: [String], time: LocalTime) throws -> (LocalTime.Day, [String]) {
        var inputs = arguments
        var day = time.day(of: Int64(Date().timeIntervalSince1970))
        if let first = inputs.first {
            if let parsed = dayWord(first, time: time) {
                day = parsed
                inputs.removeFirst()
            } else if first.range(of: #"^\d{4}-\d{1,2}-\d{1,2}$"#, options: .regularExpression)
                != nil
            {
                throw ValidationError(
                    "'\(first)' is not a date; expected YYYY-MM-DD such as 2026-11-27")
            }
        }
        return (day, inputs)
    }
}

struct Month: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "month",
        abstract: tr("Show a month as a calendar grid, marking days with entries and today."),
        discussion: tr(
            """
            Weeks run Monday to Sunday, like `cal -m`. A day with entries is marked *, today is in \
            brackets (in colour on a terminal). --format json gives the number of entries of each \
            day. MONTH is YYYY-MM (default this month).

            Examples:
              taskcal month diary.json
              taskcal month 2026-12 diary.json work.ics --format json
            """)
    )

    @Argument(help: ArgumentHelp(tr("[MONTH] then the task files."), valueName: "month-and-inputs"))
    var arguments: [String] = []

    @OptionGroup var options: ReportInputs

    func run() throws {
        let time = options.time
        let today = time.day(of: Int64(Date().timeIntervalSince1970))
        var inputs = arguments
        var year = today.year
        var month = today.month
        if let first = inputs.first,
            first.range(of: #"^\d{4}-\d{2}$"#, options: .regularExpression) != nil
        {
            let parts = first.split(separator: "-")
            guard let parsedYear = Int(parts[0]), let parsedMonth = Int(parts[1]),
                (1...12).contains(parsedMonth),
                (1...9999).contains(parsedYear)
            else {
                throw ValidationError("'\(first)' is not a month; expected YYYY-MM such as 2026-12")
            }
            year = parsedYear
            month = parsedMonth
            inputs.removeFirst()
        }
        var spans: [TimeSpan] = []
        let first = time.epoch(LocalTime.Day(year: year, month: month, day: 1))
        let last = time.epoch(
            month == 12
                ? LocalTime.Day(year: year + 1, month: 1, day: 1)
                : LocalTime.Day(year: year, month: month + 1, day: 1))
        var entries: [ReportEntry] = []
        try options.read(inputs, window: first..<last, timesOnly: true) { record, location in
            spans.append(time.occupied(by: record))
            if options.output.isPicture {
                entries.append(ReportEntry(record, source: location, time: time))
            }
        }
        let out = try ReportPrinter(options, inputs: inputs, advice: "")
        if options.output.isPicture {
            let picture = MonthPicture(
                year: year, month: month, time: time, entries: entries, today: today)
            return try Pictures.write(
                options.output, title: "\(Localization.month(month)) \(year)", [picture.svg()],
                table: picture.table, to: out)
        }
        let view = MonthView(year: year, month: month, time: time, records: spans, today: today)
        switch options.format {
        case .json: try out.write(view.json())
        case .text: try out.write(view.text(style: Style.forStandardOutput()))
        }
        try out.finish()
    }
}

/// `YYYY-MM-DD`, `today` or `tomorrow` in `time`'s zone.
func dayWord(_ text: String, time: LocalTime) -> LocalTime.Day? {
    let today = time.day(of: Int64(Date().timeIntervalSince1970))
    switch text {
    case "today": return today
    case "tomorrow": return today.next
    case "yesterday": return today.adding(days: -1)
    default: return LocalTime.Day(text)
    }
}

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
        func parse(_ text: String) -> Int64? {
            time.parse(text) ?? dayWord(text, time: time).map { time.epoch($0) }
        }
        let start =
            try from.map { text in
                guard let value = parse(text) else {
                    throw ValidationError("--from '\(text)' is not a time; \(timeForms)")
                }
                return value
            } ?? Int64(Date().timeIntervalSince1970) / 60 * 60
        let finish =
            try to.map { text in
                guard let value = parse(text) else {
                    throw ValidationError("--to '\(text)' is not a time; \(timeForms)")
                }
                return value
            } ?? start + 7 * 86_400
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

extension ArgumentHelp {
    /// The inputs of a report.
    static var taskFiles: ArgumentHelp {
        .tr(
            "Task files (JSON, NDJSON, .ics, .jcal, .jscal.json; - for standard input), or --store."
        )
    }
}

/// What `stats` and `diary stats` ask: the window and the rows.
struct StatisticsOptions: ParsableArguments {
    @Option(
        help:
            .tr(
                "From this time (default: the first entry): Unix seconds, ISO 8601 (2026-11-01, …T09:00, …Z, …+03:00), today or tomorrow."
            )
    )
    var from: String?

    @Option(help: .tr("Until this time (default: the end of the last entry)."))
    var to: String?

    @Option(help: .tr("Rows by day, week (ISO), month, category or habit."))
    var by: Statistics.Grouping?

    /// --from and --to in `time`, each `nil` when not given.
    func bounds(in time: LocalTime) throws -> (Int64?, Int64?) {
        func parse(_ text: String?, _ option: String) throws -> Int64? {
            guard let text else { return nil }
            guard let value = time.parse(text) ?? dayWord(text, time: time).map({ time.epoch($0) })
            else { throw ValidationError("\(option) '\(text)' is not a time; \(timeForms)") }
            return value
        }
        let bounds = (try parse(from, "--from"), try parse(to, "--to"))
        if let start = bounds.0, let finish = bounds.1, finish <= start {
            throw ValidationError("--to must be after --from")
        }
        return bounds
    }

    /// Reads what `inputs` (or the diary of `reading`) hold and prints the statistics.
    func report(_ reading: ReportInputs, inputs: [String]) throws {
        let time = reading.time
        let (from, to) = try bounds(in: time)
        var entries: [Statistics.Entry] = []
        var todos: [Bool] = []
        var exdates: [Int64] = []
        var habits: [Int64: HabitTally.Habit] = [:]
        func todo(_ record: TaskRecord) {
            todos.append(record.done)
            record.subtasks.forEach(todo)
        }
        let window =
            (from != nil || to != nil)
            ? (from ?? Timestamp.range.lowerBound)..<(to ?? Timestamp.range.upperBound) : nil
        try reading.read(
            inputs, window: window, unscheduled: todo,
            series: { series in
                exdates += series.recurrence?.exdates ?? []
                habits[series.id] = HabitTally.Habit(
                    id: series.id, name: series.displayName, color: series.color)
            }
        ) { record, _ in
            if record.kind == .todo && record.recurrenceID == nil { return todo(record) }
            let habit = record.recurrenceID.map { _ in
                habits[record.id]
                    ?? HabitTally.Habit(
                        id: record.id, name: record.displayName, color: record.color)
            }
            entries.append(
                Statistics.Entry(
                    span: time.occupied(by: record), occupies: record.occupiesTime,
                    categories: record.categories, habit: habit,
                    cancelled: record.status == .cancelled, done: record.done))
        }
        var span: TimeSpan?
        if from != nil || to != nil {
            span = TimeSpan(
                start: from ?? entries.map(\.span.start).min() ?? 0,
                finish: to ?? entries.map(\.span.finish).max() ?? 0)
        }
        let stats = Statistics(
            entries: entries, todos: todos,
            skipped: exdates.filter { time in
                span.map { time >= $0.start && time < $0.finish } ?? true
            }.count, window: span, time: time, grouping: by,
            now: Int64(Date().timeIntervalSince1970))
        let out = try ReportPrinter(
            reading, inputs: inputs, advice: "or a shorter window with --from and --to")
        if reading.output.isPicture {
            return try Pictures.write(
                reading.output, title: tr("Statistics"),
                [stats.heatMap(in: time), stats.habitGrid(in: time)], table: stats.table(in: time),
                to: out)
        }
        switch reading.format {
        case .json: try out.write(stats.json())
        case .text: try out.write(stats.text(in: time, style: Style.forStandardOutput()))
        }
        try out.finish()
    }
}

extension Statistics.Grouping: ExpressibleByArgument {}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: tr(
            "Statistics: entries, busy time, what was done, best period, ideal days, to-dos, habits."
        ),
        discussion: tr(
            """
            Reads task files (or a diary with --store) and sums up the window (default: from the \
            first entry to the end of the last): entries that start in it (each occurrence of a \
            habit counts), the time they take up (two at once count once), the longest stretch \
            none takes up; what was done (diary done), as the habit tracker counted it: entries \
            completed, the best period (the longest run of habit occurrences done one after \
            another), ideal days (every habit of the day done), the average done per day, and \
            streaks of days with something done, all up to the end of today; to-dos open and \
            done; habit occurrences scheduled and skipped (taken out or cancelled). --by adds \
            rows by day, ISO week, month, category or habit. --format svg or html draws a year \
            of days done and each habit day by day.

            Examples:
              taskcal stats diary.json --by week
              taskcal stats --store - --from 2026-11-01 --to 2026-12-01 --by habit
              taskcal stats export.ics --format json
              taskcal stats --store - --from 2026-01-01 --format html > year.html
            """)
    )

    @Argument(help: .taskFiles) var inputs: [String] = []

    @OptionGroup var options: ReportInputs
    @OptionGroup var statistics: StatisticsOptions

    func validate() throws { _ = try statistics.bounds(in: options.time) }

    func run() throws { try statistics.report(options, inputs: inputs) }
}

/// Pictures on standard output: an SVG file (several pictures one above the other), or one
/// self-contained HTML page.
enum Pictures {
    static func write(
        _ output: ReportOutput, title: String, _ pictures: [Markup], table: [[String]],
        to out: ReportPrinter
    ) throws {
        switch output {
        case .html:
            try out.write(Drawing.htmlPage(title: title, pictures: pictures, table: table))
        default:
            try out.write(Drawing.svgFile(Drawing.stacked(pictures, title: title)))
        }
        try out.finish()
    }
}
