import TaskConversion
import TaskModel

/// Decides which records of an import may go in: the shared part of every backend's import.
///
/// Each record must follow the rules, have an id free in the store and in the file, and not
/// collide with the store (`storeCollisions`, asked of the backend) or with an earlier record
/// of the same import (found with one ``OverlapSweep`` over the file, not by comparing all pairs).
struct ImportPlan {
    var accepted: [TaskRecord] = []
    var problems: [ImportProblem] = []

    init(
        _ incoming: [IncomingRecord], newIDs: Bool, nextID: Int64,
        idTaken: (Int64) throws(DiaryError) -> TaskRecord?,
        storeCollisions: (TaskRecord) throws(DiaryError) -> [TaskRecord]
    ) throws(DiaryError) {
        var records = incoming.map(\.record)
        if newIDs {
            for index in records.indices { records[index].id = nextID + Int64(index) }
        }
        // Collisions inside the file: the later record (in input order) is the one refused.
        let spans = records.map { record in
            record.occupiesTime && record.recurrence == nil
                ? TimeSpan(start: record.dateStart, finish: record.dateFinish)
                : TimeSpan(start: 0, finish: 0)
        }
        var earlierPartners = [[Int]](repeating: [], count: records.count)
        for overlap in OverlapSweep.overlaps(spans) {
            let (early, late) =
                overlap.first < overlap.second
                ? (overlap.first, overlap.second) : (overlap.second, overlap.first)
            earlierPartners[late].append(early)
        }
        let repeating = records.indices.filter { records[$0].recurrence != nil }
        var acceptedIndex = [Bool](repeating: false, count: records.count)
        var seenIDs: [Int64: Int] = [:]
        for (index, record) in records.enumerated() {
            let source = incoming[index].source
            var reasons: [String] = record.problems.map(\.description)
            if let first = seenIDs[record.id] {
                reasons.append(
                    "id \(record.id) is used twice in this import (also \(incoming[first].source)); use --new-ids"
                )
            } else if let existing = try idTaken(record.id) {
                reasons.append(
                    "id \(record.id) is already in the diary: \(DiaryError.describe(existing)); use --new-ids"
                )
            }
            seenIDs[record.id] = seenIDs[record.id] ?? index
            if reasons.isEmpty {
                var inFile = earlierPartners[index].filter { acceptedIndex[$0] }
                // Repeating records, occurrence by occurrence, against every accepted one.
                let candidates =
                    record.recurrence != nil ? Array(0..<index) : repeating.filter { $0 < index }
                for other in candidates where acceptedIndex[other] {
                    if !Expansion.collisions(record, records[other], limit: 1).isEmpty {
                        inFile.append(other)
                    }
                }
                for other in inFile {
                    reasons.append(
                        "overlaps \(DiaryError.describe(records[other])) of \(incoming[other].source)"
                    )
                }
                for other in try storeCollisions(record) {
                    reasons.append("overlaps \(DiaryError.describe(other)) in the diary")
                }
            }
            if reasons.isEmpty {
                acceptedIndex[index] = true
                accepted.append(record)
            } else {
                problems += reasons.map { ImportProblem(source: source, message: $0) }
            }
        }
    }
}
