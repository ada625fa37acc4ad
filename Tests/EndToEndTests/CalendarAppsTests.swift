import Foundation
import Testing

/// The JSON records a conversion printed, one object each (NDJSON on standard output).
private func records(_ text: String) throws -> [[String: Any]] {
    try Taskcal.recordList(text)
}

@Suite("What calendar apps export comes in whole, and goes back")
struct CalendarAppsTests {
    @Test(
        "a Google export: recurrence, exceptions, a moved occurrence, people and extras round-trip")
    func google() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let first = try cli.run([
            "convert", Taskcal.sample("google-recurring.ics"), "-o", "google.json",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let json = try cli.read("google.json")
        let list = try Taskcal.recordList(json)
        #expect(list.count == 4)
        // The calendar's own lines come along: its name, METHOD, zone.
        let calendar = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let calendarLines = (calendar?["calendar"] as? [String: Any])?["ical_extra"] as? [String]
        #expect(calendarLines?.contains("X-WR-CALNAME:Team") == true)
        #expect(calendarLines?.contains("METHOD:PUBLISH") == true)
        let series = list[0]
        #expect(series["time_zone"] as? String == "Europe/Berlin")
        #expect(series["date_start"] as? String == "1792395000")  // 2026-10-19 09:30 CEST
        let recurrence = series["recurrence"] as? [String: Any]
        #expect(recurrence?["rule"] as? String == "FREQ=WEEKLY;BYDAY=MO,WE")
        #expect(recurrence?["exdates"] as? [String] == ["1794385800"])  // 11-11 09:30 CET
        #expect(series["location"] as? String == "Room 4.12, Alexanderplatz 1, Berlin")
        #expect(series["categories"] as? [String] == ["Work", "Team"])
        #expect(series["color"] as? String == "teal")
        let organizer = series["organizer"] as? [String: Any]
        #expect(organizer?["name"] as? String == "Anna Schmidt")
        let attendees = series["attendees"] as? [[String: Any]] ?? []
        #expect(attendees.count == 2)
        #expect(
            (attendees.last?["parameters"] as? [String: String])?["PARTSTAT"] == "NEEDS-ACTION")
        #expect(
            (series["ical_extra"] as? [String] ?? []).contains(
                "X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij"))
        // The moved occurrence shares the series' id and names the start it replaces.
        let moved = list[1]
        #expect(moved["id"] as? Int == series["id"] as? Int)
        #expect(moved["recurrence_id"] as? String == "1795595400")
        #expect(list[2]["all_day"] as? Bool == true)
        #expect(list[2]["class"] as? String == "private")
        #expect(list[3]["date_start"] as? String == "1795712400")  // floating 18:00 in Berlin

        // JSON → .ics → JSON gives the same bytes.
        #expect(try cli.run(["convert", "google.json", "-o", "back.ics"]).status == 0)
        let ics = try cli.read("back.ics")
        #expect(ics.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,WE\r\n"))
        #expect(ics.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261125T093000\r\n"))
        #expect(ics.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(ics.contains("X-WR-CALNAME:Team\r\n"))
        #expect(try cli.run(["convert", "back.ics", "-o", "again.json"]).status == 0)
        #expect(try cli.read("again.json") == json)

