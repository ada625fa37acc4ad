import Diary
import Foundation
import TaskModel
import TestPostgres
import Testing
#if PostgreSQL
import PostgresDiary
#endif

/// Each backend, on a fresh real store: a file, a folder, a diary of its own on a real
/// PostgreSQL server (with the PostgreSQL trait; started by the tests; in CI it must be there).
enum Backend: String, CaseIterable, Sendable {
    case sqlite, vdir, postgres

    static var allCases: [Backend] {
        #if PostgreSQL
        TestPostgres.isRunning || ProcessInfo.processInfo.environment["CI"] != nil
            ? [.sqlite, .vdir, .postgres] : [.sqlite, .vdir]
        #else
        [.sqlite, .vdir]
        #endif
    }

    func makeStore() throws -> (any DiaryStore, cleanUp: @Sendable () -> Void) {
        #if PostgreSQL
        if self == .postgres {
            let server = try TestPostgres.shared.get()
            let store = try PostgresDiary(
                address: PostgresAddress(url: server.url()), environment: server.environment)
            return (store, {})
        }
        #endif
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "diary-\(UUID().uuidString)")
        let location: StoreLocation =
            self == .sqlite ? .sqlite(folder.path + "/diary.sqlite") : .vdir(folder.path)
        return (try location.open(), { try? FileManager.default.removeItem(at: folder) })
    }
}

private func entry(_ id: Int64, _ start: Int64, _ finish: Int64, _ name: String = "entry")
    -> TaskRecord
{
    TaskRecord(id: id, dateStart: start, dateFinish: finish, name: name)
}

private func conflictIDs(_ body: () throws -> Void) -> [Int64]? {
    do {
        try body()
        return nil
    } catch DiaryError.conflict(_, let others) {
        return others.map(\.id)
    } catch {
        return [-1]
    }
}

@Suite("DiaryStore: one suite, every backend")
struct DiaryStoreTests {
    @Test("add, read, list, update, delete", arguments: Backend.allCases)
    func crud(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        let rich = TaskRecord(
            id: 0, dateStart: 3600, dateFinish: 7200, name: "Dentist, then groceries",
            description: "Line 1\nLine 2 ",
            attachments: [
                Attachment(
                    filename: "a.bin", mimeType: "application/octet-stream",
                    content: .inline(Data([0, 1, 2, 255])))
            ],
            alarms: [
                Alarm(
                    action: .display, trigger: .relative("-PT15M", fromEnd: false),
                    description: "go")
            ])
        let added = try store.add(rich)
        #expect(added.id == 1)
        var expected = rich
        expected.id = 1
        #expect(try store.entry(1) == expected, "attachments and alarms come back unchanged")
        _ = try store.add(entry(0, 0, 3600, "earlier"))
        #expect(try store.allEntries().map(\.name) == ["earlier", "Dentist, then groceries"])
        #expect(try store.entries(from: nil, to: nil, search: "GROCER").map(\.id) == [1])
        #expect(try store.entries(from: 3600, to: 7200, search: nil).map(\.id) == [1])
        expected.name = "Dentist"
        try store.update(expected)
        #expect(try store.entry(1).name == "Dentist")
        try store.delete(1)
        #expect(throws: DiaryError.notFound(1)) { try store.entry(1) }
        #expect(throws: DiaryError.notFound(1)) { try store.delete(1) }
    }

    @Test(
        "the id of a deleted entry is never given again, even when it was the highest",
        arguments: Backend.allCases)
    func deletedIDsStayUsed(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        #expect(try store.add(entry(0, 0, 3600, "first")).id == 1)
        #expect(try store.add(entry(0, 3600, 7200, "second")).id == 2)
        try store.delete(2)
        #expect(try store.add(entry(0, 3600, 7200, "third")).id == 3)
        try store.replace(3, with: [entry(3, 7200, 9000, "third, moved")])
        try store.delete(3)
        try store.delete(1)
        #expect(try store.add(entry(0, 0, 3600, "fourth")).id == 4)
    }

