import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: tr(
                "Take back a done mark: a day of a habit, an entry, a to-do (a parent done with it opens again too)."
            ),
            discussion: tr(
                """
                Examples:
                  taskcal diary undo 1                    (the habit #1, today)
                  taskcal diary undo 1 --on 2026-11-25
                  taskcal diary undo 3
                """))
        @OptionGroup var options: StoreOptions
        @Argument(
            help: .tr("The entry's or to-do's id (a subtask's too)."),
            completion: EntryIDs.completion)
        var id: Int64
        @Option(
            help: ArgumentHelp(
                tr(
                    "A habit: the day to take back (YYYY-MM-DD in --tz, today or yesterday; default: today)."
                ),
                valueName: "day"))
        var on: String?

        func run() throws {
            let located = try options.locate(id)
            if located.path.isEmpty && located.entry.recurrence != nil {
                return try Habits.mark(located, on: on, done: false, options: options)
            }
            try Habits.refuseDay(on, for: located.record)
            guard located.record.done else {
                Console.error("\(Todos.describe(located.record)) is not done")
                throw ExitCode(1)
            }
            guard located.record.kind == .todo else {
                return try Habits.markOnce(located, done: false, options: options)
            }
            let (store, entry, path, todo) = located.parts
            var updated = entry
            Todos.change(at: path[...], in: &updated) { Todos.mark(&$0, done: false, stamp: 0) }
            var messages = ["\(Todos.describe(todo)) is open again"]
            // A parent is done only when all its subtasks are: those above reopen.
            for depth in stride(from: path.count - 1, through: 0, by: -1) {
                let parentPath = path.prefix(depth)
                let parent = Todos.node(at: Array(parentPath), in: updated)
                guard parent.done else { break }
                Todos.change(at: parentPath, in: &updated) {
                    Todos.mark(&$0, done: false, stamp: 0)
                }
                messages.append("\(Todos.describe(parent)) is open again too")
            }
            try options.run { () throws(DiaryError) in try store.update(updated) }
            Console.say(messages.joined(separator: "; "))
        }
    }
}
