import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

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

    @OptionGroup var zone: ZoneOption<FileZone>
    var tz: String? { zone.tz }

    @Flag(help: .tr("Count readings taskcal chose for unclear .ics input as problems."))
    var strict = false

    @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

    @OptionGroup var printed: FormatOption

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
        if printed.format == .json {
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
            if printed.format != .json { Console.error("\(problems) problem(s) found") }
            throw ExitCode(1)
        }
        if !quiet && printed.format != .json {
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
