import Foundation
import ICalendar
import TaskConversion
import TaskModel

/// A diary kept as a folder of `.ics` files, one event each, named after its UID: the layout
/// khal and vdirsyncer use, so khal can be pointed at the same folder.
///
/// Files are written through the converter core (libical) and replaced atomically. Writers
/// take an exclusive `flock` on `.taskcal.lock` for the check and the write together. An
/// import first writes every file under a temporary name and a list of them
/// (`.taskcal-pending`), then renames them; a writer that finds the list (a process killed
/// in the middle) finishes the renames first, so an import is in whole or not at all.
///
/// The diary's own state is in `.taskcal-diary`: its identity (the namespace of its UIDs)
/// and the highest id it ever gave, so ids (and UIDs) of deleted entries are never reused.
/// An entry whose UID does not carry its id (a UID from another app, or from an earlier
/// version) keeps it in an `X-TASKCAL-ID` line of its file; a file another program put in the
/// folder gets its id when the next writer adopts it.
///
/// A file taskcal cannot read (garbage, or an event with no readable start) does not take the
/// diary down: reads warn and go on without it (as khal does); a write is refused while such
/// a file may hold an entry the write could overlap, and says which file. Files are private
/// (0600, new folders 0700). Temporary files a killed writer left are removed by the next
/// writer; `check` reports them and every unreadable file.
///
/// Finding an entry reads the folder (O(n)): vdir is for sharing with other tools; SQLite is
/// the fast default.
public final class VdirDiary: DiaryStore {
    public let directory: URL
    public let uidScheme: UIDScheme
    let warn: @Sendable (String) -> Void

    /// The line that keeps an entry's id in its file.
    static let idProperty = "X-TASKCAL-ID"

    /// Opens (or creates) the folder; `warn` hears about files a read went past.
    public init(directory: String, warn: @escaping @Sendable (String) -> Void = { _ in })
        throws(DiaryError)
    {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        self.directory = folder
        self.warn = warn
        do {
            if !FileManager.default.fileExists(atPath: folder.path) {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw .storage(
                "cannot create the diary folder \(directory): \(error.localizedDescription)")
        }
        let state: State
        if let existing = try Self.readState(folder) {
            state = existing
        } else {
            state = try Self.createState(folder)
        }
        uidScheme = UIDScheme(namespace: state.identity)
    }

    // MARK: - The diary's own state

    struct State: Codable {
        var identity: String
        var highestID: Int64
        /// The diary's settings (``DiaryStore/setting(_:)``); absent in older folders.
        var settings: [String: String]?

        enum CodingKeys: String, CodingKey {
            case identity
            case highestID = "highest_id"
            case settings
        }
    }

    static func stateFile(_ folder: URL) -> URL {
        folder.appendingPathComponent(".taskcal-diary")
    }

    static func readState(_ folder: URL) throws(DiaryError) -> State? {
        let file = stateFile(folder)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let state = try? JSONDecoder().decode(State.self, from: data) else {
            throw .storage(
                "\(file.path) is damaged: expected {\"identity\": …, \"highest_id\": …}")
        }
        return state
    }

    static func writeState(_ state: State, _ folder: URL) throws(DiaryError) {
        // Whole or not at all, as every file taskcal writes (OutputFile.writeWhole): its
        // temporary file (`..taskcal-diary.taskcal-XXXXXX`) is one the debris sweep knows.
        // Foundation's atomic write left `.dat.nosync…` files when the process was killed.
        let bytes = try encoded(state)
        do {
            try OutputFile.writeWhole(bytes, to: stateFile(folder).path, mode: 0o600)
        } catch {
            throw .storage(error.description)
        }
    }

    static func encoded(_ state: State) throws(DiaryError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(state) else {
            throw .storage("the diary's state cannot be written as JSON")
        }
        return Array(data)
    }

    /// Writes `state` to `path`, a file of the folder's own (0600), whole and synced.
    static func writeState(_ state: State, at path: String) throws(DiaryError) {
        let bytes = try encoded(state)
        do {
            try OutputFile.writeWhole(bytes, to: path, mode: 0o600)
        } catch {
            throw .storage(error.description)
        }
    }

    /// Makes the state of a new folder (or one an earlier version made), under the lock.
    static func createState(_ folder: URL) throws(DiaryError) -> State {
        let lock = folder.appendingPathComponent(".taskcal.lock").path
        let descriptor = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storage("cannot lock \(lock): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        if let state = try readState(folder) { return state }
        let state = State(identity: DiaryIdentity.make(), highestID: 0)
        try writeState(state, folder)
        return state
    }

    /// Notes that ids up to `id` were given (under the lock).
    func noteGiven(_ id: Int64) throws(DiaryError) {
        guard var state = try Self.readState(directory) else { return }
        if id > state.highestID {
            state.highestID = id
            try Self.writeState(state, directory)
        }
    }

    /// The next fresh id: above every id the diary ever gave.
    func freshID(_ existing: [TaskRecord]) throws(DiaryError) -> Int64 {
        let highest = try Self.readState(directory)?.highestID ?? 0
        // Subtasks' ids count: they are inside their entries' records.
        return max(highest, existing.map(Rules.highestID).max() ?? 0) + 1
    }

    private var pendingList: URL { directory.appendingPathComponent(".taskcal-pending") }

    // MARK: - Locking

    func locked<T>(_ body: () throws(DiaryError) -> T) throws(DiaryError) -> T {
        let path = directory.appendingPathComponent(".taskcal.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storage("cannot lock \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR {
                throw .storage("cannot lock \(path): \(String(cString: strerror(errno)))")
            }
        }
        try finishPendingImport()
        removeDebris()
        return try body()
    }

    /// Temporary files a killed writer left: an import's files written before its list of
    /// renames was, and the temporary file of an atomic write. Only debris under the lock
    /// (no writer is running then).
    func debris() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            (name.hasPrefix(".taskcal-import-") && name.hasSuffix(".tmp"))
                || Self.isWriteTemporary(name)
                || (name.hasPrefix(".taskcal-diary.") || name.hasPrefix(".taskcal-pending."))
        }.sorted()
    }

