import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// To-dos in the diary: a to-do takes no time slot and blocks none; its subtasks live inside
/// it (its record's `subtasks`, as calendar apps nest `VTODO`s by `RELATED-TO`), each with an
/// id of its own.
enum Todos {
    /// Where to-do `id` is: the top-level entry that holds it and the path of subtask indices
    /// down to it (empty for the entry itself).
    static func locate(_ id: Int64, in entries: [TaskRecord]) -> (entry: TaskRecord, path: [Int])? {
        func search(_ record: TaskRecord, _ path: [Int]) -> [Int]? {
            if record.id == id { return path }
            for (index, subtask) in record.subtasks.enumerated() {
                if let found = search(subtask, path + [index]) { return found }
            }
            return nil
        }
        for entry in entries where entry.recurrenceID == nil {
            if let path = search(entry, []) { return (entry, path) }
        }
        return nil
    }

    /// The to-do at `path` in `record`.
    static func node(at path: [Int], in record: TaskRecord) -> TaskRecord {
        path.reduce(record) { $0.subtasks[$1] }
    }

    /// Changes the to-do at `path` in `record`.
    static func change(
        at path: ArraySlice<Int>, in record: inout TaskRecord, _ body: (inout TaskRecord) -> Void
    ) {
        guard let first = path.first else { return body(&record) }
        change(at: path.dropFirst(), in: &record.subtasks[first], body)
    }

    /// The subtasks of `record`, at any depth, that are not done.
    static func open(in record: TaskRecord) -> [TaskRecord] {
        record.subtasks.flatMap { ($0.done ? [] : [$0]) + open(in: $0) }
    }

    /// Marks `record` done (a to-do: `STATUS:COMPLETED` with `COMPLETED` at `stamp`; an
    /// event: `X-TASKCAL-COMPLETED` at `stamp`) or open again.
    static func mark(_ record: inout TaskRecord, done: Bool, stamp: Int64) {
        let completed = record.kind == .todo ? "COMPLETED" : "X-TASKCAL-COMPLETED"
        record.icalExtra.removeAll {
            let upper = $0.uppercased()
            return upper.hasPrefix(completed + ":") || upper.hasPrefix(completed + ";")
        }
        record.done = done
        guard record.kind == .todo else {
            if done {
                record.icalExtra.append(completed + ":" + DateTimeValue(utcEpoch: stamp).compactUTC)
            }
            return
        }
        if done {
            record.status = nil
            record.icalExtra.append("COMPLETED:" + DateTimeValue(utcEpoch: stamp).compactUTC)
        } else if record.status == nil {
            record.status = .needsAction
        }
    }

    /// `#3 "Book the van"`.
    static func describe(_ record: TaskRecord) -> String {
        "#\(record.id) \"\(record.displayName)\""
    }

    /// When a to-do is due, in `time`: a date for an all-day one.
    static func due(_ record: TaskRecord, _ time: LocalTime) -> String? {
        guard let due = record.due else { return nil }
        if record.allDay && due % 86_400 == 0 {
            // A date: kept as its UTC midnight in the task format.
            let date = DateTimeValue(utcEpoch: due)
            return tr(
                "due %@",
                OverlapReport.date(LocalTime.Day(year: date.year, month: date.month, day: date.day))
            )
        }
        return tr("due %@", "\(OverlapReport.date(time.day(of: due))) \(time.clock(due))")
    }
}

/// An entry or subtask found by its id: the store, the top-level entry that holds it, the path
/// down to it, and the record itself.
struct Located {
    var store: any DiaryStore
    var entry: TaskRecord
    var path: [Int]
    var record: TaskRecord

    var parts: (store: any DiaryStore, entry: TaskRecord, path: [Int], record: TaskRecord) {
        (store, entry, path, record)
    }
}

extension StoreOptions {
    /// Opens the diary and finds entry (or subtask) `id`; says there is none and exits 1 when
    /// so.
    func locate(_ id: Int64) throws -> Located {
        let store = try open()
        let entries = try run { () throws(DiaryError) in try store.allEntries() }
        guard let (entry, path) = Todos.locate(id, in: entries) else {
            Console.error("no entry #\(id)")
            throw ExitCode(1)
        }
        return Located(
            store: store, entry: entry, path: path, record: Todos.node(at: path, in: entry))
    }
}

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

    /// `diary list --todo`: the to-dos as a tree.
    static func printTodos(
        _ entries: [TaskRecord], show: TodoFilter, format: ReportFormat, time: LocalTime
    ) {
        func kept(_ record: TaskRecord) -> TaskRecord? {
            var copy = record
            copy.subtasks = record.subtasks.compactMap(kept)
            let matches =
                switch show {
                case .all: true
                case .open: !record.done
                case .done: record.done
                }
            return matches || !copy.subtasks.isEmpty ? copy : nil
        }
        let todos = entries.filter { $0.kind == .todo && $0.recurrenceID == nil }.compactMap(kept)
        switch format {
        case .json:
            print(
                todos.isEmpty
                    ? "[]" : "[\n" + todos.map(\.jsonLine).joined(separator: ",\n") + "\n]")
        case .text:
            if todos.isEmpty { print(tr("No to-dos.")) }
            func all(_ record: TaskRecord) -> [TaskRecord] {
                [record] + record.subtasks.flatMap(all)
            }
            let width = todos.flatMap(all).map { String($0.id).count }.max() ?? 1
            func line(_ record: TaskRecord, depth: Int) {
                let id =
                    String(repeating: " ", count: width - String(record.id).count) + "#\(record.id)"
                var notes: [String] = []
                if let due = Todos.due(record, time) { notes.append(due) }
                if record.status == .inProcess { notes.append(tr("in progress")) }
                if record.status == .cancelled { notes.append(tr("cancelled")) }
                if Marks.isPinned(record) { notes.append(tr("pinned")) }
                var text =
                    "\(id)  \(String(repeating: "  ", count: depth))[\(record.done ? "x" : " ")] \(Marks.title(record))"
                if !notes.isEmpty { text += "  (\(notes.joined(separator: ", ")))" }
                if !record.categories.isEmpty {
                    text += "  [\(record.categories.joined(separator: ", "))]"
                }
                print(text)
                for subtask in record.subtasks { line(subtask, depth: depth + 1) }
            }
            for todo in todos { line(todo, depth: 0) }
        }
    }

    /// Which to-dos `list --todo` shows.
    enum TodoFilter { case all, open, done }
}
