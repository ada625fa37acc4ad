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
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: tr("List entries sorted by start."))
        @OptionGroup var options: StoreOptions
        @OptionGroup var window: WindowOption<ListWindow>
        @Option(help: .tr("Only entries of this day (YYYY-MM-DD, today, tomorrow) in --tz."))
        var day: String?
        @OptionGroup var searching: SearchOption
        @Option(help: .tr("Only entries of this category (any case, any accents)."))
        var category: String?
        @Flag(help: .tr("The to-dos, as a tree of subtasks.")) var todo = false
        @Flag(help: .tr("With --todo: only open ones (and the parents of open ones).")) var open =
            false
        @Flag(help: .tr("With --todo: only done ones (and their parents).")) var done = false

        func validate() throws {
            if (open || done) && !todo { throw ValidationError("--open and --done go with --todo") }
            if open && done { throw ValidationError("give either --open or --done, not both") }
        }
        @Option(help: .tr("text for people (a table in --tz), json for scripts (the task format)."))
        var format: ReportFormat = .text

        func run() throws {
            let time = options.time
            var lower = try window.lower(in: time)
            var upper = try window.upper(in: time)
            if let day {
                guard let parsed = dayWord(day, time: time) else {
                    throw ValidationError(
                        "--day '\(day)' is not a day; expected YYYY-MM-DD, today or tomorrow")
                }
                let span = time.span(of: parsed)
                lower = span.start
                upper = span.finish
            }
            let store = try options.open()
            var records = try options.run { () throws(DiaryError) in
                try store.entries(from: lower, to: upper, search: searching.search)
            }
            if let category {
                let wanted = category.folding(
                    options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                records = records.filter { record in
                    record.categories.contains {
                        $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                            == wanted
                    }
                }
            }
            // Pinned entries first, each group in its order.
            records = records.filter(Marks.isPinned) + records.filter { !Marks.isPinned($0) }
            if todo {
                DiaryCommand.printTodos(
                    records, show: open ? .open : done ? .done : .all, format: format, time: time)
                return
            }
            if lower != nil || upper != nil, records.contains(where: { $0.recurrence != nil }) {
                // In a window, habits are listed as their occurrences there.
                let window =
                    (lower ?? Timestamp.range.lowerBound)..<(upper ?? Timestamp.range.upperBound)
                let expansion = Expansion(window: window).expand(records)
                expansion.warnings.forEach { Console.note("warning: " + $0) }
                records = expansion.records.sorted {
                    ($0.dateStart, $0.dateFinish, $0.id) < ($1.dateStart, $1.dateFinish, $1.id)
                }
            }
            records = records.filter(Marks.isPinned) + records.filter { !Marks.isPinned($0) }
            switch format {
            case .json:
                print(
                    records.isEmpty
                        ? "[]" : "[\n" + records.map(\.jsonLine).joined(separator: ",\n") + "\n]")
            case .text:
                if records.isEmpty { print(tr("No entries.")) }
                let width = records.map { String($0.id).count }.max() ?? 1
                for record in records {
                    let id =
                        String(repeating: " ", count: width - String(record.id).count)
                        + "#\(record.id)"
                    let day = time.day(of: record.dateStart)
                    let when =
                        record.unscheduled
                        ? tr("to-do") + (Todos.due(record, time).map { ", " + $0 } ?? "")
                            + (record.done ? ", " + tr("done") : "")
                        : "\(OverlapReport.date(day)) \(Localization.weekday(day.weekday, short: true)) "
                            + rangeText(record, time)
                    var note =
                        record.status == .cancelled
                        ? "  " + tr("(cancelled)") : record.free ? "  " + tr("(free)") : ""
                    if !record.categories.isEmpty {
                        note += "  [\(record.categories.joined(separator: ", "))]"
                    }
                    if let rule = record.recurrence?.rule {
                        note += "  (" + tr("repeats: %@", rule) + ")"
                    }
                    if Marks.isPinned(record) { note += "  " + tr("(pinned)") }
                    print("\(id)  \(when)  \(Marks.title(record))\(note)")
                }
            }
        }
    }
}
