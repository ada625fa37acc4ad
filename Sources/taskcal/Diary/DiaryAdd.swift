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
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: tr("Add an entry or a to-do; prints its id."),
            discussion: tr(
                """
                An entry takes --start and --end, and is refused if it overlaps another. A to-do \
                (--todo) needs no time and blocks none: --due when it is due (a date is an all-day \
                deadline), --parent ID to make it a subtask.

                Examples:
                  taskcal diary add --name Dentist --start 2026-11-27T09:00 \\
                      --end 2026-11-27T10:00
                  taskcal diary add --todo --name "Move to the new flat" --due 2026-12-15
                  taskcal diary add --todo --name "Buy boxes" --parent 1
                """))
        @OptionGroup var options: StoreOptions
        @Option(help: .tr("The entry's name.")) var name: String
        @Option(help: .tr("Start: Unix seconds or ISO 8601 (a to-do may have none).")) var start:
            String?
        @Option(help: .tr("End: Unix seconds or ISO 8601 (a to-do may have none).")) var end:
            String?
        @Flag(help: .tr("A to-do: no time slot needed, none blocked.")) var todo = false
        @Option(help: .tr("With --todo: when it is due (a date, or a time).")) var due: String?
        @Option(help: .tr("With --todo: the to-do it is a subtask of.")) var parent: Int64?
        @Option(
            parsing: .unconditionalSingleValue,
            help: ArgumentHelp(
                tr(
                    "An alarm: -15m (before the start; 1h, 1d, -PT10M), or a time (2026-12-01T09:00). May be repeated."
                ),
                valueName: "when"))
        var alarm: [String] = []
        @Flag(help: .tr("An alarm when it ends (a to-do: when it is due).")) var alarmAtEnd = false
        @Option(
            help: ArgumentHelp(
                tr(
                    "Attach a file (kept inside the diary up to 1 MB, else by its path) or a URL. May be repeated."
                ),
                valueName: "file-or-url"))
        var attach: [String] = []
        @Option(help: .tr("Free text.")) var description: String?
        @Option(
            help: .tr("A category (a tag); may be repeated: --category Health --category Sport."))
        var category: [String] = []
        @Option(help: .tr("A colour: a CSS colour name such as turquoise (RFC 7986 COLOR)."))
        var color: String?
        @Option(help: .tr("An emoji shown before the name in lists.")) var emoji: String?
        @Flag(help: .tr("Pinned: listed first.")) var pin = false
        @Flag(
            name: .customLong("private"),
            help: ArgumentHelp(
                tr("A private entry: its text is kept encrypted with the diary's key."),
                discussion:
                    tr(
                        "Lists, agendas and reports show its time and \"(private)\" only, unless --reveal; overlaps are refused against it without the key (CLASS:CONFIDENTIAL in .ics, \"private\": true in JSON)."
                    )
            ))
        var isPrivate = false
        @Option(help: .tr("The id to use (default: the next free one).")) var id: Int64?
        @Option(
            help: ArgumentHelp(
                tr("Make it a habit, repeated at this interval."),
                discussion:
                    tr(
                        "Each occurrence is checked for overlaps, against single entries and other habits (two habits that never end are compared for two years). Times step in --tz (default: local), so 09:00 stays 09:00 across daylight-saving changes."
                    )
            ))
        var `repeat`: Frequency?
        @Option(
            help: ArgumentHelp(
                tr("With --repeat weekly: the weekdays, such as MO,WE,FR."), valueName: "weekdays"))
        var on: String?
        @Option(help: .tr("With --repeat: the last day or time it may occur.")) var until: String?
        @Option(help: .tr("With --repeat: how many times it occurs.")) var count: Int?
        @Option(
            help:
                .tr(
                    "Repeat by an RFC 5545 rule instead (FREQ=MONTHLY;BYDAY=1MO), for what --repeat cannot say."
                )
        )
        var rule: String?

        enum Frequency: String, ExpressibleByArgument, CaseIterable {
            case daily, weekly, monthly, yearly
        }

        func validate() throws {
            if !todo && (start == nil || end == nil) {
                throw ValidationError(
                    "an entry needs --start and --end (a to-do, --todo, needs neither)")
            }
            if !todo && (due != nil || parent != nil) {
                throw ValidationError("--due and --parent go with --todo")
            }
            if todo && start == nil && (`repeat` != nil || rule != nil) {
                throw ValidationError("a repeating to-do needs --start")
            }
            if `repeat` == nil && (on != nil || until != nil || count != nil) {
                throw ValidationError("--on, --until and --count go with --repeat")
            }
            if `repeat` != nil && rule != nil {
                throw ValidationError("give either --repeat or --rule, not both")
            }
            if let on {
                let days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
                for day in on.uppercased().split(separator: ",") where !days.contains(String(day)) {
                    throw ValidationError(
                        "--on '\(day)' is not a weekday; expected MO, TU, WE, TH, FR, SA or SU")
                }
                if `repeat` != .weekly {
                    throw ValidationError("--on goes with --repeat weekly")
                }
            }
            if until != nil && count != nil {
                throw ValidationError("give either --until or --count, not both")
            }
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
            if let rule, let problem = RecurrenceRule.problem(rule) {
                throw ValidationError("--rule: \(problem)")
            }
        }

        /// Adds `record` as a subtask of to-do `parent`, and prints its id.
        private func addSubtask(
            _ record: TaskRecord, to parent: Int64, in store: any DiaryStore
        ) throws {
            let entries = try options.run { () throws(DiaryError) in try store.allEntries() }
            guard let (entry, path) = Todos.locate(parent, in: entries) else {
                throw ValidationError("--parent \(parent): there is no entry #\(parent)")
            }
            guard Todos.node(at: path, in: entry).kind == .todo else {
                throw ValidationError(
                    "--parent \(parent): \(Todos.describe(Todos.node(at: path, in: entry))) is no to-do; only a to-do has subtasks"
                )
            }
            var updated = entry
            var subtask = record
            if id == nil { subtask.id = 0 }
            Todos.change(at: path[...], in: &updated) { node in
                node.subtasks.append(subtask)
                // A done to-do with a new open subtask is open again.
                if node.done { Todos.mark(&node, done: false, stamp: 0) }
            }
            try options.run { () throws(DiaryError) in try store.update(updated) }
            let stored = try options.run { () throws(DiaryError) in try store.entry(entry.id) }
            let added = Todos.node(at: path, in: stored).subtasks.last
            print(added?.id ?? 0)
        }

        /// The RRULE the options describe, if any.
        func recurrenceRule() throws -> String? {
            if let rule { return rule }
            guard let frequency = `repeat` else { return nil }
            var parts = ["FREQ=\(frequency.rawValue.uppercased())"]
            if let on { parts.append("BYDAY=\(on.uppercased())") }
            if let count { parts.append("COUNT=\(count)") }
            if let until {
                // A bare date means through that day: the rule ends at its last second.
                var last = try options.parseTime(until, option: "--until")
                if LocalTime.Day(until) != nil { last += 86_399 }
                parts.append("UNTIL=" + DateTimeValue(utcEpoch: last).compactUTC)
            }
            return parts.joined(separator: ";")
        }

        func run() throws {
            let startTime = try start.map { try options.parseTime($0, option: "--start") }
            let endTime = try end.map { try options.parseTime($0, option: "--end") }
            var record = TaskRecord(
                id: id ?? 0, dateStart: startTime ?? 0, dateFinish: endTime ?? startTime ?? 0,
                name: name, description: description)
            if todo {
                record.kind = .todo
                record.unscheduled = startTime == nil
                if let due {
                    record.due = try options.parseTime(due, option: "--due")
                    // A date alone is an all-day deadline, kept as its UTC midnight.
                    if record.unscheduled, let day = LocalTime.Day(due) {
                        record.allDay = true
                        record.due =
                            DateTimeValue(
                                year: day.year, month: day.month, day: day.day, zone: .utc
                            )
                            .epochAsUTC
                    }
                }
                record.status = .needsAction
            }
            record.categories = category
            record.color = color
            if let emoji {
                guard emoji.count <= 4, !emoji.contains(where: \.isNewline) else {
                    throw ValidationError(
                        "--emoji '\(emoji)': one emoji (or a few characters) is expected")
                }
                Marks.setEmoji(emoji, on: &record)
            }
            if pin { Marks.setPinned(true, on: &record) }
            if isPrivate { record.classification = .confidential }
            record.attachments = try attach.map(Attachments.attachment)
            for text in alarm {
                let trigger: Alarm.Trigger
                if let duration = Alarms.duration(text) {
                    trigger = .relative(duration, fromEnd: false)
                } else {
                    trigger = .absolute(try options.parseTime(text, option: "--alarm"))
                }
                record.alarms.append(Alarm(action: .display, trigger: trigger, description: name))
            }
            if alarmAtEnd {
                record.alarms.append(
                    Alarm(
                        action: .display, trigger: .relative("PT0S", fromEnd: true),
                        description: name))
            }
            if let rule = try recurrenceRule() {
                record.recurrence = Recurrence(rule: rule)
                record.timeZone = options.time.zone
            }
            let store = try options.open()
            if isPrivate {
                // Asked for: never kept in the clear, so the key must be there first.
                _ = try options.run { () throws(DiaryError) in try store.key() }
            }
            if let parent {
                try addSubtask(record, to: parent, in: store)
                return
            }
            let added = try options.run { () throws(DiaryError) in try store.add(record) }
            print(added.id)
        }
    }
}
