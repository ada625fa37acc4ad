import Foundation
import Testing

@Suite("taskcal free and diary free: the time no entry takes up")
struct FreeTimeTests {
    @Test("free on files: the gaps between entries, in working hours, as text and JSON")
    func files() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let common = ["--tz", "Europe/Berlin", "--from", "2026-11-27", "--to", "2026-11-29"]
        let all = try cli.run(["free", Taskcal.sample("overlaps.json")] + common)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stdout == """
                Free time 2026-11-27 00:00 – 2026-11-29 00:00 (Europe/Berlin):
                Friday 2026-11-27
                  00:00–09:00  9 h
                  12:00–13:00  1 h
                  15:00–16:00  1 h
                  2026-11-27 17:00–2026-11-29 00:00  31 h
                4 free stretches, 42 h in all

                """)
        let work = try cli.run(
            ["free", Taskcal.sample("overlaps.json")] + common + [
                "--hours", "09:00-18:00", "--days", "MO-FR", "--min", "1h", "--format", "json",
            ])
        #expect(work.status == 0, "\(work.stderr)")
        // Friday's gaps of an hour or more between 09:00 and 18:00 (Saturday is no workday).
        let slots = try #require(
            try JSONSerialization.jsonObject(with: Data(work.stdout.utf8)) as? [[String: Any]])
        #expect(slots.map { $0["minutes"] as? Int } == [60, 60, 60])
        #expect(slots.first?["date_start"] as? String == "1795777200")  // 12:00 in Berlin
        // A limit the user sets cuts the JSON list, which then says so inside itself.
        let capped = try cli.run(
            ["free", Taskcal.sample("overlaps.json")] + common + [
                "--hours", "09:00-18:00", "--min", "1h", "--format", "json", "--max-slots", "2",
            ])
        let counted = try #require(
            try JSONSerialization.jsonObject(with: Data(capped.stdout.utf8)) as? [String: Any])
        #expect((counted["free"] as? [[String: Any]])?.map { $0["minutes"] as? Int } == [60, 60])
        #expect(counted["listed"] as? Int == 2)
        #expect(counted["total"] as? Int == 4)
        #expect(counted["truncated"] as? Bool == true)
        #expect(capped.stderr.contains("listed the first 2 of 4 free stretches"))
        // Overnight hours reach into the next day; a stretch shorter than --min is not listed.
        let night = try cli.run(
            ["free", Taskcal.sample("overlaps.json")] + common + ["--hours", "22:00-06:00"])
        #expect(night.stdout.contains("2026-11-27 22:00–2026-11-28 06:00  8 h"), "\(night.stdout)")
        #expect(night.stdout.contains("  00:00–06:00  6 h"), "\(night.stdout)")
        // No free time: exit 1, said plainly.
        let none = try cli.run(
            [
                "free", Taskcal.sample("overlaps.json"), "--tz", "Europe/Berlin", "--from",
                "2026-11-27T09:00", "--to", "2026-11-27T12:00",
            ])
        #expect(none.status == 1)
        #expect(none.stdout.hasSuffix("  none\n"), "\(none.stdout)")
        // Bad options name what they expect.
        for (option, value, expected) in [
            ("--hours", "9-17", "expected HH:MM-HH:MM"), ("--days", "MO-XX", "expected MO-FR"),
            ("--min", "5", "expected one such as 30m"), ("--from", "soon", "is not a time"),
        ] {
            let bad = try cli.run(["free", Taskcal.sample("overlaps.json"), option, value])
            #expect(bad.status == 2, "\(option) \(value)")
            #expect(bad.stderr.contains(expected), "\(bad.stderr)")
        }
    }

    @Test(
        "diary free: habits take each occurrence, free entries take nothing",
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
                "add", "--name", "Standup", "--start", "2026-12-01T09:00", "--end",
                "2026-12-01T09:15", "--repeat", "weekly", "--on", "MO,TU,WE,TH,FR",
            ]).status == 0)
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-02T14:00", "--end",
                "2026-12-02T15:00",
            ]).status == 0)
        let free = try diary([
            "free", "--from", "2026-12-01", "--to", "2026-12-03", "--hours", "09:00-17:00",
            "--min", "1h",
        ])
        #expect(free.status == 0, "\(free.stderr)")
        #expect(
            free.stdout == """
                Free time 2026-12-01 00:00 – 2026-12-03 00:00 (Europe/Berlin, at least 1 h, 09:00–17:00):
                Tuesday 2026-12-01
                  09:15–17:00  7 h 45 min
                Wednesday 2026-12-02
                  09:15–14:00  4 h 45 min
                  15:00–17:00  2 h
                3 free stretches, 14 h 30 min in all

                """)
        // The same through taskcal free --store, as JSON.
        let json = try cli.run([
            "free", "--store", store, "--tz", "Europe/Berlin", "--from", "2026-12-01", "--to",
            "2026-12-03", "--hours", "09:00-17:00", "--min", "1h", "--format", "json",
        ])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.components(separatedBy: "\"minutes\"").count == 4)
    }
}
