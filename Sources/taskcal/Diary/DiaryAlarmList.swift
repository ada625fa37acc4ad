import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct AlarmList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarms",
            abstract: tr("List the alarms that fire in a window (default: the next 7 days)."),
            discussion: tr(
                """
                Alarms switched off are left out; a habit's alarms fire for each occurrence.

                Examples:
                  taskcal diary alarms
                  taskcal diary alarms --from 2026-12-01 --to 2026-12-08 --format json
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var window: WindowOption<AlarmWindow>
        @OptionGroup var printed: FormatOption

        func run() throws {
            let time = options.time
            let start = try window.lower(in: time) ?? Int64(Date().timeIntervalSince1970)
            let end = try window.upper(in: time) ?? start + 7 * 86_400
            guard end > start else { throw ValidationError("--to must be after --from") }
            let store = try options.open()
            let entries = try options.run { () throws(DiaryError) in try store.allEntries() }
            let (firings, warnings) = Alarms.firings(of: entries, in: start..<end)
            warnings.forEach { Console.note("warning: " + $0) }
            switch printed.format {
            case .json:
                var writer = JSONWriter()
                writer.raw("[\n")
                for (index, firing) in firings.enumerated() {
                    writer.begin()
                    writer.field("id", number: firing.record.id)
                    writer.field("name", string: firing.record.name)
                    writer.field("alarm", number: Int64(firing.number))
                    writer.field("fires", numberString: firing.at)
                    if !firing.record.unscheduled {
                        writer.field("date_start", numberString: firing.record.dateStart)
                    }
                    writer.field("action", string: firing.alarm.action.rawValue)
                    if let description = firing.alarm.description {
                        writer.field("description", string: description)
                    }
                    writer.end()
                    writer.raw(index == firings.count - 1 ? "\n" : ",\n")
                }
                writer.raw("]\n")
                print(writer.text, terminator: "")
            case .text:
                if firings.isEmpty { print(tr("No alarms.")) }
                for firing in firings { print(Alarms.describe(firing, time)) }
            }
        }
    }
}
