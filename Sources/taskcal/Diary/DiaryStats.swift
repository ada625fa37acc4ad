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
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: tr("Statistics of the diary (taskcal stats --store, for the diary)."),
            discussion: tr(
                """
                Examples:
                  taskcal diary stats --by week
                  taskcal diary stats --from 2026-11-01 --to 2026-12-01 --by category \\
                      --format json
                  taskcal diary stats --from 2026-11-01 --format html > habits.html
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var statistics: StatisticsOptions
        @OptionGroup var picture: PictureFormatOption

        func validate() throws { _ = try statistics.bounds(in: options.time) }

        func run() throws {
            var arguments = ["--store", options.store ?? "-", "--format", picture.output.rawValue]
            if options.reveal { arguments.append("--reveal") }
            if let tz = options.tz { arguments += ["--tz", tz] }
            try statistics.report(try ReportInputs.parse(arguments), inputs: [])
        }
    }
}
