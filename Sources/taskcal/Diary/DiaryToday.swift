import ArgumentParser
import Diary
import Foundation
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct Today: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "today",
            abstract: tr(
                "The tracker's day: its habits, entries and to-dos due, in time order, each with its done mark."
            ),
            discussion: tr(
                """
                Each line: [x] when done, the time, the emoji and name, the colour, and for a \
                habit how many days it has been done. Mark a line done with taskcal diary done ID \
                (a habit: --on DAY for another day).

                Examples:
                  taskcal diary today
                  taskcal diary today yesterday
                  taskcal diary today 2026-11-25 --search run --format json
                """))
        @OptionGroup var options: StoreOptions
        @Argument(
            help: .tr("The day: YYYY-MM-DD in --tz, today, yesterday or tomorrow (default: today).")
        )
        var day: String?
        @OptionGroup var searching: SearchOption
        @OptionGroup var printed: FormatOption

        /// One line of the day.
        struct Line {
            var record: TaskRecord
            var habit: Bool
            var doneDays: Int
        }

        func run() throws {
            let time = options.time
            guard let day = dayWord(day ?? "today", time: time) else {
                throw ValidationError(
                    "'\(day ?? "")' is not a day; expected YYYY-MM-DD, today, yesterday or tomorrow"
                )
            }
            let span = time.span(of: day)
            let store = try options.open()
            let all = try options.run { () throws(DiaryError) in try store.allEntries() }
            let found = try options.run { () throws(DiaryError) in
                try store.entries(from: nil, to: nil, search: searching.search)
            }
            let lines = Self.lines(of: found, all: all, on: span, time: time)
            switch printed.format {
            case .json: print(Self.json(lines, day: day, time: time))
            case .text: print(Self.text(lines, day: day, time: time), terminator: "")
            }
        }

        /// The day's lines: occurrences and entries that touch `span`, to-dos due in it.
        static func lines(
            of found: [TaskRecord], all: [TaskRecord], on span: TimeSpan, time: LocalTime
        )
            -> [Line]
        {
            let ids = Set(found.map(\.id))
            let window = span.start..<span.finish
            let expansion = Expansion(window: window).expand(all.filter { ids.contains($0.id) })
            expansion.warnings.forEach { Console.note("warning: " + $0) }
            let habits = Set(all.filter { $0.recurrence != nil }.map(\.id))
            var lines: [Line] = []
            for record in expansion.records {
                if record.unscheduled {
                    guard let due = record.due, window.contains(due) else { continue }
                } else {
                    let occupied = time.occupied(by: record)
                    guard occupied.overlaps(span) || window.contains(occupied.start) else {
                        continue
                    }
                }
                let habit = habits.contains(record.id)
                lines.append(
                    Line(
                        record: record, habit: habit,
                        doneDays: habit
                            ? Habits.doneDays(of: record.id, in: all, time: time).count
                            : record.done ? 1 : 0))
            }
            func start(_ line: Line) -> Int64 {
                line.record.unscheduled ? line.record.due ?? 0 : line.record.dateStart
            }
            return lines.sorted { (start($0), $0.record.id) < (start($1), $1.record.id) }
        }

        static func text(_ lines: [Line], day: LocalTime.Day, time: LocalTime) -> String {
            let style = Style.forStandardOutput()
            var out =
                style.strong(OverlapReport.dayTitle(day)) + style.faint(" (\(time.zone))") + "\n"
            guard !lines.isEmpty else { return out + "  " + tr("Nothing on this day.") + "\n" }
            let width = lines.map { String($0.record.id).count }.max() ?? 1
            for line in lines {
                let record = line.record
                let when =
                    record.unscheduled
                    ? (Todos.due(record, time) ?? tr("to-do"))
                    : rangeText(record, time)
                let id =
                    String(repeating: " ", count: width - String(record.id).count) + "#\(record.id)"
                var text = "  [\(record.done ? "x" : " ")] \(id)  \(when)  \(Marks.title(record))"
                if let color = record.color { text += "  " + style.faint("● " + color) }
                if line.habit { text += "  " + style.faint(Habits.doneCount(line.doneDays)) }
                out += (record.done ? style.faint(text) : text) + "\n"
            }
            let done = lines.filter(\.record.done).count
            out += style.faint(tr("%@ of %@ done", done, lines.count)) + "\n"
            return out
        }

        static func json(_ lines: [Line], day: LocalTime.Day, time: LocalTime) -> String {
            var writer = JSONWriter()
            writer.begin()
            writer.field("date", string: day.description)
            writer.field("zone", string: time.zone)
            writer.key("entries")
            writer.array(lines) { writer, line in
                let record = line.record
                writer.begin()
                writer.field("id", number: record.id)
                writer.field("name", string: record.displayName)
                if let emoji = Marks.emoji(of: record) { writer.field("emoji", string: emoji) }
                if let color = record.color { writer.field("color", string: color) }
                if record.unscheduled {
                    if let due = record.due { writer.field("due", numberString: due) }
                } else {
                    writer.field("date_start", numberString: record.dateStart)
                    writer.field("date_finish", numberString: record.dateFinish)
                }
                writer.field("kind", string: record.kind.rawValue)
                writer.field("habit", bool: line.habit)
                writer.field("done", bool: record.done)
                writer.field("done_days", number: Int64(line.doneDays))
                writer.end()
            }
            writer.end()
            return writer.text
        }
    }
}
