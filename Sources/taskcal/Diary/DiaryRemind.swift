import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension DiaryCommand {
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
