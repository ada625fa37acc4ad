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
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: tr("Delete an entry, or a subtask with its own subtasks."))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id."), completion: EntryIDs.completion) var id: Int64

        func run() throws {
            let store = try options.open()
            let entries = try options.run { () throws(DiaryError) in try store.allEntries() }
            if let (entry, path) = Todos.locate(id, in: entries), let last = path.last {
                // A subtask lives inside its entry: the entry is saved without it.
                var updated = entry
                Todos.change(at: path.dropLast(), in: &updated) { $0.subtasks.remove(at: last) }
                try options.run { () throws(DiaryError) in try store.update(updated) }
                return
            }
            try options.run { () throws(DiaryError) in try store.delete(id) }
        }
    }
}
