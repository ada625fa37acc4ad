// Built with the PostgreSQL trait only (Package.swift): without it, this module is empty.
#if PostgreSQL

import Diary
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import TaskConversion
import TaskModel

extension PostgresDiary {
    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        try write(.exclusive) {
            try importing(records, skipConflicts: skipConflicts, newIDs: newIDs)
        }
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        try write(.exclusive) {
            let deleted =
                try run("DELETE FROM taskcal_entry WHERE diary = \(address.diary) AND id = \(id)")
                .metadata.rows ?? 0
            if deleted == 0 { throw DiaryError.notFound(id) }
            _ = try importing(
                records.map { IncomingRecord($0, source: "#\(id)") }, skipConflicts: false,
                newIDs: false)
        }
    }

    /// An import inside the transaction ``write(_:for:_:)`` holds.
    func importing(_ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool) throws
        -> ImportResult
    {
        do {
            let diary = address.diary
            let next =
                try run(
                    """
                    SELECT greatest(highest_id, (SELECT coalesce(max(id), 0) FROM taskcal_entry
                        WHERE diary = \(diary))) + 1 FROM taskcal_diary WHERE name = \(diary)
                    """
                ).rows.first?.decode(Int64.self) ?? 1
            let changed = try changedOccurrences()
            let series = try habits(except: 0, before: Int64.max, changed: changed)
            let lastFinish = try run(
                "SELECT max(date_finish) FROM taskcal_entry WHERE diary = \(diary) AND occupies"
            ).rows.first?.decode(Int64?.self)
            func storage(_ error: any Error) -> DiaryError {
                error as? DiaryError
                    ?? .storage(
                        "the diary \(address): \(Self.describe(error, address: address, password: true))"
                    )
            }
            // What the plan will ask of each record, asked of the server once: the entries
            // with the file's ids, and (when they are not too many) the single entries in the
            // time the file's single entries cover.
            let asked = Set(newIDs ? [] : records.map(\.record.id).filter { $0 > 0 })
            let taken = try entries(withIDs: Array(asked))
            let occupying = records.map(\.record).filter { $0.occupiesTime && $0.recurrence == nil }
            let known = try occupying.map(\.dateStart).min().flatMap { start -> SingleSpans? in
                let window = start..<max(occupying.map(\.dateFinish).max()!, start + 1)
                return try singleSpans(overlapping: window, except: 0, limit: 200_000).map {
                    SingleSpans(window: window, sorted: $0)
                }
            }
            let plan = try ImportPlan(
                records, newIDs: newIDs, nextID: next, storeLastFinish: lastFinish,
                idTaken: { (id: Int64) throws(DiaryError) -> TaskRecord? in
                    if asked.contains(id) { return taken[id] }
                    // A fresh id: above every id the diary gave, and no one else writes now.
                    if id >= next { return nil }
                    do { return try find(id) } catch let error as DiaryError
                        where error == .notFound(id)
                    {
                        return nil
                    } catch { throw storage(error) }
                },
                storeCollisions: {
                    (record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
                        -> [TaskRecord] in
                    let start = occurrences.map(\.dateStart).min() ?? record.dateStart
                    let finish = occurrences.map(\.dateFinish).max() ?? record.dateFinish
                    do {
                        return try collisions(
                            of: record, occurrences: occurrences,
                            window: start..<max(finish, start + 1),
                            series: series.filter {
                                record.recurrence != nil || $0.dateStart < record.dateFinish
                            }, known: known
                        ).map(\.other)
                    } catch { throw storage(error) }
                })
            if !plan.problems.isEmpty && !skipConflicts {
                throw DiaryError.importRefused(plan.problems)
            }
            try insert(plan.accepted)
            if let highest = plan.accepted.map(Rules.highestID).max() { try noteGiven(highest) }
            return ImportResult(imported: plan.accepted.map(\.id), skipped: plan.problems)
        }
    }
}

#endif
