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
    // MARK: - The overlap checks

    /// The original starts of the changed occurrences of every entry that has some.
    func changedOccurrences() throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        for row in try run(
            """
            SELECT id, recurrence_id FROM taskcal_entry
            WHERE diary = \(address.diary) AND recurrence_id IS NOT NULL
            """
        ).rows {
            let (id, original) = try row.decode((Int64, Int64).self)
            result[id, default: []].append(original)
        }
        return result
    }

    /// Repeating entries other than `id` that start before `before`, each without the
    /// occurrences its changed occurrences replace.
    func habits(except id: Int64, before: Int64, changed: [Int64: [Int64]]? = nil) throws
        -> [TaskRecord]
    {
        let series = try records(
            """
            SELECT id, record FROM taskcal_entry
            WHERE diary = \(address.diary) AND repeats AND id <> \(id) AND date_start < \(before)
            ORDER BY id
            """)
        if series.isEmpty { return [] }
        let changed = try changed ?? changedOccurrences()
        return series.map { Rules.unit($0, changed: changed) }
    }

    /// The entries that occupy time and overlap `asked` (other than itself), earliest first,
    /// each paired with the occurrence of `asked` it meets. A repeating entry in the way is
    /// named by its colliding occurrence.
    func collisions(of asked: TaskRecord) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        guard asked.occupiesTime else { return [] }
        let repeats = asked.recurrence != nil
        let changed = repeats ? try changedOccurrences() : nil
        let series = try habits(
            except: asked.id, before: repeats ? Int64.max : asked.dateFinish, changed: changed)
        let record = changed.map { Rules.unit(asked, changed: $0) } ?? asked
        guard repeats else {
            return try collisions(
                of: record, occurrences: [record], window: record.dateStart..<record.dateFinish,
                series: series)
        }
        // Each occurrence against the single entries, up to the last of them.
        let last =
            try run(
                """
                SELECT max(date_finish) FROM taskcal_entry WHERE diary = \(address.diary) AND occupies
                """
            ).rows.first?.decode(Int64?.self) ?? record.dateStart
        let end =
            Expansion.lastFinish(of: record) ?? max(last, record.dateStart + Expansion.habitHorizon)
        let window = record.dateStart..<max(end, record.dateStart + 1)
        // nil: too many occurrences to list (an hourly habit and an entry years ahead), so
        // the habit is compared with each single entry in its reach.
        let occurrences: [TaskRecord]?
        do {
            occurrences = try Expansion.occupying(record, in: window)
        } catch let error where error.cut == .limit || error.cut == .work {
            occurrences = nil
        } catch {
            throw Rules.refusal(of: record, error)
        }
        return try collisions(
            of: record, occurrences: occurrences, window: window, series: series)
    }

    /// The collisions of `record` (with these occurrences, or when nil, too many to list)
    /// with the single entries in `window` and with `series`, at most ten with single entries.
    func collisions(
        of record: TaskRecord, occurrences: [TaskRecord]?, window: Range<Int64>,
        series: [TaskRecord], known: SingleSpans? = nil
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try Rules.collisions(of: record, in: series)
        let singles =
            try known?.overlapping(window, except: record.id)
            ?? singleSpans(overlapping: window, except: record.id, limit: nil)!
        var inTheWay: [(mine: TaskRecord, other: TaskRecord)] = []
        if let occurrences {
            let sorted = occurrences.sorted { $0.dateStart < $1.dateStart }
            let longest = sorted.map { $0.dateFinish - $0.dateStart }.max() ?? 0
            for single in singles where inTheWay.count < 10 {
                // The first occurrence that may still be running when `single` starts.
                var index = Self.firstIndex(in: sorted, startingFrom: single.dateStart - longest)
                while index < sorted.count, sorted[index].dateStart < single.dateFinish {
                    if sorted[index].dateFinish > single.dateStart {
                        inTheWay.append((sorted[index], single))
                        break
                    }
                    index += 1
                }
            }
        } else {
            for single in singles where inTheWay.count < 10 {
                do {
                    if let (mine, _) = try Expansion.collisions(record, single, limit: 1).first {
                        inTheWay.append((mine, single))
                    }
                } catch {
                    throw Rules.refusal(of: record, error)
                }
            }
        }
        // The entries in the way, whole, for the refusal.
        for (mine, single) in inTheWay {
            let other = try records(
                """
                SELECT id, record FROM taskcal_entry
                WHERE diary = \(address.diary) AND id = \(single.id)
                    AND recurrence_id IS NOT DISTINCT FROM \(single.recurrenceID)
                """
            ).first
            found.append((mine, other ?? single))
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// The single entries that occupy time in `window` (other than `id`), by start, with
    /// their times only, found through the constraint's index; nil when there are more than
    /// `limit`.
    func singleSpans(overlapping window: Range<Int64>, except id: Int64, limit: Int?)
        throws -> [TaskRecord]?
    {
        let rows = try run(
            """
            SELECT id, recurrence_id, date_start, date_finish FROM taskcal_entry
            WHERE diary = \(address.diary) AND occupies AND id <> \(id)
                AND slot && tstzrange(to_timestamp(\(window.lowerBound)), to_timestamp(\(window.upperBound)), '[)')
            ORDER BY date_start, date_finish LIMIT \(limit.map { Int64($0) + 1 } ?? Int64.max)
            """
        ).rows
        var singles: [TaskRecord] = []
        for row in rows {
            let (id, original, start, finish) = try row.decode((Int64, Int64?, Int64, Int64).self)
            var single = TaskRecord(id: id, dateStart: start, dateFinish: finish, name: "")
            single.recurrenceID = original
            singles.append(single)
        }
        if let limit, singles.count > limit { return nil }
        return singles
    }

    /// The single entries of the diary in the time an import covers, read once, so that the
    /// import's checks ask the server nothing per record.
    struct SingleSpans {
        let window: Range<Int64>
        /// By start, then finish.
        let sorted: [TaskRecord]
        let longest: Int64

        init(window: Range<Int64>, sorted: [TaskRecord]) {
            self.window = window
            self.sorted = sorted
            longest = sorted.map { $0.dateFinish - $0.dateStart }.max() ?? 0
        }

        /// Those that overlap `range` other than `id`, or nil when `range` reaches outside
        /// what was read.
        func overlapping(_ range: Range<Int64>, except id: Int64) -> [TaskRecord]? {
            guard window.lowerBound <= range.lowerBound, range.upperBound <= window.upperBound
            else { return nil }
            var index = PostgresDiary.firstIndex(
                in: sorted, startingFrom: range.lowerBound - longest)
            var found: [TaskRecord] = []
            while index < sorted.count, sorted[index].dateStart < range.upperBound {
                let single = sorted[index]
                if single.dateFinish > range.lowerBound && single.id != id { found.append(single) }
                index += 1
            }
            return found
        }
    }

    /// The entries of the diary with these ids (each one's first record, as ``find(_:)``).
    func entries(withIDs ids: [Int64]) throws -> [Int64: TaskRecord] {
        if ids.isEmpty { return [:] }
        var found: [Int64: TaskRecord] = [:]
        for record in try records(
            """
            SELECT DISTINCT ON (id) id, record FROM taskcal_entry
            WHERE diary = \(address.diary) AND id = ANY(\(ids))
            ORDER BY id, recurrence_id IS NOT NULL, recurrence_id
            """)
        {
            found[record.id] = record
        }
        return found
    }

    /// The index of the first of `sorted` (by start) that starts at `instant` or later.
    static func firstIndex(in sorted: [TaskRecord], startingFrom instant: Int64) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].dateStart < instant { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

#endif
