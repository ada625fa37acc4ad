import ICalendar
import TaskConversion
import TaskModel

/// Decides which records of an import may go in: the shared part of every backend's import.
///
/// Each record must follow the rules, have an id free in the store and in the file, and not
/// collide with the store (`storeCollisions`, asked of the backend with the record's
/// occurrences) or with an earlier accepted record of the same import. Those in the file are
/// found with one ``SpanIndex`` over every occurrence of every record (a repeating record
/// expanded once, over its check horizon), so the check is O(n log n) in the occurrences and
/// its work is bounded: the repeating records of one import may have at most
/// ``Expansion/defaultLimit`` occurrences to check in all; a record past that is refused
/// with a message that says so, never accepted unchecked.
struct ImportPlan {
    var accepted: [TaskRecord] = []
    var problems: [ImportProblem] = []

    init(
        _ incoming: [IncomingRecord], newIDs: Bool, nextID: Int64, storeLastFinish: Int64?,
        idTaken: (Int64) throws(DiaryError) -> TaskRecord?,
        storeCollisions: (TaskRecord, [TaskRecord]) throws(DiaryError) -> [TaskRecord]
    ) throws(DiaryError) {
        var records = incoming.map(\.record)
        if newIDs {
            for index in records.indices { records[index].id = nextID + Int64(index) }
        }
        var reasons = [[String]](repeating: [], count: records.count)
        var seenIDs: [Int64: Int] = [:]
        for (index, record) in records.enumerated() {
            reasons[index] = record.problems.map(\.description)
            if let first = seenIDs[record.id] {
                reasons[index].append(
                    "id \(record.id) is used twice in this import (also \(incoming[first].source)); use --new-ids"
                )
            } else if let existing = try idTaken(record.id) {
                reasons[index].append(
                    "id \(record.id) is already in the diary: \(DiaryError.describe(existing)); use --new-ids"
                )
            }
            seenIDs[record.id] = seenIDs[record.id] ?? index
        }
        let occurrences = Self.occurrences(
            of: records, reasons: &reasons, storeLastFinish: storeLastFinish)
        var index = SpanIndex(
            occurrences.enumerated().flatMap { owner, list in
                list.map { (TimeSpan(start: $0.dateStart, finish: $0.dateFinish), owner) }
            })
        for (position, record) in records.enumerated() {
            if reasons[position].isEmpty {
                // The earliest of its occurrences that meets an accepted record of the file.
                for occurrence in occurrences[position] {
                    let span = TimeSpan(start: occurrence.dateStart, finish: occurrence.dateFinish)
                    guard let (other, _) = index.firstOverlap(with: span) else { continue }
                    let when =
                        record.recurrence == nil
                        ? "" : " (its occurrence at \(DiaryError.utc(occurrence.dateStart)))"
                    reasons[position].append(
                        "overlaps \(DiaryError.describe(records[other])) of \(incoming[other].source)\(when)"
                    )
                    break
                }
            }
            if reasons[position].isEmpty {
                for other in try storeCollisions(record, occurrences[position]) {
                    reasons[position].append("overlaps \(DiaryError.describe(other)) in the diary")
                }
            }
            if reasons[position].isEmpty {
                index.activate(position)
                accepted.append(record)
            } else {
                let source = incoming[position].source
                problems += reasons[position].map { ImportProblem(source: source, message: $0) }
            }
        }
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
                        : "cannot be checked for overlaps: its rule needs too much work to expand (it steps often and matches rarely)"
                )
                continue
            }
            used += found.count
            result[position] = found
        }
        return result
    }
}
