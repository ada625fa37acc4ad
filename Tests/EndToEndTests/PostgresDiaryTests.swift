import Foundation
import TestPostgres
import Testing

/// The team diary on a real PostgreSQL server, through the command line.
@Suite(
    "PostgreSQL diary: the database forbids double booking",
    .enabled(
        if: TestPostgres.isRunning || required,
        "PostgreSQL is not installed here (apt-get install postgresql); \(TestPostgres.unavailableReason)"
    ),
    .enabled(if: BuiltTraits.postgreSQL || required, "\(BuiltTraits.missing("PostgreSQL"))"))
struct PostgresDiaryTests {
    @Test(
        "16 processes × 50 colliding adds at once: no overlap, exactly the adds that printed an id")
    func sixteenWriters() throws {
        let server = try TestPostgres.shared.get()
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store("postgres")
        // Slot r is [base + 2 h·r + 15 min·(w mod 4), +1 h): every add of one slot collides with
        // the others of that slot, and no two slots touch. Each worker walks the slots from a
        // different place, so all sixteen fight over most of them.
        let base = 1_795_766_400
        let results = try concurrently(16) { worker in
            var outcomes: [(Int32, String, String)] = []
            for round in 0..<50 {
                let slot = (worker * 3 + round) % 50
                let start = base + slot * 7200 + (worker % 4) * 900
                let result = try Taskcal.execute(
                    Taskcal.binary.path,
                    [
                        "diary", "add", "--store", store, "--name", "w\(worker)s\(slot)",
                        "--start", "\(start)", "--end", "\(start + 3600)",
                    ], in: cli.directory)
                outcomes.append(
                    (
                        result.status,
                        result.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                        result.stderr
                    ))
            }
            return outcomes
        }.flatMap { $0 }
        #expect(results.count == 800)
        #expect(
            results.allSatisfy { $0.0 == 0 || ($0.0 == 1 && $0.2.contains(" overlaps #")) },
            "every add either won or was refused naming the entry in the way: \(results.filter { $0.0 > 1 }.prefix(3))"
        )
        let reported = Set(results.filter { $0.0 == 0 }.map(\.1))
        #expect(reported.count == 50, "one add won each of the 50 slots")
        let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        let ids = Set(
            try Taskcal.records(listed.stdout).map { String(($0 as! [String: Any])["id"] as! Int) })
        #expect(ids == reported, "exactly the adds that printed an id are in the diary")
        try cli.write("all.json", listed.stdout)
        #expect(try cli.run(["overlaps", "all.json"]).status == 0, "no overlap")
        #expect(try cli.run(["diary", "check", "--store", store]).status == 0)
        // The rule is the database's: a row written past taskcal is refused as well.
        let diary = cli.directory.lastPathComponent
        let sneaked = Result {
            try server.psql(
                """
                INSERT INTO taskcal_entry (diary, id, date_start, date_finish, name, occupies, repeats, record)
                VALUES ('\(diary)', 9999, \(base), \(base + 600), 'sneaked in', true, false, '{}')
                """)
        }
        #expect(
            "\(sneaked)".contains("taskcal_entry_no_overlap"),
            "the exclusion constraint refuses it: \(sneaked)")
    }

    @Test("habits and single entries added at once: the advisory lock keeps the habit check whole")
    func habitsAndSinglesAtOnce() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store("postgres")
        // Four writers add weekly habits on Monday 09:00–10:00 (each collides with the others),
        // four add single entries on Mondays at 09:30 in the weeks after (each collides with any
        // habit that won): whatever the order, the diary ends with no overlap.
        let outcomes = try concurrently(8) { worker in
            var statuses: [Int32] = []
            for round in 0..<6 {
                let arguments: [String] =
                    worker < 4
                    ? [
                        "--name", "habit w\(worker)r\(round)", "--start",
                        "2026-11-30T09:00",
                        "--end", "2026-11-30T10:00", "--repeat", "weekly",
                    ]
                    : [
                        "--name", "single w\(worker)r\(round)",
                        "--start", "2026-12-\(["07", "14", "21"][round % 3])T09:30",
                        "--end", "2026-12-\(["07", "14", "21"][round % 3])T09:45",
                    ]
                statuses.append(
                    try Taskcal.execute(
                        Taskcal.binary.path,
                        ["diary", "add", "--store", store, "--tz", "UTC"] + arguments,
                        in: cli.directory
                    ).status)
            }
            return statuses
        }.flatMap { $0 }
        #expect(outcomes.allSatisfy { $0 == 0 || $0 == 1 }, "\(outcomes)")
        let check = try cli.run(["diary", "check", "--store", store])
        #expect(check.status == 0, "no overlap among habits and entries: \(check.stderr)")
        let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        let names = try Taskcal.records(listed.stdout).map {
            ($0 as! [String: Any])["name"] as! String
        }
        #expect(
            names.filter { $0.hasPrefix("habit") }.count
                + names.filter { $0.hasPrefix("single") }.count
                == outcomes.filter { $0 == 0 }.count)
        #expect(
            names.filter { $0.hasPrefix("habit") }.count <= 1,
            "at most one habit holds Monday 09:00: \(names)")
    }

    @Test("several diaries in one database, each with its own entries, ids and rule")
    func severalDiaries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try TestPostgres.shared.get()
        let rooms = [
            "room-a-\(UUID().uuidString.prefix(6))", "room-b-\(UUID().uuidString.prefix(6))",
        ]
        for room in rooms {
            let added = try cli.run([
                "diary", "add", "--store", server.url(diary: room), "--name", "Standup in \(room)",
                "--start", "2026-11-27T09:00", "--end", "2026-11-27T10:00",
            ])
            #expect(added.status == 0 && added.stdout == "1\n", "\(added.stderr)")
        }
        let refused = try cli.run([
            "diary", "add", "--store", server.url(diary: rooms[0]), "--name", "Call",
            "--start", "2026-11-27T09:30", "--end", "2026-11-27T10:30",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(#"overlaps #1 "Standup in \#(rooms[0])""#), "\(refused.stderr)")
        let listed = try cli.run(["diary", "list", "--store", server.url(diary: rooms[1])])
        #expect(listed.stdout == "#1  2026-11-27 Fri 09:00–10:00  Standup in \(rooms[1])\n")
    }

    @Test("the password never shows: wrong ones, ones in the address, and ~/.pgpass rules")
    func credentials() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try TestPostgres.shared.get()
        let url = server.url()
        let list = ["diary", "list", "--store", url]
        let wrong = try cli.run(list, environment: ["PGPASSWORD": "wrong-secret-4711"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("password authentication failed for user \"taskcal\""))
        #expect(!(wrong.stdout + wrong.stderr).contains("wrong-secret-4711"))
        // A password in the address is refused before anything is sent, and not repeated.
        let inURL = url.replacingOccurrences(of: "taskcal@", with: "taskcal:\(server.password)@")
        let leaked = try cli.run(["diary", "list", "--store", inURL])
        #expect(leaked.status == 2)
        #expect(leaked.stderr.contains("give it in ~/.pgpass or PGPASSWORD"))
        #expect(!(leaked.stdout + leaked.stderr).contains(server.password))
        // ~/.pgpass: used when private, ignored (and said so) when others can read it.
        let home = cli.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try cli.write(
            "home/.pgpass",
            "# team server\n127.0.0.1:\(server.port):taskcal:taskcal:\(server.password)\n")
        chmod(cli.path("home/.pgpass"), 0o600)
        let fromFile = try cli.run(list, environment: ["HOME": home, "PGPASSWORD": ""])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        chmod(cli.path("home/.pgpass"), 0o644)
        let open = try cli.run(list, environment: ["HOME": home, "PGPASSWORD": ""])
        #expect(open.status == 2)
        #expect(
            open.stderr.contains("home/.pgpass is ignored: others can read it"), "\(open.stderr)")
        #expect(!(open.stdout + open.stderr).contains(server.password))
    }

    @Test("an address taskcal does not know is an error, not a file of that name")
    func unknownScheme() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        for store in ["mysql://me@db/diary", "postgress://me@db/diary"] {
            let result = try cli.run([
                "diary", "add", "--store", store, "--name", "x", "--start", "2026-11-27T09:00",
                "--end", "2026-11-27T10:00",
            ])
            #expect(result.status == 2)
            #expect(result.stderr.contains("taskcal knows no diary at"), "\(result.stderr)")
            let environment = try cli.run(["diary", "list"], environment: ["TASKCAL_STORE": store])
            #expect(environment.status == 2)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path) == [])
        let unknownParameter = try cli.run([
            "diary", "list", "--store", "postgres://me@127.0.0.1/db?diray=team",
        ])
        #expect(unknownParameter.status == 2)
        #expect(unknownParameter.stderr.contains("unknown parameter 'diray'"))
    }
}
