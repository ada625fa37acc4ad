// Built with the PostgreSQL trait only (Package.swift): without it, this module is empty.
#if PostgreSQL

import Diary
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import TaskConversion
import TaskModel

/// A diary on a PostgreSQL server, which a team shares from many machines.
///
/// The rule that no two entries overlap is kept by the database itself where it can be: an
/// exclusion constraint over the half-open `tstzrange` of every single entry that occupies
/// time (per diary, through `btree_gist`), so two writers on two machines can never both win
/// a slot, whatever else writes to the table. Repeating entries (habits) cannot be put in a
/// constraint (their occurrences are computed from RFC 5545 rules), so the application
/// checks them occurrence by occurrence, as the SQLite diary does, and a per-diary
/// transaction-level advisory lock keeps that check safe: a write that involves a habit
/// holds it exclusively, one that does not holds it shared, so single entries are written
/// side by side (the constraint orders them) and a habit never meets a check it cannot see.
///
/// Several diaries live in one database (`?diary=NAME`), each with its own entries, ids,
/// identity (its UIDs' namespace) and rule. The schema is created and migrated by taskcal
/// (table `taskcal_schema` holds its version).
///
/// One connection per store, used by one call at a time; every call waits for the server.
public final class PostgresDiary: DiaryStore {
    public let address: PostgresAddress
    public let uidScheme: UIDScheme
    private let connection: PostgresConnection
    private let logger = Logger(
        label: "taskcal.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private let gate = NSLock()

    /// Opens the diary at `url` (`postgres://USER@HOST/DB?diary=NAME`), creating the schema
    /// and the diary when they are missing. `warn` hears what was ignored on the way (a
    /// password file others can read).
    public convenience init(url: String, warn: @Sendable (String) -> Void = { _ in })
        throws(DiaryError)
    {
        try self.init(address: PostgresAddress(url: url), warn: warn)
    }

    public init(
        address: PostgresAddress,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: @Sendable (String) -> Void = { _ in }
    ) throws(DiaryError) {
        self.address = address
        let password = address.password(environment: environment, warn: warn)
        do {
            var configuration: PostgresConnection.Configuration
            if address.isSocket {
                configuration = .init(
                    unixSocketPath: address.host + "/.s.PGSQL.\(address.port)",
                    username: address.user, password: password, database: address.database)
            } else {
                configuration = .init(
                    host: address.host, port: address.port, username: address.user,
                    password: password, database: address.database, tls: try Self.tls(address.tls))
            }
            configuration.options.connectTimeout = .seconds(Int64(address.connectTimeout))
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                id: 1, logger: logger
            ).wait()
        } catch {
            throw .storage(
                "cannot open the diary \(address): \(Self.describe(error, address: address, password: password != nil, connecting: true))"
            )
        }
        do {
            // A writer that waits longer than this for another gives up rather than hang.
            try connection.run("SET lock_timeout = '30s'", logger)
            try Self.migrate(connection, logger: logger)
            let diary = address.diary
            try connection.run(
                """
                INSERT INTO taskcal_diary (name, identity) VALUES (\(diary), \(DiaryIdentity.make()))
                ON CONFLICT (name) DO NOTHING
                """, logger)
            let identity = try connection.run(
                "SELECT identity FROM taskcal_diary WHERE name = \(diary)", logger
            ).rows.first?.decode(String.self)
            uidScheme = UIDScheme(namespace: identity ?? address.description)
        } catch let error as DiaryError {
            try? connection.close().wait()
            throw error
        } catch {
            try? connection.close().wait()
            throw .storage(
                "cannot open the diary \(address): \(Self.describe(error, address: address, password: true))"
            )
        }
    }

    deinit { try? connection.close().wait() }

    static func tls(_ mode: PostgresAddress.TLSMode) throws
        -> PostgresConnection
        .Configuration.TLS
    {
        var settings = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return .disable
        case .prefer, .require: settings.certificateVerification = .none
        case .verifyCA: settings.certificateVerification = .noHostnameVerification
        case .verifyFull: settings.certificateVerification = .fullVerification
        }
        let context = try NIOSSLContext(configuration: settings)
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    // MARK: - Calls

    /// Runs `body` with the connection to itself, errors said plainly.
    func call<T>(_ body: () throws -> T) throws(DiaryError) -> T {
        gate.lock()
        defer { gate.unlock() }
        do {
            return try body()
        } catch let error as DiaryError {
            throw error
        } catch {
            throw .storage(
                "the diary \(address): \(Self.describe(error, address: address, password: true))")
        }
    }

