import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// Alarms of the diary's entries: when they fire, and what `diary remind` has fired.
enum Alarms {
    /// One time an alarm fires.
    struct Firing {
        /// The entry, or the occurrence of a habit, the alarm belongs to.
        var record: TaskRecord
        var alarm: Alarm
        /// The alarm's place among the record's alarms, from 1.
        var number: Int
        var at: Int64

        /// What identifies this firing across runs of `remind`.
        var key: String {
            "\(record.id)|\(record.recurrenceID ?? record.dateStart)|\(number)|\(at)"
        }
    }

    /// How far before its entry an alarm may fire and still be found: a week.
    static let reach: Int64 = 7 * 86_400

    /// The times `alarm` of `record` fires: its trigger, then each repeat.
    static func times(of alarm: Alarm, in record: TaskRecord) -> [Int64] {
        var first: Int64
        switch alarm.trigger {
        case .absolute(let time): first = time
        case .relative(let duration, let fromEnd):
            guard let offset = ISODuration.seconds(duration) else { return [] }
            // A to-do's alarm is relative to its due time when it has no start, or when it
            // says END (RFC 5545 §3.8.6.3).
            let anchor: Int64?
            if record.kind == .todo && (fromEnd || record.unscheduled) {
                anchor = record.due ?? (record.unscheduled ? nil : record.dateFinish)
            } else {
                anchor = fromEnd ? record.dateFinish : record.dateStart
            }
            guard let anchor else { return [] }
            first = anchor + Int64(offset)
        }
        var times = [first]
        if let count = alarm.repeatCount,
            let interval = alarm.repeatInterval.flatMap(ISODuration.seconds),
            interval > 0
        {
            for index in 1...max(1, min(count, 1_000)) where count > 0 {
                times.append(first + Int64(index * interval))
            }
        }
        return times
    }

    /// Every firing of an enabled alarm in `window` (half-open), earliest first, habits as
    /// their occurrences and subtasks as themselves.
    static func firings(of entries: [TaskRecord], in window: Range<Int64>) -> (
        [Firing], warnings: [String]
    ) {
        let searched = (window.lowerBound - reach)..<(window.upperBound + reach)
        let expanded = Expansion(window: searched).expand(entries)
        func all(_ record: TaskRecord) -> [TaskRecord] { [record] + record.subtasks.flatMap(all) }
        var found: [Firing] = []
        for record in expanded.records.flatMap(all) {
            for (index, alarm) in record.alarms.enumerated() where alarm.enabled {
                for time in times(of: alarm, in: record) where window.contains(time) {
                    found.append(Firing(record: record, alarm: alarm, number: index + 1, at: time))
                }
            }
        }
        return (
            found.sorted { ($0.at, $0.record.id, $0.number) < ($1.at, $1.record.id, $1.number) },
            expanded.warnings
        )
    }

    /// `-15m` → `-PT15M`, `1h30m` → `PT1H30M`, `-1d` → `-P1D`, `-PT10M` as it is; `nil` for
    /// what is no duration.
    static func duration(_ text: String) -> String? {
        if ISODuration.seconds(text.uppercased()) != nil { return text.uppercased() }
        var body = Substring(text.lowercased())
        var sign = ""
        if let first = body.first, first == "-" || first == "+" {
            sign = first == "-" ? "-" : ""
            body = body.dropFirst()
        }
        guard let seconds = FreeTimeOptions.seconds(String(body)), seconds > 0 else { return nil }
        if seconds % 604_800 == 0 { return sign + "P\(seconds / 604_800)W" }
        if seconds % 86_400 == 0 { return sign + "P\(seconds / 86_400)D" }
        var text = sign + "P"
        if seconds >= 86_400 { text += "\(seconds / 86_400)D" }
        text += "T"
        let rest = seconds % 86_400
        if rest / 3600 > 0 { text += "\(rest / 3600)H" }
        if rest % 3600 / 60 > 0 { text += "\(rest % 3600 / 60)M" }
        if rest % 60 > 0 { text += "\(rest % 60)S" }
        return text
    }

