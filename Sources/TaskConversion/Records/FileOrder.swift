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
    private var uids: FirstLines

    /// `hashMask` cuts the keys' hashes (tests make them collide).
    init(hashMask: Int = ~0) { uids = FirstLines(hashMask: hashMask) }

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
            guard let seen = uids.first(key, line: line) else { return nil }
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
        // (parse looks at the prefix first; a generic `starts(with:)` on the UTF-8 view
        // before it cost more than the parse of most UIDs.)
        guard let parsed = scheme.parse(uid), parsed.isDerived else { return nil }
        return parsed.id
    }
}

/// The line of the first record of each key, for keys read as text (UIDs not derived from an
/// id), compared as bytes. Almost every key comes once, so a key costs one hash of its bytes
/// and a place in one array (holding the String the record holds, not a copy): a
/// `[String: Int]` hashed each key again on every growth and twice for a new one (together 4%
/// of reading an .ics of foreign UIDs on one core).
struct FirstLines {
    /// A key's place: its hash (0: free), the line, the key.
    private struct Place {
        var hash = 0
        var line = 0
        var key = ""
    }

    private var places = [Place](repeating: Place(), count: 1 << 10)
    private var count = 0
    private let hashMask: Int

    init(hashMask: Int = ~0) { self.hashMask = hashMask }

    /// The line `key` was first seen on, or `nil` when it is new (noted now, with `line`).
    mutating func first(_ key: String, line: Int) -> Int? {
        var key = key
        var hasher = Hasher()
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        // 0 marks a free place: a hash of 0 is kept as 1 (the bytes decide).
        let hash = hasher.finalize() & hashMask
        let wanted = hash == 0 ? 1 : hash
        let mask = places.count - 1
        var index = wanted & mask
        while places[index].hash != 0 {
            if places[index].hash == wanted, places[index].key.utf8.elementsEqual(key.utf8) {
                return places[index].line
            }
            index = (index + 1) & mask
        }
        places[index] = Place(hash: wanted, line: line, key: key)
        count += 1
        if count * 2 > places.count { grow() }
        return nil
    }

    /// Twice the places, each moved by the hash it keeps (no key hashed again).
    private mutating func grow() {
        var larger = [Place](repeating: Place(), count: places.count * 2)
        let mask = larger.count - 1
        for place in places where place.hash != 0 {
            var index = place.hash & mask
            while larger[index].hash != 0 { index = (index + 1) & mask }
            larger[index] = place
        }
        places = larger
    }
}
