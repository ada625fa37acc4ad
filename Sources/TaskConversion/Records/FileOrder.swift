import Foundation
import ICalendar
import TaskModel

/// What must happen in file order, on one thread, to the records of one .ics input: a fresh
/// id where one is owed (parallel batches leave it to this), and a UID of its own for a
/// second component with a UID seen before (without `RECURRENCE-ID`), which calendar apps
/// would otherwise drop.
struct FileOrder {
    private var ids = IDAllocator()
    /// The line of the first component of each UID: a UID the scheme derives from an id is
    /// known by the id (making and hashing its 45-byte String for every record was a sixth
    /// of the main thread's work when reading an .ics on two cores), any other by its text.
    private var derivedUIDs: [Int64: Int] = [:]
    private var uids: [String: Int] = [:]

    /// Orders `record`; a warning when its UID was renamed.
    mutating func order(_ record: inout TaskRecord, location: Location, scheme: UIDScheme)
        -> Diagnostic?
    {
        if record.id == IDAllocator.unassigned {
            ids.assign(to: &record)
        } else {
            ids.saw(record.id)
        }
        let line = location.line ?? 0
        let first: Int
        if record.recurrenceID == nil, let id = Self.derivedID(of: record, scheme: scheme) {
            guard let seen = derivedUIDs[id] else {
                derivedUIDs[id] = line
                return nil
            }
            first = seen
        } else {
            let uid = record.uid ?? scheme.uid(for: record.id)
            // The UID alone unless the record is one occurrence (no empty String appended).
            let key = record.recurrenceID.map { uid + "@\($0)" } ?? uid
            guard let seen = uids[key] else {
                uids[key] = line
                return nil
            }
            first = seen
        }
        let uid = record.uid ?? scheme.uid(for: record.id)
        let renamed = "\(uid)-\(line)"
        record.uid = renamed
        record.id = ids.next()
        let what = record.recurrenceID == nil ? "UID" : "UID and RECURRENCE-ID"
        return Diagnostic(
            .warning, location,
            "this component has the \(what) of the one of line \(first); it was given id \(record.id) and the UID \(renamed), so that both are kept",
            code: .duplicateUID)
    }

    /// The id whose derived UID is the record's UID, or `nil` when the record's UID is not
    /// one the scheme derives: two records have the same UID exactly when both are derived
    /// from one id or both are the same other text (a derived UID is never kept as text).
    private static func derivedID(of record: TaskRecord, scheme: UIDScheme) -> Int64? {
        guard let uid = record.uid else { return record.id }
        guard uid.utf8.starts(with: "taskcal-".utf8), let parsed = scheme.parse(uid),
            parsed.isDerived
        else { return nil }
        return parsed.id
    }
}
