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
    /// Ids of records that change no occurrence (nearly all) by themselves: an `Int64` key
    /// hashes in one step and takes a third of the room of an id and an occurrence.
    private var ids: [Int64: Place] = [:]
    private var occurrenceIDs: [Key<Int64>: Place] = [:]
    private var uids: [Key<String>: Place] = [:]

    /// An error naming both records when `record` repeats an earlier one, else `nil`.
    mutating func check(_ record: TaskRecord, at location: Location) -> Diagnostic? {
        let first: Place?
        if let occurrence = record.recurrenceID {
            let key = Key(identity: record.id, occurrence: occurrence)
            first = occurrenceIDs[key]
            if first == nil { occurrenceIDs[key] = Place(location) }
        } else {
            // One look-up for the common case, a new id; a repeated one keeps the first place.
            first = ids.updateValue(Place(location), forKey: record.id)
            if let first { ids[record.id] = first }
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
