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

/// `--search TEXT`, as `diary list` and `diary today` take it.
struct SearchOption: ParsableArguments {
    @Option(
        help:
            .tr(
                "Only entries whose name, description or categories contain this text (any case, any accents: ёлка finds Елка)."
            )
    )
    var search: String?
}

/// Options every diary verb takes.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            tr(
                "The diary: a SQLite file, vdir:DIR for a folder of .ics files, or postgres://USER@HOST/DB?diary=NAME for one shared on a PostgreSQL server."
            ),
            discussion:
                tr(
                    "Default: $TASKCAL_STORE, else $XDG_DATA_HOME/taskcal/diary.sqlite (~/.local/share/taskcal/diary.sqlite). The server's password comes from ~/.pgpass or PGPASSWORD, never from the address."
                )
        ))
    var store: String?

    @Option(
        help: ArgumentHelp(
            tr("IANA zone for times on the command line and in text output (default: local)."),
            valueName: "zone"),
        completion: .custom { _, _, prefix in TimeZones.allNames.filter { $0.hasPrefix(prefix) } })
    var tz: String?

    @Flag(
        help: ArgumentHelp(
            tr("Show private entries' texts, unlocking the diary's key."),
            discussion:
                tr(
                    "Without it a private entry shows its time and \"(private)\" only; its text is kept encrypted and needs the key (taskcal diary key --help)."
                )
        ))
    var reveal = false

    func validate() throws { try Zone.validate(tz) }

    var time: LocalTime { Zone.time(tz) }

    /// Where the diary is: --store, else $TASKCAL_STORE, else the default file.
    func location() throws -> StoreLocation {
        try run { () throws(DiaryError) in try StoreLocation.resolve(store) }
    }

    /// Where taskcal keeps its own file `name` about the diary
    /// (``StoreLocation/companionFile(_:)``), its folder made, private, when missing.
    func companionFile(_ name: String) throws -> String {
        let path = try location().companionFile(name)
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Opens the diary; `reveal` (default: --reveal) opens private entries with the key.
    func open(reveal: Bool? = nil) throws -> ProtectedDiary {
        let location = try location()
        return try run { () throws(DiaryError) in
            try openDiary(location, reveal: reveal ?? self.reveal)
        }
    }

    func parseTime(_ text: String, option: String) throws -> Int64 {
        guard let value = time.parse(text) else {
            throw ValidationError("\(option) '\(text)' is not a time; \(timeForms)")
        }
        return value
    }

    /// Runs a store call; a refusal prints its reason and exits 1, a storage failure exits 2.
    func run<T>(_ body: () throws(DiaryError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            if case .conflict(let record, let others) = error {
                // The refusal in the user's zone, naming every entry in the way.
                let time = self.time
                func describe(_ entry: TaskRecord) -> String {
                    "#\(entry.id) \"\(entry.displayName)\" (\(time.iso(entry.dateStart)) – \(time.clock(entry.dateFinish)))"
                }
                let what =
                    record.id > 0
                    ? describe(record)
                    : "\"\(record.name)\" (\(time.iso(record.dateStart)) – \(time.clock(record.dateFinish)))"
                Console.error(
                    "\(what) overlaps \(others.map(describe).joined(separator: " and ")); pick another time or delete or move the other entry"
                )
            } else {
                Console.error(error.description)
            }
            if case .storage = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
    }
}

/// Tab completion of an entry's id: the ids (subtasks' too) of the diary the command line
/// names (`--store`, else `$TASKCAL_STORE` or the default) when it is a file or a folder on
/// this machine and exists; a diary on a server is not asked, a Tab must not wait on a network.
enum EntryIDs {
    static let completion = CompletionKind.custom { words, _, prefix in
        candidates(words, prefix: prefix)
    }

    static func candidates(_ words: [String], prefix: String) -> [String] {
        var store: String?
        if let index = words.firstIndex(of: "--store"), index + 1 < words.count {
            store = words[index + 1]
        } else if let word = words.first(where: { $0.hasPrefix("--store=") }) {
            store = String(word.dropFirst("--store=".count))
        }
        guard let location = try? StoreLocation.resolve(store) else { return [] }
        switch location {
        case .sqlite(let path), .vdir(let path):
            guard FileManager.default.fileExists(atPath: path) else { return [] }
        case .postgres: return []
        }
        guard let entries = try? location.open().allEntries() else { return [] }
        var ids: Set<Int64> = []
        func collect(_ record: TaskRecord) {
            ids.insert(record.id)
            record.subtasks.forEach(collect)
        }
        entries.forEach(collect)
        return ids.sorted().map(String.init).filter { $0.hasPrefix(prefix) }
    }
}

/// Opens the diary at `location`, whichever backend keeps it, with its private entries
/// sealed (opened with the key when `reveal`); warnings go to standard error.
func openDiary(_ location: StoreLocation, reveal: Bool = false) throws(DiaryError)
    -> ProtectedDiary
{
    let warn: @Sendable (String) -> Void = { Console.note("warning: \($0)") }
    let base: any DiaryStore
    if case .postgres(let url) = location {
        #if PostgreSQL
        base = try PostgresDiary(url: url, warn: warn)
        #else
        _ = url
        throw .storage(MissingTrait.postgreSQL.message)
        #endif
    } else {
        base = try location.open(warn: warn)
    }
    return ProtectedDiary(base, keyring: Terminal.keyring, reveal: reveal)
}

struct DiaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary",
        abstract: tr("Keep a diary where no two entries occupy the same time."),
        discussion: tr(
            """
            An entry whose time overlaps another is refused with a message that names the entry it \
            collides with. Intervals are half-open: 14:00–15:00 and 15:00–16:00 may both stand. \
            Cancelled entries, free ones and entries of no length block nothing. Times: Unix \
            seconds, or ISO 8601 (2026-11-22T14:00 in --tz, …Z, …+03:00). Every verb takes \
            --store: a SQLite file, vdir:DIR, or postgres://USER@HOST/DB?diary=NAME for a diary a \
            team shares on a PostgreSQL server, where the database itself refuses double booking \
            (password from ~/.pgpass or PGPASSWORD).

            Examples:
              taskcal diary add --name Dentist --start 2026-11-27T09:00 \\
                  --end 2026-11-27T10:00
              taskcal diary list --day 2026-11-27
              taskcal diary add --todo --name "Pay rent" --due 2026-12-01 --alarm -1d
              taskcal diary list --todo
              taskcal diary free --hours 09:00-18:00 --days MO-FR --min 1h
              taskcal diary edit 3 --end 2026-11-27T10:30
              taskcal diary import export.ics --skip-conflicts
              taskcal diary export -o backup.json
              taskcal diary list --store vdir:~/.calendars/diary   (a folder khal reads)
              taskcal diary add --store 'postgres://anna@db/team?diary=rooms' \\
                  --name Retro --start 2026-11-27T15:00 --end 2026-11-27T16:00

            Exit codes: 0 done; 1 refused (an overlap, an invalid entry, no such id); 2 bad usage \
            or an unreadable store or file.
            """),
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Delete.self, Import.self, Export.self,
            Check.self, Free.self, Stats.self, Today.self, Done.self, Undo.self, AlarmSwitch.self,
            AlarmList.self, Remind.self, AttachmentList.self, AttachmentGet.self, KeyCommand.self,
            Sync.self,
        ]
    )

    struct Free: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "free",
            abstract: tr("List the diary's free time (taskcal free --store, for the diary)."),
            discussion: tr(
                """
                Examples:
                  taskcal diary free --from 2026-12-01 --to 2026-12-08 --min 1h
                  taskcal diary free --hours 09:00-18:00 --days MO-FR --format json
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var free: FreeTimeOptions
        @Option(help: .tr("text for people, json for scripts."))
        var format: ReportFormat = .text

        func validate() throws { _ = try free.window(in: options.time) }

        func run() throws {
            var arguments = ["--store", options.store ?? "-", "--format", format.rawValue]
            if options.reveal { arguments.append("--reveal") }
            if let tz = options.tz { arguments += ["--tz", tz] }
            try free.report(try ReportInputs.parse(arguments), inputs: [])
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: tr("Statistics of the diary (taskcal stats --store, for the diary)."),
            discussion: tr(
                """
                Examples:
                  taskcal diary stats --by week
                  taskcal diary stats --from 2026-11-01 --to 2026-12-01 --by category \\
                      --format json
                  taskcal diary stats --from 2026-11-01 --format html > habits.html
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var statistics: StatisticsOptions
        @Option(
            help: .tr(
                "text for people, json for scripts; svg or html, a picture (stats, month and overlaps)."
            ))
        var format: ReportOutput = .text

        func validate() throws { _ = try statistics.bounds(in: options.time) }

        func run() throws {
            var arguments = ["--store", options.store ?? "-", "--format", format.rawValue]
            if options.reveal { arguments.append("--reveal") }
            if let tz = options.tz { arguments += ["--tz", tz] }
            try statistics.report(try ReportInputs.parse(arguments), inputs: [])
        }
    }

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

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: tr("List entries sorted by start."))
        @OptionGroup var options: StoreOptions
        @Option(help: .tr("Only entries touching this time or later.")) var from: String?
        @Option(help: .tr("Only entries before this time.")) var to: String?
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
            var lower = try from.map { try options.parseTime($0, option: "--from") }
            var upper = try to.map { try options.parseTime($0, option: "--to") }
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

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: tr("Show one entry."),
            discussion: tr(
                """
                A repeating entry is shown with its rule and its changed occurrences; with \
                --format json, one line each (the entry first, then its changes).
                """))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id."), completion: EntryIDs.completion) var id: Int64
        @Option(help: .tr("text for people, json for scripts.")) var format: ReportFormat = .text

        func run() throws {
            let store = try options.open()
            let record = try options.run { () throws(DiaryError) in try store.entry(id) }
            let changes =
                record.recurrence == nil
                ? []
                : try options.run { () throws(DiaryError) in try store.allEntries() }
                    .filter { $0.id == id && $0.recurrenceID != nil }
                    .sorted { ($0.recurrenceID ?? 0) < ($1.recurrenceID ?? 0) }
            switch format {
            case .json:
                print(record.jsonLine)
                for change in changes { print(change.jsonLine) }
            case .text:
                let time = options.time
                print("#\(record.id) \(record.displayName)")
                if record.unscheduled {
                    print(
                        "  " + tr("to-do") + (Todos.due(record, time).map { ", " + $0 } ?? "")
                            + (record.done ? ", " + tr("done") : ""))
                } else {
                    print("  \(time.iso(record.dateStart)) – \(time.iso(record.dateFinish))")
                }
                if !record.subtasks.isEmpty {
                    DiaryCommand.printTodos(
                        record.subtasks, show: .all, format: .text, time: time)
                }
                if let rule = record.recurrence?.rule { print("  " + tr("repeats: %@", rule)) }
                for change in changes {
                    Console.say(
                        "  changed: the occurrence of \(time.iso(change.recurrenceID ?? 0)) is \"\(change.displayName)\" \(time.iso(change.dateStart)) – \(time.iso(change.dateFinish))"
                    )
                }
                if let description = record.description {
                    print("  " + description.replacingOccurrences(of: "\n", with: "\n  "))
                }
                for attachment in record.attachments {
                    print("  " + tr("attachment: %@", attachment.filename ?? tr("(no name)")))
                }
                for alarm in record.alarms {
                    print(
                        "  "
                            + tr(
                                "alarm: %@ %@", tr(alarm.action.rawValue), alarmText(alarm.trigger))
                    )
                }
            }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: tr("Change an entry; it may overlap only its own old slot."))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id."), completion: EntryIDs.completion) var id: Int64
        @Option(help: .tr("New name.")) var name: String?
        @Option(help: .tr("New start.")) var start: String?
        @Option(help: .tr("New end.")) var end: String?
        @Option(help: .tr("New description (empty to remove it).")) var description: String?
        @Option(
            help:
                .tr(
                    "New categories, replacing the old; may be repeated (--category '' removes them all)."
                )
        )
        var category: [String] = []
        @Option(help: .tr("New colour, a CSS colour name (empty to remove it).")) var color: String?
        @Option(help: .tr("New emoji (empty to remove it).")) var emoji: String?
        @Flag(
            inversion: .prefixedNo,
            help: .tr("Pin it (listed first), or --no-pin."))
        var pin: Bool?
        @Option(
            help: ArgumentHelp(
                tr("Attach another file or URL. May be repeated."), valueName: "file-or-url"))
        var attach: [String] = []
        @Option(
            help: .tr("Remove attachment N (diary attachments ID lists them). May be repeated."))
        var detach: [Int] = []
        @Option(
            help:
                .tr(
                    "Make it repeat by this RFC 5545 rule (FREQ=WEEKLY;BYDAY=TU,TH), or 'none' to stop it repeating."
                )
        )
        var rule: String?
        @Option(
            help:
                .tr(
                    "A habit: leave out its occurrence on this day (YYYY-MM-DD in --tz) or at this time. May be repeated."
                )
        )
        var skip: [String] = []
        @Option(
            help: ArgumentHelp(
                tr(
                    "Change one occurrence of a repeating entry: the one on this day (YYYY-MM-DD in --tz) or at this time."
                ),
                discussion:
                    tr(
                        "--name, --start, --end and --description then change that occurrence alone (kept as a changed occurrence, RECURRENCE-ID in .ics, as calendar apps do); an occurrence changed before, by an app or by taskcal, is found by its original or its present time."
                    )
            ))
        var occurrence: String?
        @Flag(
            name: .customLong("private"), inversion: .prefixedNo,
            help:
                .tr(
                    "Make it private (its text kept encrypted), or --no-private to keep it in the clear again; both need the key."
                )
        )
        var isPrivate: Bool?

        /// Whether the edit gives the entry text (or takes it away): a private entry is then
        /// opened with the key first, so that its sealed text is changed, not lost.
        var touchesText: Bool {
            name != nil || description != nil || !category.isEmpty || color != nil
                || emoji != nil || pin != nil || !attach.isEmpty || !detach.isEmpty
                || isPrivate != nil
        }

        func validate() throws {
            if let rule, rule.lowercased() != "none", let problem = RecurrenceRule.problem(rule) {
                throw ValidationError("--rule: \(problem)")
            }
            if occurrence != nil && (rule != nil || !skip.isEmpty) {
                throw ValidationError(
                    "--occurrence changes one occurrence; --rule and --skip change the whole entry (give them without --occurrence)"
                )
            }
        }

        func run() throws {
            var store = try options.open()
            var record = try options.run { () throws(DiaryError) in try store.entry(id) }
            if record.isSealed && touchesText {
                store = try options.open(reveal: true)
                record = try options.run { () throws(DiaryError) in try store.entry(id) }
            }
            if let occurrence {
                record = try options.occurrence(
                    occurrence, of: record, in: store, option: "--occurrence")
            }
            if let isPrivate {
                record.classification = isPrivate ? .confidential : nil
                if record.isSealed || isPrivate {
                    // The key is needed either way: say so before anything else is changed.
                    _ = try options.run { () throws(DiaryError) in try store.key() }
                }
            }
            if let name { record.name = name }
            if let start { record.dateStart = try options.parseTime(start, option: "--start") }
            if let end { record.dateFinish = try options.parseTime(end, option: "--end") }
            if let description { record.description = description.isEmpty ? nil : description }
            if !category.isEmpty { record.categories = category.filter { !$0.isEmpty } }
            if let color { record.color = color.isEmpty ? nil : color }
            if let emoji { Marks.setEmoji(emoji, on: &record) }
            if let pin { Marks.setPinned(pin, on: &record) }
            for number in Set(detach).sorted(by: >) {
                guard number >= 1 && number <= record.attachments.count else {
                    throw ValidationError(
                        "--detach \(number): #\(id) has \(record.attachments.count) attachment\(record.attachments.count == 1 ? "" : "s")"
                    )
                }
                record.attachments.remove(at: number - 1)
            }
            record.attachments += try attach.map(Attachments.attachment)
            if let rule {
                if rule.lowercased() == "none" {
                    record.recurrence = nil
                } else {
                    record.recurrence = Recurrence(
                        rule: rule, exdates: record.recurrence?.exdates ?? [],
                        rdates: record.recurrence?.rdates ?? [])
                    record.timeZone = record.timeZone ?? options.time.zone
                }
            }
            for text in skip {
                guard record.recurrence != nil else {
                    throw ValidationError("--skip: #\(id) does not repeat")
                }
                let time = options.time
                var window: Range<Int64>
                if let day = LocalTime.Day(text) {
                    let span = time.span(of: day)
                    window = span.start..<span.finish
                } else {
                    let instant = try options.parseTime(text, option: "--skip")
                    window = instant..<instant + 1
                }
                // The occurrences that start in the window.
                let starts = ((try? Expansion(window: window).occurrences(of: record).0) ?? [])
                    .map(\.dateStart).filter { window.contains($0) }
                guard !starts.isEmpty else {
                    throw ValidationError(
                        "--skip '\(text)': #\(id) \"\(record.displayName)\" does not occur then")
                }
                let known = record.recurrence?.exdates ?? []
                record.recurrence?.exdates = known + starts.filter { !known.contains($0) }
            }
            try options.run { () throws(DiaryError) in try store.update(record) }
        }
    }

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

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: tr("Import JSON, NDJSON or .ics files: all or nothing."),
            discussion: tr(
                """
                If any record is invalid or collides (with the diary or with another record of the \
                files), nothing is written and every problem is reported (exit 1). With \
                --skip-conflicts the rest is imported and what was skipped is listed.
                """))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("Files to import.")) var inputs: [String]
        @Flag(help: .tr("Import what can be imported and list what was skipped."))
        var skipConflicts =
            false
        @Flag(
            name: .customLong("new-ids"),
            help: .tr("Give every imported entry a fresh id instead of keeping its own."))
        var newIDs = false
        @Option(
            help:
                .tr(
                    "Format of the inputs when the names do not tell it."
                )
        )
        var inputFormat: Format?
        @Flag(help: .tr("Refuse unclear .ics input instead of reading it with a warning."))
        var strict = false
        @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

        func validate() throws {
            if inputs.contains("-") && inputFormat == nil {
                throw ValidationError(
                    "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
            }
        }

        func run() throws {
            var incoming: [IncomingRecord] = []
            var read = ReadOptions(format: inputFormat, floatingZone: options.tz)
            read.strict = strict
            read.readsEveryRevision = revisions == .all
            let report = Converter.read(inputs: inputs, options: read) { record, location in
                incoming.append(IncomingRecord(record, source: location.description))
            }
            Console.show(report, quiet: false)
            if report.unreadableInputs > 0 { throw ExitCode(2) }
            guard report.succeeded else {
                Console.error("import refused, nothing was written")
                throw ExitCode(1)
            }
            let store = try options.open()
            let result = try options.run { () throws(DiaryError) in
                try store.importRecords(incoming, skipConflicts: skipConflicts, newIDs: newIDs)
            }
            for skipped in result.skipped { Console.note("skipped \(skipped)") }
            let imported = DiaryCommand.counted(result.imported)
            if result.skipped.isEmpty {
                Console.note("imported \(imported)")
            } else {
                Console.note(
                    "imported \(imported), skipped \(Set(result.skipped.map(\.source)).count)")
            }
            for note in result.notes { Console.note("note: \(note)") }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: tr("Write every entry to a JSON, NDJSON or .ics file."),
            discussion: tr(
                """
                Examples:
                  taskcal diary export -o backup.json
                  taskcal diary export -o shared.ics --redact      (private entries as Busy)
                  taskcal diary export -o busy.ics --redact-all    (a free/busy view)
                """))
        @OptionGroup var options: StoreOptions
        @Option(name: .shortAndLong, help: .tr("Output file (- for standard output, with --to)."))
        var output: String
        @Option(help: .tr("Output format when the name does not tell it.")) var to: Format?
        @Flag(
            help:
                .tr(
                    "Write private and confidential entries as \"Busy\" with their times only (as convert --redact)."
                )
        )
        var redact = false
        @Flag(help: .tr("Write every entry as \"Busy\" with its times only: a free/busy view."))
        var redactAll = false

        func run() throws {
            let store = try options.open()
            let scheme = store.uidScheme
            // Every entry carries its UID, so that a file exported in any format gives the
            // same events to a calendar app, whatever it is converted to later.
            var records = try options.run { () throws(DiaryError) in try store.allEntries() }.map {
                record -> TaskRecord in
                var record = record
                if record.uid == nil { record.uid = scheme.uid(for: record.id) }
                return record
            }
            if let redaction: Redaction = redactAll ? .all : redact ? .confidential : nil {
                let hidden = Redaction.confidentialUIDs(of: records)
                records = records.map { redaction.apply(to: $0, confidentialUIDs: hidden) }
            }
            var write = WriteOptions(format: to ?? Format(path: output) ?? .json, uidScheme: scheme)
            write.uidNamespace = scheme.namespace
            let report = Converter.write(records, to: output, options: write)
            Console.show(report, quiet: false)
            guard report.succeeded else { throw ExitCode(2) }
            if output != "-" {
                Console.note("exported \(DiaryCommand.counted(records.map(\.id))) to \(output)")
            }
        }
    }

    /// "3 entries", or "3 entries (4 records: 1 changed occurrence)" when changed occurrences
    /// of repeating entries came with them (`ids`: one per record).
    static func counted(_ ids: [Int64]) -> String {
        let entries = Set(ids).count
        let changes = ids.count - entries
        let counted = tr("%@ entr%@", entries, entries == 1 ? "y" : "ies")
        guard changes > 0 else { return counted }
        return tr(
            "%@ (%@ records: %@ changed occurrence%@)", counted, ids.count, changes,
            changes == 1 ? "" : "s")
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: tr("Check the diary's integrity: readable, no overlaps."))
        @OptionGroup var options: StoreOptions

        func run() throws {
            let store = try options.open()
            let problems = try options.run { () throws(DiaryError) in try store.check() }
            for problem in problems { Console.error(problem) }
            if !problems.isEmpty { throw ExitCode(1) }
            let count = try options.run { () throws(DiaryError) in try store.allEntries().count }
            Console.say("ok: \(count) entries, no overlaps (\(try options.location()))")
        }
    }
}

func rangeText(_ record: TaskRecord, _ time: LocalTime) -> String {
    record.allDay ? tr("all day") : OverlapReport.range(time.occupied(by: record), time)
}

private func alarmText(_ trigger: Alarm.Trigger) -> String {
    switch trigger {
    case .relative(let duration, let fromEnd):
        return fromEnd ? tr("%@ from the end", duration) : duration
    case .absolute(let epoch): return tr("at %@", epoch)
    }
}