    /// Whether `name` is an atomic write's temporary file, `.NAME.taskcal-XXXXXX` (six ASCII
    /// letters or digits): what the regular expression `^\..+\.taskcal-[A-Za-z0-9]{6}$`
    /// matches, tested without one. Foundation's first regular expression in a process names
    /// a type, which the Swift runtime keeps for good, and under the sanitizers every diary
    /// command on a vdir then ended symbolizing that suppressed "leak" (half a second each).
    package static func isWriteTemporary(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let marker = Array(".taskcal-".utf8)
        let count = bytes.count
        guard count >= 2 + marker.count + 6, bytes[0] == UInt8(ascii: ".") else { return false }
        let letters = bytes[(count - 6)...].allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"):
                true
            default: false
            }
        }
        guard letters, bytes[(count - 6 - marker.count)..<(count - 6)].elementsEqual(marker)
        else { return false }
        // `.` matches anything but a line break (ICU's: LF, CR, NEL, LS and PS).
        let middle = String(decoding: bytes[1..<(count - 6 - marker.count)], as: UTF8.self)
        return !middle.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0A, 0x0D, 0x85, 0x2028, 0x2029: true
            default: false
            }
        }
    }

    func removeDebris() {
        for name in debris() {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Completes an import a killed process left half-renamed.
    func finishPendingImport() throws(DiaryError) {
        guard let text = try? String(contentsOf: pendingList, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t")
            guard parts.count == 2 else { continue }
            let temporary = directory.appendingPathComponent(String(parts[0])).path
            let final = directory.appendingPathComponent(String(parts[1])).path
            if FileManager.default.fileExists(atPath: temporary) { rename(temporary, final) }
        }
        // The renames reach the disk before the list that would redo them goes.
        OutputFile.syncFolder(of: pendingList.path)
        try? FileManager.default.removeItem(at: pendingList)
    }

    // MARK: - DiaryStore

    public func entry(_ id: Int64) throws(DiaryError) -> TaskRecord {
        let members = try readable().map(\.record).filter { $0.id == id }
        // The entry itself; its first changed occurrence when only changes of it came in.
        guard
            let found = members.first(where: { $0.recurrenceID == nil })
                ?? members.min(by: { ($0.recurrenceID ?? 0) < ($1.recurrenceID ?? 0) })
        else {
            throw .notFound(id)
        }
        return found
    }

    public func entries(from: Int64?, to: Int64?, search: String?) throws(DiaryError)
        -> [TaskRecord]
    {
        try readable().map(\.record).filter { record in
            if let to, record.dateStart >= to { return false }
            // A habit may recur into the window whenever it started.
            if let from, record.dateFinish <= from, record.recurrence == nil,
                !(record.dateFinish == record.dateStart && record.dateStart >= from)
            {
                return false
            }
            return search.map { Rules.matches(record, search: $0) } ?? true
        }.sorted { ($0.dateStart, $0.dateFinish, $0.id) < ($1.dateStart, $1.dateFinish, $1.id) }
    }

    public func add(_ asked: TaskRecord) throws(DiaryError) -> TaskRecord {
        var record = asked
        try Rules.validate(record)
        return try locked { () throws(DiaryError) -> TaskRecord in
            let existing = try writable().map(\.record)
            if record.id <= 0 {
                record.id = try freshID(existing)
            } else if let taken = existing.first(where: { $0.id == record.id }) {
                throw .invalid([
                    Problem(
                        field: "id", "\(record.id) is already used by \(DiaryError.describe(taken))"
                    )
                ])
            }
            if Rules.needsIDs(record) {
                var next = max(try freshID(existing), record.id + 1)
                Rules.giveIDs(to: &record, from: &next)
            }
            let pairs = try Rules.collisions(of: record, in: Rules.units(existing))
            if let first = pairs.first {
                var mine = first.mine
                if asked.id <= 0 { mine.id = 0 }
                throw .conflict(mine, with: pairs.map(\.other))
            }
            try write([record], to: fileName(for: record))
            try noteGiven(Rules.highestID(in: record))
            return record
        }
    }

    public func update(_ record: TaskRecord) throws(DiaryError) {
        try Rules.validate(record)
        try locked { () throws(DiaryError) in
            let loaded = try writable()
            let old = loaded.filter { $0.record.id == record.id }
            guard !old.isEmpty else { throw .notFound(record.id) }
            // The entry's records with this one in its place (the entry, or one occurrence);
            // a series moved takes its changed occurrences along.
            var record = record
            if Rules.needsIDs(record) {
                var next = try freshID(loaded.map(\.record))
                Rules.giveIDs(to: &record, from: &next)
            }
            var changes = old.map(\.record).filter { $0.recurrenceID != nil }
            var movedChanges: [TaskRecord] = []
            if record.recurrenceID == nil,
                let series = old.map(\.record).first(where: { $0.recurrenceID == nil })
            {
                let moved = Rules.moving(from: series, to: record, changes: changes)
                record = moved.series
                if moved.changes != changes {
                    for change in moved.changes { try Rules.validate(change) }
                    movedChanges = moved.changes
                    changes = moved.changes
                }
            }
            let group = Rules.group(
                old.map(\.record).filter { $0.recurrenceID == nil } + changes, with: record)
            let others = Rules.units(loaded.map(\.record))
            let units = Rules.units(group)
            for change in movedChanges {
                let pairs = try Rules.collisions(of: change, in: others)
                if let first = pairs.first { throw .conflict(first.mine, with: pairs.map(\.other)) }
            }
            let unit = units.first { $0.recurrenceID == record.recurrenceID } ?? record
            let pairs = try Rules.collisions(of: unit, in: others)
            if let first = pairs.first { throw .conflict(first.mine, with: pairs.map(\.other)) }
            let name = fileName(for: group[0])
            try write(group, to: name)
            for file in Set(old.map(\.file)) where file != name {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
            }
            // Its own id was given when it was added; subtasks may bring new ones.
            if !record.subtasks.isEmpty { try noteGiven(Rules.highestID(in: record)) }
        }
    }

    public func delete(_ id: Int64) throws(DiaryError) {
        try locked { () throws(DiaryError) in
            // Every file that holds a record of the entry (its changed occurrences with it).
            let files = Set(try readable().filter { $0.record.id == id }.map(\.file)).sorted()
            guard !files.isEmpty else { throw .notFound(id) }
            for file in files {
                do {
                    try FileManager.default.removeItem(at: directory.appendingPathComponent(file))
                } catch {
                    throw .storage("cannot delete \(file): \(error.localizedDescription)")
                }
            }
        }
    }

    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        try importing(records, skipConflicts: skipConflicts, newIDs: newIDs, replacing: nil)
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        _ = try importing(
            records.map { IncomingRecord($0, source: "#\(id)") }, skipConflicts: false,
            newIDs: false, replacing: id)
    }

    /// An import, under the lock, all or nothing; `replacing` an entry, whose records leave
    /// the diary in the same write (its old file goes, unless the new one takes its name).
    func importing(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool, replacing: Int64?
    ) throws(DiaryError) -> ImportResult {
        try locked { () throws(DiaryError) -> ImportResult in
            let all = try writable()
            var leaving: [String] = []
            if let replacing {
                leaving = Array(Set(all.filter { $0.record.id == replacing }.map(\.file))).sorted()
                if leaving.isEmpty { throw .notFound(replacing) }
            }
            let existing = all.filter { $0.record.id != replacing }.map(\.record)
            let byID = Dictionary(
                existing.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let store = StoreIndex(existing)
            let plan = try ImportPlan(
                records, newIDs: newIDs, nextID: try freshID(existing),
                storeLastFinish: store.lastFinish,
                idTaken: { (id: Int64) throws(DiaryError) -> TaskRecord? in byID[id] },
                storeCollisions: {
                    (record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
                        -> [TaskRecord] in
                    try store.collisions(of: record, occurrences: occurrences)
                })
            if !plan.problems.isEmpty && !skipConflicts { throw .importRefused(plan.problems) }
            // One file an entry: its records share a UID, so a file name.
            var groups: [[TaskRecord]] = []
            var groupOf: [Int64: Int] = [:]
            for record in plan.accepted {
                if let index = groupOf[record.id] {
                    groups[index].append(record)
                } else {
                    groupOf[record.id] = groups.count
                    groups.append([record])
                }
            }
            // The entry first, then its changes by original start (the plan let no two
            // records of one entry change the same occurrence).
            for index in groups.indices {
                groups[index].sort {
                    ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
                }
            }
            let files = groups.map { ($0, fileName(for: $0[0])) }
            try commit(
                files, removing: leaving.filter { old in !files.contains { $0.1 == old } },
                failure: replacing == nil ? "nothing was imported" : "nothing was changed")
            try noteGiven(plan.accepted.map(Rules.highestID).max() ?? 0)
            return ImportResult(imported: plan.accepted.map(\.id), skipped: plan.problems)
        }
    }

    /// Writes each group of records (one entry's) to its file, and `state` when given, all
    /// or nothing: everything under temporary names first, then a list of them, then the
    /// renames, which a writer that finds the list left by a killed process completes.
    func commit(
        _ groups: [(records: [TaskRecord], file: String)], removing: [String] = [],
        state: State? = nil, failure: String
    ) throws(DiaryError) {
        var moves: [(String, String)] = []
        do throws(DiaryError) {
            for (index, group) in groups.enumerated() {
                let temporary = ".taskcal-import-\(getpid())-\(index).tmp"
                try write(group.records, to: temporary)
                moves.append((temporary, group.file))
            }
            if let state {
                let temporary = ".taskcal-import-\(getpid())-state.tmp"
                try Self.writeState(state, at: directory.appendingPathComponent(temporary).path)
                moves.append((temporary, Self.stateFile(directory).lastPathComponent))
            }
        } catch {
            // A full disk, a size limit: the files written so far go, the diary stays.
            for (temporary, _) in moves {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(temporary))
            }
            throw .storage("\(failure): \(error.description)")
        }
        // A file that goes is renamed out of the way, to a name the debris sweep removes.
        let removals = removing.enumerated().map {
            ($0.element, ".taskcal-import-\(getpid())-gone-\($0.offset).tmp")
        }
        let list = (moves + removals).map { "\($0.0)\t\($0.1)" }.joined(separator: "\n") + "\n"
        // Whole and synced before any rename, like every file it names (each written through
        // OutputFile): a crash of the machine after this line finds the list and the files
        // whole, and the next writer completes the renames. Its temporary file
        // (`..taskcal-pending.taskcal-XXXXXX`) is one the debris sweep knows.
        do {
            try OutputFile.writeWhole(Array(list.utf8), to: pendingList.path, mode: 0o600)
        } catch {
            for (file, _) in moves {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
            }
            throw .storage("\(failure): \(error.description)")
        }
        try finishPendingImport()
    }

    public func setting(_ name: String) throws(DiaryError) -> String? {
        try Self.readState(directory)?.settings?[name]
    }

    public func rewrite(_ records: [TaskRecord], settings: [String: String?]) throws(DiaryError) {
        try locked { () throws(DiaryError) in
            // Each entry stays in the file it is in (another program may have named it).
            var groups: [Int64: (records: [TaskRecord], file: String)] = [:]
            for (record, file) in try writable() {
                groups[record.id, default: ([], file)].records.append(record)
            }
            var changed: [Int64] = []
            for record in records {
                guard let members = groups[record.id]?.records,
                    let index = members.firstIndex(where: { $0.recurrenceID == record.recurrenceID }
                    )
                else { throw .notFound(record.id) }
                try Rules.validateRewrite(record, replacing: members[index])
                groups[record.id]!.records[index] = record
                if !changed.contains(record.id) { changed.append(record.id) }
            }
            guard var state = try Self.readState(directory) else {
                throw .storage("\(Self.stateFile(directory).path) is missing")
            }
            var kept = state.settings ?? [:]
            for (name, value) in settings { kept[name] = value }
            state.settings = kept.isEmpty ? nil : kept
            let files = changed.map { id in
                let group = groups[id]!
                return (
                    group.records.sorted {
                        ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
                    }, group.file
                )
            }
            try commit(files, state: state, failure: "nothing was changed")
        }
    }

    public func check() throws(DiaryError) -> [String] {
        var problems: [String] = []
        if FileManager.default.fileExists(atPath: pendingList.path) {
            problems.append("an import was interrupted; the next write completes it")
        }
        let leftovers = debris()
        if !leftovers.isEmpty {
            problems.append(
                "\(leftovers.count) temporary file\(leftovers.count == 1 ? "" : "s") an interrupted write left (\(leftovers.prefix(3).joined(separator: ", "))\(leftovers.count > 3 ? ", …" : "")); the next write removes them"
            )
        }
        let records: [TaskRecord]
        let loaded: (entries: [(record: TaskRecord, file: String)], unreadable: [Unreadable])
        do {
            loaded = try load()
            records = loaded.entries.map(\.record)
            problems += loaded.unreadable.map {
                $0.mayHoldEntry
                    ? "\($0.problem) (writes are refused until it is fixed or removed)" : $0.problem
            }
        } catch {
            return problems + [error.description]
        }
        let units = Rules.units(records)
        let occupying = units.filter { $0.occupiesTime && $0.recurrence == nil }
        problems += Rules.habitProblems(
            series: units.filter { $0.occupiesTime && $0.recurrence != nil }, singles: occupying)
        problems += Rules.singleProblems(
            occupying.map { (id: $0.id, start: $0.dateStart, finish: $0.dateFinish) })
        var fileOf: [Int64: String] = [:]
        for (record, file) in loaded.entries {
            if let other = fileOf[record.id], other != file {
                problems.append("id \(record.id) is used by two files (\(other), \(file))")
            }
            fileOf[record.id] = fileOf[record.id] ?? file
        }
        return problems
    }
}
