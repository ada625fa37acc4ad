import Foundation
import Testing

@Suite("Diary alarms: set, switched off and on, listed, and fired once by remind")
struct DiaryAlarmTests {
    @Test(
        "alarms as the README shows them; remind fires each alarm once and only once",
        arguments: diaryBackends)
    func alarms(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-01T09:00", "--end",
                "2026-12-01T10:00", "--alarm", "-15m", "--alarm", "2026-12-01T07:00",
                "--alarm-at-end",
            ]).stdout == "1\n")
        #expect(
            try diary([
                "add", "--name", "Gym", "--start", "2026-12-01T18:00", "--end", "2026-12-01T19:00",
                "--repeat", "daily", "--count", "3", "--alarm", "-1h",
            ]).stdout == "2\n")
        #expect(
            try diary([
                "add", "--todo", "--name", "Pay rent", "--due", "2026-12-02T12:00", "--alarm",
                "-1d",
            ]).stdout == "3\n")
        let bad = try diary([
            "add", "--name", "x", "--start", "2026-12-05T09:00", "--end", "2026-12-05T10:00",
            "--alarm", "soon",
        ])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--alarm 'soon' is not a time"), "\(bad.stderr)")
        // Each habit occurrence has its alarm; a to-do's fires before it is due.
        #expect(
            try diary(["alarms", "--from", "2026-12-01", "--to", "2026-12-04"]).stdout == """
                2026-12-01 07:00  #1 Dentist (09:00–10:00)
                2026-12-01 08:45  #1 Dentist (09:00–10:00)
                2026-12-01 10:00  #1 Dentist (09:00–10:00)
                2026-12-01 12:00  #3 Pay rent (due 2026-12-02 12:00)
                2026-12-01 17:00  #2 Gym (18:00–19:00)
                2026-12-02 17:00  #2 Gym (18:00–19:00)
                2026-12-03 17:00  #2 Gym (18:00–19:00)

                """)
        #expect(
            try diary(["alarm", "off", "1", "--number", "2"]).stdout
                == "#1 \"Dentist\": alarm 2 off\n")
        let json = try diary([
            "alarms", "--from", "2026-12-01", "--to", "2026-12-02", "--format", "json",
        ])
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(
            listed.map { $0["fires"] as? String } == [
                "1796111100", "1796115600", "1796122800", "1796140800",
            ])
        // remind: on its first run the last 15 minutes; then everything since the last run.
        func remind(_ now: String) throws -> String {
            let result = try diary(["remind", "--print", "--now", now])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        #expect(
            try remind("2026-12-01T08:50")
                == "reminder: 2026-12-01 08:45  #1 Dentist (09:00–10:00)\n")
        #expect(try remind("2026-12-01T08:55") == "")
        #expect(try remind("2026-12-01T08:55") == "")
        #expect(
            try remind("2026-12-01T17:30") == """
                reminder: 2026-12-01 10:00  #1 Dentist (09:00–10:00)
                reminder: 2026-12-01 12:00  #3 Pay rent (due 2026-12-02 12:00)
                reminder: 2026-12-01 17:00  #2 Gym (18:00–19:00)

                """)
        #expect(try remind("2026-12-01T17:31") == "")
        // Switched off, an alarm never fires; on again, it does.
        #expect(try diary(["alarm", "off", "2"]).status == 0)
        #expect(try remind("2026-12-02T17:30") == "")
        #expect(try diary(["alarm", "on", "2"]).status == 0)
        #expect(
            try remind("2026-12-03T17:00") == "reminder: 2026-12-03 17:00  #2 Gym (18:00–19:00)\n")
        // What was fired is kept beside the diary, readable by its owner alone.
        let state: String =
            switch backend {
            case "sqlite": cli.path("diary.sqlite.reminded")
            case "vdir": cli.path("calendar/.taskcal-reminded")
            default:
                // A diary on a server: this user's own file, in XDG_STATE_HOME.
                cli.path("state/taskcal") + "/"
                    + ((try? FileManager.default.contentsOfDirectory(
                        atPath: cli.path("state/taskcal")))?.first { $0.hasSuffix(".reminded") }
                        ?? "missing")
            }
        let mode =
            try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Exported, the alarm switched off is kept where no app fires it, and read back off.
        #expect(try diary(["alarm", "off", "1", "--number", "1"]).status == 0)
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let ics = try cli.read("out.ics")
        #expect(
            ics.contains(
                "BEGIN:X-TASKCAL-DISABLED-VALARM\r\nX-TASKCAL-ACTION:DISPLAY\r\nX-TASKCAL-TRIGGER:-PT15M"
            ))
        #expect(
            try cli.run(["convert", cli.path("out.ics"), "-o", cli.path("back.json")]).status == 0)
        let back = try Taskcal.recordList(cli.read("back.json"))
        let dentist = try #require(back.first { $0["name"] as? String == "Dentist" })
        #expect(
            (dentist["alarms"] as? [[String: Any]])?.map { $0["enabled"] as? Bool ?? true }
                == [false, false, true])
    }
}
