import Foundation
import GRDB
import TaskConversion
import TaskModel

extension SQLiteDiary {
    /// The schema, one step a version: a diary at version N runs the steps after N.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: entries", migrate: v1Entries)
        migrator.registerMigration("v2: repeating entries", migrate: v2RepeatingEntries)
        migrator.registerMigration("v3: identity", migrate: v3Identity)
        migrator.registerMigration("v4: changed occurrences", migrate: v4ChangedOccurrences)
        migrator.registerMigration("v5: subtask ids", migrate: v5SubtaskIds)
        migrator.registerMigration("v6: index of free entries", migrate: v6IndexOfFreeEntries)
        migrator.registerMigration("v7: entries by id", migrate: v7EntriesById)
        return migrator
    }

    static func v1Entries(_ db: Database) throws {
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
    static func v2RepeatingEntries(_ db: Database) throws {
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
    static func v3Identity(_ db: Database) throws {
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
    static func v4ChangedOccurrences(_ db: Database) throws {
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
    static func v5SubtaskIds(_ db: Database) throws {
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
    static func v6IndexOfFreeEntries(_ db: Database) throws {
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
    static func v7EntriesById(_ db: Database) throws {
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
}
