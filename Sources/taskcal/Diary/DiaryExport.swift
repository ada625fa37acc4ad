import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

#if PostgreSQL
import PostgresDiary
#endif

extension DiaryCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: tr("Write every entry to a JSON, NDJSON or .ics file."),
            discussion: tr(
                """
                Examples:
                  taskcal diary export -o backup.json
                  taskcal diary export -o shared.ics --redact      (private entries as Busy)
                  taskcal diary export -o busy.ics --redact-all    (a free/busy view)
                """))
        @OptionGroup var options: StoreOptions
        @Option(name: .shortAndLong, help: .tr("Output file (- for standard output, with --to)."))
        var output: String
        @Option(help: .tr("Output format when the name does not tell it.")) var to: Format?
        @Flag(
            help:
                .tr(
                    "Write private and confidential entries as \"Busy\" with their times only (as convert --redact)."
                )
        )
        var redact = false
        @Flag(help: .tr("Write every entry as \"Busy\" with its times only: a free/busy view."))
        var redactAll = false

        func run() throws {
            let store = try options.open()
            let scheme = store.uidScheme
            // Every entry carries its UID, so that a file exported in any format gives the
            // same events to a calendar app, whatever it is converted to later.
            var records = try options.run { () throws(DiaryError) in try store.allEntries() }.map {
                record -> TaskRecord in
                var record = record
                if record.uid == nil { record.uid = scheme.uid(for: record.id) }
                return record
            }
            if let redaction: Redaction = redactAll ? .all : redact ? .confidential : nil {
                let hidden = Redaction.confidentialUIDs(of: records)
                records = records.map { redaction.apply(to: $0, confidentialUIDs: hidden) }
            }
            var write = WriteOptions(format: to ?? Format(path: output) ?? .json, uidScheme: scheme)
            write.uidNamespace = scheme.namespace
            let report = Converter.write(records, to: output, options: write)
            Console.show(report, quiet: false)
            guard report.succeeded else { throw ExitCode(2) }
            if output != "-" {
                Console.note("exported \(DiaryCommand.counted(records.map(\.id))) to \(output)")
            }
        }
    }
}
