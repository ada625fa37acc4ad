import Foundation
import Testing

@Suite("taskcal stats and diary stats")
struct StatisticsTests {
    @Test(
        "stats on files: entries, busy time without double counting, free stretch, habits, to-dos")
    func files() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // One day of eight entries: one cancelled, one of no length, three overlapping.
        let day = try cli.run([
            "stats", Taskcal.sample("overlaps.json"), "--tz", "Europe/Berlin", "--by", "day",
        ])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(
            day.stdout == """
                Statistics 2026-11-27 09:00 – 2026-11-27 17:00 (Europe/Berlin)
                  entries       7
                  busy          6 h
                  longest free  1 h (12:00–13:00)
                  completed     0
                  best period   0
                  ideal days    0
                  average       0.0 done per day (over 1 day)
                  to-dos        0 open, 0 done
                  habits        0 occurrences scheduled, 0 skipped
                  streaks       0 days longest, 0 days to the end (days with something done)
                By day:
                  2026-11-27  7 entries, 0 done, 6 h busy

                """)
        // A habit with a skipped week, to-dos with subtasks, by ISO week, as JSON.
        let json = try cli.run([
            "stats", Taskcal.sample("weekly-habit.json"), Taskcal.sample("todo-with-subtasks.ics"),
            "--tz", "Europe/Berlin", "--from", "2026-11-23", "--to", "2026-12-08", "--by", "week",
            "--format", "json",
        ])
        #expect(json.status == 0, "\(json.stderr)")
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(stats["todos_open"] as? Int == 3)
        #expect(stats["todos_done"] as? Int == 1)
        #expect(stats["habit_occurrences_skipped"] as? Int == 1)
        let groups = try #require(stats["groups"] as? [[String: Any]])
        #expect(groups.map { $0["key"] as? String } == ["2026-W48", "2026-W49"])
        #expect(
            (stats["entries"] as? Int)
                == groups.map { $0["entries"] as? Int ?? 0 }.reduce(0, +))
        // Nothing with a time: said so, not a window at 1970.
        try cli.write("todo.json", #"[{"id": 1, "name": "Taxes", "kind": "todo"}]"#)
        let todo = try cli.run(["stats", cli.path("todo.json"), "--tz", "UTC"])
        #expect(
            todo.stdout.hasPrefix("Statistics (no entries with a time; UTC)\n"), "\(todo.stdout)")
        #expect(todo.stdout.contains("  to-dos        1 open, 0 done\n"))
        // Options are checked before anything is read.
        let bad = try cli.run(["stats", Taskcal.sample("overlaps.json"), "--by", "year"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'year'"), "\(bad.stderr)")
        let backwards = try cli.run([
            "stats", Taskcal.sample("overlaps.json"), "--from", "2026-12-02", "--to", "2026-12-01",
        ])
        #expect(backwards.status == 2)
        #expect(backwards.stderr.contains("--to must be after --from"), "\(backwards.stderr)")
    }

    @Test(
        "diary stats: habits scheduled, skipped and done, streaks of days done, by day",
        arguments: ["sqlite", "vdir"])
    func diary(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        #expect(
            try diary([
                "add", "--name", "Run", "--start", "2026-11-02T07:00", "--end", "2026-11-02T07:30",
                "--repeat", "daily", "--count", "5",
            ]).stdout == "1\n")
        #expect(try diary(["edit", "1", "--skip", "2026-11-04"]).status == 0)
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-11-03T14:00", "--end",
                "2026-11-03T15:00",
            ]).status == 0)
        for arguments in [["1", "--on", "2026-11-02"], ["1", "--on", "2026-11-03"], ["2"]] {
            let done = try diary(["done"] + arguments)
            #expect(done.status == 0, "\(done.stderr)")
        }
        let stats = try diary([
            "stats", "--from", "2026-11-02", "--to", "2026-11-07", "--by", "day",
        ])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("  entries       5\n"), "\(stats.stdout)")
        #expect(stats.stdout.contains("  busy          3 h\n"), "\(stats.stdout)")
        #expect(stats.stdout.contains("  completed     3\n"), "\(stats.stdout)")
        // Run on the 2nd and 3rd, then not on the 5th: two in a row.
        #expect(stats.stdout.contains("  best period   2 (2026-11-02 – 2026-11-03)\n"))
        #expect(stats.stdout.contains("  ideal days    2\n"), "\(stats.stdout)")
        #expect(
            stats.stdout.contains("  habits        4 occurrences scheduled, 1 skipped\n"),
            "\(stats.stdout)")
        // Done on the 2nd and 3rd: two days in a row, none reaching the 6th.
        #expect(
            stats.stdout.contains(
                "  streaks       2 days longest, 0 days to the end (days with something done)\n"),
            "\(stats.stdout)")
        #expect(stats.stdout.contains("  2026-11-03  2 entries, 2 done, 1 h 30 min busy\n"))
    }
}
