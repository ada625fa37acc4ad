import Foundation
import Testing

/// The tracker's habits: each day done or not, its main screen, its statistics screen.
@Suite("Habits done day by day: diary done/undo --on, diary today, stats of what was done")
struct HabitTests {
    /// A diary with two daily habits of 16–22 November 2026: Run done on the 16th, 17th,
    /// 18th and 21st, Read on the 16th, 17th and 20th.
    static func week(_ cli: Taskcal, store: String) throws -> (([String]) throws -> Taskcal.Result)
    {
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        for (name, start, end, extra) in [
            (
                "Run", "2026-11-16T07:00", "2026-11-16T07:30",
                ["--color", "turquoise", "--emoji", "🏃"]
            ),
            ("Read", "2026-11-16T21:00", "2026-11-16T21:30", []),
        ] {
            let added = try diary(
                [
                    "add", "--name", name, "--start", start, "--end", end, "--repeat", "daily",
                    "--count", "7",
                ] + extra)
            #expect(added.status == 0, "\(added.stderr)")
        }
        for (id, days) in [("1", ["16", "17", "18", "21"]), ("2", ["16", "17", "20"])] {
            for day in days {
                let done = try diary(["done", id, "--on", "2026-11-\(day)"])
                #expect(done.status == 0, "\(done.stderr)")
            }
        }
        return diary
    }

