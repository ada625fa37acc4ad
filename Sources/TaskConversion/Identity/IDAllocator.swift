import TaskModel

/// Fresh ids for events whose UID is not one of ours: one above the highest id seen so far,
/// in file order, so a stream needs no second pass.
public struct IDAllocator: Sendable {
    /// Marks a record whose id is still to be given.
    public static let unassigned = Int64.min
    private var highest: Int64 = 0
    private var series: [String: Int64] = [:]

    public init() {}

    /// Notes an id that is in use.
    public mutating func saw(_ id: Int64) { highest = max(highest, id) }

    /// A fresh id, noted as used.
    public mutating func next() -> Int64 {
        highest += 1
        return highest
    }

    /// The id of a repeating series with a foreign UID: fresh the first time, then the same
    /// for its changed occurrences (`RECURRENCE-ID`). Only series are remembered, so memory
    /// grows with the number of series, not of events.
    public mutating func id(forSeries uid: String) -> Int64 {
        if let known = series[uid] { return known }
        let fresh = next()
        series[uid] = fresh
        return fresh
    }

    /// A record's id when it has none of its own yet: a series shares one id.
    public mutating func assign(to record: inout TaskRecord) {
        if let uid = record.uid, record.recurrence != nil || record.recurrenceID != nil {
            record.id = id(forSeries: uid)
        } else {
            record.id = next()
        }
    }
}
