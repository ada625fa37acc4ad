import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct AlarmSwitch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarm",
            abstract: tr(
                "Switch an entry's alarms off or on; an alarm off is kept, and never fires."),
            discussion: tr(
                """
                An alarm off is exported to .ics as an X-TASKCAL-DISABLED-VALARM component, which \
                no calendar app fires (calcurse flags even ACTION:NONE), and read back as off; RFC \
                9074 ACTION:NONE is read as off too.

                Examples:
                  taskcal diary alarm off 5
                  taskcal diary alarm on 5 --number 2
                """))
        enum State: String, ExpressibleByArgument, CaseIterable { case on, off }

        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("on or off.")) var state: State
        @Argument(help: .tr("The entry's id (a subtask's too)."), completion: EntryIDs.completion)
        var id: Int64
        @Option(help: .tr("Only this alarm (1 is the first; default: all of them).")) var number:
            Int?

        func run() throws {
            let (store, entry, path, record) = try options.locate(id).parts
            guard !record.alarms.isEmpty else {
                Console.error("\(Todos.describe(record)) has no alarm")
                throw ExitCode(1)
            }
            if let number, !(1...record.alarms.count).contains(number) {
                throw ValidationError(
                    "--number \(number): \(Todos.describe(record)) has \(record.alarms.count) alarm\(record.alarms.count == 1 ? "" : "s")"
                )
            }
            var updated = entry
            Todos.change(at: path[...], in: &updated) { node in
                for index in node.alarms.indices where number == nil || number == index + 1 {
                    node.alarms[index].enabled = state == .on
                }
            }
            try options.run { () throws(DiaryError) in try store.update(updated) }
            let which =
                number.map { tr("alarm %@", $0) }
                ?? (record.alarms.count == 1 ? tr("alarm") : tr("alarms"))
            print(
                state == .on
                    ? tr("%@: %@ on", Todos.describe(record), which)
                    : tr("%@: %@ off", Todos.describe(record), which))
        }
    }
}
