import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

extension Format: ExpressibleByArgument {}

/// `--revisions`: how components that share a UID (and RECURRENCE-ID) are read.
enum RevisionReading: String, ExpressibleByArgument, CaseIterable {
    /// The newest is the event; the others are kept with the calendar (``Revisions``).
    case newest
    /// Each is an event of its own, under a UID of its own.
    case all

    /// The option's help, the same for every command that reads .ics.
    static let help = ArgumentHelp(
        tr("What becomes of components that share a UID."),
        discussion: tr(
            "newest: the one with the highest SEQUENCE, then the latest DTSTAMP, is the event, as RFC 5546 says and a CalDAV server keeps it; the others are kept with the calendar as written. all: each is an event of its own, under a UID of its own."
        ))
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: tr(
            "Convert between JSON, NDJSON, iCalendar (.ics), jCal (.jcal) and JSCalendar."),
        discussion: tr(
            """
            Formats come from the file extensions (.json, .ndjson/.jsonl, .ics, .jcal, \
            .jscal.json); use --from and --to for standard input and output (-). Records keep \
            their order. Nothing is written unless the whole input is valid: errors name the file \
            and line (or JSON index and field), and the exit code is 2.

            Examples:
              taskcal convert tasks.json -o tasks.ics
              taskcal convert export.ics -o tasks.json --tz Europe/Moscow
              taskcal convert big.ndjson -o big.ics          (streamed, flat memory)
              cat tasks.json | taskcal convert - --from json --to ics > tasks.ics
              taskcal convert mail.ics -o mail.json --extract-attachments files/
              taskcal convert team.ics -o december.json --expand 2026-12-01..2027-01-01
              taskcal convert tasks.json -o tasks.jcal         (jCal, RFC 7265)
              taskcal convert tasks.json -o tasks.jscal.json   (JSCalendar, RFC 8984)

            Calendar apps' exports come in whole: zones (Outlook's Windows names too), all-day \
            events, recurrence with exceptions and changed occurrences, to-dos with subtasks, \
            people, and every other property verbatim in ical_extra.

            JSCalendar (.jscal.json) is one Group of Events and Tasks; what RFC 8984 has no \
            property for (an alarm's text, ical_extra lines) is kept in each object's \
            "taskcal.invalid:fields", so records → JSCalendar → records loses nothing.

            DTSTAMP is the time of conversion, or SOURCE_DATE_EPOCH when it is set, so the same \
            input gives byte-identical output.
            """)
    )

    @Argument(
        help: .tr(
            "Input files (- for standard input). Several inputs go into one output, in order."))
    var inputs: [String]

    @Option(name: .shortAndLong, help: .tr("Output file (- for standard output)."))
    var output: String = "-"

    @Option(
        help: ArgumentHelp(
            tr("Convert each input to its own file in this folder (batch mode)."),
            discussion:
                tr(
                    "Inputs may be folders (searched recursively for .json, .ndjson, .jsonl, .ics, .jcal and .jscal.json; their layout is kept). Files are converted in parallel; one bad file does not stop the others. Output format: --to, else the other family (JSON → ics, ics → json)."
                )
        ))
    var outputDir: String?

    @Option(
        name: .customLong("jobs"),
        help:
            .tr(
                "Files converted at once in batch mode, and threads parsing one large .ics or decoding NDJSON (default: the number of cores)."
            )
    )
    var jobsOption: Int?

    /// `--jobs`, else the number of cores. Not the option's default value: help would print
    /// this machine's count beside the words that say it.
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Flag(help: .tr("Batch mode: replace outputs that exist (default: skip them)."))
    var force = false

    @Flag(help: .tr("Batch mode: stop starting new files after the first failure."))
    var failFast = false

    @Option(
        help:
            .tr(
                "Batch mode: write the summary as JSON to this file (one entry per input, with its errors)."
            )
    )
    var report: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "Batch mode: convert only share K of N (0 to N-1) of the files, as one of N workers."
            ),
            discussion: tr(
                "Every Nth file of the whole plan, from the Kth: N workers given the same inputs cover them once (GNU parallel over ssh, a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX). Their --report files merge with --merge-reports."
            ),
            valueName: "K/N"))
    var shard: String?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Merge the --report files given as inputs into one summary, written to --report (default: standard output)."
            ),
            discussion: tr(
                "The shares of one plan (--shard K/N, all N of them) come back in the plan's order, as one run would have listed them; reports of separate runs follow one another. Exit code 1 when a file failed, 2 when a share is missing."
            )))
    var mergeReports = false

    @Option(
        name: [.customLong("input-format"), .customLong("from")],
        help:
            .tr(
                "Input format when the name does not tell it (--from is the same)."
            )
    )
    var from: Format?

    @Option(
        help:
            .tr(
                "Output format when the name does not tell it. Default: the other family (JSON → ics, ics → json)."
            )
    )
    var to: Format?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Refuse what calendar apps accept but is unclear or beyond libical (all or nothing)."
            ),
            discussion:
                tr(
                    "Without it, an unknown TZID is read as floating time, a value libical cannot read is kept as written, a component without DTSTART is kept with the calendar as written: each with a warning naming the line. --strict makes each of those an error and writes nothing."
                )
        ))
    var strict = false

    @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

    @Option(
        help: ArgumentHelp(
            tr(
                "What derived UIDs are unique to (default: each input file's name without its extension)."
            ),
            discussion:
                tr(
                    "Records without a uid get taskcal-ID-HASH@DOMAIN, HASH from this text: the same namespace gives the same UIDs, so a calendar app updates its events instead of duplicating them. Give one (a project name, your address, a UUID) to keep UIDs when files move; reading .ics with the same namespace gives back plain ids."
                ),
            valueName: "text"))
    var uidNamespace: String?

    @Option(help: .tr("The calendar's name in the output (NAME and X-WR-CALNAME)."))
    var calendarName: String?

    @Option(
        help: ArgumentHelp(
            tr("IANA time zone (Europe/Moscow)."),
            discussion:
                tr(
                    "Writing .ics: times are written in this zone with a VTIMEZONE (default UTC). Reading .ics: floating times (no zone) are read in it (default: the file's X-WR-TIMEZONE, else the local zone)."
                ),
            valueName: "zone"),
        completion: .custom { _, _, prefix in TimeZones.allNames.filter { $0.hasPrefix(prefix) } })
    var tz: String?

    @Option(
        help:
            .tr(
                "Domain of the UIDs derived from ids (taskcal-ID-HASH@DOMAIN)."
            )
    )
    var uidDomain: String = UIDScheme.defaultDomain

    @Option(
        help:
            .tr(
                "Write inline attachments of .ics input to files in this folder and record their paths instead of base64."
            )
    )
    var extractAttachments: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "With --for google and --extract-attachments DIR: link inline attachments as URL/NAME."
            ),
            discussion:
                tr(
                    "Google Calendar keeps attachments only as links. Each inline attachment (base64 or a path) is written to DIR under a safe name (ID-INDEX-NAME) and the event links it as URL/NAME; publish DIR at URL. Each link is reported."
                ),
            valueName: "url"))
    var attachmentBaseURL: String?

    @Option(
        help: ArgumentHelp(
            tr("Write each occurrence of repeating entries in this window as its own record."),
            discussion:
                tr(
                    "FROM..TO, each Unix seconds or ISO 8601 (2026-12-01, 2026-12-01T09:00, …Z, …+01:00), dates and local times in --tz (default: local). Occurrences overlapping the window are kept; exceptions (EXDATE) are removed and changed occurrences (RECURRENCE-ID) applied. Each occurrence keeps the series' id and uid and gets recurrence_id, its original start. Entries that do not repeat are kept when they overlap the window."
                ),
            valueName: "from..to"))
    var expand: String?

    @Option(
        help: ArgumentHelp(
            tr("With --expand: the most occurrences written, all repeating entries together."),
            discussion:
                tr(
                    "Past it, the series that reaches it is cut short and later ones are left out, each with a warning. The limit keeps an entry that repeats every second from filling the disk."
                ),
            valueName: "n"))
    var maxOccurrences: Int = Expansion.defaultLimit

    @Option(
        help: ArgumentHelp(
            tr("The most an output may take: a size (200MB, 1GiB) or none."),
            discussion:
                tr(
                    "An expansion writes each occurrence in full, so a few lines can ask for gigabytes. Unless told, --expand writes at most 64 MiB or four times what it reads, whichever is more, and other conversions have no limit. Past it the command fails (exit 2) and writes nothing."
                ),
            valueName: "size"))
    var maxOutput: String?

    /// `--max-output`, when given.
    var outputLimit: OutputLimit? {
        maxOutput.flatMap(OutputLimit.bytes).map { OutputLimit(bytes: $0) }
    }

    @Flag(
        help:
            .tr(
                "Leave out the .ics lines the task format has no field for (ical_extra), reading and writing."
            )
    )
    var dropExtra = false

    @Flag(
        help:
            .tr(
                "Write the valid records and skip the invalid ones (each reported; exit 1 when any was skipped) instead of writing nothing."
            )
    )
    var skipInvalid = false

    @Option(
        help: ArgumentHelp(
            tr(
                "Write .ics in parts of at most this size: -o out.ics gives out-001.ics, out-002.ics, …"
            ),
            discussion:
                tr(
                    "SIZE in bytes, or with a unit: 1MB (1,000,000), 500KB, 1MiB (1,048,576), 64KiB. Each part is a complete calendar: the calendar's lines, the VTIMEZONEs its events use, and every series with its changed occurrences whole; the parts together hold exactly what one file would. Google Calendar's importer takes files up to 1 MB. A series larger than SIZE alone gets a part of its own, with a warning."
                ),
            valueName: "size"))
    var splitSize: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "Write .ics in parts of at most this many events (subtasks count), as --split-size does."
            ),
            valueName: "n"))
    var splitCount: Int?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            tr(
                "Shape the .ics for the app it goes into; any suits every reader at once."
            ),
            discussion:
                tr(
                    "Outlook: to-dos and subtasks left out, one alarm (the first), no disabled alarms, X-FILENAME on inline attachments, X-MICROSOFT-CDO-ALLDAYEVENT on all-day events, METHOD:PUBLISH. Google: to-dos and inline attachments left out (links kept); its dropping of alarms reported. Apple: times in a zone whose TZID must be quoted written in UTC. Thunderbird: plain RFC 5545 suits it. CalDAV: what a server refuses repaired (components kept as written but zones, period RDATEs, second rules, rules in a form it cannot read, impossible dates, inline images, changed occurrences without their series); an empty calendar is an error. any: every repair for the strictest readers (calcurse, khal, Radicale, libical, Python icalendar, vobject), also empty values, a start the rule does not give, EXDATEs without a rule; each repair of a repeat is checked to keep the same occurrences. Every change is reported as a warning, once per rule with a count; taskcal lint --for APP lists what the app will still do."
                ),
            valueName: "app"))
    var app: CalendarApp?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Write private and confidential records as \"Busy\" with their times only, to share a calendar without its contents."
            ),
            discussion:
                tr(
                    "Records with \"class\": \"private\" or \"confidential\" (CLASS:PRIVATE or CLASS:CONFIDENTIAL in .ics) keep their id, UID, times, zone and repetition, named Busy; their description, place, people, categories, links, attachments, alarms, subtasks and other lines are left out. The others are written whole."
                )
        ))
    var redact = false

    @Flag(
        help:
            .tr(
                "Write every record as \"Busy\" with its times only (a free/busy view); of the calendar's own lines only X-WR-TIMEZONE and METHOD."
            )
    )
    var redactAll = false

    @Flag(
        help: ArgumentHelp(
            tr("Read the output back and compare it with what was written, as taskcal diff does."),
            discussion: tr(
                "A difference no warning of the conversion said is an error: it is listed, the output is kept, and the exit code is 1. What --expand, --redact and --drop-extra change on purpose is not a difference; --for APP's repairs are said as warnings. In batch mode each file's differences are counted in the report."
            )))
    var verify = false

    @Flag(name: .shortAndLong, help: .tr("Print only errors."))
    var quiet = false

    /// `--redact` or `--redact-all`.
    var redaction: Redaction? { redactAll ? .all : redact ? .confidential : nil }

    /// `--split-size` and `--split-count`, when given.
    var split: SplitLimit? {
        guard splitSize != nil || splitCount != nil else { return nil }
        return SplitLimit(bytes: splitSize.flatMap(SplitLimit.bytes), records: splitCount)
    }

    /// The `--expand` window.
    var expansion: Expansion? {
        guard let expand else { return nil }
        let parts = expand.components(separatedBy: "..")
        let time = Zone.time(tz)
        guard parts.count == 2, let from = time.parse(parts[0]), let to = time.parse(parts[1]),
            from < to
        else { return nil }
        return Expansion(
            window: from..<to, limit: maxOccurrences, uidScheme: UIDScheme(domain: uidDomain))
    }

    func validate() throws {
        try Zone.validate(tz)
        if expand != nil && expansion == nil {
            throw ValidationError(
                "--expand '\(expand ?? "")' is not a window FROM..TO such as 2026-12-01..2027-01-01 (FROM before TO; Unix seconds or ISO 8601)"
            )
        }
        if inputs.contains("-") && from == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
        if outputDir != nil && output != "-" {
            throw ValidationError(
                "use either -o (one output) or --output-dir (one output per input)")
        }
        if outputDir != nil && skipInvalid {
            throw ValidationError("--skip-invalid writes one output; batch mode skips whole files")
        }
        if mergeReports {
            if outputDir != nil || output != "-" || shard != nil {
                throw ValidationError(
                    "--merge-reports writes one summary to --report: give it neither --output-dir, -o nor --shard"
                )
            }
            return
        }
        if let shard, BatchConverter.Shard(shard) == nil {
            throw ValidationError(
                "--shard '\(shard)' is not a share K/N such as 0/4 (K from 0 to N-1)")
        }
        if outputDir == nil && shard != nil {
            throw ValidationError("--shard belongs to batch mode (--output-dir)")
        }
        if outputDir == nil && (report != nil || force || failFast) {
            throw ValidationError(
                "--report, --force and --fail-fast belong to batch mode (--output-dir)")
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let attachmentBaseURL {
            guard app == .google, extractAttachments != nil else {
                throw ValidationError(
                    "--attachment-base-url links attachments for Google: give it with --for google and --extract-attachments DIR"
                )
            }
            guard let url = URL(string: attachmentBaseURL), url.scheme != nil, url.host != nil
            else {
                throw ValidationError(
                    "--attachment-base-url '\(attachmentBaseURL)' is not a URL such as https://files.example.org/calendar"
                )
            }
        }
        if let app, outputDir != nil, to != .ics {
            throw ValidationError(
                "--for \(app.rawValue) shapes .ics: in batch mode add --to ics, so that every output is one"
            )
        }
        if attachmentBaseURL != nil, outputDir != nil {
            throw ValidationError(
                "--attachment-base-url links the attachments of one output (-o), not of batch mode")
        }
        if let splitSize, SplitLimit.bytes(splitSize) == nil {
            throw ValidationError(
                "--split-size '\(splitSize)' is not a size such as 1MB, 500KB, 64KiB or 2000000")
        }
        if let splitCount, splitCount < 1 {
            throw ValidationError("--split-count must be at least 1")
        }
        if split != nil
            && (outputDir != nil || output == "-" || (to ?? Format(path: output)) != .ics)
        {
            throw ValidationError(
                "--split-size and --split-count need one .ics output file (-o out.ics); its parts are out-001.ics, …"
            )
        }
        if maxOccurrences < 1 { throw ValidationError("--max-occurrences must be at least 1") }
        if let maxOutput, OutputLimit.bytes(maxOutput) == nil {
            throw ValidationError(
                "--max-output '\(maxOutput)' is not a size such as 200MB, 1GiB or 5000000, nor none"
            )
        }
        if uidDomain.isEmpty || uidDomain.contains(where: { $0.isWhitespace || $0 == "@" }) {
            throw ValidationError("--uid-domain '\(uidDomain)' is not a domain such as example.org")
        }
    }

    func run() throws {
        if mergeReports { return try runMerge() }
        if let outputDir { return try runBatch(into: outputDir) }
        let inputFormat = from ?? inputs.lazy.compactMap { Format(path: $0) }.first
        var outputFormat = to
        if outputFormat == nil && (output == "-" || Format(path: output) == nil) {
            outputFormat = inputFormat?.isCalendar == true ? .json : .ics
        }
        if output != "-", FileManager.default.fileExists(atPath: output),
            inputs.contains(where: { sameFile($0, output) })
        {
            throw ValidationError(
                "the output \(output) is also an input; choose another output file")
        }
        let scheme = UIDScheme(domain: uidDomain, namespace: uidNamespace)
        var extraction: AttachmentExtraction?
        if let extractAttachments {
            // Linked for Google, the files are found by their full paths.
            let relativeTo =
                output == "-" || attachmentBaseURL != nil
                ? nil : URL(fileURLWithPath: output).deletingLastPathComponent()
            extraction = AttachmentExtraction(
                directory: URL(fileURLWithPath: extractAttachments), relativeTo: relativeTo)
        }
        var read = ReadOptions(
            format: from, uidScheme: scheme, floatingZone: tz, extraction: extraction)
        // A large .ics input is parsed on --jobs threads (outputs are the same as on one).
        read.parallelism = jobs
        read.expansion = expansion
        read.dropExtra = dropExtra
        read.redaction = redaction
        read.strict = strict
        read.readsEveryRevision = revisions == .all
        var write = WriteOptions(format: outputFormat, uidScheme: scheme, zone: tz)
        write.uidNamespace = uidNamespace
        write.calendarName = calendarName
        write.split = split
        write.app = app
        write.outputLimit = outputLimit
        if let attachmentBaseURL, let extractAttachments {
            write.attachmentLinks = AttachmentLinks(
                directory: URL(fileURLWithPath: extractAttachments), baseURL: attachmentBaseURL)
        }
        // .ics records are rendered on --jobs threads too (the bytes are those of one).
        write.parallelism = jobs
        let report = Converter.convert(
            inputs: inputs, output: output, read: read, write: write, skipInvalid: skipInvalid,
            verify: verify)
        Console.show(report, quiet: quiet)
        if skipInvalid && !report.succeeded && report.unreadableInputs == 0 {
            let skipped = report.errors.count + report.suppressedErrors
            Console.error(
                "wrote \(report.written) record\(report.written == 1 ? "" : "s") to \(output); skipped what the \(skipped) error(s) above name"
            )
            throw ExitCode(1)
        }
        guard report.succeeded else {
            Console.error(
                "nothing written: fix the \(report.errors.count + report.suppressedErrors) error(s) above"
            )
            throw ExitCode(2)
        }
        if !quiet && output != "-" {
            let target =
                switch report.outputs.count {
                case 0: output
                case 1: report.outputs[0]
                default:
                    "\(report.outputs.count) parts, \(report.outputs[0]) … \(report.outputs[report.outputs.count - 1])"
                }
            Console.note(
                "wrote \(report.records) record\(report.records == 1 ? "" : "s") to \(target)")
        }
        if let verification = report.verification { try Self.show(verification, quiet: quiet) }
    }

    /// Says what `--verify` found; exit 1 when a difference was not said before.
    static func show(_ verification: Verification, quiet: Bool) throws {
        for error in verification.readBackErrors {
            Console.error("--verify: the output does not read back: \(error.description)")
        }
        let unsaid = verification.unsaid
        if !unsaid.isEmpty {
            let lines = unsaid.text(zone: TimeZones.localName).split(separator: "\n").dropLast()
            for line in lines { Console.error("--verify: \(line)") }
        }
        let all = verification.difference
        let differences = all.missing.count + all.extra.count + all.changed.count
        let notSaid = unsaid.missing.count + unsaid.extra.count + unsaid.changed.count
        if verification.succeeded {
            if !quiet {
                Console.note(
                    differences == 0
                        ? "verified: \(all.same) record(s) read back as written"
                        : "verified: \(all.same) record(s) read back as written, \(differences) differ as the warnings above say"
                )
            }
            return
        }
        Console.error(
            "--verify: the output is kept, but \(notSaid) difference(s) no warning said (above)")
        throw ExitCode(1)
    }

    private func sameFile(_ first: String, _ second: String) -> Bool {
        guard first != "-" else { return false }
        return URL(fileURLWithPath: first).standardizedFileURL.path
            == URL(fileURLWithPath: second).standardizedFileURL.path
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract:
            tr(
                "Check task files (JSON, NDJSON, .ics, .jcal, .jscal.json) and report every problem."
            ),
        discussion: tr(
            """
            Prints each problem as FILE:LINE: message (or FILE: [INDEX].field: message for JSON) \
            and exits 1 when there is any; 2 when a file cannot be read; 0 when all files are \
            valid. Warnings (readings taskcal chose for unclear .ics input: an unknown zone read \
            as floating, a value kept as written) are printed too; with --strict they are \
            problems.

            --format json prints one object for scripts: {"valid", "files", "records", "errors", \
            "warnings", "diagnostics": [{"file", "line" or "index", "field", "severity", "code", \
            "message"}]}. Codes are stable (unknown-time-zone, unreadable-value, \
            component-skipped, invalid, invalid-json, duplicate-id, …).

            Examples:
              taskcal validate tasks.json export.ics
              taskcal validate --strict --format json export.ics
            """)
    )

    @Argument(help: .tr("Files to check (- for standard input, with --input-format)."))
    var inputs: [String]

    @Option(
        name: [.customLong("input-format"), .customLong("from")],
        help:
            .tr(
                "Input format when the name does not tell it (--from is the same)."
            )
    )
    var from: Format?

    @Option(
        help: ArgumentHelp(
            tr(
                "IANA zone for floating .ics times (default: the file's X-WR-TIMEZONE, else local)."
            ),
            valueName: "zone"),
        completion: .custom { _, _, prefix in TimeZones.allNames.filter { $0.hasPrefix(prefix) } })
    var tz: String?

    @Flag(help: .tr("Count readings taskcal chose for unclear .ics input as problems."))
    var strict = false

    @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

    @Option(help: .tr("text for people, json for scripts."))
    var format: ReportFormat = .text

    @Flag(name: .shortAndLong, help: .tr("Print only problems."))
    var quiet = false

    func validate() throws {
        try Zone.validate(tz)
        if inputs.contains("-") && from == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
    }

    func run() throws {
        var read = ReadOptions(format: from, floatingZone: tz)
        read.strict = strict
        read.readsEveryRevision = revisions == .all
        let report = Converter.validate(inputs: inputs, read: read)
        let problems = report.errors.count + report.suppressedErrors
        if format == .json {
            let diagnostics = (report.errors + report.warnings).map(\.json)
            print(
                """
                {"valid": \(report.succeeded), "files": \(inputs.count), "records": \(report.records), \
                "errors": \(problems), "warnings": \(report.warnings.count), "diagnostics": [
                """ + diagnostics.joined(separator: ",\n") + "]}")
        } else {
            Console.show(report, quiet: quiet)
        }
        if report.unreadableInputs > 0 { throw ExitCode(2) }
        guard report.succeeded else {
            if format != .json { Console.error("\(problems) problem(s) found") }
            throw ExitCode(1)
        }
        if !quiet && format != .json {
            let files = inputs.count
            if report.warnings.isEmpty {
                Console.say(
                    "valid: \(report.records) record\(report.records == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")"
                )
            } else {
                Console.say(
                    "valid: \(report.records) record\(report.records == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s"), \(report.warnings.count) warning(s)"
                )
            }
        }
    }
}