    /// A line for people: `2026-12-01 08:45  #5 Dentist (09:00–10:00): Leave now`.
    static func describe(_ firing: Firing, _ time: LocalTime) -> String {
        let record = firing.record
        let when =
            record.unscheduled
            ? (Todos.due(record, time).map { " (\($0))" } ?? "")
            : " (\(OverlapReport.range(time.occupied(by: record), time)))"
        let text = firing.alarm.description.flatMap { $0 == record.name ? nil : $0 }
        return
            "\(OverlapReport.date(time.day(of: firing.at))) \(time.clock(firing.at))  #\(record.id) \(record.displayName)\(when)"
            + (text.map { ": " + $0 } ?? "")
    }
}

extension DiaryCommand {
    struct AlarmSwitch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarm",
            abstract: tr(
                "Switch an entry's alarms off or on; an alarm off is kept, and never fires."),
            discussion: tr(
                """
                An alarm off is exported to .ics as an X-TASKCAL-DISABLED-VALARM component, which \
                no calendar app fires (calcurse flags even ACTION:NONE), and read back as off; RFC \
                9074 ACTION:NONE is read as off too.

                Examples:
                  taskcal diary alarm off 5
                  taskcal diary alarm on 5 --number 2
                """))
        enum State: String, ExpressibleByArgument, CaseIterable { case on, off }

        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("on or off.")) var state: State
        @Argument(help: .tr("The entry's id (a subtask's too)."), completion: EntryIDs.completion)
        var id: Int64
        @Option(help: .tr("Only this alarm (1 is the first; default: all of them).")) var number:
            Int?

        func run() throws {
            let (store, entry, path, record) = try options.locate(id).parts
            guard !record.alarms.isEmpty else {
                Console.error("\(Todos.describe(record)) has no alarm")
                throw ExitCode(1)
            }
            if let number, !(1...record.alarms.count).contains(number) {
                throw ValidationError(
                    "--number \(number): \(Todos.describe(record)) has \(record.alarms.count) alarm\(record.alarms.count == 1 ? "" : "s")"
                )
            }
            var updated = entry
            Todos.change(at: path[...], in: &updated) { node in
                for index in node.alarms.indices where number == nil || number == index + 1 {
                    node.alarms[index].enabled = state == .on
                }
            }
            try options.run { () throws(DiaryError) in try store.update(updated) }
            let which =
                number.map { tr("alarm %@", $0) }
                ?? (record.alarms.count == 1 ? tr("alarm") : tr("alarms"))
            print(
                state == .on
                    ? tr("%@: %@ on", Todos.describe(record), which)
                    : tr("%@: %@ off", Todos.describe(record), which))
        }
    }

    struct AlarmList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarms",
            abstract: tr("List the alarms that fire in a window (default: the next 7 days)."),
            discussion: tr(
                """
                Alarms switched off are left out; a habit's alarms fire for each occurrence.

                Examples:
                  taskcal diary alarms
                  taskcal diary alarms --from 2026-12-01 --to 2026-12-08 --format json
                """))
        @OptionGroup var options: StoreOptions
        @Option(help: .tr("From this time (default: now).")) var from: String?
        @Option(help: .tr("Until this time (default: 7 days after --from).")) var to: String?
        @Option(help: .tr("text for people, json for scripts.")) var format: ReportFormat = .text

        func run() throws {
            let time = options.time
            let start =
                try from.map { try options.parseTime($0, option: "--from") }
                ?? Int64(Date().timeIntervalSince1970)
            let end = try to.map { try options.parseTime($0, option: "--to") } ?? start + 7 * 86_400
            guard end > start else { throw ValidationError("--to must be after --from") }
            let store = try options.open()
            let entries = try options.run { () throws(DiaryError) in try store.allEntries() }
            let (firings, warnings) = Alarms.firings(of: entries, in: start..<end)
            warnings.forEach { Console.note("warning: " + $0) }
            switch format {
            case .json:
                var writer = JSONWriter()
                writer.raw("[\n")
                for (index, firing) in firings.enumerated() {
                    writer.begin()
                    writer.field("id", number: firing.record.id)
                    writer.field("name", string: firing.record.name)
                    writer.field("alarm", number: Int64(firing.number))
                    writer.field("fires", numberString: firing.at)
                    if !firing.record.unscheduled {
                        writer.field("date_start", numberString: firing.record.dateStart)
                    }
                    writer.field("action", string: firing.alarm.action.rawValue)
                    if let description = firing.alarm.description {
                        writer.field("description", string: description)
                    }
                    writer.end()
                    writer.raw(index == firings.count - 1 ? "\n" : ",\n")
                }
                writer.raw("]\n")
                print(writer.text, terminator: "")
            case .text:
                if firings.isEmpty { print(tr("No alarms.")) }
                for firing in firings { print(Alarms.describe(firing, time)) }
            }
        }
    }

    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: tr("Fire the alarms due since the last run; for cron or a systemd timer."),
            discussion: tr(
                """
                Each alarm due since remind last ran (at most --catch-up before now; on the first \
                run, the last 15 minutes) is fired once: through notify-send when a desktop \
                session is there (DISPLAY or WAYLAND_DISPLAY), else printed. What was fired is \
                remembered beside the diary (DIARY.reminded, .taskcal-reminded in a vdir, \
                ~/.local/state/taskcal for a diary on a server), so no alarm fires twice. Run it \
                every minute (docs/diary.md: a systemd user timer).

                Examples:
                  taskcal diary remind
                  taskcal diary remind --print
                """))
        @OptionGroup var options: StoreOptions
        @Flag(help: .tr("Print the reminders even when a desktop session is there.")) var print =
            false
        @Option(
            help: ArgumentHelp(
                tr("Alarms older than this are not fired but counted as missed."),
                valueName: "duration"))
        var catchUp: String = "1d"
        @Option(help: .hidden) var now: String?

        func validate() throws {
            if FreeTimeOptions.seconds(catchUp) == nil {
                throw ValidationError(
                    "--catch-up '\(catchUp)' is not a duration; expected one such as 1h or 1d")
            }
        }

        /// What remind remembers: until when it fired, and the firings of the catch-up span.
        struct State: Codable {
            var until: Int64
            var fired: [String]
        }

        func run() throws {
            let time = options.time
            let now =
                try now.map { try options.parseTime($0, option: "--now") }
                ?? Int64(Date().timeIntervalSince1970)
            let reach = FreeTimeOptions.seconds(catchUp) ?? 86_400
            let statePath = try options.companionFile("reminded")
            var state =
                (try? JSONDecoder().decode(
                    State.self, from: Data(contentsOf: URL(fileURLWithPath: statePath))))
                ?? State(until: now - 15 * 60, fired: [])
            let since = max(state.until, now - reach)
            let store = try options.open()
            let entries = try options.run { () throws(DiaryError) in try store.allEntries() }
            let (missed, _) = Alarms.firings(of: entries, in: min(state.until, since)..<since)
            let (due, _) = Alarms.firings(of: entries, in: since..<(now + 1))
            let fired = Set(state.fired)
            let desktop =
                !print
                && (ProcessInfo.processInfo.environment["DISPLAY"] != nil
                    || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil)
            var new: [String] = []
            for firing in due where !fired.contains(firing.key) {
                let line = Alarms.describe(firing, time)
                var shown = false
                if desktop {
                    let result = try? Subprocess.run(
                        "/usr/bin/env",
                        [
                            "notify-send", "--app-name=taskcal", firing.record.name,
                            firing.alarm.description ?? line,
                        ])
                    shown = result == 0
                }
                if !shown { Swift.print("reminder: " + line) }
                new.append(firing.key)
            }
            let unfired = missed.filter { !fired.contains($0.key) }
            if !unfired.isEmpty {
                Console.note(
                    "warning: \(unfired.count) alarm\(unfired.count == 1 ? "" : "s") older than --catch-up \(catchUp) not fired (the first: \(Alarms.describe(unfired[0], time)))"
                )
            }
            // Only the firings that a later run could still meet are kept.
            let keep = (state.fired + new).filter { key in
                Int64(key.split(separator: "|").last ?? "").map { $0 > now - reach } ?? false
            }
            state = State(until: now + 1, fired: keep)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = try encoder.encode(state)
            do {
                try OutputFile.writeWhole(Array(data), to: statePath, mode: 0o600)
            } catch {
                Console.error(error.description)
                throw ExitCode(2)
            }
        }
    }
}

/// Runs a program and waits for it; its exit status.
enum Subprocess {
    static func run(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