    @discardableResult
    func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try connection.answer(connection.send(query, logger))
    }

    /// The records a query of `id, record` rows returns.
    func records(_ query: PostgresQuery) throws -> [TaskRecord] {
        try run(query).rows.map { row in
            let (id, text) = try row.decode((Int64, String).self)
            return try Self.record(id: id, text)
        }
    }

    static func record(id: Int64, _ text: String) throws(DiaryError) -> TaskRecord {
        do {
            return try TaskJSON.decodeLine(Data(text.utf8)).get()
        } catch {
            throw .storage("entry #\(id) cannot be read back: \(error)")
        }
    }

    /// Which hold on the diary's advisory lock a write takes.
    enum Hold {
        /// Writes that involve no repeating entry: side by side, the constraint orders them.
        case shared
        /// Writes that involve a repeating entry, and imports: one at a time.
        case exclusive
    }

    /// Runs `body` in a transaction that holds the diary's lock. When the database refuses a
    /// row for the overlap rule (another writer won the slot between our check and our
    /// insert), the refusal names the entries in the way of `record`, read afresh.
    func write<T>(_ hold: Hold, for record: TaskRecord? = nil, _ body: () throws -> T)
        throws(DiaryError) -> T
    {
        try call {
            // BEGIN and the lock are sent without waiting for their answers: the connection
            // runs them in order before the body's first query, whose answer we wait for.
            let diary = address.diary
            let begin = connection.send("BEGIN", logger)
            let lock =
                switch hold {
                case .shared:
                    connection.send(
                        "SELECT pg_advisory_xact_lock_shared(\(Self.diaryLockClass), hashtext(\(diary)))",
                        logger)
                case .exclusive:
                    connection.send(
                        "SELECT pg_advisory_xact_lock(\(Self.diaryLockClass), hashtext(\(diary)))",
                        logger)
                }
            do {
                _ = try connection.answer(begin)
                _ = try connection.answer(lock)
                let result = try body()
                do {
                    try run("COMMIT")
                } catch  where Self.isConnectionLoss(error) {
                    // The server may have committed before the connection went: only a look
                    // at the diary can tell.
                    throw DiaryError.storage(
                        "the diary \(address): the connection to the server was lost as it committed, so the write may or may not have been kept; look (taskcal diary list) before trying again"
                    )
                }
                return result
            } catch {
                _ = try? run("ROLLBACK")
                guard let record, Self.isOverlapRefusal(error) else { throw error }
                let pairs = try collisions(of: record)
                guard let first = pairs.first else {
                    throw DiaryError.storage(
                        "\(DiaryError.describe(record)) was refused by the database's overlap rule, but the entry in the way is gone again; try again"
                    )
                }
                throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
            }
        }
    }

    static func isOverlapRefusal(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23P01"
    }

    /// Whether `error` ended the connection: the server went away, was shut down or ended it.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error is ConnectionLost { return true }
        guard let error = error as? PSQLError else { return false }
        if let state = error.serverInfo?[.sqlState] {
            return state.hasPrefix("08") || state.hasPrefix("57P")
        }
        return [
            .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError,
        ]
        .contains(error.code)
    }

    // MARK: - Reading

    public func entry(_ id: Int64) throws(DiaryError) -> TaskRecord {
        try call { try find(id) }
    }

    /// The entry `id` (its first changed occurrence when only changes of it came in).
    func find(_ id: Int64) throws -> TaskRecord {
        guard
            let record = try records(
                """
                SELECT id, record FROM taskcal_entry WHERE diary = \(address.diary) AND id = \(id)
                ORDER BY recurrence_id IS NOT NULL, recurrence_id LIMIT 1
                """
            ).first
        else { throw DiaryError.notFound(id) }
        return record
    }

    public func entries(from: Int64?, to: Int64?, search: String?) throws(DiaryError)
        -> [TaskRecord]
    {
        let from = from ?? Int64.min
        let to = to ?? Int64.max
        let found = try call {
            try records(
                """
                SELECT id, record FROM taskcal_entry
                WHERE diary = \(address.diary) AND date_start < \(to)
                    AND (repeats OR date_finish > \(from) OR (date_finish = date_start AND date_start >= \(from)))
                ORDER BY date_start, date_finish, id, recurrence_id NULLS FIRST
                """)
        }
        guard let search else { return found }
        return found.filter { Rules.matches($0, search: search) }
    }

    // MARK: - Writing

    func insert(_ record: TaskRecord) throws {
        try insert([record])
    }

    /// Inserts `records` a few hundred rows to a statement: an import of thousands waits for
    /// the server a few dozen times, not once a row.
    func insert(_ records: [TaskRecord]) throws {
        let columns = 10
        let rowsPerStatement = 500
        var start = records.startIndex
        while start < records.endIndex {
            let chunk = records[start..<min(start + rowsPerStatement, records.endIndex)]
            start = chunk.endIndex
            var binds = PostgresBindings(capacity: chunk.count * columns)
            var rows: [String] = []
            rows.reserveCapacity(chunk.count)
            for record in chunk {
                let first = binds.count + 1
                rows.append(
                    "(" + (first..<first + columns).map { "$\($0)" }.joined(separator: ", ") + ")")
                binds.append(address.diary)
                record.bindEntryColumns(to: &binds)
            }
            try run(
                PostgresQuery(
                    unsafeSQL: #"""
                        INSERT INTO taskcal_entry (diary, id, recurrence_id, date_start, date_finish,
                            name, description, occupies, repeats, record)
                        VALUES
                        """# + rows.joined(separator: ",\n"), binds: binds))
        }
    }

    /// Takes `count` fresh ids (above every id the diary ever gave) and returns the first.
    /// The diary's row stays locked until the transaction ends, so ids are given in turn.
    func freshIDs(_ count: Int64) throws -> Int64 {
        let diary = address.diary
        let highest =
            try run(
                """
                UPDATE taskcal_diary SET highest_id = greatest(highest_id,
                    (SELECT coalesce(max(id), 0) FROM taskcal_entry WHERE diary = \(diary))) + \(count)
                WHERE name = \(diary) RETURNING highest_id
                """
            ).rows.first?.decode(Int64.self) ?? count
        return highest - count + 1
    }

    /// Notes that ids up to `id` were given.
    func noteGiven(_ id: Int64) throws {
        try run(
            """
            UPDATE taskcal_diary SET highest_id = greatest(highest_id, \(id))
            WHERE name = \(address.diary)
            """)
    }

    /// How many subtasks of `record` have no id yet.
    static func missingIDs(_ record: TaskRecord) -> Int64 {
        record.subtasks.reduce(0) { $0 + ($1.id <= 0 ? 1 : 0) + missingIDs($1) }
    }

    public func add(_ asked: TaskRecord) throws(DiaryError) -> TaskRecord {
        try Rules.validate(asked)
        return try write(asked.recurrence == nil ? .shared : .exclusive, for: asked) {
            var record = asked
            if record.id > 0, let existing = try? find(record.id) {
                throw DiaryError.invalid([
                    Problem(
                        field: "id",
                        "\(record.id) is already used by \(DiaryError.describe(existing))")
                ])
            }
            let pairs = try collisions(of: record)
            if let first = pairs.first {
                throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
            }
            // Ids last: the diary's row is locked from here to the commit, and always before
            // the insert, so that two adds never wait for each other in opposite orders.
            let missing = Self.missingIDs(record) + (record.id <= 0 ? 1 : 0)
            var next: Int64 = 0
            if missing > 0 {
                next = try freshIDs(missing)
                if record.id <= 0 {
                    record.id = next
                    next += 1
                }
                Rules.giveIDs(to: &record, from: &next)
            }
            // Ids the record brought itself (an import's, `--id`) are noted too.
            let given = Rules.highestID(in: record)
            if given >= next { try noteGiven(given) }
            try insert(record)
            return record
        }
    }

    public func update(_ record: TaskRecord) throws(DiaryError) {
        try Rules.validate(record)
        try write(.exclusive, for: record) {
            // The entry itself, or one occurrence of it (changed before or changed now).
            let old = try find(record.id)
            var record = record
            let missing = Self.missingIDs(record)
            if missing > 0 {
                var next = try freshIDs(missing)
                Rules.giveIDs(to: &record, from: &next)
            }
            let diary = address.diary
            if record.recurrenceID == nil && old.recurrenceID == nil {
                // A series moved takes its changed occurrences along.
                let changes = try records(
                    """
                    SELECT id, record FROM taskcal_entry
                    WHERE diary = \(diary) AND id = \(record.id) AND recurrence_id IS NOT NULL
                    ORDER BY recurrence_id
                    """)
                let (series, moved) = Rules.moving(from: old, to: record, changes: changes)
                record = series
                if moved != changes {
                    for change in moved {
                        try Rules.validate(change)
                        let pairs = try collisions(of: change)
                        if let first = pairs.first {
                            throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
                        }
                    }
                    try run(
                        """
                        DELETE FROM taskcal_entry
                        WHERE diary = \(diary) AND id = \(record.id) AND recurrence_id IS NOT NULL
                        """)
                    try insert(moved)
                }
            }
            let pairs = try collisions(of: record)
            if let first = pairs.first {
                throw DiaryError.conflict(first.mine, with: pairs.map(\.other))
            }
            try run(
                """
                DELETE FROM taskcal_entry WHERE diary = \(diary) AND id = \(record.id)
                    AND recurrence_id IS NOT DISTINCT FROM \(record.recurrenceID)
                """)
            try insert(record)
        }
    }

    public func delete(_ id: Int64) throws(DiaryError) {
        let deleted = try call {
            try run(
                "DELETE FROM taskcal_entry WHERE diary = \(address.diary) AND id = \(id)"
            ).metadata.rows ?? 0
        }
        if deleted == 0 { throw .notFound(id) }
    }

    public func setting(_ name: String) throws(DiaryError) -> String? {
        try call {
            try run(
                "SELECT value FROM taskcal_setting WHERE diary = \(address.diary) AND name = \(name)"
            ).rows.first?.decode(String.self)
        }
    }

    public func rewrite(_ records: [TaskRecord], settings: [String: String?]) throws(DiaryError) {
        try write(.exclusive) {
            let diary = address.diary
            for record in records {
                guard
                    let old = try self.records(
                        """
                        SELECT id, record FROM taskcal_entry WHERE diary = \(diary)
                            AND id = \(record.id)
                            AND recurrence_id IS NOT DISTINCT FROM \(record.recurrenceID)
                        """
                    ).first
                else { throw DiaryError.notFound(record.id) }
                try Rules.validateRewrite(record, replacing: old)
                try run(
                    """
                    UPDATE taskcal_entry SET name = \(record.name),
                        description = \(record.description), record = \(record.jsonLine)
                    WHERE diary = \(diary) AND id = \(record.id)
                        AND recurrence_id IS NOT DISTINCT FROM \(record.recurrenceID)
                    """)
            }
            for (name, value) in settings {
                if let value {
                    try run(
                        """
                        INSERT INTO taskcal_setting (diary, name, value)
                        VALUES (\(diary), \(name), \(value))
                        ON CONFLICT (diary, name) DO UPDATE SET value = excluded.value
                        """)
                } else {
                    try run(
                        "DELETE FROM taskcal_setting WHERE diary = \(diary) AND name = \(name)")
                }
            }
        }
    }

    public func check() throws(DiaryError) -> [String] {
        try call {
            var problems: [String] = []
            let diary = address.diary
            let rule = try run(
                """
                SELECT 1 FROM pg_constraint
                WHERE conname = 'taskcal_entry_no_overlap' AND conrelid = 'taskcal_entry'::regclass
                """)
            if rule.rows.isEmpty {
                problems.append(
                    "the database has lost its overlap rule (constraint taskcal_entry_no_overlap): concurrent writers are no longer kept apart"
                )
            }
            let spans = try run(
                """
                SELECT id, date_start, date_finish FROM taskcal_entry
                WHERE diary = \(diary) AND occupies
                """
            ).rows.map { row in
                let (id, start, finish) = try row.decode((Int64, Int64, Int64).self)
                return (id: id, start: start, finish: finish)
            }
            problems += Rules.singleProblems(spans)
            let rows = try run(
                "SELECT id, record, occupies, repeats FROM taskcal_entry WHERE diary = \(diary)"
            ).rows.map { try $0.decode((Int64, String, Bool, Bool).self) }
            var series: [TaskRecord] = []
            var singles: [TaskRecord] = []
            for (id, text, occupies, repeats) in rows {
                guard let record = try? Self.record(id: id, text) else {
                    problems.append("entry #\(id) holds a record that cannot be read")
                    continue
                }
                if repeats { series.append(record) }
                if occupies { singles.append(record) }
            }
            if !series.isEmpty {
                let changed = try changedOccurrences()
                problems += Rules.habitProblems(
                    series: series.map { Rules.unit($0, changed: changed) }, singles: singles)
            }
            return problems
        }
    }

}

#endif
