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
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: tr("Show one entry."),
            discussion: tr(
                """
                A repeating entry is shown with its rule and its changed occurrences; with \
                --format json, one line each (the entry first, then its changes).
                """))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id."), completion: EntryIDs.completion) var id: Int64
        @OptionGroup var printed: FormatOption

        func run() throws {
            let store = try options.open()
            let record = try options.run { () throws(DiaryError) in try store.entry(id) }
            let changes =
                record.recurrence == nil
                ? []
                : try options.run { () throws(DiaryError) in try store.allEntries() }
                    .filter { $0.id == id && $0.recurrenceID != nil }
                    .sorted { ($0.recurrenceID ?? 0) < ($1.recurrenceID ?? 0) }
            switch printed.format {
            case .json:
                print(record.jsonLine)
                for change in changes { print(change.jsonLine) }
            case .text:
                let time = options.time
                print("#\(record.id) \(record.displayName)")
                if record.unscheduled {
                    print(
                        "  " + tr("to-do") + (Todos.due(record, time).map { ", " + $0 } ?? "")
                            + (record.done ? ", " + tr("done") : ""))
                } else {
                    print("  \(time.iso(record.dateStart)) – \(time.iso(record.dateFinish))")
                }
                if !record.subtasks.isEmpty {
                    DiaryCommand.printTodos(
                        record.subtasks, show: .all, format: .text, time: time)
                }
                if let rule = record.recurrence?.rule { print("  " + tr("repeats: %@", rule)) }
                for change in changes {
                    Console.say(
                        "  changed: the occurrence of \(time.iso(change.recurrenceID ?? 0)) is \"\(change.displayName)\" \(time.iso(change.dateStart)) – \(time.iso(change.dateFinish))"
                    )
                }
                if let description = record.description {
                    print("  " + description.replacingOccurrences(of: "\n", with: "\n  "))
                }
                for attachment in record.attachments {
                    print("  " + tr("attachment: %@", attachment.filename ?? tr("(no name)")))
                }
                for alarm in record.alarms {
                    print(
                        "  "
                            + tr(
                                "alarm: %@ %@", tr(alarm.action.rawValue), alarmText(alarm.trigger))
                    )
                }
            }
        }
    }
}
