import Foundation
import GRDB
import TaskConversion
import TaskModel

extension SQLiteDiary {
    /// The entries that occupy time and overlap `record` (other than itself), earliest first,
    /// each paired with the occurrence of `record` it meets (`record` itself when it does
    /// not repeat). A repeating entry in the way is named by its colliding occurrence.
    static func collisions(of asked: TaskRecord, _ db: Database) throws -> [(
        mine: TaskRecord, other: TaskRecord
    )] {
        guard asked.occupiesTime else { return [] }
        // Habits that start before this entry ends (all of them for a habit, which repeats).
        let habits = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, record FROM entry INDEXED BY entry_repeating
                    WHERE repeats = 1 AND id != ? AND date_start < ?
                    """),
            arguments: [
                asked.id, asked.recurrence == nil ? asked.dateFinish : Int64.max,
            ]
        ).map { row throws in try Self.record(row) }
        // Changed occurrences matter only where something repeats: most adds skip the query.
        let changed =
            habits.isEmpty && asked.recurrence == nil ? [:] : try changedOccurrences(db)
        let record = Rules.unit(asked, changed: changed)
        let series = habits.map { Rules.unit($0, changed: changed) }
        var occurrences = [record]
        if record.recurrence != nil {
            // Each occurrence against the single entries, up to the last of them.
            let last =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT max(date_finish) FROM entry WHERE occupies = 1"))
                ?? record.dateStart
            let end =
                Expansion.lastFinish(of: record)
                ?? max(last, record.dateStart + Expansion.habitHorizon)
            let window = record.dateStart..<max(end, record.dateStart + 1)
            do {
                occurrences = try Expansion.occupying(record, in: window)
            } catch let error where error.cut == .limit || error.cut == .work {
                // Too many occurrences to list up to the last entry (an hourly habit and an
                // entry years ahead): compare the habit with each single entry in its reach.
                return try collisions(of: record, eachSingleIn: window, series: series, db)
            } catch {
                throw Rules.refusal(of: record, error)
            }
        }
        return try collisions(of: record, occurrences: occurrences, series: series, db)
    }

    /// ``collisions(of:_:)`` for a habit with more occurrences than one expansion may list:
    /// each single entry in `window` against the occurrences of `record` around it (a few
    /// each), at most ten collisions.
    static func collisions(
        of record: TaskRecord, eachSingleIn window: Range<Int64>, series: [TaskRecord],
        _ db: Database
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try collisions(of: record, occurrences: [], series: series, db)
        // The single entry running at the window's start (they never overlap: at most one),
        // then those that start in it, in order.
        let before = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, date_start, date_finish FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start < ? ORDER BY date_start DESC LIMIT 1
                    """),
            arguments: [window.lowerBound])
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, date_start, date_finish FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start >= ? AND date_start < ? ORDER BY date_start
                    """),
            arguments: [window.lowerBound, window.upperBound])
        var pending = before[...]
        while found.count < 10, let row = try pending.popFirst() ?? rows.next() {
            let single = TaskRecord(
                id: row["id"], dateStart: row["date_start"], dateFinish: row["date_finish"],
                name: "")
            guard single.id != record.id, single.dateFinish > window.lowerBound else { continue }
            let pair: (TaskRecord, TaskRecord)?
            do {
                pair = try Expansion.collisions(record, single, limit: 1).first
            } catch {
                throw Rules.refusal(of: record, error)
            }
            if let (mine, _) = pair { found.append((mine, try find(single.id, db))) }
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// ``collisions(of:_:)`` for a record whose occurrences are known, against these habits.
    static func collisions(
        of record: TaskRecord, occurrences: [TaskRecord], series: [TaskRecord], _ db: Database
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try Rules.collisions(of: record, in: series)
        for occurrence in occurrences {
            found += try singles(overlapping: occurrence, db).map { (occurrence, $0) }
            if found.count >= 10 { break }
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// The single (non-repeating) entries that occupy time and overlap `record`.
    static func singles(overlapping record: TaskRecord, _ db: Database) throws
        -> [TaskRecord]
    {
        // Occupying entries never overlap, so walking back from the last one that starts
        // before our finish, every entry that still ends after our start collides, and the
        // first one that does not ends the walk.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, date_finish, record FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start < ? ORDER BY date_start DESC, date_finish DESC
                    """),
            arguments: [record.dateFinish])
        var found: [TaskRecord] = []
        while let row = try rows.next() {
            let finish: Int64 = row["date_finish"]
            let id: Int64 = row["id"]
            if id == record.id { continue }
            guard finish > record.dateStart else { break }
            found.append(try Self.record(row))
        }
        return found.reversed()
    }
}
