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
    struct Free: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "free",
            abstract: tr("List the diary's free time (taskcal free --store, for the diary)."),
            discussion: tr(
                """
                Examples:
                  taskcal diary free --from 2026-12-01 --to 2026-12-08 --min 1h
                  taskcal diary free --hours 09:00-18:00 --days MO-FR --format json
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var free: FreeTimeOptions
        @OptionGroup var printed: FormatOption

        func validate() throws { _ = try free.window(in: options.time) }

        func run() throws {
            var arguments = ["--store", options.store ?? "-", "--format", printed.format.rawValue]
            if options.reveal { arguments.append("--reveal") }
            if let tz = options.tz { arguments += ["--tz", tz] }
            try free.report(try ReportInputs.parse(arguments), inputs: [])
        }
    }
}
