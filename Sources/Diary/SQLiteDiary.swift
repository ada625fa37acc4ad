import Foundation
import GRDB
import TaskConversion
import TaskModel

/// The default diary: one SQLite file, through GRDB.
///
/// The schema keeps the rules the database can keep (`CHECK`s, `NOT NULL`) and an index on
/// the start of the entries that occupy time. Because those entries never overlap, sorted by
/// start they are sorted by finish too, so the only entries a new one can collide with are the
/// few just before its finish: one index seek (O(log n)) and a short walk back.
///
/// Every write runs in a `BEGIN IMMEDIATE` transaction (GRDB's default for writes), so the
/// overlap check and the write see the same state even with several processes; a second
/// writer waits (busy timeout) rather than failing.
public final class SQLiteDiary: DiaryStore {
    let pool: any DatabaseWriter
    public let path: String
    public let uidScheme: UIDScheme

    /// Opens (or creates) the diary at `path` and brings its schema up to date.
    ///
    /// A diary is private: a new file is made readable by its owner only (0600; SQLite gives
    /// its `-wal` and `-shm` files the same mode), and new folders for it 0700.
    public init(path: String) throws(DiaryError) {
        self.path = path
        do {
            // A bare file name (`diary.sqlite`) lives in the current folder, which exists.
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
                isFolder.boolValue
            {
                throw DiaryError.storage(
                    "\(path) is a folder; a SQLite diary is a file (for a folder of .ics files, use --store vdir:\(path))"
                )
            }
            if !FileManager.default.fileExists(atPath: path) {
                let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if descriptor >= 0 {
                    fchmod(descriptor, 0o600)
                    close(descriptor)
                }
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            // What an entry held before it was sealed, changed or deleted is overwritten,
            // not left in free pages of the file.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
            pool = try Self.openMigrated(path, configuration)
            uidScheme = try Self.scheme(pool, fallback: path)
        } catch let error as DiaryError {
            throw error
        } catch {
            throw .storage("cannot open the diary \(path): \(Self.describe(error))")
        }
    }

    /// Opens the file and brings its schema up to date.
    ///
    /// Several processes may open a new diary at once, and GRDB's migrator looks at what was
    /// applied before it writes: all but one of them then meet the tables the first made
    /// ("already exists", a unique `grdb_migrations` row) or its lock while it makes them.
    /// Each migration is one transaction, so such a loser wrote nothing: it opens again and
    /// finds the schema made (8 processes adding to a new diary at once failed 1 in 16 before).
    static func openMigrated(_ path: String, _ configuration: Configuration) throws
        -> DatabasePool
    {
        var attempt = 0
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try migrator.migrate(pool)
                return pool
            } catch let error as DatabaseError
                where attempt < 20
                && [.SQLITE_ERROR, .SQLITE_CONSTRAINT, .SQLITE_BUSY, .SQLITE_LOCKED]
                    .contains(error.resultCode)
            {
                attempt += 1
                usleep(useconds_t(20_000 * attempt))
            }
        }
    }

    /// A diary that lives in memory only, for tests and fuzzing.
    public init(inMemory: Void) throws(DiaryError) {
        path = ":memory:"
        do {
            pool = try DatabaseQueue()
            try Self.migrator.migrate(pool)
            uidScheme = try Self.scheme(pool, fallback: path)
        } catch {
            throw .storage("cannot make a diary in memory: \(error)")
        }
    }

    static func scheme(_ database: any DatabaseWriter, fallback: String) throws -> UIDScheme {
        let identity = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'identity'")
        }
        return UIDScheme(namespace: identity ?? fallback)
    }

    /// What went wrong with the database, said plainly: a file that is no diary is named so.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return
                    "the file is damaged or is no SQLite database (\(error.message ?? "\(error)"))"
            case .SQLITE_FULL:
                return "the disk is full; nothing was written"
            case .SQLITE_IOERR:
                return
                    "it could not be written (\(error.message ?? "an I/O error"); the disk may be full or the file past a size limit); nothing was written"
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
                return "no permission to write it (\(error.message ?? "\(error)"))"
            default:
                return error.message ?? "\(error)"
            }
        }
        return "\(error)"
    }

    /// The `occurrence` of an entry's own row: below every changed occurrence's original start.
    static let entryItself = Int64.min

    /// The original starts of the changed occurrences of every entry that has some.
    static func changedOccurrences(_ db: Database) throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT id, recurrence_id FROM entry WHERE recurrence_id IS NOT NULL"))
        for row in rows { result[row["id"], default: []].append(row["recurrence_id"]) }
        return result
    }

    /// The next fresh id: above every id the diary ever gave, never one that was deleted.
    ///
    /// The highest id given is the larger of the `highest_id` noted in `meta` and the highest
    /// id present: an add whose ids are all entries' ids leaves `meta` alone (one page less
    /// written per add), and every id that leaves the table or lives only inside a record (a
    /// deleted entry, a subtask) is noted there.
    static func freshID(_ db: Database) throws -> Int64 {
        // A cached statement: preparing one costs more than running it.
        try Int64.fetchOne(db.cachedStatement(sql: freshIDQuery)) ?? 1
    }

    /// SQL for ``freshID(_:)``.
    static let freshIDQuery = """
        SELECT max(coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'highest_id'), 0),
            coalesce((SELECT max(id) FROM entry), 0)) + 1
        """

    /// Whether something may be in the way of an entry (?1 its id, ?2 its finish, ?3 its
    /// start): 2 when a habit starts before it ends, plus 1 when the single entry that
    /// starts last before its finish ends after its start.
    static let wayQuery = """
        SELECT 2 * EXISTS (SELECT 1 FROM entry INDEXED BY entry_repeating
                WHERE repeats = 1 AND id != ?1 AND date_start < ?2)
            + coalesce((SELECT date_finish > ?3 FROM entry INDEXED BY entry_occupied_by_start
                WHERE occupies = 1 AND date_start < ?2 AND id != ?1
                ORDER BY date_start DESC, date_finish DESC LIMIT 1), 0)
        """

    /// SQL for ``prelude(for:_:)``: ``freshIDQuery``, then ``wayQuery``.
    static let preludeQuery = freshIDQuery + "\nUNION ALL\n" + wayQuery

    /// Notes that ids up to `id` were given.
    static func noteGiven(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE meta SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT)
                WHERE key = 'highest_id'
                """
        ).execute(arguments: [id])
    }

    // MARK: - Reading

    static func record(_ row: Row) throws(DiaryError) -> TaskRecord {
        let text: String = row["record"]
        do {
            return try TaskJSON.decodeLine(Data(text.utf8)).get()
        } catch {
            throw .storage("entry #\(row["id"] as Int64) cannot be read back: \(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(DiaryError) -> T {
        do {
            // A reader connection, outside any transaction until ours begins.
            return try pool.unsafeRead { db in try Self.transaction(.deferred, db, body) }
        } catch let error as DiaryError {
            throw error
        } catch {
            throw .storage("cannot read the diary \(path): \(Self.describe(error))")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(DiaryError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try Self.transaction(.immediate, db, body)
            }
        } catch let error as DiaryError {
            throw error
        } catch {
            throw .storage("cannot write the diary \(path): \(Self.describe(error))")
        }
    }

    /// `body` in one transaction (IMMEDIATE to write, DEFERRED to read a consistent
    /// snapshot), committed when it returns and rolled back when it throws: what GRDB's
    /// `write` and `read` do, with the BEGIN and COMMIT prepared once per connection instead
    /// of for every call (compiling the two was a seventh of an add's time).
    static func transaction<T>(
        _ kind: Database.TransactionKind, _ db: Database, _ body: (Database) throws -> T
    ) throws -> T {
        try db.cachedStatement(sql: "BEGIN \(kind.rawValue) TRANSACTION").execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // A failed COMMIT (SQLITE_BUSY, a full disk) or an error SQLite rolled back on
            // its own may leave no transaction open.
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    public func entry(_ id: Int64) throws(DiaryError) -> TaskRecord {
        try read { db in try Self.find(id, db) }
    }

    /// The entry `id` (its first changed occurrence when only changes of it came in).
    static func find(_ id: Int64, _ db: Database) throws -> TaskRecord {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT id, record FROM entry WHERE id = ? ORDER BY occurrence LIMIT 1"),
                arguments: [id])
        else {
            throw DiaryError.notFound(id)
        }
        return try record(row)
    }

    public func entries(from: Int64?, to: Int64?, search: String?) throws(DiaryError)
        -> [TaskRecord]
    {
        try read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            if let to {
                conditions.append("date_start < ?")
                arguments.append(to)
            }
            if let from {
                // A habit may recur into the window whenever it started.
                conditions.append(
                    "(repeats = 1 OR date_finish > ? OR (date_finish = date_start AND date_start >= ?))"
                )
                arguments += [from, from]
            }
            let order = "ORDER BY date_start, date_finish, id, recurrence_id"
            let rows: [Row]
            if to == nil {
                let filter =
                    conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
                rows = try Row.fetchAll(
                    db, sql: "SELECT id, record FROM entry\(filter) \(order)",
                    arguments: StatementArguments(arguments))
            } else {
                // Entries that occupy time and those that do not have an index on their
                // start each: one range in each.
                let filter = conditions.joined(separator: " AND ")
                let columns = "id, record, date_start, date_finish, recurrence_id"
                rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(columns) FROM entry WHERE occupies = 1 AND \(filter)
                        UNION ALL
                        SELECT \(columns) FROM entry WHERE occupies = 0 AND \(filter)
                        \(order)
                        """,
                    arguments: StatementArguments(arguments + arguments))
            }
            // SQLite's lower() knows ASCII only: the search is made on the records.
            return try rows.map { row throws in try Self.record(row) }.filter { record in
                search.map { Rules.matches(record, search: $0) } ?? true
            }
        }
    }

    // MARK: - Writing

    static func insert(_ record: TaskRecord, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO entry (id, occurrence, date_start, date_finish, name, description, occupies, repeats, record)
                VALUES (?, coalesce(?, \(entryItself)), ?, ?, ?, ?, ?, ?, ?)
                """)
        try BoundStatement.run(statement) { values in record.bindEntryColumns(to: &values) }
    }

    /// What an add needs to know before it inserts, in one statement: the next fresh id, and
    /// whether `record` is clear of every other entry, so that most adds skip the overlap
    /// queries. It is clear when it does not repeat, no habit starts before it ends, and the
    /// single entry that starts last before its finish has ended by its start: single entries
    /// never overlap, so none that starts before that one reaches it.
    static func prelude(for record: TaskRecord, _ db: Database) throws -> (
        fresh: Int64, clear: Bool
    ) {
        // Two rows of one integer each: the fresh id, then whether a habit starts before the
        // end (2) and whether the single entry before is in the way (1).
        var values: (fresh: Int64, way: Int64) = (0, 0)
        var rows = 0
        try BoundStatement.run(db.cachedStatement(sql: preludeQuery)) { arguments in
            arguments.bind(record.id)
            arguments.bind(record.dateFinish)
            arguments.bind(record.dateStart)
        } read: { row in
            if rows == 0 { values.fresh = row.int64(0) } else { values.way = row.int64(0) }
            rows += 1
        }
        guard rows == 2 else { return (try freshID(db), false) }
        let fresh = values.fresh
        guard record.occupiesTime else { return (fresh, true) }
        let habitBefore = values.way & 2 != 0
        let singleInTheWay = values.way & 1 != 0
        return (fresh, record.recurrence == nil && !habitBefore && !singleInTheWay)
    }

    public func add(_ asked: TaskRecord) throws(DiaryError) -> TaskRecord {
        var record = asked
        try Rules.validate(record)
        return try write { db in
            if record.id > 0, let existing = try? Self.find(record.id, db) {
                throw DiaryError.invalid([
                    Problem(
                        field: "id",
                        "\(record.id) is already used by \(DiaryError.describe(existing))")
                ])
            }
            let (fresh, clear) = try Self.prelude(for: record, db)
            if record.id <= 0 { record.id = fresh }
            if Rules.needsIDs(record) {
                var next = max(fresh, record.id + 1)
                Rules.giveIDs(to: &record, from: &next)
            }
            if !clear {
                let pairs = try Self.collisions(of: record, db)
                if let first = pairs.first {
                    var mine = first.mine
                    if asked.id <= 0 { mine.id = 0 }
                    throw DiaryError.conflict(mine, with: pairs.map(\.other))
                }
            }
            try Self.insert(record, db)
            // The entry's own id is in the table now; its subtasks' ids live in its record.
            if !record.subtasks.isEmpty { try Self.noteGiven(Rules.highestID(in: record), db) }
            return record
        }
    }

    // The statements an update and a delete run, prepared once per connection
    // (`cachedStatement`), as an add's are.
    static let changesQuery =
        "SELECT id, record FROM entry WHERE id = ? AND recurrence_id IS NOT NULL"
    static let deleteChangesQuery =
        "DELETE FROM entry WHERE id = ? AND recurrence_id IS NOT NULL"
    static let deleteOneQuery = "DELETE FROM entry WHERE id = ? AND recurrence_id IS ?"
    static let deleteEntryQuery = "DELETE FROM entry WHERE id = ?"

    public func update(_ record: TaskRecord) throws(DiaryError) {
        try Rules.validate(record)
        try write { db in
            // The entry itself, or one occurrence of it (changed before or changed now).
            let old = try Self.find(record.id, db)
            var record = record
            if Rules.needsIDs(record) {
                var next = try Self.freshID(db)
                Rules.giveIDs(to: &record, from: &next)
            }
            if record.recurrenceID == nil && old.recurrenceID == nil {
                // A series moved takes its changed occurrences along; they are put in place
                // first, so that the series' own check sees the slots they free.
                let changes = try Row.fetchAll(
                    db.cachedStatement(sql: Self.changesQuery), arguments: [record.id]
                ).map { row throws in try Self.record(row) }
                let (series, moved) = Rules.moving(from: old, to: record, changes: changes)
                record = series
                if moved != changes {
                    for change in moved { try Rules.validate(change) }
                    try db.cachedStatement(sql: Self.deleteChangesQuery)
                        .execute(arguments: [record.id])
                    for change in moved { try Self.insert(change, db) }
                    for change in moved {
                        let pairs = try Self.collisions(of: change, db)
                        if let first = pairs.first {
                            throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
                        }
                    }
                }
            }
            let pairs = try Self.collisions(of: record, db)
            if let first = pairs.first {
                throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
            }
            try db.cachedStatement(sql: Self.deleteOneQuery)
                .execute(arguments: [record.id, record.recurrenceID])
            try Self.insert(record, db)
            // Its own id was given when it was added; subtasks may bring new ones.
            if !record.subtasks.isEmpty { try Self.noteGiven(Rules.highestID(in: record), db) }
        }
    }

    public func delete(_ id: Int64) throws(DiaryError) {
        try write { db in
            try db.cachedStatement(sql: Self.deleteEntryQuery).execute(arguments: [id])
            if db.changesCount == 0 { throw DiaryError.notFound(id) }
            // Gone from the table, the id is kept from being given again by the note.
            try Self.noteGiven(id, db)
        }
    }

    public func setting(_ name: String) throws(DiaryError) -> String? {
        try read { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM meta WHERE key = ?", arguments: ["setting." + name])
        }
    }

    public func rewrite(_ records: [TaskRecord], settings: [String: String?]) throws(DiaryError) {
        try write { db in
            for record in records {
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT id, record FROM entry WHERE id = ? AND recurrence_id IS ?",
                        arguments: [record.id, record.recurrenceID])
                else { throw DiaryError.notFound(record.id) }
                try Rules.validateRewrite(record, replacing: try Self.record(row))
                try db.execute(
                    sql: """
                        UPDATE entry SET name = ?, description = ?, record = ?
                        WHERE id = ? AND recurrence_id IS ?
                        """,
                    arguments: [
                        record.name, record.description, record.jsonLine, record.id,
                        record.recurrenceID,
                    ])
            }
            for (name, value) in settings {
                if let value {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        arguments: ["setting." + name, value])
                } else {
                    try db.execute(
                        sql: "DELETE FROM meta WHERE key = ?", arguments: ["setting." + name])
                }
            }
        }
    }

    public func check() throws(DiaryError) -> [String] {
        try read { db in
            var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter {
                $0 != "ok"
            }
            // The invariant the overlap check relies on: occupying entries never overlap.
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, date_start, date_finish FROM entry WHERE occupies = 1")
            problems += Rules.singleProblems(
                rows.map { (id: $0["id"], start: $0["date_start"], finish: $0["date_finish"]) })
            let changed = try Self.changedOccurrences(db)
            let series = try Row.fetchAll(
                db, sql: "SELECT id, record FROM entry WHERE repeats = 1"
            ).compactMap { (try? Self.record($0)).map { Rules.unit($0, changed: changed) } }
            if !series.isEmpty {
                let singles = try Row.fetchAll(
                    db, sql: "SELECT id, record FROM entry WHERE occupies = 1"
                ).compactMap { try? Self.record($0) }
                problems += Rules.habitProblems(series: series, singles: singles)
            }
            let unreadable = try Row.fetchAll(db, sql: "SELECT id, record FROM entry").filter {
                (try? TaskJSON.decodeLine(Data(($0["record"] as String).utf8)).get()) == nil
            }
            problems += unreadable.map {
                "entry #\($0["id"] as Int64) holds a record that cannot be read"
            }
            return problems
        }
    }
}
