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
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: tr("Import JSON, NDJSON or .ics files: all or nothing."),
            discussion: tr(
                """
                If any record is invalid or collides (with the diary or with another record of the \
                files), nothing is written and every problem is reported (exit 1). With \
                --skip-conflicts the rest is imported and what was skipped is listed.
                """))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("Files to import.")) var inputs: [String]
        @Flag(help: .tr("Import what can be imported and list what was skipped."))
        var skipConflicts =
            false
        @Flag(
            name: .customLong("new-ids"),
            help: .tr("Give every imported entry a fresh id instead of keeping its own."))
        var newIDs = false
        @Option(
            help:
                .tr(
                    "Format of the inputs when the names do not tell it."
                )
        )
        var inputFormat: Format?
        @Flag(help: .tr("Refuse unclear .ics input instead of reading it with a warning."))
        var strict = false
        @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

        func validate() throws {
            if inputs.contains("-") && inputFormat == nil {
                throw ValidationError(
                    "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
            }
        }

        func run() throws {
            var incoming: [IncomingRecord] = []
            var read = ReadOptions(format: inputFormat, floatingZone: options.tz)
            read.strict = strict
            read.readsEveryRevision = revisions == .all
            let report = Converter.read(inputs: inputs, options: read) { record, location in
                incoming.append(IncomingRecord(record, source: location.description))
            }
            Console.show(report, quiet: false)
            if report.unreadableInputs > 0 { throw ExitCode(2) }
            guard report.succeeded else {
                Console.error("import refused, nothing was written")
                throw ExitCode(1)
            }
            let store = try options.open()
            let result = try options.run { () throws(DiaryError) in
                try store.importRecords(incoming, skipConflicts: skipConflicts, newIDs: newIDs)
            }
            for skipped in result.skipped { Console.note("skipped \(skipped)") }
            let imported = DiaryCommand.counted(result.imported)
            if result.skipped.isEmpty {
                Console.note("imported \(imported)")
            } else {
                Console.note(
                    "imported \(imported), skipped \(Set(result.skipped.map(\.source)).count)")
            }
            for note in result.notes { Console.note("note: \(note)") }
        }
    }
}
