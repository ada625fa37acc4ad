import Foundation
import GRDB
import TaskConversion
import TaskModel

extension SQLiteDiary {
    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        try write { db in
            try Self.importing(records, skipConflicts: skipConflicts, newIDs: newIDs, db)
        }
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        try write { db in
            try db.cachedStatement(sql: Self.deleteEntryQuery).execute(arguments: [id])
            if db.changesCount == 0 { throw DiaryError.notFound(id) }
            // Gone from the table, the id is kept from being given again by the note.
            try Self.noteGiven(id, db)
            _ = try Self.importing(
                records.map { IncomingRecord($0, source: "#\(id)") }, skipConflicts: false,
                newIDs: false, db)
        }
    }

    /// An import inside a write transaction.
    static func importing(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool, _ db: Database
    ) throws -> ImportResult {
        do {
            let next = try Self.freshID(db)
            let changed = try Self.changedOccurrences(db)
            let series = try Row.fetchAll(
                db, sql: "SELECT id, record FROM entry WHERE repeats = 1 ORDER BY id"
            ).map { row throws in Rules.unit(try Self.record(row), changed: changed) }
            let lastFinish = try Int64.fetchOne(
                db, sql: "SELECT max(date_finish) FROM entry WHERE occupies = 1")
            let plan = try ImportPlan(
                records, newIDs: newIDs, nextID: next, storeLastFinish: lastFinish,
                idTaken: { (id: Int64) throws(DiaryError) -> TaskRecord? in
                    do { return try Self.find(id, db) } catch let error as DiaryError
                        where error == .notFound(id)
                    {
                        return nil
                    } catch { throw .storage("\(error)") }
                },
                storeCollisions: {
                    (record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
                        -> [TaskRecord] in
                    do {
                        return try Self.collisions(
                            of: record, occurrences: occurrences,
                            series: series.filter {
                                record.recurrence != nil || $0.dateStart < record.dateFinish
                            }, db
                        ).map(\.other)
                    } catch let error as DiaryError {
                        throw error
                    } catch { throw .storage("\(error)") }
                })
            if !plan.problems.isEmpty && !skipConflicts {
                throw DiaryError.importRefused(plan.problems)
            }
            for record in plan.accepted { try Self.insert(record, db) }
            if let highest = plan.accepted.map(Rules.highestID).max() {
                try Self.noteGiven(highest, db)
            }
            return ImportResult(imported: plan.accepted.map(\.id), skipped: plan.problems)
        }
    }
}
