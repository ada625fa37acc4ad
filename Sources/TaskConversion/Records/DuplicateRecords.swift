import Foundation
import ICalendar
import TaskModel

/// Two records of one input with the same `id`, or the same `uid`, that are not a series and
/// its changed occurrences: a calendar app would keep only one of them.
struct DuplicateRecords {
    /// A record's identity: its id or uid and the occurrence it changes, if any.
    private struct Key<Identity: Hashable>: Hashable {
        var identity: Identity
        var occurrence: Int64?
    }
    /// Where the first record of a key was: only what the message names (a record's index
    /// or line) in one word, so that a million records cost a million small entries: an
    /// index as itself, a line as `-1 - line`, neither as `Int.min`.
    private struct Place {
        private let code: Int

        init(_ location: Location) {
            if let index = location.index, index >= 0 {
                code = index
            } else if let line = location.line, line >= 0, line < Int.max {
                code = -1 - line
            } else {
                code = Int.min
            }
        }

        var description: String {
            if code >= 0 { return "record [\(code)]" }
            if code > Int.min { return "the record of line \(-1 - code)" }
            return "another record"
        }
    }
    /// Ids of records that change no occurrence (nearly all), each larger than those before
    /// it (most files number their records so), and their places: a new largest id is
    /// appended, any other looked up by binary search. No hashing, and 16 bytes an id.
    private var ascendingIDs: [Int64] = []
    private var ascendingPlaces: [Place] = []
    /// The other ids of records that change no occurrence: an `Int64` key hashes in one step
    /// and takes a third of the room of an id and an occurrence. Each is smaller than the
    /// largest ascending id when it comes, so a new largest id is in neither.
    private var ids: [Int64: Place] = [:]
    private var occurrenceIDs: [Key<Int64>: Place] = [:]
    private var uids: [Key<String>: Place] = [:]

    /// Where the first record with `id` (that changes no occurrence) was, if there was one;
    /// else `location` is kept as its place.
    private mutating func firstPlace(of id: Int64, at location: Location) -> Place? {
        guard let largest = ascendingIDs.last, id <= largest else {
            ascendingIDs.append(id)
            ascendingPlaces.append(Place(location))
            return nil
        }
        var low = 0
        var high = ascendingIDs.count
        while low < high {
            let middle = (low + high) / 2
            if ascendingIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        if ascendingIDs[low] == id { return ascendingPlaces[low] }
        // One look-up for a new id; a repeated one keeps the first place.
        let first = ids.updateValue(Place(location), forKey: id)
        if let first { ids[id] = first }
        return first
    }

    /// An error naming both records when `record` repeats an earlier one, else `nil`.
    mutating func check(_ record: TaskRecord, at location: Location) -> Diagnostic? {
        let first: Place?
        if let occurrence = record.recurrenceID {
            let key = Key(identity: record.id, occurrence: occurrence)
            first = occurrenceIDs[key]
            if first == nil { occurrenceIDs[key] = Place(location) }
        } else {
            first = firstPlace(of: record.id, at: location)
        }
        if let first {
            return Diagnostic(
                .error,
                Location(
                    file: location.file, line: location.line, index: location.index, field: "id"),
                "id \(record.id) is also the id of \(first.description); each record needs its own id (a calendar app would keep one of them)",
                code: .duplicateID)
        }
        if let uid = record.uid {
            let uidKey = Key(identity: uid, occurrence: record.recurrenceID)
            if let first = uids[uidKey] {
                return Diagnostic(
                    .error,
                    Location(
                        file: location.file, line: location.line, index: location.index,
                        field: "uid"),
                    "uid '\(uid)' is also the uid of \(first.description); each record needs its own uid (a calendar app would keep one of them)",
                    code: .duplicateID)
            }
            uids[uidKey] = Place(location)
        }
        return nil
    }
}
