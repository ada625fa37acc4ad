import ArgumentParser
import Diary
import Foundation
import Reports
import TaskConversion
import TaskModel

/// Habits as the tracker kept them: each occurrence is done or not, on its day.
///
/// A done occurrence is a changed occurrence (`RECURRENCE-ID`) of the habit with the same
/// times, marked done: a to-do's with `STATUS:COMPLETED` and `COMPLETED`, as Thunderbird and
/// jtx Board mark an occurrence of a repeating to-do; an event's with an
/// `X-TASKCAL-COMPLETED` line, since RFC 5545 has no done event. Both travel in .ics, through
/// `diary export`/`import` and CalDAV.
enum Habits {
    /// The days (in `time`) on which occurrences of entry `id` among `records` were done.
    static func doneDays(of id: Int64, in records: [TaskRecord], time: LocalTime) -> Set<
        LocalTime.Day
    > {
        Set(
            records.filter { $0.id == id && $0.done }.map {
                time.day(of: $0.recurrenceID ?? $0.dateStart)
            })
    }

    /// "done 1 day", "done 4 days".
    static func doneCount(_ days: Int) -> String {
        tr("done %@ day%@", days, days == 1 ? "" : "s")
    }

    /// Marks the day `text` (default: today) of habit `located` done or not, and says how
    /// many days it has been done.
    static func mark(_ located: Located, on text: String?, done: Bool, options: StoreOptions)
        throws
    {
        let (store, entry, _, _) = located.parts
        let time = options.time
        let today = time.day(of: Int64(Date().timeIntervalSince1970))
        let dayText = text ?? today.description
        if let day = dayWord(dayText, time: time), day > today {
            throw ValidationError(
                "--on \(dayText): that day has not come yet (today is \(today) in \(time.zone))")
        }
        var occurrence = try options.occurrence(dayText, of: entry, in: store, option: "--on")
        let instant = occurrence.recurrenceID ?? occurrence.dateStart
        let day = time.day(of: instant)
        guard occurrence.done != done else {
            if done {
                return Console.say("\(Todos.describe(entry)) was done on \(day) already")
            }
            Console.error("\(Todos.describe(entry)) is not done on \(day)")
            throw ExitCode(1)
        }
        Todos.mark(&occurrence, done: done, stamp: EventWriter.timestampFromEnvironment())
        if !done, let original = options.original(of: entry, in: instant..<instant + 1),
            isBare(occurrence, original: original)
        {
            // Nothing left to keep: the occurrence is the rule's again.
            // The entry's other records, under one UID: they go back in as one entry.
            let uid = entry.uid ?? store.uidScheme.uid(for: entry.id)
            let others = try options.run { () throws(DiaryError) in try store.allEntries() }
                .filter { $0.id == entry.id && $0.recurrenceID != occurrence.recurrenceID }
                .map { record in
                    var record = record
                    record.uid = record.uid ?? uid
                    return record
                }
            try options.run { () throws(DiaryError) in try store.replace(entry.id, with: others) }
        } else {
            try options.run { () throws(DiaryError) in try store.update(occurrence) }
        }
        let records = try options.run { () throws(DiaryError) in try store.allEntries() }
        let count = doneCount(doneDays(of: entry.id, in: records, time: time).count)
        Console.say(
            done
                ? "\(Todos.describe(entry)) is done on \(day) (\(count))"
                : "\(Todos.describe(entry)) is no longer done on \(day) (\(count))")
    }

    /// Marks entry `located` (no habit, no to-do) done once, or not.
    static func markOnce(_ located: Located, done: Bool, options: StoreOptions) throws {
        var record = located.record
        guard record.done != done else {
            return Console.say("\(Todos.describe(record)) was done already")
        }
        Todos.mark(&record, done: done, stamp: EventWriter.timestampFromEnvironment())
        try options.run { () throws(DiaryError) in try located.store.update(record) }
        Console.say(
            done
                ? "\(Todos.describe(record)) is done" : "\(Todos.describe(record)) is open again")
    }

    /// Refuses --on for what is done once.
    static func refuseDay(_ on: String?, for record: TaskRecord) throws {
        guard on != nil else { return }
        throw ValidationError(
            "--on: \(Todos.describe(record)) does not repeat; it is done once (leave out --on)")
    }

    /// Whether `change` says nothing its `original` occurrence does not, but that it was
    /// done: then undoing it leaves no change to keep.
    static func isBare(_ change: TaskRecord, original: TaskRecord) -> Bool {
        func plain(_ record: TaskRecord) -> String {
            var copy = record
            copy.recurrence = nil
            copy.recurrenceID = nil
            copy.done = false
            copy.status = copy.status == .needsAction ? nil : copy.status
            copy.icalExtra.removeAll {
                let upper = $0.uppercased()
                return upper.hasPrefix("COMPLETED") || upper.hasPrefix("X-TASKCAL-COMPLETED")
            }
            return copy.jsonLine
        }
        return plain(change) == plain(original)
    }
}

extension StoreOptions {
    /// The occurrence `text` (a day, YYYY-MM-DD in --tz, or a time) names among the records
    /// of habit `entry`: a change made before (by its original or its present time), else
    /// the one the rule gives, as a changed occurrence to be.
    func occurrence(
        _ text: String, of entry: TaskRecord, in store: any DiaryStore, option: String
    ) throws -> TaskRecord {
        let id = entry.id
        guard entry.recurrence != nil else {
            throw ValidationError("\(option): #\(id) \"\(entry.displayName)\" does not repeat")
        }
        let window: Range<Int64>
        if let day = dayWord(text, time: time) {
            let span = time.span(of: day)
            window = span.start..<span.finish
        } else {
            let instant = try parseTime(text, option: option)
            window = instant..<instant + 1
        }
        let changes = try run { () throws(DiaryError) in try store.allEntries() }
            .filter { $0.id == id && $0.recurrenceID != nil }
        if let changed = changes.first(where: { window.contains($0.recurrenceID ?? 0) })
            ?? changes.first(where: { window.contains($0.dateStart) })
        {
            return changed
        }
        guard var found = original(of: entry, in: window) else {
            throw ValidationError(
                "\(option) '\(text)': #\(id) \"\(entry.displayName)\" does not occur then")
        }
        found.recurrence = nil
        found.recurrenceID = found.dateStart
        return found
    }

    /// The occurrence the rule of `entry` gives in `window`, as the rule gives it.
    func original(of entry: TaskRecord, in window: Range<Int64>) -> TaskRecord? {
        ((try? Expansion(window: window).occurrences(of: entry).0) ?? [])
            .first { window.contains($0.dateStart) }
    }
}

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
        @Option(help: .tr("text for people, json for scripts."))
        var format: ReportFormat = .text

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
            switch format {
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
