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

    private static func tls(_ mode: PostgresAddress.TLSMode) throws
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

    // MARK: - Schema

    /// The schema's versions, in order; a database at version N runs those after N.
    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (
            1, "entries, diaries and the overlap rule",
            [
                // Trusted since PostgreSQL 13: a database owner may create it.
                "CREATE EXTENSION IF NOT EXISTS btree_gist",
                """
                CREATE TABLE taskcal_diary (
                    name text PRIMARY KEY,
                    identity text NOT NULL,
                    -- The highest id ever given: a deleted entry's id (and UID) is never reused.
                    highest_id bigint NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE taskcal_entry (
                    diary text NOT NULL REFERENCES taskcal_diary (name) ON DELETE CASCADE,
                    id bigint NOT NULL CHECK (id > 0),
                    -- A changed occurrence of a repeating entry: the start it replaces.
                    recurrence_id bigint,
                    date_start bigint NOT NULL,
                    date_finish bigint NOT NULL,
                    name text NOT NULL CHECK (length(name) > 0),
                    description text,
                    -- A single entry that blocks its time (not cancelled, free or empty).
                    occupies boolean NOT NULL,
                    repeats boolean NOT NULL,
                    -- The whole record in the task format: attachments, alarms come back unchanged.
                    record text NOT NULL,
                    slot tstzrange GENERATED ALWAYS AS
                        (tstzrange(to_timestamp(date_start), to_timestamp(date_finish), '[)')) STORED,
                    CHECK (date_finish >= date_start),
                    CHECK (NOT (occupies AND repeats)),
                    -- The rule: in one diary, no two single entries that occupy time overlap
                    -- (the records of one entry, a series' changed occurrences, are one entry).
                    CONSTRAINT taskcal_entry_no_overlap EXCLUDE USING gist
                        (diary WITH =, id WITH <>, slot WITH &&) WHERE (occupies))
                """,
                """
                CREATE UNIQUE INDEX taskcal_entry_key
                    ON taskcal_entry (diary, id, coalesce(recurrence_id, -9223372036854775807))
                """,
                "CREATE INDEX taskcal_entry_by_start ON taskcal_entry (diary, date_start)",
                """
                CREATE INDEX taskcal_entry_repeating ON taskcal_entry (diary, date_start)
                    WHERE repeats
                """,
            ]
        ),
        (
            2, "settings of a diary (its protection)",
            [
                """
                CREATE TABLE taskcal_setting (
                    diary text NOT NULL REFERENCES taskcal_diary (name) ON DELETE CASCADE,
                    name text NOT NULL,
                    value text NOT NULL,
                    PRIMARY KEY (diary, name))
                """
            ]
        ),
    ]

    /// Brings the schema up to date, one migration at a time in one transaction, under a lock
    /// so that two processes opening a new database at once do not both create it.
    static func migrate(_ connection: PostgresConnection, logger: Logger) throws {
        let latest = migrations.last!.version
        let current = try? connection.run(
            "SELECT coalesce(max(version), 0) FROM taskcal_schema", logger
        ).rows.first?.decode(Int.self)
        if current == latest { return }
        try connection.run("BEGIN", logger)
        do {
            try connection.run("SELECT pg_advisory_xact_lock(\(migrationLock))", logger)
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS taskcal_schema (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied timestamptz NOT NULL DEFAULT now())
                """, logger)
            let version =
                try connection.run("SELECT coalesce(max(version), 0) FROM taskcal_schema", logger)
                .rows.first?.decode(Int.self) ?? 0
            if version > latest {
                throw DiaryError.storage(
                    "the database's diary schema is version \(version), newer than this taskcal knows (\(latest)); upgrade taskcal"
                )
            }
            for migration in migrations where migration.version > version {
                for statement in migration.statements {
                    try connection.run(PostgresQuery(unsafeSQL: statement), logger)
                }
                try connection.run(
                    "INSERT INTO taskcal_schema (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger)
            }
            try connection.run("COMMIT", logger)
        } catch {
            _ = try? connection.run("ROLLBACK", logger)
            throw error
        }
    }

    /// The advisory lock keys: one for migrations, and the first half of every diary's.
    static let migrationLock: Int64 = 0x7461_736B_6361_6C00
    static let diaryLockClass: Int32 = 0x7461_736B

    // MARK: - Calls

    /// Runs `body` with the connection to itself, errors said plainly.
    private func call<T>(_ body: () throws -> T) throws(DiaryError) -> T {
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
    private func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try connection.answer(connection.send(query, logger))
    }

    /// The records a query of `id, record` rows returns.
    private func records(_ query: PostgresQuery) throws -> [TaskRecord] {
        try run(query).rows.map { row in
            let (id, text) = try row.decode((Int64, String).self)
            return try Self.record(id: id, text)
        }
    }

    private static func record(id: Int64, _ text: String) throws(DiaryError) -> TaskRecord {
        do {
            return try TaskJSON.decodeLine(Data(text.utf8)).get()
        } catch {
            throw .storage("entry #\(id) cannot be read back: \(error)")
        }
    }

    /// Which hold on the diary's advisory lock a write takes.
    private enum Hold {
        /// Writes that involve no repeating entry: side by side, the constraint orders them.
        case shared
        /// Writes that involve a repeating entry, and imports: one at a time.
        case exclusive
    }

    /// Runs `body` in a transaction that holds the diary's lock. When the database refuses a
    /// row for the overlap rule (another writer won the slot between our check and our
    /// insert), the refusal names the entries in the way of `record`, read afresh.
    private func write<T>(_ hold: Hold, for record: TaskRecord? = nil, _ body: () throws -> T)
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
    private func find(_ id: Int64) throws -> TaskRecord {
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

    // MARK: - The overlap checks

    /// The original starts of the changed occurrences of every entry that has some.
    private func changedOccurrences() throws -> [Int64: [Int64]] {
        var result: [Int64: [Int64]] = [:]
        for row in try run(
            """
            SELECT id, recurrence_id FROM taskcal_entry
            WHERE diary = \(address.diary) AND recurrence_id IS NOT NULL
            """
        ).rows {
            let (id, original) = try row.decode((Int64, Int64).self)
            result[id, default: []].append(original)
        }
        return result
    }

    /// Repeating entries other than `id` that start before `before`, each without the
    /// occurrences its changed occurrences replace.
    private func habits(except id: Int64, before: Int64, changed: [Int64: [Int64]]? = nil) throws
        -> [TaskRecord]
    {
        let series = try records(
            """
            SELECT id, record FROM taskcal_entry
            WHERE diary = \(address.diary) AND repeats AND id <> \(id) AND date_start < \(before)
            ORDER BY id
            """)
        if series.isEmpty { return [] }
        let changed = try changed ?? changedOccurrences()
        return series.map { Rules.unit($0, changed: changed) }
    }

    /// The entries that occupy time and overlap `asked` (other than itself), earliest first,
    /// each paired with the occurrence of `asked` it meets. A repeating entry in the way is
    /// named by its colliding occurrence.
    private func collisions(of asked: TaskRecord) throws -> [(mine: TaskRecord, other: TaskRecord)]
    {
        guard asked.occupiesTime else { return [] }
        let repeats = asked.recurrence != nil
        let changed = repeats ? try changedOccurrences() : nil
        let series = try habits(
            except: asked.id, before: repeats ? Int64.max : asked.dateFinish, changed: changed)
        let record = changed.map { Rules.unit(asked, changed: $0) } ?? asked
        guard repeats else {
            return try collisions(
                of: record, occurrences: [record], window: record.dateStart..<record.dateFinish,
                series: series)
        }
        // Each occurrence against the single entries, up to the last of them.
        let last =
            try run(
                """
                SELECT max(date_finish) FROM taskcal_entry WHERE diary = \(address.diary) AND occupies
                """
            ).rows.first?.decode(Int64?.self) ?? record.dateStart
        let end =
            Expansion.lastFinish(of: record) ?? max(last, record.dateStart + Expansion.habitHorizon)
        let window = record.dateStart..<max(end, record.dateStart + 1)
        // nil: too many occurrences to list (an hourly habit and an entry years ahead), so
        // the habit is compared with each single entry in its reach.
        let occurrences: [TaskRecord]?
        do {
            occurrences = try Expansion.occupying(record, in: window)
        } catch let error where error.cut == .limit || error.cut == .work {
            occurrences = nil
        } catch {
            throw Rules.refusal(of: record, error)
        }
        return try collisions(
            of: record, occurrences: occurrences, window: window, series: series)
    }

    /// The collisions of `record` (with these occurrences, or when nil, too many to list)
    /// with the single entries in `window` and with `series`, at most ten with single entries.
    private func collisions(
        of record: TaskRecord, occurrences: [TaskRecord]?, window: Range<Int64>,
        series: [TaskRecord], known: SingleSpans? = nil
    ) throws -> [(mine: TaskRecord, other: TaskRecord)] {
        var found = try Rules.collisions(of: record, in: series)
        let singles =
            try known?.overlapping(window, except: record.id)
            ?? singleSpans(overlapping: window, except: record.id, limit: nil)!
        var inTheWay: [(mine: TaskRecord, other: TaskRecord)] = []
        if let occurrences {
            let sorted = occurrences.sorted { $0.dateStart < $1.dateStart }
            let longest = sorted.map { $0.dateFinish - $0.dateStart }.max() ?? 0
            for single in singles where inTheWay.count < 10 {
                // The first occurrence that may still be running when `single` starts.
                var index = Self.firstIndex(in: sorted, startingFrom: single.dateStart - longest)
                while index < sorted.count, sorted[index].dateStart < single.dateFinish {
                    if sorted[index].dateFinish > single.dateStart {
                        inTheWay.append((sorted[index], single))
                        break
                    }
                    index += 1
                }
            }
        } else {
            for single in singles where inTheWay.count < 10 {
                do {
                    if let (mine, _) = try Expansion.collisions(record, single, limit: 1).first {
                        inTheWay.append((mine, single))
                    }
                } catch {
                    throw Rules.refusal(of: record, error)
                }
            }
        }
        // The entries in the way, whole, for the refusal.
        for (mine, single) in inTheWay {
            let other = try records(
                """
                SELECT id, record FROM taskcal_entry
                WHERE diary = \(address.diary) AND id = \(single.id)
                    AND recurrence_id IS NOT DISTINCT FROM \(single.recurrenceID)
                """
            ).first
            found.append((mine, other ?? single))
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }

    /// The single entries that occupy time in `window` (other than `id`), by start, with
    /// their times only, found through the constraint's index; nil when there are more than
    /// `limit`.
    private func singleSpans(overlapping window: Range<Int64>, except id: Int64, limit: Int?)
        throws -> [TaskRecord]?
    {
        let rows = try run(
            """
            SELECT id, recurrence_id, date_start, date_finish FROM taskcal_entry
            WHERE diary = \(address.diary) AND occupies AND id <> \(id)
                AND slot && tstzrange(to_timestamp(\(window.lowerBound)), to_timestamp(\(window.upperBound)), '[)')
            ORDER BY date_start, date_finish LIMIT \(limit.map { Int64($0) + 1 } ?? Int64.max)
            """
        ).rows
        var singles: [TaskRecord] = []
        for row in rows {
            let (id, original, start, finish) = try row.decode((Int64, Int64?, Int64, Int64).self)
            var single = TaskRecord(id: id, dateStart: start, dateFinish: finish, name: "")
            single.recurrenceID = original
            singles.append(single)
        }
        if let limit, singles.count > limit { return nil }
        return singles
    }

    /// The single entries of the diary in the time an import covers, read once, so that the
    /// import's checks ask the server nothing per record.
    struct SingleSpans {
        let window: Range<Int64>
        /// By start, then finish.
        let sorted: [TaskRecord]
        let longest: Int64

        init(window: Range<Int64>, sorted: [TaskRecord]) {
            self.window = window
            self.sorted = sorted
            longest = sorted.map { $0.dateFinish - $0.dateStart }.max() ?? 0
        }

        /// Those that overlap `range` other than `id`, or nil when `range` reaches outside
        /// what was read.
        func overlapping(_ range: Range<Int64>, except id: Int64) -> [TaskRecord]? {
            guard window.lowerBound <= range.lowerBound, range.upperBound <= window.upperBound
            else { return nil }
            var index = PostgresDiary.firstIndex(
                in: sorted, startingFrom: range.lowerBound - longest)
            var found: [TaskRecord] = []
            while index < sorted.count, sorted[index].dateStart < range.upperBound {
                let single = sorted[index]
                if single.dateFinish > range.lowerBound && single.id != id { found.append(single) }
                index += 1
            }
            return found
        }
    }

    /// The entries of the diary with these ids (each one's first record, as ``find(_:)``).
    private func entries(withIDs ids: [Int64]) throws -> [Int64: TaskRecord] {
        if ids.isEmpty { return [:] }
        var found: [Int64: TaskRecord] = [:]
        for record in try records(
            """
            SELECT DISTINCT ON (id) id, record FROM taskcal_entry
            WHERE diary = \(address.diary) AND id = ANY(\(ids))
            ORDER BY id, recurrence_id IS NOT NULL, recurrence_id
            """)
        {
            found[record.id] = record
        }
        return found
    }

    /// The index of the first of `sorted` (by start) that starts at `instant` or later.
    fileprivate static func firstIndex(in sorted: [TaskRecord], startingFrom instant: Int64) -> Int
    {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].dateStart < instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Writing

    private func insert(_ record: TaskRecord) throws {
        try insert([record])
    }

    /// Inserts `records` a few hundred rows to a statement: an import of thousands waits for
    /// the server a few dozen times, not once a row.
    private func insert(_ records: [TaskRecord]) throws {
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
    private func freshIDs(_ count: Int64) throws -> Int64 {
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
    private func noteGiven(_ id: Int64) throws {
        try run(
            """
            UPDATE taskcal_diary SET highest_id = greatest(highest_id, \(id))
            WHERE name = \(address.diary)
            """)
    }

    /// How many subtasks of `record` have no id yet.
    private static func missingIDs(_ record: TaskRecord) -> Int64 {
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

    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        try write(.exclusive) {
            try importing(records, skipConflicts: skipConflicts, newIDs: newIDs)
        }
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        try write(.exclusive) {
            let deleted =
                try run("DELETE FROM taskcal_entry WHERE diary = \(address.diary) AND id = \(id)")
                .metadata.rows ?? 0
            if deleted == 0 { throw DiaryError.notFound(id) }
            _ = try importing(
                records.map { IncomingRecord($0, source: "#\(id)") }, skipConflicts: false,
                newIDs: false)
        }
    }

    /// An import inside the transaction ``write(_:for:_:)`` holds.
    private func importing(_ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool) throws
        -> ImportResult
    {
        do {
            let diary = address.diary
            let next =
                try run(
                    """
                    SELECT greatest(highest_id, (SELECT coalesce(max(id), 0) FROM taskcal_entry
                        WHERE diary = \(diary))) + 1 FROM taskcal_diary WHERE name = \(diary)
                    """
                ).rows.first?.decode(Int64.self) ?? 1
            let changed = try changedOccurrences()
            let series = try habits(except: 0, before: Int64.max, changed: changed)
            let lastFinish = try run(
                "SELECT max(date_finish) FROM taskcal_entry WHERE diary = \(diary) AND occupies"
            ).rows.first?.decode(Int64?.self)
            func storage(_ error: any Error) -> DiaryError {
                error as? DiaryError
                    ?? .storage(
                        "the diary \(address): \(Self.describe(error, address: address, password: true))"
                    )
            }
            // What the plan will ask of each record, asked of the server once: the entries
            // with the file's ids, and (when they are not too many) the single entries in the
            // time the file's single entries cover.
            let asked = Set(newIDs ? [] : records.map(\.record.id).filter { $0 > 0 })
            let taken = try entries(withIDs: Array(asked))
            let occupying = records.map(\.record).filter { $0.occupiesTime && $0.recurrence == nil }
            let known = try occupying.map(\.dateStart).min().flatMap { start -> SingleSpans? in
                let window = start..<max(occupying.map(\.dateFinish).max()!, start + 1)
                return try singleSpans(overlapping: window, except: 0, limit: 200_000).map {
                    SingleSpans(window: window, sorted: $0)
                }
            }
            let plan = try ImportPlan(
                records, newIDs: newIDs, nextID: next, storeLastFinish: lastFinish,
                idTaken: { (id: Int64) throws(DiaryError) -> TaskRecord? in
                    if asked.contains(id) { return taken[id] }
                    // A fresh id: above every id the diary gave, and no one else writes now.
                    if id >= next { return nil }
                    do { return try find(id) } catch let error as DiaryError
                        where error == .notFound(id)
                    {
                        return nil
                    } catch { throw storage(error) }
                },
                storeCollisions: {
                    (record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
                        -> [TaskRecord] in
                    let start = occurrences.map(\.dateStart).min() ?? record.dateStart
                    let finish = occurrences.map(\.dateFinish).max() ?? record.dateFinish
                    do {
                        return try collisions(
                            of: record, occurrences: occurrences,
                            window: start..<max(finish, start + 1),
                            series: series.filter {
                                record.recurrence != nil || $0.dateStart < record.dateFinish
                            }, known: known
                        ).map(\.other)
                    } catch { throw storage(error) }
                })
            if !plan.problems.isEmpty && !skipConflicts {
                throw DiaryError.importRefused(plan.problems)
            }
            try insert(plan.accepted)
            if let highest = plan.accepted.map(Rules.highestID).max() { try noteGiven(highest) }
            return ImportResult(imported: plan.accepted.map(\.id), skipped: plan.problems)
        }
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

    // MARK: - Messages

    /// What went wrong with the server, said plainly and without the password.
    /// `connecting`: the error ended the attempt to connect, not a connection that was open.
    static func describe(
        _ error: any Error, address: PostgresAddress, password: Bool, connecting: Bool = false
    ) -> String {
        guard let error = error as? PSQLError else {
            if let error = error as? DiaryError { return error.description }
            if error is ConnectionLost {
                return "the connection to the server was lost; nothing more was written"
            }
            return "\(error)"
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            var text = info[.message] ?? "the server refused"
            // One template each, so that the message is translated whole where it is shown.
            switch state {
            case "28P01", "28000":
                text =
                    password
                    ? "\(text) (check the password in ~/.pgpass or PGPASSWORD)"
                    : "\(text) (no password was found: put it in ~/.pgpass, chmod 600, or PGPASSWORD)"
            case "3D000":
                text = "\(text) (create it first: createdb \(address.database))"
            case "55P03":
                text = "another writer has held the diary for 30 s; nothing was written, try again"
            case "57014":
                text =
                    "\(text): the server's statement_timeout (or someone) cancelled it; nothing was written"
            case "57P01", "57P02", "57P03":
                text = "\(text); nothing was written, try again once the server is back"
            case "53100":
                text = "the server's disk is full (\(text)); nothing was written"
            case "53300":
                text = "\(text) (the server takes no more connections now; try again later)"
            case "42501":
                text =
                    "\(text) (the user \(address.user) needs the right to create tables and the btree_gist extension in \(address.database), or an owner who runs taskcal once)"
            default:
                if let detail = info[.detail] { text = "\(text) (\(detail))" }
            }
            return state.isEmpty ? text : "\(text) [SQLSTATE \(state)]"
        }
        switch error.code {
        case .authMechanismRequiresPassword:
            return
                "the server asks for a password and none was found: put it in ~/.pgpass (chmod 600) or PGPASSWORD"
        case .connectionError where !connecting:
            let reason = error.underlying.map { "\($0)" } ?? ""
            return reason.contains(#"reset by peer"#)
                ? "the connection to the server was lost (reset by the server); nothing more was written"
                : "the connection to the server was lost; nothing more was written"
        case .connectionError:
            let where_ =
                address.isSocket
                ? "its socket \(address.host)/.s.PGSQL.\(address.port)"
                : "\(address.host):\(address.port)"
            // NIO's errors are long; the reason a person acts on is in them.
            let text = error.underlying.map { "\($0)" } ?? ""
            let why =
                [
                    "Connection refused", "No such file or directory", "timed out", "Timeout",
                    "Network is unreachable", "No route to host", "Name or service not known",
                    "Temporary failure in name resolution", "Permission denied",
                ]
                .first { text.localizedCaseInsensitiveContains($0) }?.lowercased()
                ?? (text.isEmpty ? "no answer" : text)
            return "cannot connect to the server at \(where_) (\(why)); is it running?"
        case .sslUnsupported:
            return "the server offers no TLS, and sslmode \(address.tls.rawValue) asks for it"
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            // The server's own last word (it was shut down, or ended this connection).
            if let inner = error.underlying as? PSQLError, inner.serverInfo != nil {
                return describe(inner, address: address, password: password)
            }
            return "the connection to the server was lost; nothing more was written"
        default:
            return "\(error.code)"
        }
    }
}

extension PostgresConnection {
    /// Runs `query` and waits for all of its rows.
    @discardableResult
    fileprivate func run(_ query: PostgresQuery, _ logger: Logger) throws -> PostgresQueryResult {
        try answer(send(query, logger))
    }

    /// Sends `query` from the connection's event loop, where whether the connection is still
    /// open is known for sure. PostgresNIO 1.33.2 writes a query's task with `promise: nil`,
    /// so a query written to a closed connection is dropped: never answered (an import whose
    /// server was killed waited for ever) and never freed (LeakSanitizer reported it).
    fileprivate func send(_ query: PostgresQuery, _ logger: Logger)
        -> EventLoopFuture<PostgresQueryResult>
    {
        eventLoop.flatSubmit {
            self.isClosed
                ? self.eventLoop.makeFailedFuture(ConnectionLost())
                : self.query(query, logger: logger)
        }
    }

    /// Waits for `future`, a query's answer on this connection, or for the connection to close.
    ///
    /// A safety net under ``send(_:_:)``: should a query still go unanswered once the
    /// connection has closed, one second after the close the wait ends with
    /// ``ConnectionLost`` (the second lets a server's own last word arrive first).
    fileprivate func answer<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        closeFuture.whenComplete { _ in
            promise.futureResult.eventLoop.scheduleTask(in: .seconds(1)) {
                promise.fail(ConnectionLost())
            }
        }
        return try promise.futureResult.wait()
    }
}

/// The connection closed while a query waited for its answer.
struct ConnectionLost: Error {}

/// PostgreSQL's bindings take an entry's columns as the SQLite diary's statement does.
extension PostgresBindings: EntryColumnBinder {
    public mutating func bind(_ value: Int64) { append(value) }
    public mutating func bind(_ value: Int64?) { append(value) }
    public mutating func bind(_ value: String?) { append(value) }
    public mutating func bind(_ value: Bool) { append(value) }
}

#endif
