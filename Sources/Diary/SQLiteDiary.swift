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
    private let pool: any DatabaseWriter
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
    private static func openMigrated(_ path: String, _ configuration: Configuration) throws
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

    private static func scheme(_ database: any DatabaseWriter, fallback: String) throws -> UIDScheme
    {
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

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: entries") { db in
            try db.create(table: "entry") { table in
                table.primaryKey("id", .integer)
                table.column("date_start", .integer).notNull()
                table.column("date_finish", .integer).notNull()
                table.column("name", .text).notNull().check { length($0) > 0 }
                table.column("description", .text)
                // Whether the entry blocks its time (not cancelled, not free, not empty).
                table.column("occupies", .boolean).notNull()
                // The whole record in the task format: attachments and alarms come back unchanged.
                table.column("record", .text).notNull()
                table.check(sql: "date_finish >= date_start")
            }
            try db.create(index: "entry_by_start", on: "entry", columns: ["date_start"])
            try db.create(
                index: "entry_occupied_by_start", on: "entry",
                columns: ["date_start", "date_finish"],
                condition: Column("occupies") == true)
        }
        // Repeating entries (habits) are checked occurrence by occurrence; they stay out of
        // the single-entry index ("occupies" is false for them), whose invariant is that its
        // entries never overlap.
        migrator.registerMigration("v2: repeating entries") { db in
            try db.alter(table: "entry") { table in
                table.add(column: "repeats", .boolean).notNull().defaults(to: false)
            }
            try db.create(
                index: "entry_repeating", on: "entry", columns: ["date_start"],
                condition: Column("repeats") == true)
        }
        // The diary's identity (its UIDs' namespace), and the highest id ever given, so that
        // a deleted entry's id (and UID, which a calendar app may still hold) is never reused.
        // Entries that were exported before keep the UIDs they had.
        migrator.registerMigration("v3: identity") { db in
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('identity', ?), ('highest_id', ?)",
                arguments: [
                    DiaryIdentity.make(),
                    String(try Int64.fetchOne(db, sql: "SELECT max(id) FROM entry") ?? 0),
                ])
            let rows = try Row.fetchAll(db, sql: "SELECT id, record FROM entry")
            for row in rows {
                guard
                    var record = try? TaskJSON.decodeLine(Data((row["record"] as String).utf8))
                        .get(),
                    record.uid == nil
                else { continue }
                record.uid = UIDScheme().uid(for: record.id)
                try db.execute(
                    sql: "UPDATE entry SET record = ? WHERE id = ?",
                    arguments: [record.jsonLine, record.id])
            }
        }
        // An entry is a group of rows with one id: the entry (recurrence_id NULL) and the
        // changed occurrences of a repeating entry that an import brought (one row each,
        // with the original start they replace). SQLite cannot change a primary key in
        // place, so the table is made anew.
        migrator.registerMigration("v4: changed occurrences") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entry_v4 (
                        row INTEGER PRIMARY KEY,
                        id INTEGER NOT NULL,
                        recurrence_id INTEGER,
                        date_start INTEGER NOT NULL,
                        date_finish INTEGER NOT NULL,
                        name TEXT NOT NULL CHECK (length(name) > 0),
                        description TEXT,
                        occupies BOOLEAN NOT NULL,
                        repeats BOOLEAN NOT NULL DEFAULT 0,
                        record TEXT NOT NULL,
                        CHECK (date_finish >= date_start));
                    INSERT INTO entry_v4
                        (id, recurrence_id, date_start, date_finish, name, description, occupies, repeats, record)
                        SELECT id, NULL, date_start, date_finish, name, description, occupies, repeats, record
                        FROM entry;
                    DROP TABLE entry;
                    ALTER TABLE entry_v4 RENAME TO entry;
                    CREATE UNIQUE INDEX entry_key ON entry (id, coalesce(recurrence_id, -9223372036854775808));
                    CREATE INDEX entry_by_start ON entry (date_start);
                    CREATE INDEX entry_occupied_by_start ON entry (date_start, date_finish) WHERE occupies = 1;
                    CREATE INDEX entry_repeating ON entry (date_start) WHERE repeats = 1;
                    CREATE INDEX entry_changed ON entry (id) WHERE recurrence_id IS NOT NULL;
                    """)
        }
        // Subtasks have ids of their own, inside their entry's record: the highest id given
        // takes them in, so that no new entry gets the id of a subtask.
        migrator.registerMigration("v5: subtask ids") { db in
            var highest: Int64 = 0
            for row in try Row.fetchAll(db, sql: "SELECT id, record FROM entry") {
                if let record = try? Self.record(row) {
                    highest = max(highest, Rules.highestID(in: record))
                }
            }
            try Self.noteGiven(highest, db)
        }
        // One index less to write per add: the entries that occupy time are found by their
        // start in entry_occupied_by_start already, so the index on every entry's start
        // becomes one on the others' only.
        migrator.registerMigration("v6: index of free entries") { db in
            try db.execute(
                sql: """
                    DROP INDEX entry_by_start;
                    CREATE INDEX entry_free_by_start ON entry (date_start) WHERE occupies = 0;
                    """)
        }
        // Rows kept in the order of their key (id, then the original start of a changed
        // occurrence, the entry itself first) instead of a row number with a unique index
        // on that key beside it: an add writes one b-tree less. recurrence_id stays a
        // column to read and filter by, computed from the key.
        migrator.registerMigration("v7: entries by id") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entry_v7 (
                        id INTEGER NOT NULL,
                        occurrence INTEGER NOT NULL,
                        recurrence_id INTEGER
                            GENERATED ALWAYS AS (nullif(occurrence, \(Self.entryItself))) VIRTUAL,
                        date_start INTEGER NOT NULL,
                        date_finish INTEGER NOT NULL,
                        name TEXT NOT NULL CHECK (length(name) > 0),
                        description TEXT,
                        occupies BOOLEAN NOT NULL,
                        repeats BOOLEAN NOT NULL DEFAULT 0,
                        record TEXT NOT NULL,
                        CHECK (date_finish >= date_start),
                        PRIMARY KEY (id, occurrence)) WITHOUT ROWID;
                    INSERT INTO entry_v7
                        (id, occurrence, date_start, date_finish, name, description, occupies, repeats, record)
                        SELECT id, coalesce(recurrence_id, \(Self.entryItself)), date_start, date_finish,
                            name, description, occupies, repeats, record
                        FROM entry;
                    DROP TABLE entry;
                    ALTER TABLE entry_v7 RENAME TO entry;
                    CREATE INDEX entry_free_by_start ON entry (date_start) WHERE occupies = 0;
                    CREATE INDEX entry_occupied_by_start ON entry (date_start, date_finish) WHERE occupies = 1;
                    CREATE INDEX entry_repeating ON entry (date_start) WHERE repeats = 1;
                    CREATE INDEX entry_changed ON entry (id) WHERE recurrence_id IS NOT NULL;
                    """)
        }
        return migrator
    }

    /// The `occurrence` of an entry's own row: below every changed occurrence's original start.
    private static let entryItself = Int64.min

    /// The original starts of the changed occurrences of every entry that has some.
    private static func changedOccurrences(_ db: Database) throws -> [Int64: [Int64]] {
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
    private static func freshID(_ db: Database) throws -> Int64 {
        // A cached statement: preparing one costs more than running it.
        try Int64.fetchOne(db.cachedStatement(sql: freshIDQuery)) ?? 1
    }

    /// SQL for ``freshID(_:)``.
    private static let freshIDQuery = """
        SELECT max(coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'highest_id'), 0),
            coalesce((SELECT max(id) FROM entry), 0)) + 1
        """

    /// Whether something may be in the way of an entry (?1 its id, ?2 its finish, ?3 its
    /// start): 2 when a habit starts before it ends, plus 1 when the single entry that
    /// starts last before its finish ends after its start.
    private static let wayQuery = """
        SELECT 2 * EXISTS (SELECT 1 FROM entry INDEXED BY entry_repeating
                WHERE repeats = 1 AND id != ?1 AND date_start < ?2)
            + coalesce((SELECT date_finish > ?3 FROM entry INDEXED BY entry_occupied_by_start
                WHERE occupies = 1 AND date_start < ?2 AND id != ?1
                ORDER BY date_start DESC, date_finish DESC LIMIT 1), 0)
        """

    /// SQL for ``prelude(for:_:)``: ``freshIDQuery``, then ``wayQuery``.
    private static let preludeQuery = freshIDQuery + "\nUNION ALL\n" + wayQuery

    /// Notes that ids up to `id` were given.
    private static func noteGiven(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE meta SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT)
                WHERE key = 'highest_id'
                """
        ).execute(arguments: [id])
    }

    // MARK: - Reading

    private static func record(_ row: Row) throws(DiaryError) -> TaskRecord {
        let text: String = row["record"]
        do {
            return try TaskJSON.decodeLine(Data(text.utf8)).get()
        } catch {
            throw .storage("entry #\(row["id"] as Int64) cannot be read back: \(error)")
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(DiaryError) -> T {
        do {
            // A reader connection, outside any transaction until ours begins.
            return try pool.unsafeRead { db in try Self.transaction(.deferred, db, body) }
        } catch let error as DiaryError {
            throw error
        } catch {
            throw .storage("cannot read the diary \(path): \(Self.describe(error))")
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(DiaryError) -> T {
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
    private static func transaction<T>(
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
    private static func find(_ id: Int64, _ db: Database) throws -> TaskRecord {
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

    /// The entries that occupy time and overlap `record` (other than itself), earliest first,
    /// each paired with the occurrence of `record` it meets (`record` itself when it does
    /// not repeat). A repeating entry in the way is named by its colliding occurrence.
    static func collisions(of asked: TaskRecord, _ db: Database) throws -> [(
        mine: TaskRecord, other: TaskRecord
    )] {
        guard asked.occupiesTime else { return [] }
        // Habits that start before this entry ends (all of them for a habit, which repeats).
        let habits = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, record FROM entry INDEXED BY entry_repeating
                    WHERE repeats = 1 AND id != ? AND date_start < ?
                    """),
            arguments: [
                asked.id, asked.recurrence == nil ? asked.dateFinish : Int64.max,
            ]
        ).map { row throws in try Self.record(row) }
        // Changed occurrences matter only where something repeats: most adds skip the query.
        let changed =
            habits.isEmpty && asked.recurrence == nil ? [:] : try changedOccurrences(db)
        let record = Rules.unit(asked, changed: changed)
        let series = habits.map { Rules.unit($0, changed: changed) }
        var occurrences = [record]
        if record.recurrence != nil {
            // Each occurrence against the single entries, up to the last of them.
            let last =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT max(date_finish) FROM entry WHERE occupies = 1"))
                ?? record.dateStart
            let end =
                Expansion.lastFinish(of: record)
                ?? max(last, record.dateStart + Expansion.habitHorizon)
            let window = record.dateStart..<max(end, record.dateStart + 1)
            do {
                occurrences = try Expansion.occupying(record, in: window)
            } catch let error where error.cut == .limit || error.cut == .work {
                // Too many occurrences to list up to the last entry (an hourly habit and an
                // entry years ahead): compare the habit with each single entry in its reach.
                return try collisions(of: record, eachSingleIn: window, series: series, db)
            } catch {
                throw Rules.refusal(of: record, error)
            }
        }
        return try collisions(of: record, occurrences: occurrences, series: series, db)
    }

    /// ``collisions(of:_:)`` for a habit with more occurrences than one expansion may list:
    /// each single entry in `window` against the occurrences of `record` around it (a few
    /// each), at most ten collisions.
    private static func collisions(
        of record: TaskRecord, eachSingleIn window: Range<Int64>, series: [TaskRecord],
        _ db: Database
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try collisions(of: record, occurrences: [], series: series, db)
        // The single entry running at the window's start (they never overlap: at most one),
        // then those that start in it, in order.
        let before = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, date_start, date_finish FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start < ? ORDER BY date_start DESC LIMIT 1
                    """),
            arguments: [window.lowerBound])
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, date_start, date_finish FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start >= ? AND date_start < ? ORDER BY date_start
                    """),
            arguments: [window.lowerBound, window.upperBound])
        var pending = before[...]
        while found.count < 10, let row = try pending.popFirst() ?? rows.next() {
            let single = TaskRecord(
                id: row["id"], dateStart: row["date_start"], dateFinish: row["date_finish"],
                name: "")
            guard single.id != record.id, single.dateFinish > window.lowerBound else { continue }
            let pair: (TaskRecord, TaskRecord)?
            do {
                pair = try Expansion.collisions(record, single, limit: 1).first
            } catch {
                throw Rules.refusal(of: record, error)
            }
            if let (mine, _) = pair { found.append((mine, try find(single.id, db))) }
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// ``collisions(of:_:)`` for a record whose occurrences are known, against these habits.
    static func collisions(
        of record: TaskRecord, occurrences: [TaskRecord], series: [TaskRecord], _ db: Database
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try Rules.collisions(of: record, in: series)
        for occurrence in occurrences {
            found += try singles(overlapping: occurrence, db).map { (occurrence, $0) }
            if found.count >= 10 { break }
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// The single (non-repeating) entries that occupy time and overlap `record`.
    private static func singles(overlapping record: TaskRecord, _ db: Database) throws
        -> [TaskRecord]
    {
        // Occupying entries never overlap, so walking back from the last one that starts
        // before our finish, every entry that still ends after our start collides, and the
        // first one that does not ends the walk.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, date_finish, record FROM entry INDEXED BY entry_occupied_by_start
                    WHERE occupies = 1 AND date_start < ? ORDER BY date_start DESC, date_finish DESC
                    """),
            arguments: [record.dateFinish])
        var found: [TaskRecord] = []
        while let row = try rows.next() {
            let finish: Int64 = row["date_finish"]
            let id: Int64 = row["id"]
            if id == record.id { continue }
            guard finish > record.dateStart else { break }
            found.append(try Self.record(row))
        }
        return found.reversed()
    }

    private static func insert(_ record: TaskRecord, _ db: Database) throws {
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
    private static func prelude(for record: TaskRecord, _ db: Database) throws -> (
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
    private static let changesQuery =
        "SELECT id, record FROM entry WHERE id = ? AND recurrence_id IS NOT NULL"
    private static let deleteChangesQuery =
        "DELETE FROM entry WHERE id = ? AND recurrence_id IS NOT NULL"
    private static let deleteOneQuery = "DELETE FROM entry WHERE id = ? AND recurrence_id IS ?"
    private static let deleteEntryQuery = "DELETE FROM entry WHERE id = ?"

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

    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        try write { db in
            try Self.importing(records, skipConflicts: skipConflicts, newIDs: newIDs, db)
        }
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        try write { db in
            try db.cachedStatement(sql: Self.deleteEntryQuery).execute(arguments: [id])
            if db.changesCount == 0 { throw DiaryError.notFound(id) }
            // Gone from the table, the id is kept from being given again by the note.
            try Self.noteGiven(id, db)
            _ = try Self.importing(
                records.map { IncomingRecord($0, source: "#\(id)") }, skipConflicts: false,
                newIDs: false, db)
        }
    }

    /// An import inside a write transaction.
    private static func importing(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool, _ db: Database
    ) throws -> ImportResult {
        do {
            let next = try Self.freshID(db)
            let changed = try Self.changedOccurrences(db)
            let series = try Row.fetchAll(
                db, sql: "SELECT id, record FROM entry WHERE repeats = 1 ORDER BY id"
            ).map { row throws in Rules.unit(try Self.record(row), changed: changed) }
            let lastFinish = try Int64.fetchOne(
                db, sql: "SELECT max(date_finish) FROM entry WHERE occupies = 1")
            let plan = try ImportPlan(
                records, newIDs: newIDs, nextID: next, storeLastFinish: lastFinish,
                idTaken: { (id: Int64) throws(DiaryError) -> TaskRecord? in
                    do { return try Self.find(id, db) } catch let error as DiaryError
                        where error == .notFound(id)
                    {
                        return nil
                    } catch { throw .storage("\(error)") }
                },
                storeCollisions: {
                    (record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
                        -> [TaskRecord] in
                    do {
                        return try Self.collisions(
                            of: record, occurrences: occurrences,
                            series: series.filter {
                                record.recurrence != nil || $0.dateStart < record.dateFinish
                            }, db
                        ).map(\.other)
                    } catch let error as DiaryError {
                        throw error
                    } catch { throw .storage("\(error)") }
                })
            if !plan.problems.isEmpty && !skipConflicts {
                throw DiaryError.importRefused(plan.problems)
            }
            for record in plan.accepted { try Self.insert(record, db) }
            if let highest = plan.accepted.map(Rules.highestID).max() {
                try Self.noteGiven(highest, db)
            }
            return ImportResult(imported: plan.accepted.map(\.id), skipped: plan.problems)
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
