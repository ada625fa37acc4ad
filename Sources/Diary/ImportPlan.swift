import ICalendar
import TaskConversion
import TaskModel

/// Decides which records of an import may go in: the shared part of every backend's import.
///
/// Records with one UID form one entry (a repeating record and its changed occurrences) and
/// share one id, fresh or their own; an entry goes in whole or not at all.
///
/// Each record must follow the rules, have an id free in the store and in the file, and not
/// collide with the store (`storeCollisions`, asked of the backend with the record's
/// occurrences) or with an earlier accepted record of the same import. Those in the file are
/// found with one ``SpanIndex`` over every occurrence of every record (a repeating record
/// expanded once, over its check horizon), so the check is O(n log n) in the occurrences and
/// its work is bounded: the repeating records of one import may have at most
/// ``Expansion/defaultLimit`` occurrences to check in all; a record past that is refused
/// with a message that says so, never accepted unchecked.
package struct ImportPlan {
    package var accepted: [TaskRecord] = []
    package var problems: [ImportProblem] = []

    package init(
        _ incoming: [IncomingRecord], newIDs: Bool, nextID: Int64, storeLastFinish: Int64?,
        idTaken: (Int64) throws(DiaryError) -> TaskRecord?,
        storeCollisions: (TaskRecord, [TaskRecord]) throws(DiaryError) -> [TaskRecord]
    ) throws(DiaryError) {
        let records = Self.numbered(incoming.map(\.record), newIDs: newIDs, nextID: nextID)
        var (reasons, duplicates) = try Self.idProblems(records, incoming, idTaken: idTaken)
        let units = Rules.units(records)
        let occurrences = Self.occurrences(
            of: units, reasons: &reasons, storeLastFinish: storeLastFinish)
        let (entries, entryOf) = Self.entries(records, duplicates: duplicates)
        var index = SpanIndex(
            occurrences.enumerated().flatMap { position, list in
                list.map {
                    (
                        TimeSpan(start: $0.dateStart, finish: $0.dateFinish),
                        entryOf[records[position].id] ?? -1
                    )
                }
            })
        var acceptedPositions: [Int] = []
        for (entry, members) in entries.enumerated() {
            for position in members where reasons[position].isEmpty {
                // The earliest of its occurrences that meets an accepted entry of the file.
                if let said = Self.fileCollision(
                    records[position], occurrences[position], entries: entries, index: index,
                    records: records, incoming: incoming)
                {
                    reasons[position].append(said)
                    continue
                }
                do {
                    for other in try storeCollisions(units[position], occurrences[position]) {
                        reasons[position].append(
                            "overlaps \(DiaryError.describe(other)) in the diary")
                    }
                } catch .invalid(let problems) {
                    // A repeating entry of the store it cannot be compared with.
                    reasons[position] += problems.map(\.message)
                }
            }
            // An entry goes in whole: a record refused takes the others of its entry with it.
            if members.allSatisfy({ reasons[$0].isEmpty }) {
                index.activate(entry)
                acceptedPositions += members
            } else {
                for position in members where reasons[position].isEmpty {
                    reasons[position].append(
                        "left out with the rest of entry #\(records[position].id) (another of its records is refused)"
                    )
                }
            }
        }
        for position in acceptedPositions.sorted() { accepted.append(records[position]) }
        for position in records.indices where !reasons[position].isEmpty {
            let source = incoming[position].source
            problems += reasons[position].map { ImportProblem(source: source, message: $0) }
        }
    }

    /// The records with the ids they go in with: a fresh one an entry (its changed
    /// occurrences share it) and fresh ones for its subtasks with `newIDs`; else their own,
    /// and fresh ones, above every id of the import, for subtasks without one.
    private static func numbered(_ incoming: [TaskRecord], newIDs: Bool, nextID: Int64)
        -> [TaskRecord]
    {
        var records = incoming
        var next = nextID
        if newIDs {
            var fresh: [Int64: Int64] = [:]
            for index in records.indices {
                let id = records[index].id
                records[index].id = fresh[id] ?? (nextID + Int64(fresh.count))
                fresh[id] = records[index].id
            }
            next = nextID + Int64(fresh.count)
            // Subtasks too: the ids they had are another diary's, or another file's.
            for index in records.indices {
                Rules.renumberSubtasks(of: &records[index], from: &next)
            }
        } else {
            next = max(next, (records.map(Rules.highestID).max() ?? 0) + 1)
            for index in records.indices where Rules.needsIDs(records[index]) {
                Rules.giveIDs(to: &records[index], from: &next)
            }
        }
        return records
    }

    /// Each record's problems so far: its own (the rules), an id used twice in the import
    /// (the positions of those are `duplicates`), or one the diary has already.
    private static func idProblems(
        _ records: [TaskRecord], _ incoming: [IncomingRecord],
        idTaken: (Int64) throws(DiaryError) -> TaskRecord?
    ) throws(DiaryError) -> (reasons: [[String]], duplicates: Set<Int>) {
        var reasons = [[String]](repeating: [], count: records.count)
        // The first record of each id, and the occurrences each id's records change.
        var seenIDs: [Int64: Int] = [:]
        var seenKeys: Set<[Int64]> = []
        var duplicates: Set<Int> = []
        for (index, record) in records.enumerated() {
            reasons[index] = record.problems.map(\.description)
            let key = [record.id, record.recurrenceID ?? Int64.min]
            if let first = seenIDs[record.id] {
                // Another record of the same entry: same UID, a different occurrence.
                let sameEntry = record.uid != nil && record.uid == records[first].uid
                if !sameEntry || !seenKeys.insert(key).inserted {
                    duplicates.insert(index)
                    reasons[index].append(
                        "id \(record.id) is used twice in this import (also \(incoming[first].source)); use --new-ids"
                    )
                }
            } else if let existing = try idTaken(record.id) {
                reasons[index].append(
                    "id \(record.id) is already in the diary: \(DiaryError.describe(existing)); use --new-ids"
                )
            }
            seenKeys.insert(key)
            seenIDs[record.id] = seenIDs[record.id] ?? index
        }
        return (reasons, duplicates)
    }

    /// The entries, in order of their first record, as positions of their records; and the
    /// entry of each id. A record refused as a duplicate is an entry of its own.
    private static func entries(_ records: [TaskRecord], duplicates: Set<Int>)
        -> (entries: [[Int]], entryOf: [Int64: Int])
    {
        var entryOf: [Int64: Int] = [:]
        var entries: [[Int]] = []
        for (position, record) in records.enumerated() {
            if duplicates.contains(position) {
                // Refused already, and no part of the entry whose id it repeats.
                entries.append([position])
            } else if let entry = entryOf[record.id] {
                entries[entry].append(position)
            } else {
                entryOf[record.id] = entries.count
                entries.append([position])
            }
        }
        return (entries, entryOf)
    }

    /// What the earliest occurrence of `record` that meets an entry of the file accepted
    /// before it overlaps (the index's owners are entries, so the records of one entry are
    /// never checked against each other); nil when none does.
    private static func fileCollision(
        _ record: TaskRecord, _ occurrences: [TaskRecord], entries: [[Int]], index: SpanIndex,
        records: [TaskRecord], incoming: [IncomingRecord]
    ) -> String? {
        for occurrence in occurrences {
            let span = TimeSpan(start: occurrence.dateStart, finish: occurrence.dateFinish)
            guard let (other, _) = index.firstOverlap(with: span) else { continue }
            let first = entries[other][0]
            let said =
                "overlaps \(DiaryError.describe(records[first])) of \(incoming[first].source)"
            return record.recurrence == nil
                ? said : "\(said) (its occurrence at \(DiaryError.utc(occurrence.dateStart)))"
        }
        return nil
    }

    /// The occurrences of each record that take up time (a record that does not repeat is its
    /// own only occurrence), for the records with no problem yet. A repeating record is
    /// expanded up to its end, or, when it never ends, ``Expansion/habitHorizon`` past the
    /// latest of its start, every other series' start and every single entry's finish (in the
    /// file or the store); all of them share one occurrence limit and one allowance of work.
    private static func occurrences(
        of records: [TaskRecord], reasons: inout [[String]], storeLastFinish: Int64?
    ) -> [[TaskRecord]] {
        let candidates = records.indices.filter { reasons[$0].isEmpty && records[$0].occupiesTime }
        let singles = candidates.filter { records[$0].recurrence == nil }
        let series = candidates.filter { records[$0].recurrence != nil }
        let latest = max(
            storeLastFinish ?? Int64.min, singles.map { records[$0].dateFinish }.max() ?? Int64.min,
            series.map { records[$0].dateStart }.max() ?? Int64.min)
        var result = [[TaskRecord]](repeating: [], count: records.count)
        for position in singles { result[position] = [records[position]] }
        let limit = Expansion.defaultLimit
        var work = RecurrenceRule.Work(limit * Expansion.stepsPerOccurrence)
        var used = 0
        for position in series {
            let record = records[position]
            let end =
                record.recurrence?.rule.map(RecurrenceRule.isBounded) == false
                ? min(
                    max(latest, record.dateStart),
                    Timestamp.range.upperBound - Expansion.habitHorizon)
                    + Expansion.habitHorizon
                : Timestamp.range.upperBound
            let expansion = Expansion(
                window: record.dateStart..<max(end, record.dateStart + 1), limit: limit - used)
            let tooMany =
                "cannot be checked for overlaps: the repeating entries of this import have more than \(limit) occurrences to check in all; import it on its own or give its rule an end"
            guard used < limit else {
                reasons[position].append(tooMany)
                continue
            }
            let found: [TaskRecord]
            let cut: RecurrenceRule.Cut?
            do {
                (found, cut) = try expansion.occurrences(of: record, work: &work)
            } catch {
                reasons[position].append("its repeats cannot be expanded: \(error.message)")
                continue
            }
            if let cut {
                reasons[position].append(
                    cut == .limit
                        ? tooMany
                        : "cannot be checked for overlaps: \(Expansion.uncheckedReason(cut))"
                )
                continue
            }
            used += found.count
            result[position] = found
        }
        return result
    }
}
