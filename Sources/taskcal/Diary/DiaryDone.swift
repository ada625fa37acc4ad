import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: tr(
                "Mark a day of a habit done, or an entry or a to-do (its parent too once all its subtasks are)."
            ),
            discussion: tr(
                """
                A habit (a repeating entry or to-do) is done day by day: --on names the day \
                (default: today in --tz). Each day done is kept as a changed occurrence of the \
                habit marked done (in .ics: a to-do's STATUS:COMPLETED with COMPLETED, an \
                event's X-TASKCAL-COMPLETED), so it travels through export, import and CalDAV. \
                An entry that does not repeat is done once. A to-do with open subtasks is \
                refused, naming them, unless --all marks them done with it.

                Examples:
                  taskcal diary done 1                    (the habit #1, today)
                  taskcal diary done 1 --on 2026-11-25
                  taskcal diary done 1 --on yesterday
                  taskcal diary done 3 --all
                """))
        @OptionGroup var options: StoreOptions
        @Argument(
            help: .tr("The entry's or to-do's id (a subtask's too)."),
            completion: EntryIDs.completion)
        var id: Int64
        @Option(
            help: ArgumentHelp(
                tr(
                    "A habit: the day it was done (YYYY-MM-DD in --tz, today or yesterday; default: today)."
                ),
                valueName: "day"))
        var on: String?
        @Flag(help: .tr("Mark its open subtasks done too.")) var all = false

        func run() throws {
            let located = try options.locate(id)
            if located.path.isEmpty && located.entry.recurrence != nil {
                return try Habits.mark(located, on: on, done: true, options: options)
            }
            try Habits.refuseDay(on, for: located.record)
            switch located.record.kind {
            case .todo: try finishTodo(located)
            case .event: try Habits.markOnce(located, done: true, options: options)
            case .journal:
                Console.error(
                    "\(Todos.describe(located.record)) is a journal entry; it is not done")
                throw ExitCode(1)
            }
        }

        private func finishTodo(_ located: Located) throws {
            let (store, entry, path, todo) = located.parts
            let open = Todos.open(in: todo)
            if !open.isEmpty && !all {
                Console.error(
                    "\(Todos.describe(todo)) has open subtasks: \(open.map(Todos.describe).joined(separator: ", ")); finish them first, or give --all"
                )
                throw ExitCode(1)
            }
            let stamp = EventWriter.timestampFromEnvironment()
            var updated = entry
            var messages = ["\(Todos.describe(todo)) is done"]
            Todos.change(at: path[...], in: &updated) { node in
                func finish(_ node: inout TaskRecord) {
                    if !node.done { Todos.mark(&node, done: true, stamp: stamp) }
                    if all { for index in node.subtasks.indices { finish(&node.subtasks[index]) } }
                }
                finish(&node)
            }
            if all && !open.isEmpty {
                messages.append(
                    "with its subtasks \(open.map(Todos.describe).joined(separator: ", "))")
            }
            // Each parent whose subtasks are now all done is done too.
            for depth in stride(from: path.count - 1, through: 0, by: -1) {
                let parentPath = path.prefix(depth)
                let parent = Todos.node(at: Array(parentPath), in: updated)
                guard !parent.done, parent.subtasks.allSatisfy(\.done) else { break }
                Todos.change(at: parentPath, in: &updated) {
                    Todos.mark(&$0, done: true, stamp: stamp)
                }
                messages.append("\(Todos.describe(parent)) is done too: all its subtasks are")
            }
            try options.run { () throws(DiaryError) in try store.update(updated) }
            Console.say(messages.joined(separator: "; "))
        }
    }
}