// MARK: - Batch mode

extension Convert {
    func runBatch(into directory: String) throws {
        let scheme = UIDScheme(domain: uidDomain, namespace: uidNamespace)
        var read = ReadOptions(format: from, uidScheme: scheme, floatingZone: tz)
        read.expansion = expansion
        read.dropExtra = dropExtra
        read.redaction = redaction
        read.strict = strict
        read.readsEveryRevision = revisions == .all
        var write = WriteOptions(uidScheme: scheme, zone: tz)
        write.uidNamespace = uidNamespace
        write.calendarName = calendarName
        write.app = app
        write.outputLimit = outputLimit
        var batch = BatchConverter(
            read: read, write: write, format: to, jobs: jobs, force: force, failFast: failFast)
        batch.verify = verify
        let (planned, problems) = batch.plan(inputs: inputs, into: directory)
        for problem in problems { Console.error(problem.description) }
        guard problems.isEmpty else { throw ExitCode(2) }
        var share = shard.flatMap(BatchConverter.Shard.init)
        let jobs = share?.of(planned) ?? planned
        let bar = ProgressBar(total: jobs.count, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let summary = batch.run(jobs) { outcome, done in
            if (outcome.status == .failed || (outcome.differences ?? 0) > 0) && !bar.enabled {
                for error in outcome.errors.prefix(20) { Console.error(error.description) }
            }
            bar.update(done: done, records: outcome.records)
        }
        bar.finish()
        if bar.enabled {
            for outcome in summary.outcomes
            where outcome.status == .failed || (outcome.differences ?? 0) > 0 {
                for error in outcome.errors.prefix(20) { Console.error(error.description) }
            }
        }
        var shared = summary
        shared.shard = share
        try finish(shared)
    }

    /// Writes `summary` to --report (when given), says it in one line and exits 1 when a file
    /// failed.
    private func finish(_ summary: BatchConverter.Summary) throws {
        if let report {
            do {
                try Data(summary.json.utf8).write(
                    to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                Console.error("\(report): cannot write the report: \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        let line =
            "converted \(summary.count(.converted)) file(s), failed \(summary.count(.failed)), skipped \(summary.count(.skipped)); \(summary.records) records written, \(summary.warnings) warning(s), in \(String(format: "%.1f", summary.seconds)) s"
        if !quiet || summary.count(.failed) > 0 { Console.note(line) }
        if verify {
            Console.note(
                "verified: \(summary.count(.converted) - summary.differing) output(s) read back as written, \(summary.differing) with differences no warning said"
            )
        }
        if summary.count(.failed) > 0 || summary.differing > 0 { throw ExitCode(1) }
    }

    /// `--merge-reports`: the inputs are the workers' reports.
    func runMerge() throws {
        var parts: [(name: String, summary: BatchConverter.Summary)] = []
        do {
            for input in inputs {
                guard let data = FileManager.default.contents(atPath: input) else {
                    throw Diagnostic(.error, Location(file: input), "cannot read the report")
                }
                parts.append((input, try BatchConverter.Summary(json: data, name: input)))
            }
            let merged = try BatchConverter.Summary.merged(parts)
            if report == nil { FileHandle.standardOutput.write(Data(merged.json.utf8)) }
            try finish(merged)
        } catch let problem as Diagnostic {
            Console.error(problem.description)
            throw ExitCode(2)
        }
    }
}

/// A progress line on standard error: files and records done, rate, time left.
final class ProgressBar: Sendable {
    let enabled: Bool
    private let total: Int
    private let state: Locked<(records: Int, lastDraw: ContinuousClock.Instant?)>
    private let start = ContinuousClock.now

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        self.state = Locked((0, nil))
    }

    func update(done: Int, records: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let line: String? = state.withLock { state in
            state.records += records
            if let last = state.lastDraw, now - last < .milliseconds(100), done < total {
                return nil
            }
            state.lastDraw = now
            let elapsed =
                Double((now - start).components.seconds) + Double(
                    (now - start).components.attoseconds) / 1e18
            let rate = elapsed > 0 ? Double(state.records) / elapsed : 0
            let left = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
            let width = 24
            let filled = total == 0 ? width : width * done / total
            return "\r[" + String(repeating: "=", count: filled)
                + String(repeating: " ", count: width - filled) + "] "
                + Localization.message(
                    "\(done)/\(total) files, \(state.records) records, \(Int(rate)) records/s, \(Int(left)) s left"
                ) + "  "
        }
        if let line { Console.standardError(line) }
    }

    func finish() {
        if enabled { Console.standardError("\n") }
    }
}
