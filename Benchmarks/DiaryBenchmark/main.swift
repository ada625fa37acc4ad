// Diary benchmark: one process, a table with ratios to baselines measured in the same run.
//
//   swift run -c release diary-benchmark [N]     (default N = 100000)
//
// 1. Add N non-overlapping entries one by one through the library API (each add its own
//    IMMEDIATE transaction with the overlap check), against the same N single-row inserts
//    through GRDB with no check at all, the two taking turns in slices of N/10. A third
//    column inserts the same rows into a diary's own table (its columns and indexes),
//    unchecked, each in a transaction begun and committed as the diary's are (every
//    statement prepared once): what the storage costs, apart from what taskcal does per add.
// 2. One overlap check in a store of N entries: a refused add (seek, walk, rollback),
//    against a lookup by primary key in the same store.
import Diary
import DiaryBenchmarkSupport
import Foundation
import GRDB
import TaskModel

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "diary-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// 1. Adds, in ten slices taken in turn (a slice of adds, then the same slice of inserts): the
// machine's speed and its disk drift by 20% within a minute, and taking turns lets the drift
// fall on both alike.
let diary = try SQLiteDiary(path: folder.appendingPathComponent("diary.sqlite").path)
var configuration = Configuration()
configuration.busyMode = .timeout(30)
let raw = try DatabasePool(
    path: folder.appendingPathComponent("raw.sqlite").path, configuration: configuration)
try raw.write { db in
    try db.execute(
        sql:
            "CREATE TABLE entry (id INTEGER PRIMARY KEY, date_start INTEGER NOT NULL, date_finish INTEGER NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL)"
    )
}
// A diary made by taskcal, written around it: the same schema and indexes, no check.
let sameSchemaPath = folder.appendingPathComponent("same-schema.sqlite").path
_ = try SQLiteDiary(path: sameSchemaPath)
let sameSchema = try DatabasePool(path: sameSchemaPath, configuration: configuration)
let slices = 10
var addTime = 0.0
var rawTime = 0.0
var sameSchemaTime = 0.0
for slice in 0..<slices {
    let indices = (count * slice / slices)..<(count * (slice + 1) / slices)
    addTime += try seconds {
        for index in indices { _ = try diary.add(entry(index)) }
    }
    rawTime += try seconds {
        for index in indices {
            let record = entry(index)
            try raw.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO entry (date_start, date_finish, name, record) VALUES (?, ?, ?, ?)",
                    arguments: [record.dateStart, record.dateFinish, record.name, record.jsonLine])
            }
        }
    }
    sameSchemaTime += try seconds {
        for index in indices {
            var record = entry(index)
            record.id = Int64(index + 1)
            try sameSchema.writeWithoutTransaction { db in
                // Prepared once, as the diary's own insert, BEGIN and COMMIT are.
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                try db.cachedStatement(
                    sql: """
                        INSERT INTO entry (id, occurrence, date_start, date_finish, name, description, occupies, repeats, record)
                        VALUES (?, -9223372036854775808, ?, ?, ?, NULL, 1, 0, ?)
                        """
                ).execute(
                    arguments: [
                        record.id, record.dateStart, record.dateFinish, record.name,
                        record.jsonLine,
                    ])
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            }
        }
    }
}

// 2. One overlap check in the full store.
let probes = 2000

let checkTime = refusedAdds(diary, count: count, probes: probes)
let lookupTime = try lookups(diary, count: count, probes: probes)

// 3. Habits: 20 weekly entries that never end, in the free half of each hour, checked against
// every single entry (up to the last one) when added; then the same refused adds as in 2.
let habits = 20
let habitAddTime = try seconds {
    for hour in 0..<habits {
        var habit = TaskRecord(
            id: 0, dateStart: Int64(hour) * 3600 + 1800, dateFinish: Int64(hour + 1) * 3600,
            name: "habit \(hour)")
        habit.recurrence = Recurrence(rule: "FREQ=WEEKLY")
        habit.timeZone = "UTC"
        _ = try diary.add(habit)
    }
}
let habitCheckTime = refusedAdds(diary, count: count, probes: probes)

func format(_ value: Double) -> String { String(format: "%.3f", value) }
print("diary benchmark, N = \(count), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("| measure | taskcal | baseline | ratio |")
print("|---|---|---|---|")
print(
    "| add \(count) entries one by one | \(format(addTime)) s (\(Int(Double(count) / addTime)) adds/s) | \(format(rawTime)) s: plain GRDB inserts, no check | \(String(format: "%.2f", addTime / rawTime))x |"
)
print(
    "| the same, against inserts into a diary's own table and indexes | \(format(addTime)) s | \(format(sameSchemaTime)) s: the same rows, no check, every statement prepared once | \(String(format: "%.2f", addTime / sameSchemaTime))x |"
)
let check = checkTime / Double(probes) * 1e6
let lookup = lookupTime / Double(probes) * 1e6
print(
    "| one overlap check (refused add) in \(count) entries | \(String(format: "%.1f", check)) µs | \(String(format: "%.1f", lookup)) µs: read by id | \(String(format: "%.2f", check / lookup))x |"
)
let habitCheck = habitCheckTime / Double(probes) * 1e6
print(
    "| add one weekly habit, checked against \(count) entries (\(count / 168) weeks) | \(format(habitAddTime / Double(habits) * 1000)) ms | | |"
)
print(
    "| one overlap check with \(habits) habits in the store | \(String(format: "%.1f", habitCheck)) µs | \(String(format: "%.1f", check)) µs: the same check without habits | \(String(format: "%.2f", habitCheck / check))x |"
)
