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
