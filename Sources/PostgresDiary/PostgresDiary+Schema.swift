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

extension PostgresDiary {
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
}

#endif
