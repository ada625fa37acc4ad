import Foundation
import Testing

@Suite("taskcal diary, run as a user would, on both backends")
struct DiaryCommandTests {
    @Test("every verb works as the README shows", arguments: diaryBackends)
    func verbs(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Moscow"])
        }
        let first = try diary([
            "add", "--name", "Dentist", "--start", "2026-11-27T09:00", "--end", "2026-11-27T10:00",
        ])
        #expect(first.status == 0)
        #expect(first.stdout == "1\n")
        let refused = try diary([
            "add", "--name", "Call", "--start", "2026-11-27T09:30", "--end", "2026-11-27T10:30",
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(#"overlaps #1 "Dentist" (2026-11-27T09:00+03:00 – 10:00)"#))
        #expect(
            try diary([
                "add", "--name", "Call", "--start", "2026-11-27T10:00", "--end", "1795766400",
            ]).stdout == "2\n")
        let list = try diary(["list", "--day", "2026-11-27"])
        #expect(
            list.stdout
                == "#1  2026-11-27 Fri 09:00–10:00  Dentist\n#2  2026-11-27 Fri 10:00–11:00  Call\n"
        )
        #expect(
            try diary(["list", "--search", "dent", "--format", "json"]).stdout.contains(
                #""name": "Dentist""#))
        #expect(try diary(["edit", "2", "--start", "2026-11-27T09:59"]).status == 1)
        #expect(
            try diary(["edit", "2", "--name", "Call Bob", "--end", "2026-11-27T11:30"]).status == 0)
        #expect(
            try diary(["show", "2"]).stdout.contains(
                "#2 Call Bob\n  2026-11-27T10:00+03:00 – 2026-11-27T11:30+03:00"))
        // Import: all or nothing, then with --skip-conflicts.
        let refusedImport = try diary(["import", Taskcal.sample("overlaps.json")])
        #expect(refusedImport.status == 1)
        #expect(
            try diary(["list", "--format", "json"]).stdout.components(separatedBy: "\"id\"").count
                - 1 == 2)
        let partial = try diary([
            "import", Taskcal.sample("overlaps.json"), "--skip-conflicts", "--new-ids",
        ])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stderr.contains("skipped"))
        #expect(try diary(["export", "-o", cli.path("backup.ics")]).status == 0)
        #expect(
            try cli.run(["overlaps", "backup.ics"]).status == 0, "the diary never holds an overlap")
        #expect(try diary(["check"]).status == 0)
        // The reports read the diary directly with --store.
        let overlaps = try cli.run([
            "overlaps", "--store", store, "--include-free", "--format", "json",
        ])
        #expect(overlaps.status == 1, "the cancelled entry overlaps once it counts")
        #expect(overlaps.stdout.contains(#""name": "Quick sync""#))
        let agenda = try cli.run([
            "agenda", "2026-11-27", "--store", store, "--tz", "Europe/Moscow",
        ])
        #expect(agenda.stdout.contains("09:00–10:00 │ [09:00–10:00 Dentist]"))
        // Today is in brackets, wherever the test runs (`[27*` on the 27th).
        #expect(
            try cli.run(["month", "2026-11", "--store", store, "--tz", "Europe/Moscow"]).stdout
                .replacingOccurrences(of: "[", with: " ").contains(" 27*"))
        #expect(try diary(["delete", "1"]).status == 0)
        #expect(try diary(["delete", "1"]).status == 1)
    }

    @Test(
        "a calendar app's moved occurrence comes in with its series, blocks its new slot, frees its old one, and can be edited",
        arguments: diaryBackends)
    func changedOccurrence(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        let imported = try diary(["import", Taskcal.sample("google-recurring.ics")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("imported 3 entries (4 records: 1 changed occurrence)"))
        let shown = try diary(["show", "1"]).stdout
        #expect(shown.contains("repeats: FREQ=WEEKLY;BYDAY=MO,WE"))
        #expect(
            shown.contains(
                #"changed: the occurrence of 2026-11-25T09:30+01:00 is "Planning (moved to the afternoon)" 2026-11-25T14:00+01:00"#
            ))
        #expect(
            try diary(["show", "1", "--format", "json"]).stdout.split(separator: "\n").count == 2)
        // Planning moved from 09:30 to 14:00 on Wednesday 25 November.
        let clash = try diary([
            "add", "--name", "Dentist", "--start", "2026-11-25T14:10", "--end", "2026-11-25T14:20",
        ])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains(#"overlaps #1 "Planning (moved to the afternoon)""#))
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-11-25T09:30", "--end",
                "2026-11-25T10:00",
            ]).stdout == "4\n")
        // One more occurrence changed from the command line; the series keeps the rest.
        #expect(
            try diary([
                "edit", "1", "--occurrence", "2026-11-30", "--start", "2026-11-30T16:00", "--end",
                "2026-11-30T16:30", "--name", "Planning, late",
            ]).status == 0)
        let week = try diary(["list", "--from", "2026-11-23", "--to", "2026-12-03"])
        #expect(
            week.stdout == """
                #1  2026-11-23 Mon 09:30–10:00  Planning  [Work, Team]
                #4  2026-11-25 Wed 09:30–10:00  Dentist
                #1  2026-11-25 Wed 14:00–14:30  Planning (moved to the afternoon)
                #3  2026-11-26 Thu 18:00–19:30  Climbing (floating time: read in X-WR-TIMEZONE)
                #1  2026-11-30 Mon 16:00–16:30  Planning, late  [Work, Team]
                #1  2026-12-02 Wed 09:30–10:00  Planning  [Work, Team]

                """, "\(week.stderr)")
        let again = try diary([
            "edit", "1", "--occurrence", "2026-11-30T16:00", "--end", "2026-11-30T17:00",
        ])
        #expect(again.status == 0, "found by its present time: \(again.stderr)")
        let notThen = try diary(["edit", "1", "--occurrence", "2026-11-24", "--name", "x"])
        #expect(notThen.status != 0)
        #expect(notThen.stderr.contains("does not occur then"))
        #expect(try diary(["check"]).status == 0)
        let export = try diary(["export", "-o", "back.ics"])
        #expect(export.stderr.contains("exported 4 entries (6 records: 2 changed occurrences)"))
        #expect(try cli.read("back.ics").components(separatedBy: "RECURRENCE-ID").count == 3)
        #expect(try diary(["delete", "1"]).status == 0)
        #expect(try diary(["list", "--format", "json"]).stdout.contains("Planning") == false)
    }

    @Test(
        "a habit moved takes its changed and skipped occurrences along, all of it or none of it",
        arguments: diaryBackends)
    func habitMoved(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        for step in [
            [
                "add", "--name", "Gym", "--start", "2026-12-01T08:00", "--end", "2026-12-01T09:00",
                "--repeat", "weekly",
            ],
            [
                "edit", "1", "--occurrence", "2026-12-08", "--start", "2026-12-08T10:00", "--end",
                "2026-12-08T11:00",
            ],
            ["edit", "1", "--skip", "2026-12-15"],
            [
                "add", "--name", "Dentist", "--start", "2026-12-22T06:30", "--end",
                "2026-12-22T07:30",
            ],
        ] {
            let result = try diary(step)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        let before = try diary(["show", "1", "--format", "json"]).stdout
        // An hour earlier collides with the dentist on the 22nd: nothing changes.
        let refused = try diary([
            "edit", "1", "--start", "2026-12-01T07:00", "--end", "2026-12-01T08:00",
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(#"overlaps #2 "Dentist""#), "\(refused.stderr)")
        #expect(try diary(["show", "1", "--format", "json"]).stdout == before)
        // Two hours earlier: the occurrence moved to 10:00 is now at 08:00, two hours after
        // its new slot as before; the 15th stays skipped; no occurrence shows twice.
        let moved = try diary([
            "edit", "1", "--start", "2026-12-01T06:00", "--end", "2026-12-01T06:30",
        ])
        #expect(moved.status == 0, "\(moved.stderr)")
        let weeks = try diary(["list", "--from", "2026-12-01", "--to", "2026-12-23"])
        #expect(
            weeks.stdout == """
                #1  2026-12-01 Tue 06:00–06:30  Gym
                #1  2026-12-08 Tue 08:00–09:00  Gym
                #1  2026-12-22 Tue 06:00–06:30  Gym
                #2  2026-12-22 Tue 06:30–07:30  Dentist

                """, "\(weeks.stderr)")
        #expect(
            try diary(["show", "1"]).stdout.contains(
                "changed: the occurrence of 2026-12-08T06:00+01:00 is \"Gym\" 2026-12-08T08:00+01:00"
            ))
        #expect(try diary(["check"]).status == 0)
    }

    @Test(
        "an entry whose overlaps cannot be computed is refused, never let in unchecked; check names one already in",
        arguments: diaryBackends)
    func uncheckable(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "UTC"])
        }
        let far = try diary([
            "add", "--name", "Far", "--start", "2050-01-01T10:00", "--end", "2050-01-01T11:00",
        ])
        #expect(far.status == 0, "\(far.stderr)")
        // Hourly from 2026 meets "Far" in 2050, 210,000 occurrences later: more than one
        // expansion lists, so each entry is compared with the occurrences around it. Before,
        // SQLite let it in and check said ok.
        let hourly = try diary([
            "add", "--name", "Hourly", "--start", "2026-01-01T10:00", "--end",
            "2026-01-01T10:00:30", "--rule", "FREQ=HOURLY",
        ])
        #expect(hourly.status == 1)
        #expect(hourly.stderr.contains(#"overlaps #1 "Far""#), "\(hourly.stderr)")
        // One that ends before "Far" and misses "Near" goes in (122,000 occurrences), and
        // check agrees.
        for step in [
            ["add", "--name", "Near", "--start", "2040-01-01T10:30", "--end", "2040-01-01T10:40"],
            [
                "add", "--name", "Quarter to", "--start", "2026-01-01T10:45", "--end",
                "2026-01-01T10:46", "--rule", "FREQ=HOURLY;UNTIL=20451231T000000Z",
            ],
        ] {
            let result = try diary(step)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        #expect(try diary(["check"]).status == 0)
        // libical computes no dates after 2582: a habit cannot be checked against an entry in
        // 2600, in either order.
        let weekly = try diary([
            "add", "--name", "Weekly", "--start", "2026-01-01T12:00", "--end",
            "2026-01-01T12:30", "--repeat", "weekly",
        ])
        #expect(weekly.status == 0, "\(weekly.stderr)")
        let future = try diary([
            "add", "--name", "Future", "--start", "2600-01-01T12:00", "--end", "2600-01-01T13:00",
        ])
        #expect(future.status == 1)
        #expect(
            future.stderr.contains(#"cannot be checked against the repeating entry #4 "Weekly""#)
                && future.stderr.contains("2582"), "\(future.stderr)")
        let count = try diary(["list"]).stdout.split(separator: "\n").count
        #expect(try diary(["check"]).status == 0)
        // An import is refused the same way, record by record.
        try cli.write(
            "far.json",
            #"[{"id": 7, "date_start": "1767261600", "date_finish": "1767261630", "name": "Weekly too", "recurrence": {"rule": "FREQ=WEEKLY"}}, {"id": 8, "date_start": "19725213600", "date_finish": "19725217200", "name": "2595"}]"#
        )
        let imported = try diary(["import", cli.path("far.json")])
        #expect(imported.status == 1)
        #expect(
            imported.stderr.contains(
                "[0]: cannot be checked for overlaps: libical computes no occurrences after 2582"),
            "\(imported.stderr)")
        #expect(try diary(["list"]).stdout.split(separator: "\n").count == count)
        // A folder written by hand (or by an earlier version) with such a pair: check says so.
        if backend == "vdir" {
            #expect(
                try cli.run([
                    "convert", cli.path("far.json"), "-o", cli.path("calendar/far.ics"),
                ]).status == 0)
            let check = try diary(["check"])
            #expect(check.status == 1)
            #expect(
                check.stderr.contains(
                    #"#7 "Weekly too" (2026-01-01T10:00Z–2026-01-01T10:00Z) cannot be checked for overlaps up to 2595-01-25"#
                ), "\(check.stderr)\(check.stdout)")
        }
    }

    /// Writes `file` in `cli`'s folder as an earlier version of taskcal left it: SQLite
    /// through Python's own module, so that no code of taskcal's makes it.
    private func makeDiary(_ cli: Taskcal, _ file: String, _ schema: String) throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.executescript(open(sys.argv[2], encoding="utf-8").read())
            db.commit()
            """
        try cli.write("make.py", script)
        try cli.write("schema.sql", schema)
        let made = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", cli.path("make.py"), cli.path(file), cli.path("schema.sql")],
            in: cli.directory)
        #expect(made.status == 0, "\(made.stderr)")
    }

    @Test(
        "a diary an earlier version wrote (schema v3) is brought up to date and keeps its entries")
    func migration() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // The file as taskcal's schema v3 (GRDB's migrations v1–v3) left it.
        let schema = """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1: entries'), ('v2: repeating entries'), ('v3: identity');
            CREATE TABLE entry (id INTEGER PRIMARY KEY, date_start INTEGER NOT NULL,
              date_finish INTEGER NOT NULL, name TEXT NOT NULL CHECK (length(name) > 0),
              description TEXT, occupies BOOLEAN NOT NULL, record TEXT NOT NULL,
              repeats BOOLEAN NOT NULL DEFAULT 0, CHECK (date_finish >= date_start));
            CREATE INDEX entry_by_start ON entry (date_start);
            CREATE INDEX entry_occupied_by_start ON entry (date_start, date_finish) WHERE occupies = 1;
            CREATE INDEX entry_repeating ON entry (date_start) WHERE repeats = 1;
            CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('identity', 'diary-old'), ('highest_id', '7');
            INSERT INTO entry VALUES (3, 1795766400, 1795770000, 'Dentist', NULL, 1,
              '{"id": 3, "date_start": "1795766400", "date_finish": "1795770000", "name": "Dentist", "uid": "taskcal-3@taskcal.invalid"}', 0);
            """
        try makeDiary(cli, "old.sqlite", schema)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", cli.path("old.sqlite"), "--tz", "UTC"])
        }
        #expect(try diary(["list"]).stdout == "#3  2026-11-27 Fri 08:00–09:00  Dentist\n")
        #expect(
            try diary([
                "add", "--name", "Call", "--start", "2026-11-27T09:00", "--end", "2026-11-27T10:00",
            ]).stdout == "8\n", "ids above the highest ever given")
        let imported = try diary(["import", Taskcal.sample("google-recurring.ics"), "--new-ids"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try diary(["check"]).stdout.contains("ok: 6 entries"))
    }

    @Test(
        "a diary of schema v6 keeps its changed occurrences when its rows are keyed by id (v7)")
    func migrationOfChangedOccurrences() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // The file as schema v6 left it: a weekly entry with one occurrence moved, and a
        // single entry after it.
        let schema = """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1: entries'), ('v2: repeating entries'),
              ('v3: identity'), ('v4: changed occurrences'), ('v5: subtask ids'),
              ('v6: index of free entries');
            CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('identity', 'diary-v6'), ('highest_id', '9');
            CREATE TABLE entry (row INTEGER PRIMARY KEY, id INTEGER NOT NULL,
              recurrence_id INTEGER, date_start INTEGER NOT NULL, date_finish INTEGER NOT NULL,
              name TEXT NOT NULL CHECK (length(name) > 0), description TEXT,
              occupies BOOLEAN NOT NULL, repeats BOOLEAN NOT NULL DEFAULT 0, record TEXT NOT NULL,
              CHECK (date_finish >= date_start));
            CREATE UNIQUE INDEX entry_key ON entry (id, coalesce(recurrence_id, -9223372036854775808));
            CREATE INDEX entry_occupied_by_start ON entry (date_start, date_finish) WHERE occupies = 1;
            CREATE INDEX entry_repeating ON entry (date_start) WHERE repeats = 1;
            CREATE INDEX entry_changed ON entry (id) WHERE recurrence_id IS NOT NULL;
            CREATE INDEX entry_free_by_start ON entry (date_start) WHERE occupies = 0;
            INSERT INTO entry (id, recurrence_id, date_start, date_finish, name, occupies, repeats, record)
            VALUES
              (4, NULL, 1795597200, 1795599000, 'Planning', 0, 1,
               '{"id": 4, "date_start": "1795597200", "date_finish": "1795599000", "name": "Planning", "time_zone": "UTC", "recurrence": {"rule": "FREQ=WEEKLY;COUNT=3"}}'),
              (4, 1796202000, 1796223600, 1796225400, 'Planning (moved)', 1, 0,
               '{"id": 4, "date_start": "1796223600", "date_finish": "1796225400", "name": "Planning (moved)", "recurrence_id": "1796202000", "time_zone": "UTC"}'),
              (9, NULL, 1796306400, 1796310000, 'Dentist', 1, 0,
               '{"id": 9, "date_start": "1796306400", "date_finish": "1796310000", "name": "Dentist"}');
            """
        try makeDiary(cli, "v6.sqlite", schema)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", cli.path("v6.sqlite"), "--tz", "UTC"])
        }
        #expect(
            try diary(["list"]).stdout == """
                #4  2026-11-25 Wed 09:00–09:30  Planning  (repeats: FREQ=WEEKLY;COUNT=3)
                #4  2026-12-02 Wed 15:00–15:30  Planning (moved)
                #9  2026-12-03 Thu 14:00–15:00  Dentist

                """)
        // The moved occurrence still holds its new slot, and the one it left is free.
        let refused = try diary([
            "add", "--name", "Call", "--start", "2026-12-02T15:15", "--end", "2026-12-02T16:00",
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Planning (moved)"), "\(refused.stderr)")
        #expect(
            try diary([
                "add", "--name", "Call", "--start", "2026-12-02T09:00", "--end", "2026-12-02T09:30",
            ]).stdout == "10\n")
        #expect(try diary(["export", "-o", cli.path("back.ics")]).status == 0)
        let exported = try cli.read("back.ics")
        #expect(exported.contains("RECURRENCE-ID:20261202T090000Z"), "\(exported)")
        #expect(try diary(["check"]).stdout.contains("ok: 4 entries, no overlaps"))
    }

    @Test("attachments and alarms survive import and export", arguments: diaryBackends)
    func richRecords(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        #expect(
            try cli.run([
                "diary", "import", Taskcal.sample("attachments-and-alarms.json"), "--store", store,
            ]).status == 0)
        #expect(try cli.run(["diary", "export", "-o", "back.json", "--store", store]).status == 0)
        let original = try Taskcal.records(
            String(contentsOfFile: Taskcal.sample("attachments-and-alarms.json"), encoding: .utf8))
        // The export names each entry's UID (the diary's namespace); the rest is unchanged.
        let exported = try Taskcal.recordList(cli.read("back.json"))
        #expect(exported.allSatisfy { ($0["uid"] as? String)?.hasPrefix("taskcal-") == true })
        let withoutUIDs = exported.map { $0.filter { $0.key != "uid" } } as NSArray
        #expect(withoutUIDs == original)
    }

    @Test(
        "8 processes adding colliding slots at once: no overlap, and every reported add is kept",
        arguments: diaryBackends)
    func concurrentAdds(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        // 8 processes × 6 adds on 12 one-hour slots, each slot offset by 0 or 30 minutes:
        // most adds collide with another process's.
        let results = try concurrently(8) { worker in
            var outcomes: [(Int32, String)] = []
            for round in 0..<6 {
                let slot = (worker + round * 3) % 12
                let start = 1_795_766_400 + slot * 3600 + (worker % 2) * 1800
                let result = try Taskcal.execute(
                    Taskcal.binary.path,
                    [
                        "diary", "add", "--store", store, "--name", "w\(worker)r\(round)",
                        "--start", "\(start)", "--end", "\(start + 3600)",
                    ],
                    in: cli.directory)
                outcomes.append(
                    (
                        result.status,
                        result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    ))
            }
            return outcomes
        }.flatMap { $0 }
        #expect(results.allSatisfy { $0.0 == 0 || $0.0 == 1 }, "\(results)")
        let reported = Set(results.filter { $0.0 == 0 }.map(\.1))
        #expect(
            !reported.isEmpty && reported.count < results.count, "some adds won, some were refused")
        let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        let ids = Set(
            try Taskcal.records(listed.stdout).map { String(($0 as! [String: Any])["id"] as! Int) })
        #expect(ids == reported, "exactly the adds that reported success are in the diary")
        try cli.write("all.json", listed.stdout)
        #expect(try cli.run(["overlaps", "all.json"]).status == 0, "no overlap")
        #expect(try cli.run(["diary", "check", "--store", store]).status == 0)
    }

    @Test("an import killed with SIGKILL leaves all of it or none of it")
    func killedImport() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let count = 60_000
        let lines = (1...count).map {
            #"{"id": \#($0), "date_start": "\#($0 * 3600)", "date_finish": "\#($0 * 3600 + 1800)", "name": "entry \#($0)", "description": "Описание \#($0)"}"#
        }
        try cli.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        let store = cli.path("killed.sqlite")
        #expect(
            try cli.run([
                "diary", "add", "--store", store, "--name", "before", "--start", "1", "--end", "2",
            ]).status == 0)
        var outcomes: Set<Int> = []
        var killedWhileWriting = 0
        // Kill once while reading the input, then (twice) in the middle of the write: as soon as
        // the write-ahead log holds more than 256 KiB of the import's pages.
        for walThreshold in [-1, 256 << 10, 1 << 20] {
            let process = Process()
            process.executableURL = Taskcal.binary
            process.arguments = ["diary", "import", "big.ndjson", "--store", store, "--new-ids"]
            process.currentDirectoryURL = cli.directory
            process.standardError = FileHandle.nullDevice
            try process.run()
            let wal = store + "-wal"
            let baseline =
                (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            if walThreshold < 0 {
                Thread.sleep(forTimeInterval: 0.3)
            } else {
                while process.isRunning {
                    let size =
                        (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                    if size > baseline + walThreshold { break }
                    Thread.sleep(forTimeInterval: 0.002)
                }
                if process.isRunning { killedWhileWriting += 1 }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
            let entries = try Taskcal.records(listed.stdout).count
            let imports = (entries - 1) / count
            #expect((entries - 1) % count == 0, "a half import: \(entries) entries")
            outcomes.insert(imports)
            #expect(try cli.run(["diary", "check", "--store", store]).status == 0)
        }
        #expect(!outcomes.isEmpty)
        #expect(killedWhileWriting > 0, "at least one kill landed during the write")
    }
}
