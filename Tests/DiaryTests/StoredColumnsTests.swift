import Diary
import Foundation
import GRDB
import TaskModel
import Testing

/// What an add writes into the SQLite diary's columns (bound through SQLite's C API, past
/// GRDB's arguments), read back with GRDB: the overlap checks, `find` and the reports' queries
/// read these columns, not the record.
@Suite("SQLite diary: the columns an add stores")
struct StoredColumnsTests {
    private struct Stored: Equatable {
        var id: Int64
        var occurrence: Int64
        var start: Int64
        var finish: Int64
        var name: String
        var description: String?
        var occupies: Int64
        var repeats: Int64
        var record: String
    }

    private func stored(_ path: String) throws -> [Stored] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, occurrence, date_start, date_finish, name, description,
                        occupies, repeats, record, typeof(description) AS kind
                    FROM entry ORDER BY id, occurrence
                    """
            ).map { row in
                // An empty description is text, not NULL.
                #expect(row["kind"] as String == (row["description"] == nil ? "null" : "text"))
                return Stored(
                    id: row["id"], occurrence: row["occurrence"], start: row["date_start"],
                    finish: row["date_finish"], name: row["name"], description: row["description"],
                    occupies: row["occupies"], repeats: row["repeats"], record: row["record"])
            }
        }
    }

    @Test(
        "text as given (empty, combining marks and emoji, Cyrillic), NULL for none, flags and ids")
    func columns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "columns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("diary.sqlite").path
        let diary = try SQLiteDiary(path: path)
        let day: Int64 = 86_400
        let plain = try diary.add(TaskRecord(id: 0, dateStart: 0, dateFinish: 3600, name: "plain"))
        let empty = try diary.add(
            TaskRecord(
                id: 0, dateStart: 3600, dateFinish: 7200, name: "Cafe\u{301} 🗓", description: ""))
        let russian = try diary.add(
            TaskRecord(
                id: 40, dateStart: 7200, dateFinish: 9000, name: "Дело",
                description: "Описание моего дела"))
        var habit = TaskRecord(id: 0, dateStart: 2 * day, dateFinish: 2 * day + 600, name: "run")
        habit.recurrence = Recurrence(rule: "FREQ=WEEKLY")
        habit.timeZone = "UTC"
        let series = try diary.add(habit)
        var free = TaskRecord(id: 0, dateStart: 0, dateFinish: 3600, name: "free")
        free.free = true
        let transparent = try diary.add(free)
        #expect(plain.id == 1 && empty.id == 2 && russian.id == 40)
        #expect(series.id == 41 && transparent.id == 42, "fresh ids continue above the highest")

        let itself = Int64.min
        #expect(
            try stored(path) == [
                Stored(
                    id: 1, occurrence: itself, start: 0, finish: 3600, name: "plain",
                    description: nil, occupies: 1, repeats: 0, record: plain.jsonLine),
                Stored(
                    id: 2, occurrence: itself, start: 3600, finish: 7200, name: "Cafe\u{301} 🗓",
                    description: "", occupies: 1, repeats: 0, record: empty.jsonLine),
                Stored(
                    id: 40, occurrence: itself, start: 7200, finish: 9000, name: "Дело",
                    description: "Описание моего дела", occupies: 1, repeats: 0,
                    record: russian.jsonLine),
                Stored(
                    id: 41, occurrence: itself, start: 2 * day, finish: 2 * day + 600,
                    name: "run", description: nil, occupies: 0, repeats: 1,
                    record: series.jsonLine),
                Stored(
                    id: 42, occurrence: itself, start: 0, finish: 3600, name: "free",
                    description: nil, occupies: 0, repeats: 0, record: transparent.jsonLine),
            ])
        // Strings compare canonically; the bytes are what SQLite keeps.
        #expect(try stored(path)[1].name.utf8.elementsEqual("Cafe\u{301} 🗓".utf8))
        // Read back through the diary: the statements were reset and can run again.
        #expect(try diary.entry(2).description == "")
        #expect(try diary.entry(2).name == "Cafe\u{301} 🗓")
    }

    @Test("a refused add leaves the statements ready for the next add")
    func afterRefusal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "columns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("diary.sqlite").path
        let diary = try SQLiteDiary(path: path)
        _ = try diary.add(TaskRecord(id: 0, dateStart: 0, dateFinish: 3600, name: "first"))
        #expect(throws: DiaryError.self) {
            try diary.add(TaskRecord(id: 0, dateStart: 1800, dateFinish: 5400, name: "clash"))
        }
        #expect(throws: DiaryError.self) {
            try diary.add(TaskRecord(id: 1, dateStart: 9000, dateFinish: 9600, name: "same id"))
        }
        let next = try diary.add(TaskRecord(id: 0, dateStart: 3600, dateFinish: 7200, name: "next"))
        #expect(next.id == 2)
        #expect(try stored(path).map(\.name) == ["first", "next"])
    }
}