    @Test(
        "an overlapping entry is refused and the refusal names the entry it collides with",
        arguments: Backend.allCases)
    func refusesOverlap(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        _ = try store.add(entry(1, 14 * 3600, 15 * 3600, "Meeting"))
        _ = try store.add(entry(2, 16 * 3600, 17 * 3600, "Call"))
        #expect(
            conflictIDs { _ = try store.add(entry(3, 14 * 3600 + 1800, 16 * 3600 + 60)) } == [1, 2])
        do {
            _ = try store.add(entry(3, 14 * 3600 + 1800, 15 * 3600 + 1800))
        } catch {
            #expect("\(error)".contains("#1 \"Meeting\" (1970-01-01T14:00Z–1970-01-01T15:00Z)"))
        }
        // Half-open: back to back is fine; a zero-length entry, a cancelled or free one blocks nothing.
        _ = try store.add(entry(4, 15 * 3600, 16 * 3600, "between"))
        _ = try store.add(entry(5, 14 * 3600 + 600, 14 * 3600 + 600, "reminder"))
        var cancelled = entry(6, 14 * 3600, 15 * 3600, "cancelled")
        cancelled.status = .cancelled
        _ = try store.add(cancelled)
        #expect(try store.allEntries().count == 5)
        #expect(try store.check() == [])
    }

    @Test("an edit may overlap only its own old slot", arguments: Backend.allCases)
    func editOwnSlot(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        _ = try store.add(entry(1, 0, 3600))
        _ = try store.add(entry(2, 7200, 10_800))
        try store.update(entry(1, 1800, 5400))
        #expect(conflictIDs { try store.update(entry(1, 1800, 9000)) } == [2])
        #expect(try store.entry(1).dateFinish == 5400)
    }

    @Test(
        "import is all or nothing, reports every problem, and --skip-conflicts imports the rest",
        arguments: Backend.allCases)
    func importAllOrNothing(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        _ = try store.add(entry(1, 0, 3600, "in the diary"))
        let incoming = [
            IncomingRecord(entry(10, 3600, 7200, "fine"), source: "f.json: [0]"),
            IncomingRecord(entry(11, 1800, 2400, "collides with the diary"), source: "f.json: [1]"),
            IncomingRecord(entry(12, 5400, 9000, "collides with [0]"), source: "f.json: [2]"),
            IncomingRecord(entry(13, 9, 5, "backwards"), source: "f.json: [3]"),
            IncomingRecord(entry(1, 20_000, 21_000, "id taken"), source: "f.json: [4]"),
        ]
        // (A `catch DiaryError.importRefused(let …)` pattern here crashes Swift 6.3's SILGen.)
        let refusal = #expect(throws: DiaryError.self) {
            _ = try store.importRecords(incoming, skipConflicts: false, newIDs: false)
        }
        var problems: [ImportProblem] = []
        if case .importRefused(let found)? = refusal { problems = found }
        #expect(
            Set(problems.map(\.source)) == [
                "f.json: [1]", "f.json: [2]", "f.json: [3]", "f.json: [4]",
            ])
        #expect(problems.contains { $0.message.contains("#1 \"in the diary\"") })
        #expect(try store.allEntries().map(\.id) == [1], "nothing was written")
        let result = try store.importRecords(incoming, skipConflicts: true, newIDs: false)
        #expect(result.imported == [10])
        #expect(result.skipped.count == 4)
        let renumbered = try store.importRecords(
            [IncomingRecord(entry(1, 30_000, 31_000), source: "g")], skipConflicts: false,
            newIDs: true)
        #expect(renumbered.imported == [11])
    }

    @Test(
        "a repeating entry and its changed occurrences are one entry: imported, checked, edited and deleted together",
        arguments: Backend.allCases)
    func changedOccurrences(backend: Backend) throws {
        let (store, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        let week: Int64 = 604_800
        var series = entry(5, 0, 3600, "weekly")
        series.uid = "weekly@example.com"
        series.recurrence = Recurrence(rule: "FREQ=WEEKLY;COUNT=4")
        // The second occurrence, moved two hours later (as a calendar app exports it).
        var moved = entry(5, week + 7200, week + 10_800, "weekly, moved")
        moved.uid = series.uid
        moved.recurrenceID = week
        let result = try store.importRecords(
            [IncomingRecord(series, source: "c.ics:1"), IncomingRecord(moved, source: "c.ics:9")],
            skipConflicts: false, newIDs: false)
        #expect(result.imported == [5, 5])
        #expect(try store.allEntries().filter { $0.id == 5 }.count == 2)
        #expect(try store.entry(5).recurrenceID == nil, "the entry is the series")

        // The moved occurrence's old slot is free; its new one is taken.
        let free = try store.add(entry(0, week, week + 3600, "in the old slot"))
        #expect(free.id == 6)
        #expect(conflictIDs { _ = try store.add(entry(0, week + 7300, week + 7400)) } == [5])
        // The other occurrences still block their slots.
        #expect(conflictIDs { _ = try store.add(entry(0, 2 * week, 2 * week + 60)) } == [5])

        // Each record can be edited: the changed occurrence alone, and the series keeps it.
        var later = moved
        later.dateStart = week + 36_000
        later.dateFinish = week + 39_600
        try store.update(later)
        _ = try store.add(entry(0, week + 7300, week + 7400, "where it was"))
        #expect(
            try store.allEntries().first { $0.recurrenceID == week }?.dateStart == week + 36_000)
        // A new change of another occurrence, made by the diary.
        var third = series
        third.recurrence = nil
        third.recurrenceID = 3 * week
        third.name = "weekly, renamed"
        try store.update(third)
        #expect(try store.allEntries().filter { $0.id == 5 }.count == 3)
        #expect(try store.check() == [])

        try store.delete(5)
        #expect(try store.allEntries().map(\.id).sorted() == [6, 7])

        // An entry goes in whole: its changed occurrence collides, so the series stays out too;
        // with fresh ids, the records of one entry share one.
        var other = series
        other.id = 1
        other.uid = "other@example.com"
        other.dateStart = 10 * week
        other.dateFinish = 10 * week + 3600
        var clash = other
        clash.recurrence = nil
        clash.recurrenceID = 11 * week
        clash.dateStart = week
        clash.dateFinish = week + 60
        let incoming = [
            IncomingRecord(other, source: "d.ics:1"), IncomingRecord(clash, source: "d.ics:9"),
        ]
        let skipped = try store.importRecords(incoming, skipConflicts: true, newIDs: true)
        #expect(skipped.imported == [])
        #expect(skipped.skipped.contains { $0.message.contains("left out with the rest of entry") })
        clash.dateStart = 11 * week + 60
        clash.dateFinish = 11 * week + 120
        let fresh = try store.importRecords(
            [IncomingRecord(other, source: "d.ics:1"), IncomingRecord(clash, source: "d.ics:9")],
            skipConflicts: false, newIDs: true)
        #expect(fresh.imported == [8, 8])
    }
}
