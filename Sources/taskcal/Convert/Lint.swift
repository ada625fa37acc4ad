import ArgumentParser
import Foundation
import ICalendar
import Localization
import TaskConversion

extension CalendarApp: ExpressibleByArgument {}

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: tr("Say what a calendar app will refuse, drop or change when it imports a file."),
        discussion: tr(
            """
            Reads .ics (any app's, not only taskcal's) or task files (as taskcal would write them \
            as .ics) and lists, per record and line, what the app named by --for does with them on \
            import, each with a stable code. Exit codes: 0 nothing lost (changes only), 1 \
            something would be lost (dropped or refused), 2 a file cannot be read.

            --format json prints one object: {"app", "files", "records", "losses", "findings": \
            [{"file", "line" or "index", "app", "code", "effect", "message"}]}. effect is drops, \
            refuses or changes.

            convert --for APP writes .ics shaped for the app: it fixes what it can, and says what \
            it changed and what the app will still drop.

            Examples:
              taskcal lint export.ics --for outlook
              taskcal lint tasks.json --for google --format json
              taskcal lint export.ics --for any

            The rules (code, effect: what, source):
            %@
            """, rulesText)
    )

    /// The rules for --help, one paragraph each.
    static var rulesText: String {
        AppRules.all.map {
            "  \($0.code), \($0.effect.rawValue): \($0.summary). Source: \($0.source)."
        }.joined(separator: "\n")
    }

    @Argument(help: .tr("Files to check (- for standard input, with --input-format)."))
    var inputs: [String]

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(tr("The app; any stands for every reader at once."), valueName: "app"))
    var app: CalendarApp

    @Option(
        name: [.customLong("input-format"), .customLong("from")],
        help: .tr(
            "Input format when the name does not tell it."))
    var from: Format?

    @OptionGroup var zone: ZoneOption<FileZone>
    var tz: String? { zone.tz }

    @OptionGroup var printed: FormatOption

    func validate() throws {
        try Zone.validate(tz)
        if inputs.contains("-") && from == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
    }

    func run() throws {
        var findings: [AppFinding] = []
        var records = 0
        var unreadable = 0
        // Every revision of a UID is read: what an app does with each (a server keeps one
        // object per UID) is what lint is for.
        var options = ReadOptions(format: from, floatingZone: tz)
        options.readsEveryRevision = true
        for input in inputs {
            var series = AppRules.SeriesCheck(app: app)
            let report = Converter.read(inputs: [input], options: options) { record, location in
                records += 1
                findings += AppRules.findings(for: record, at: location, app: app)
                series.include(record, at: location)
            }
            findings += series.findings
            for error in report.errors { Console.error(error.description) }
            if !report.errors.isEmpty { unreadable += 1 }
            findings += report.warnings.flatMap { AppRules.findings(for: $0, app: app) }
            if input != "-", (from ?? Format(path: input)) == .ics,
                let size = try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int
            {
                findings += AppRules.findings(forFile: input, bytes: size, app: app)
            }
        }
        let losses = findings.filter(\.rule.effect.loses).count
        if printed.format == .json {
            print(
                """
                {"app": "\(app.rawValue)", "files": \(inputs.count), "records": \(records), \
                "losses": \(losses), "findings": [
                """ + findings.map(\.json).joined(separator: ",\n") + "]}")
        } else {
            for finding in findings { print(Localization.message(finding.description)) }
            fflush(nil)  // the findings before the summary on a shared terminal
            let summary =
                findings.isEmpty
                ? "\(app.displayName): nothing refused, dropped or changed in \(records) record\(records == 1 ? "" : "s")"
                : "\(app.displayName): \(findings.count) finding(s), \(losses) losing data, in \(records) record\(records == 1 ? "" : "s")"
            // Two sentences, each translated on its own (Console joins them with "; ").
            Console.note(
                unreadable == 0
                    ? summary
                    : "\(summary); \(unreadable) file\(unreadable == 1 ? "" : "s") could not be read (above)"
            )
        }
        if unreadable > 0 { throw ExitCode(2) }
        if losses > 0 { throw ExitCode(1) }
    }
}