    /// `stats` of the week as JSON.
    static func stats(_ diary: ([String]) throws -> Taskcal.Result) throws -> [String: Any] {
        let result = try diary([
            "stats", "--from", "2026-11-16", "--to", "2026-11-23", "--by", "habit", "--format",
            "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// What the statistics screen must show for the week.
    static func expectWeek(_ stats: [String: Any], _ where: String) {
        #expect(stats["completed"] as? Int == 7, "\(`where`): \(stats)")
        #expect(stats["ideal_days"] as? Int == 2, "\(`where`)")  // 16 and 17: both done
        #expect(stats["habit_occurrences_scheduled"] as? Int == 14, "\(`where`)")
        // All habits in time order: Run 16, Read 16, Run 17, Read 17, Run 18, then Read 18
        // not done.
        let best = stats["best_period"] as? [String: Any]
        #expect(best?["occurrences"] as? Int == 5, "\(`where`)")
        #expect(best?["first"] as? String == "2026-11-16", "\(`where`)")
        #expect(best?["last"] as? String == "2026-11-18", "\(`where`)")
        #expect(stats["average_done_per_day"] as? Double == 1.0, "\(`where`)")
        let habits = stats["habits"] as? [[String: Any]] ?? []
        #expect(habits.map { $0["name"] as? String } == ["Run", "Read"], "\(`where`)")
        #expect(habits.map { $0["done"] as? Int } == [4, 3], "\(`where`)")
        #expect(
            habits.map { ($0["best_period"] as? [String: Any])?["occurrences"] as? Int } == [3, 2],
            "\(`where`)")
        #expect(habits.first?["color"] as? String == "turquoise", "\(`where`)")
        // Days with something done: 16, 17, 18, then 20, 21 (22 is the last day, not done).
        #expect(stats["longest_streak_days"] as? Int == 3, "\(`where`)")
        #expect(stats["current_streak_days"] as? Int == 2, "\(`where`)")
    }

    @Test(
        "a week of two daily habits: completed, best period, ideal days; export → import keeps them",
        arguments: diaryBackends)
    func week(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let diary = try Self.week(cli, store: cli.store(backend))
        Self.expectWeek(try Self.stats(diary), backend)
        let text = try diary(["stats", "--from", "2026-11-16", "--to", "2026-11-23"])
        #expect(text.stdout.contains("  completed     7\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  best period   5 (2026-11-16 – 2026-11-18)\n"))
        #expect(text.stdout.contains("  ideal days    2\n"))
        #expect(text.stdout.contains("  average       1.0 done per day (over 7 days)\n"))
        #expect(text.stdout.contains("  habits        14 occurrences scheduled, 0 skipped\n"))
        // Run alone, as the tracker's own screen for it.
        let run = try #require((try Self.stats(diary)["habits"] as? [[String: Any]])?.first)
        #expect(run["scheduled"] as? Int == 7)
        #expect(run["current_period"] as? Int == 0)  // the 22nd was not done

        // Exported and imported into a fresh diary of each local kind: the same screen.
        #expect(try diary(["export", "-o", cli.path("week.ics")]).status == 0)
        let ics = try cli.read("week.ics")
        #expect(ics.components(separatedBy: "X-TASKCAL-COMPLETED:").count - 1 == 7)
        #expect(!ics.contains("STATUS:COMPLETED"), "an event is never STATUS:COMPLETED")
        for fresh in ["fresh.sqlite", "vdir:" + cli.path("fresh")] {
            let imported = try cli.run([
                "diary", "import", cli.path("week.ics"), "--store", fresh, "--tz", "Europe/Berlin",
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            Self.expectWeek(
                try Self.stats {
                    try cli.run(["diary"] + $0 + ["--store", fresh, "--tz", "Europe/Berlin"])
                },
                "\(backend) → \(fresh)")
        }
    }

    @Test(
        "done and undo: messages, refusals, a bare change taken back leaves no trace",
        arguments: ["sqlite", "vdir"])
    func doneAndUndo(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let diary = try Self.week(cli, store: cli.store(backend))
        let again = try diary(["done", "1", "--on", "2026-11-21"])
        #expect(again.status == 0)
        #expect(again.stdout == "#1 \"Run\" was done on 2026-11-21 already\n", "\(again.stdout)")
        let undo = try diary(["undo", "1", "--on", "2026-11-21"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout == "#1 \"Run\" is no longer done on 2026-11-21 (done 3 days)\n")
        // The change that only said "done" is gone: three changed occurrences of Run remain.
        let exported = try diary(["export", "-o", cli.path("after.ics")])
        #expect(
            exported.stderr.contains("(8 records: 6 changed occurrences)"), "\(exported.stderr)")
        let notDone = try diary(["undo", "1", "--on", "2026-11-19"])
        #expect(notDone.status == 1)
        #expect(
            notDone.stderr.contains("#1 \"Run\" is not done on 2026-11-19"), "\(notDone.stderr)")
        let noOccurrence = try diary(["done", "1", "--on", "2026-11-23"])
        #expect(noOccurrence.status == 2)
        #expect(noOccurrence.stderr.contains("does not occur then"), "\(noOccurrence.stderr)")
        let future = try diary(["done", "1", "--on", "2999-01-01"])
        #expect(future.status == 2)
        #expect(future.stderr.contains("that day has not come yet"), "\(future.stderr)")
        // A changed occurrence keeps its change when its done mark is taken back.
        #expect(
            try diary(["edit", "2", "--occurrence", "2026-11-16", "--name", "Read Tolstoy"]).status
                == 0)
        #expect(try diary(["undo", "2", "--on", "2026-11-16"]).status == 0)
        let list = try diary(["list", "--day", "2026-11-16"])
        #expect(list.stdout.contains("Read Tolstoy"), "\(list.stdout)")
        // An entry that does not repeat is done once; --on is refused for it.
        #expect(
            try diary([
                "add", "--name", "Dentist <script>", "--start", "2026-11-18T10:00", "--end",
                "2026-11-18T11:00",
            ]).stdout == "3\n")
        let once = try diary(["done", "3"])
        #expect(once.stdout == "#3 \"Dentist <script>\" is done\n", "\(once.stderr)")
        let dated = try diary(["done", "3", "--on", "2026-11-18"])
        #expect(dated.status == 2)
        #expect(dated.stderr.contains("does not repeat; it is done once"), "\(dated.stderr)")
        // Today's occurrence by default: a habit without an end is done today.
        #expect(
            try diary([
                "add", "--name", "Stretch", "--start", "2026-11-01T06:00", "--end",
                "2026-11-01T06:10", "--repeat", "daily",
            ]).stdout == "4\n")
        let today = try diary(["done", "4"])
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
        formatter.dateFormat = "yyyy-MM-dd"
        #expect(today.status == 0, "\(today.stderr)")
        #expect(
            today.stdout.contains("is done on \(formatter.string(from: Date()))"), "\(today.stdout)"
        )
    }

    @Test("diary today: the day's habits and entries in time order, done marks, done N days")
    func todayScreen() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let diary = try Self.week(cli, store: cli.store("sqlite"))
        #expect(
            try diary(["add", "--todo", "--name", "Call mum", "--due", "2026-11-17T12:00"]).status
                == 0)
        let text = try diary(["today", "2026-11-17"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout == """
                Tuesday 2026-11-17 (Europe/Berlin)
                  [x] #1  07:00–07:30  🏃 Run  ● turquoise  done 4 days
                  [ ] #3  due 2026-11-17 12:00  Call mum
                  [x] #2  21:00–21:30  Read  done 3 days
                2 of 3 done

                """, "\(text.stdout)")
        let json = try diary(["today", "2026-11-18", "--search", "read", "--format", "json"])
        let day = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let entries = try #require(day["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["name"] as? String == "Read")
        #expect(entries.first?["done"] as? Bool == false)
        #expect(entries.first?["done_days"] as? Int == 3)
        let bad = try diary(["today", "someday"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'someday' is not a day"), "\(bad.stderr)")
    }

    @Test(
        "diary sync carries the done days: a second diary shows the same screen",
        .enabled(if: radicaleInstalled || required, "\(radicaleMissing)"),
        .enabled(if: BuiltTraits.calDAV || required, "\(BuiltTraits.missing("CalDAV"))"),
        arguments: CalDAVServerKind.available)
    func syncKeepsDoneDays(server kind: CalDAVServerKind) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try CalDAVTests.setUp(cli, kind)
        defer { server.stop() }
        let calendar = server.calendar("habits")
        #expect(try CalDAVTests.run(cli, ["caldav", "mkcal", calendar]).status == 0)
        func diary(_ store: String) -> ([String]) throws -> Taskcal.Result {
            { arguments in
                try CalDAVTests.run(cli, ["diary"] + arguments + ["--store", store])
            }
        }
        _ = try Self.week(cli, store: "home.sqlite")
        let home = diary("home.sqlite")
        let pushed = try home(["sync", calendar])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let laptop = diary("vdir:" + cli.path("laptop"))
        let pulled = try laptop(["sync", calendar])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        Self.expectWeek(try Self.stats(laptop), "after sync")
        // A day done on the laptop reaches home through the server.
        #expect(try laptop(["done", "2", "--on", "2026-11-18"]).status == 0)
        #expect(try laptop(["sync", calendar]).status == 0)
        #expect(try home(["sync", calendar]).status == 0)
        let stats = try Self.stats(home)
        #expect(stats["completed"] as? Int == 8, "\(stats)")
        #expect(stats["ideal_days"] as? Int == 3, "\(stats)")
    }
}
