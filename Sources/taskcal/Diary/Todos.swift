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