        // --drop-extra leaves the verbatim lines out.
        let dropped = try cli.run([
            "convert", "google.json", "--to", "ndjson", "--drop-extra", "-o", "-",
        ])
        #expect(!dropped.stdout.contains("ical_extra"))
        #expect(dropped.stdout.contains("\"attendees\""))
    }

    @Test("an Outlook export: Windows zone names, with and without a VTIMEZONE")
    func outlook() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run([
            "convert", Taskcal.sample("outlook-export.ics"), "--to", "ndjson", "-o", "-",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let list = try records(result.stdout)
        #expect(
            list.map { $0["time_zone"] as? String } == [
                "Europe/Berlin", "America/Los_Angeles", "Asia/Tokyo",
            ])
        // "Tokyo Standard Time" has no VTIMEZONE in the file: CLDR maps it to Asia/Tokyo.
        #expect(list[2]["date_start"] as? String == "1796634000")  // 18:00 JST = 09:00Z
        let back = try cli.run(
            ["convert", "-", "--from", "ndjson", "--to", "ics", "-o", "-"], stdin: result.stdout)
        #expect(back.stdout.contains("DTSTART;TZID=Asia/Tokyo:20261207T180000\r\n"))
        #expect(back.stdout.contains("BEGIN:VTIMEZONE\r\nTZID:Asia/Tokyo\r\n"))
    }

    @Test("a to-do with subtasks: RELATED-TO becomes nesting, and nesting RELATED-TO")
    func todos() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(
            try cli.run(["convert", Taskcal.sample("todo-with-subtasks.ics"), "-o", "tasks.json"])
                .status == 0)
        let list = try Taskcal.recordList(try cli.read("tasks.json"))
        #expect(list.count == 1)
        let parent = list[0]
        #expect(parent["kind"] as? String == "todo")
        #expect(parent["status"] as? String == "in-process")
        #expect(parent["due"] as? String == "1797292800")
        #expect(parent["date_start"] == nil)
        let subtasks = parent["subtasks"] as? [[String: Any]] ?? []
        #expect(
            subtasks.map { $0["name"] as? String } == [
                "Buy boxes", "Book the van", "Tell the bank the new address",
            ])
        #expect(subtasks[0]["done"] as? Bool == true)
        #expect(subtasks[1]["due"] as? String == "1796904000")
        #expect(try cli.run(["convert", "tasks.json", "-o", "tasks.ics"]).status == 0)
        let ics = try cli.read("tasks.ics")
        #expect(ics.components(separatedBy: "BEGIN:VTODO").count - 1 == 4)
        #expect(
            ics.components(separatedBy: "RELATED-TO:moving-2026@tasks.example.org").count - 1 == 3)
        #expect(ics.contains("STATUS:COMPLETED\r\n"))
        #expect(try cli.run(["convert", "tasks.ics", "-o", "again.json"]).status == 0)
        #expect(try cli.read("again.json") == cli.read("tasks.json"))
        // To-dos block no time: a to-do and an event at the same time do not overlap.
        try cli.write(
            "mixed.json",
            """
            [{"id": 1, "kind": "todo", "date_start": "100", "date_finish": "200", "name": "t"},
             {"id": 2, "date_start": "100", "date_finish": "200", "name": "e"}]
            """)
        #expect(try cli.run(["overlaps", "mixed.json"]).status == 0)
    }

    @Test("a weekly habit: overlaps and agenda see each occurrence; --expand writes them")
    func habit() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let sample = Taskcal.sample("weekly-habit.json")
        let overlaps = try cli.run([
            "overlaps", sample, "--tz", "Europe/Berlin", "--format", "json",
        ])
        #expect(overlaps.status == 1)
        let pairs = try JSONSerialization.jsonObject(with: Data(overlaps.stdout.utf8)) as! [Any]
        #expect(pairs.count == 1)
        #expect(overlaps.stdout.contains("\"overlap_start\": \"1795591800\""))
        let agenda = try cli.run(["agenda", "2026-11-25", sample, "--tz", "Europe/Berlin"])
        #expect(agenda.stdout.contains("08:00–09:00 │ [08:00–09:00 Gym] [08:30–09:30 Dentist]"))
        let expanded = try cli.run([
            "convert", sample, "--to", "ndjson", "-o", "-", "--tz", "Europe/Berlin",
            "--expand", "2026-11-30..2026-12-12",
        ])
        let list = try records(expanded.stdout)
        let gym = list.filter { $0["name"] as? String == "Gym" }
        // Mon/Wed/Fri 30 Nov – 11 Dec is six, minus the exception on 7 Dec.
        #expect(gym.count == 5)
        #expect(!gym.contains { $0["date_start"] as? String == "1796626800" })
        #expect(gym.allSatisfy { $0["recurrence"] == nil && $0["recurrence_id"] != nil })
        // Across the change to winter time a 09:30 series stays at 09:30 local.
        let google = try cli.run([
            "convert", Taskcal.sample("google-recurring.ics"), "--to", "ndjson", "-o", "-",
            "--expand", "2026-10-19..2026-11-30", "--tz", "Europe/Berlin",
        ])
        let planning = try records(google.stdout).filter {
            ($0["name"] as? String)?.hasPrefix("Planning") == true
        }
        let starts = planning.compactMap { ($0["date_start"] as? String).flatMap(Int64.init) }
        // 12 Mondays and Wednesdays, minus 11 Nov; 25 Nov moved to 14:00.
        #expect(starts.count == 11)
        #expect(starts.contains(1_792_395_000))  // 19 Oct 09:30 CEST
        #expect(starts.contains(1_793_003_400))  // 26 Oct 09:30 CET
        #expect(!starts.contains(1_794_385_800))  // 11 Nov, the exception
        #expect(starts.contains(1_795_611_600))  // 25 Nov 14:00, the moved one
        #expect(!starts.contains(1_795_595_400))  // 25 Nov 09:30, replaced
        #expect(
            try cli.run(["convert", sample, "--expand", "tomorrow", "-o", "x.ics"]).status == 2)
    }

    @Test(
        "a diary habit is checked occurrence by occurrence",
        arguments: ["diary.sqlite", "vdir:diary"])
    func diaryHabit(store: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        let gym = try diary([
            "add", "--name", "Gym", "--start", "2026-11-23T08:00", "--end", "2026-11-23T09:00",
            "--repeat", "weekly", "--on", "MO,WE,FR",
        ])
        #expect(gym.status == 0, "\(gym.stderr)")
        // A Wednesday four weeks on, after the change of month: refused, naming the habit.
        let clash = try diary([
            "add", "--name", "Dentist", "--start", "2026-12-16T08:30", "--end",
            "2026-12-16T09:30",
        ])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("overlaps #1 \"Gym\" (2026-12-16T08:00+01:00 – 09:00)"))
        // A Thursday is free.
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-17T08:30", "--end",
                "2026-12-17T09:30",
            ]).status == 0)
        // A daily habit at the same hour collides with the weekly one; a later hour does not.
        let daily = try diary([
            "add", "--name", "Run", "--start", "2026-11-24T08:30", "--end", "2026-11-24T09:00",
            "--repeat", "daily",
        ])
        #expect(daily.status == 1)
        #expect(daily.stderr.contains("\"Gym\""))
        let evening = try diary([
            "add", "--name", "Run", "--start", "2026-11-24T19:00", "--end", "2026-11-24T19:30",
            "--repeat", "daily", "--count", "30",
        ])
        #expect(evening.status == 0)
        // A habit that would run into an existing entry is refused too.
        let thursday = try diary([
            "add", "--name", "Swim", "--start", "2026-11-26T09:00", "--end", "2026-11-26T10:00",
            "--repeat", "weekly", "--until", "2026-12-31",
        ])
        #expect(thursday.status == 1)
        #expect(thursday.stderr.contains("\"Dentist\""))
        // Skipping one Wednesday frees its slot; a rule change is checked like an add.
        #expect(try diary(["edit", "1", "--skip", "2026-12-16"]).status == 0)
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-16T08:30", "--end",
                "2026-12-16T09:30",
            ]).status == 0)
        #expect(try diary(["edit", "1", "--skip", "2026-12-17"]).status == 2)
        let everyDay = try diary(["edit", "1", "--rule", "FREQ=DAILY"])
        #expect(everyDay.status == 1)
        #expect(everyDay.stderr.contains("\"Dentist\""))
        let check = try diary(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let list = try diary(["list"])
        #expect(list.stdout.contains("(repeats: FREQ=WEEKLY;BYDAY=MO,WE,FR)"))
        // A day's list shows the habits' occurrences that day.
        let friday = try diary(["list", "--day", "2026-12-18"])
        #expect(friday.stdout.contains("2026-12-18 Fri 08:00–09:00  Gym"), "\(friday.stdout)")
        #expect(friday.stdout.contains("2026-12-18 Fri 19:00–19:30  Run"))
        #expect(!friday.stdout.contains("Dentist"))
        let agenda = try cli.run([
            "agenda", "2026-12-18", "--store", store.hasPrefix("vdir:") ? store : cli.path(store),
            "--tz", "Europe/Berlin",
        ])
        #expect(agenda.stdout.contains("[08:00–09:00 Gym]"))
        #expect(agenda.stdout.contains("[19:00–19:30 Run]"))
    }

    @Test(
        "unclear components are left out with a warning; --strict refuses them; --skip-invalid writes the rest"
    )
    func skipInvalid() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "mixed.ics",
            """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:a
            DTSTART:20261201T100000Z
            SUMMARY:fine
            CATEGORIES:
            LINK;LINKREL=latest-version:https://example.com/a
            END:VEVENT
            BEGIN:VEVENT
            UID:b
            SUMMARY:no start
            END:VEVENT
            END:VCALENDAR

            """)
        let lenient = try cli.run(["convert", "mixed.ics", "-o", "out.json"])
        #expect(lenient.status == 0)
        #expect(
            lenient.stderr.contains(
                "warning: mixed.ics:11: the VEVENT of line 11 cannot become a record; kept with the calendar as written: it has no DTSTART"
            ))
        #expect(lenient.stderr.contains("warning: mixed.ics:8: CATEGORIES has no value; left out"))
        // A property libical 3.0 cannot read is kept as written.
        #expect(
            try cli.read("out.json").contains(
                #""ical_extra": ["LINK;LINKREL=latest-version:https://example.com/a"]"#))
        let strict = try cli.run(["convert", "mixed.ics", "-o", "strict.json", "--strict"])
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("taskcal: mixed.ics:11: the VEVENT of line 11 is left out"))
        #expect(!cli.exists("strict.json"))
        let skip = try cli.run([
            "convert", "mixed.ics", "-o", "skip.json", "--strict", "--skip-invalid",
        ])
        #expect(skip.status == 1)
        #expect(try cli.read("skip.json").contains("\"name\": \"fine\""))
    }

    @Test("a floating weekly event repeats at the same wall-clock time in X-WR-TIMEZONE")
    func floatingSeries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "floating.ics",
            """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            X-WR-TIMEZONE:Europe/Berlin
            BEGIN:VEVENT
            UID:choir
            DTSTART:20261021T190000
            DTEND:20261021T203000
            RRULE:FREQ=WEEKLY;COUNT=3
            SUMMARY:Choir
            END:VEVENT
            END:VCALENDAR

            """)
        let result = try cli.run([
            "convert", "floating.ics", "--to", "ndjson", "-o", "-", "--expand",
            "2026-10-01..2026-12-01",
        ])
        let starts = try records(result.stdout).compactMap { $0["date_start"] as? String }
        // 19:00 CEST, then 19:00 CET after the clocks went back on 25 October.
        #expect(starts == ["1792602000", "1793210400", "1793815200"])
    }

    @Test(
        "an all-day event keeps its dates in every zone, from the date line's both sides",
        arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu", "UTC"])
    func allDayInZones(zone: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // 24–26 December 2026: three days, the end date exclusive.
        try cli.write(
            "days.json",
            """
            [{"id": 1, "date_start": "1798070400", "date_finish": "1798329600", "name": "Christmas",
              "all_day": true}]
            """)
        #expect(try cli.run(["convert", "days.json", "-o", "days.ics", "--tz", zone]).status == 0)
        let ics = try cli.read("days.ics")
        #expect(ics.contains("DTSTART;VALUE=DATE:20261224\r\n"))
        #expect(ics.contains("DTEND;VALUE=DATE:20261227\r\n"))
        #expect(
            try cli.run(["convert", "days.ics", "-o", "back.json", "--tz", zone]).status == 0)
        #expect(try cli.read("back.json").contains("\"date_start\": \"1798070400\""))
        let month = try cli.run([
            "month", "2026-12", "days.json", "--tz", zone, "--format", "json",
        ])
        let days =
            (try JSONSerialization.jsonObject(with: Data(month.stdout.utf8)) as? [String: Any])?[
                "days"] as? [[String: Any]] ?? []
        let marked = days.filter { ($0["entries"] as? Int ?? 0) > 0 }.compactMap {
            $0["date"] as? String
        }
        #expect(marked == ["2026-12-24", "2026-12-25", "2026-12-26"])
    }

    @Test("JSON records get libical's checks: unknown zones and rules are refused with the field")
    func checks() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "bad.json",
            """
            [{"id": 1, "date_start": "0", "date_finish": "60", "name": "a", "time_zone": "Mars/Olympus",
              "recurrence": {"rule": "FREQ=SOMETIMES"}},
             {"id": 2, "date_start": "0", "date_finish": "60", "name": "b", "due": "5",
              "categories": ["a,b"]}]
            """)
        let result = try cli.run(["validate", "bad.json"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.json: [0].time_zone: unknown time zone 'Mars/Olympus'"))
        #expect(result.stderr.contains("bad.json: [0].recurrence.rule: 'FREQ=SOMETIMES'"))
        #expect(result.stderr.contains("bad.json: [1].due: only a to-do has a due time"))
        // A comma inside one category is written escaped (libical cannot; the writer can).
        #expect(!result.stderr.contains("categories"))
    }
}
