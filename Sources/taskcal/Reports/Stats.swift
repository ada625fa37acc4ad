import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// What `stats` and `diary stats` ask: the window and the rows.
struct StatisticsOptions: ParsableArguments {
    @Option(
        help:
            .tr(
                "From this time (default: the first entry): Unix seconds, ISO 8601 (2026-11-01, …T09:00, …Z, …+03:00), today or tomorrow."
            )
    )
    var from: String?

    @Option(help: .tr("Until this time (default: the end of the last entry)."))
    var to: String?

    @Option(help: .tr("Rows by day, week (ISO), month, category or habit."))
    var by: Statistics.Grouping?

    /// --from and --to in `time`, each `nil` when not given.
    func bounds(in time: LocalTime) throws -> (Int64?, Int64?) {
        let bounds = (
            try from.map { try instant($0, option: "--from", time: time) },
            try to.map { try instant($0, option: "--to", time: time) }
        )
        if let start = bounds.0, let finish = bounds.1, finish <= start {
            throw ValidationError("--to must be after --from")
        }
        return bounds
    }

    /// Reads what `inputs` (or the diary of `reading`) hold and prints the statistics.
    func report(_ reading: ReportInputs, inputs: [String]) throws {
        let time = reading.time
        let (from, to) = try bounds(in: time)
        var entries: [Statistics.Entry] = []
        var todos: [Bool] = []
        var exdates: [Int64] = []
        var habits: [Int64: HabitTally.Habit] = [:]
        func todo(_ record: TaskRecord) {
            todos.append(record.done)
            record.subtasks.forEach(todo)
        }
        let window =
            (from != nil || to != nil)
            ? (from ?? Timestamp.range.lowerBound)..<(to ?? Timestamp.range.upperBound) : nil
        try reading.read(
            inputs, window: window, unscheduled: todo,
            series: { series in
                exdates += series.recurrence?.exdates ?? []
                habits[series.id] = HabitTally.Habit(
                    id: series.id, name: series.displayName, color: series.color)
            }
        ) { record, _ in
            if record.kind == .todo && record.recurrenceID == nil { return todo(record) }
            let habit = record.recurrenceID.map { _ in
                habits[record.id]
                    ?? HabitTally.Habit(
                        id: record.id, name: record.displayName, color: record.color)
            }
            entries.append(
                Statistics.Entry(
                    span: time.occupied(by: record), occupies: record.occupiesTime,
                    categories: record.categories, habit: habit,
                    cancelled: record.status == .cancelled, done: record.done))
        }
        var span: TimeSpan?
        if from != nil || to != nil {
            span = TimeSpan(
                start: from ?? entries.map(\.span.start).min() ?? 0,
                finish: to ?? entries.map(\.span.finish).max() ?? 0)
        }
        let stats = Statistics(
            entries: entries, todos: todos,
            skipped: exdates.filter { time in
                span.map { time >= $0.start && time < $0.finish } ?? true
            }.count, window: span, time: time, grouping: by,
            now: Int64(Date().timeIntervalSince1970))
        let out = try ReportPrinter(
            reading, inputs: inputs, advice: "or a shorter window with --from and --to")
        if reading.output.isPicture {
            return try Pictures.write(
                reading.output, title: tr("Statistics"),
                [stats.heatMap(in: time), stats.habitGrid(in: time)], table: stats.table(in: time),
                to: out)
        }
        switch reading.format {
        case .json: try out.write(stats.json())
        case .text: try out.write(stats.text(in: time, style: Style.forStandardOutput()))
        }
        try out.finish()
    }
}

extension Statistics.Grouping: ExpressibleByArgument {}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: tr(
            "Statistics: entries, busy time, what was done, best period, ideal days, to-dos, habits."
        ),
        discussion: tr(
            """
            Reads task files (or a diary with --store) and sums up the window (default: from the \
            first entry to the end of the last): entries that start in it (each occurrence of a \
            habit counts), the time they take up (two at once count once), the longest stretch \
            none takes up; what was done (diary done), as the habit tracker counted it: entries \
            completed, the best period (the longest run of habit occurrences done one after \
            another), ideal days (every habit of the day done), the average done per day, and \
            streaks of days with something done, all up to the end of today; to-dos open and \
            done; habit occurrences scheduled and skipped (taken out or cancelled). --by adds \
            rows by day, ISO week, month, category or habit. --format svg or html draws a year \
            of days done and each habit day by day.

            Examples:
              taskcal stats diary.json --by week
              taskcal stats --store - --from 2026-11-01 --to 2026-12-01 --by habit
              taskcal stats export.ics --format json
              taskcal stats --store - --from 2026-01-01 --format html > year.html
            """)
    )

    @Argument(help: .taskFiles) var inputs: [String] = []

    @OptionGroup var options: ReportInputs
    @OptionGroup var statistics: StatisticsOptions

    func validate() throws { _ = try statistics.bounds(in: options.time) }

    func run() throws { try statistics.report(options, inputs: inputs) }
}
