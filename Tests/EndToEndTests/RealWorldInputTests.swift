import Foundation
import Testing

/// A calendar around `body` (CRLF line ends), with `lines` at the calendar level.
private func calendar(_ body: String, lines: String = "") -> String {
    ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + lines + body + "END:VCALENDAR\n")
        .replacingOccurrences(of: "\n", with: "\r\n")
}

/// One event with `uid` and the given lines.
private func event(_ uid: String, _ lines: String) -> String {
    "BEGIN:VEVENT\nUID:\(uid)\nDTSTAMP:20240101T000000Z\nSUMMARY:\(uid)\n" + lines + "END:VEVENT\n"
}

/// The records of a conversion's JSON output, by uid.
private func byUID(_ text: String) throws -> [String: [String: Any]] {
    var result: [String: [String: Any]] = [:]
    for record in try Taskcal.recordList(text) {
        result[record["uid"] as? String ?? "\(record["id"] ?? "")"] = record
    }
    return result
}

@Suite("Real-world calendars in: nothing refused that apps accept, nothing lost on the way back")
struct RealWorldInputTests {
    @Test("TZIDs calendar apps write resolve to system zones; an unknown one reads as floating")
    func zoneNames() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "zones.ics",
            calendar(
                event(
                    "display",
                    "DTSTART;TZID=\"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna\":20260115T090000\n"
                )
                    + event("offset", "DTSTART;TZID=GMT+03:00:20260115T090000\n")
                    + event("case", "DTSTART;TZID=europe/berlin:20260115T090000\n")
                    + event("prefix", "DTSTART;TZID=/Europe/Stockholm:20260115T090000\n")
                    + event("legacy", "DTSTART;TZID=US-Eastern:20260115T090000\n")
                    + event("windows", "DTSTART;TZID=W. Europe Standard Time:20260115T090000\n")
                    + event("unknown", "DTSTART;TZID=Western/Central Europe:20260115T090000\n")))
        let result = try cli.run(["convert", "zones.ics", "-o", "zones.json", "--tz", "Asia/Tokyo"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try byUID(try cli.read("zones.json"))
        // 09:00 at +01:00 is 08:00Z (1768464000); at +03:00 06:00Z; at -05:00 14:00Z.
        #expect(records["display"]?["date_start"] as? String == "1768464000")
        #expect(records["offset"]?["date_start"] as? String == "1768456800")
        #expect(records["case"]?["time_zone"] as? String == "Europe/Berlin")
        #expect(records["prefix"]?["time_zone"] as? String == "Europe/Stockholm")
        #expect(records["legacy"]?["date_start"] as? String == "1768485600")
        #expect(records["windows"]?["time_zone"] as? String == "Europe/Berlin")
        // Unknown: floating in --tz (09:00 JST = 00:00Z), said so, and kept as written.
        #expect(records["unknown"]?["date_start"] as? String == "1768435200")
        #expect(records["unknown"]?["floating"] as? Bool == true)
        #expect(
            result.stderr.contains(
                "warning: zones.ics:44: DTSTART: unknown time zone 'Western/Central Europe'"))
        #expect(try cli.run(["convert", "zones.json", "-o", "back.ics"]).status == 0)
        #expect(
            try cli.read("back.ics").contains(
                "DTSTART;TZID=Western/Central Europe:20260115T090000\r\n"))
        let strict = try cli.run(["convert", "zones.ics", "-o", "strict.json", "--strict"])
        #expect(strict.status == 2)
        #expect(!cli.exists("strict.json"))
    }

    @Test("values libical 3.0 rejects are kept as written, or read for their obvious intent")
    func laterValues() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "values.ics",
            calendar(
                event(
                    "e1",
                    """
                    DTSTART:20260115T090000Z
                    RELATED-TO;VALUE=UID:other-event
                    RDATE;VALUE=TIME:100000
                    GEO:52.5;13.4
                    BEGIN:VALARM
                    ACTION:DISPLAY
                    DESCRIPTION:x
                    TRIGGER:PT-2H
                    END:VALARM

                    """)))
        let result = try cli.run(["convert", "values.ics", "-o", "values.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "values.ics:15: TRIGGER: 'PT-2H' has its sign inside; read as '-PT2H'"))
        #expect(result.stderr.contains("values.ics:10: RDATE cannot be read by libical"))
        let record = try #require(try Taskcal.recordList(try cli.read("values.json")).first)
        let extra = record["ical_extra"] as? [String] ?? []
        #expect(extra.contains("RELATED-TO;VALUE=UID:other-event"))
        #expect(extra.contains("RDATE;VALUE=TIME:100000"))
        #expect(extra.contains("GEO:52.5;13.4"))
        let alarm = (record["alarms"] as? [[String: Any]])?.first
        #expect(alarm?["trigger"] as? String == "-PT2H")
        #expect(try cli.run(["convert", "values.json", "-o", "values.ics"]).status == 0)
        let back = try cli.read("values.ics")
        for line in [
            "RELATED-TO;VALUE=UID:other-event", "RDATE;VALUE=TIME:100000", "GEO:52.5;13.4",
        ] {
            #expect(back.contains(line + "\r\n"), "\(line)")
        }
    }

    @Test("contradictions are warned about with the reading chosen")
    func contradictions() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let lateZone = """
            BEGIN:VTIMEZONE
            TZID:Office
            BEGIN:STANDARD
            DTSTART:20200101T000000
            TZOFFSETFROM:+0530
            TZOFFSETTO:+0530
            END:STANDARD
            END:VTIMEZONE

            """
        try cli.write(
            "odd.ics",
            calendar(
                event("utc-zone", "DTSTART;TZID=Europe/Berlin:20150602T120000Z\n")
                    + event("early", "DTSTART;TZID=Office:20100101T120000\n") + lateZone))
        let result = try cli.run(["convert", "odd.ics", "-o", "odd.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "odd.ics:8: DTSTART has TZID=Europe/Berlin and a UTC time (…Z); read as UTC"))
        #expect(
            result.stderr.contains("the VTIMEZONE 'Office' comes after its first use; read ahead"))
        #expect(
            result.stderr.contains("DTSTART is before 2020, where the VTIMEZONE 'Office' begins"))
        let records = try byUID(try cli.read("odd.json"))
        #expect(records["utc-zone"]?["date_start"] as? String == "1433246400")
        // 12:00 at +05:30 = 06:30Z (the zone's earliest offset).
        #expect(records["early"]?["date_start"] as? String == "1262327400")
        // The TZID on the UTC time goes back out as it came.
        #expect(try cli.run(["convert", "odd.json", "-o", "back.ics"]).status == 0)
        #expect(
            try cli.read("back.ics").contains("DTSTART;TZID=Europe/Berlin:20150602T120000Z\r\n"))
    }

    @Test("the calendar's own lines survive; --calendar-name names it; NDJSON carries them first")
    func calendarLines() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "named.ics",
            calendar(
                event("e", "DTSTART:20260115T090000Z\n"),
                lines:
                    "METHOD:PUBLISH\nX-WR-CALNAME:Team\nX-APPLE-CALENDAR-COLOR:#FF2968\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\n"
            ))
        #expect(try cli.run(["convert", "named.ics", "-o", "named.json"]).status == 0)
        let json = try cli.read("named.json")
        #expect(
            json.hasPrefix(#"{"calendar": {"ical_extra": ["METHOD:PUBLISH", "X-WR-CALNAME:Team""#))
        #expect(try cli.run(["convert", "named.json", "-o", "named.ics"]).status == 0)
        let back = try cli.read("named.ics")
        for line in [
            "METHOD:PUBLISH", "X-WR-CALNAME:Team", "X-APPLE-CALENDAR-COLOR:#FF2968",
            "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
        ] {
            #expect(back.contains(line + "\r\n"), "\(line)")
        }
        let renamed = try cli.run([
            "convert", "named.json", "--to", "ndjson", "--calendar-name", "Home, sweet", "-o", "-",
        ])
        let first = renamed.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(#""NAME:Home\\, sweet", "X-WR-CALNAME:Home\\, sweet""#))
        #expect(!renamed.stdout.contains("X-WR-CALNAME:Team"))
    }

    @Test(
        "a journal entry is a record of kind journal, goes back as VJOURNAL, and the diary keeps it"
    )
    func journals() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "journal.ics",
            calendar(
                """
                BEGIN:VJOURNAL
                UID:j1
                DTSTAMP:20240101T000000Z
                DTSTART;VALUE=DATE:20260115
                SUMMARY:Thoughts
                DESCRIPTION:First.
                DESCRIPTION:Second.
                STATUS:FINAL
                END:VJOURNAL

                """ + event("busy", "DTSTART:20260115T000000Z\nDTEND:20260116T000000Z\n")))
        #expect(try cli.run(["convert", "journal.ics", "-o", "journal.json"]).status == 0)
        let records = try byUID(try cli.read("journal.json"))
        #expect(records["j1"]?["kind"] as? String == "journal")
        #expect(records["j1"]?["status"] as? String == "final")
        #expect(records["j1"]?["description"] as? String == "First.")
        #expect(records["j1"]?["ical_extra"] as? [String] == ["DESCRIPTION:Second."])
        #expect(try cli.run(["convert", "journal.json", "-o", "journal.ics"]).status == 0)
        let back = try cli.read("journal.ics")
        #expect(back.contains("BEGIN:VJOURNAL\r\n"))
        #expect(back.contains("DESCRIPTION:Second.\r\n"))
        // A journal entry occupies no time: the diary takes it beside a day-long event.
        let store = cli.path("diary.sqlite")
        let imported = try cli.run(["diary", "import", "journal.ics", "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try cli.run(["diary", "list", "--format", "json", "--store", store])
        #expect(list.stdout.contains(#""kind": "journal""#))
        #expect(try cli.run(["diary", "check", "--store", store]).status == 0)
    }

    @Test("floating times stay floating both ways; reports place them in --tz")
    func floating() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "float.ics",
            calendar(event("f", "DTSTART:20261123T230000\nDTEND:20261123T233000\n")))
        let read = try cli.run([
            "convert", "float.ics", "-o", "float.json", "--tz", "Europe/Berlin",
        ])
        #expect(read.status == 0, "\(read.stderr)")
        let record = try #require(try Taskcal.recordList(try cli.read("float.json")).first)
        #expect(record["floating"] as? Bool == true)
        #expect(record["time_zone"] as? String == "Europe/Berlin")
        #expect(try cli.run(["convert", "float.json", "-o", "float.ics"]).status == 0)
        #expect(try cli.read("float.ics").contains("DTSTART:20261123T230000\r\n"))
        // 23:00 wherever it is looked at: in Tokyo's agenda it is at 23:00 too.
        let agenda = try cli.run(["agenda", "2026-11-23", "float.json", "--tz", "Asia/Tokyo"])
        #expect(agenda.stdout.contains("23:00–00:00 │ [23:00–23:30 f]"), "\(agenda.stdout)")
    }

    @Test(
        "a zone only the file defines maps to the IANA zone whose rules match, and repeats step in it"
    )
    func exchangeZone() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let zone = """
            BEGIN:VTIMEZONE
            TZID:GMT +0100 (Standard) / GMT +0200 (Daylight)
            BEGIN:STANDARD
            DTSTART:16010101T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010101T020000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            END:DAYLIGHT
            END:VTIMEZONE
            BEGIN:VTIMEZONE
            TZID:Nowhere Standard Time
            BEGIN:STANDARD
            DTSTART:16010101T000000
            TZOFFSETFROM:+0517
            TZOFFSETTO:+0517
            END:STANDARD
            END:VTIMEZONE

            """
        try cli.write(
            "exchange.ics",
            calendar(
                zone
                    + event(
                        "weekly",
                        "DTSTART;TZID=\"GMT +0100 (Standard) / GMT +0200 (Daylight)\":20261019T093000\nRRULE:FREQ=WEEKLY;COUNT=3\n"
                    ) + event("odd", "DTSTART;TZID=Nowhere Standard Time:20261019T093000\n")))
        #expect(try cli.run(["convert", "exchange.ics", "-o", "exchange.json"]).status == 0)
        let records = try byUID(try cli.read("exchange.json"))
        let zoneName = records["weekly"]?["time_zone"] as? String ?? ""
        #expect(zoneName.hasPrefix("Europe/") || zoneName.hasPrefix("Africa/"), "\(zoneName)")
        // 09:30 every week: 07:30Z before the change of 25 October, 08:30Z after.
        let expanded = try cli.run([
            "convert", "exchange.json", "--expand", "2026-10-01..2026-11-30", "--to", "ndjson",
            "-o", "-", "--tz", "UTC",
        ])
        let starts = try Taskcal.recordList(expanded.stdout).filter {
            ($0["uid"] as? String) == "weekly"
        }
        .compactMap { $0["date_start"] as? String }
        #expect(starts == ["1792395000", "1793003400", "1793608200"])
        // The zone that matches nothing is kept and written back with its own definition.
        #expect(records["odd"]?["time_zone"] as? String == "Nowhere Standard Time")
        #expect(try cli.run(["convert", "exchange.json", "-o", "back.ics"]).status == 0)
        let back = try cli.read("back.ics")
        #expect(back.contains("TZID:Nowhere Standard Time\r\n"))
        #expect(back.contains("DTSTART;TZID=Nowhere Standard Time:20261019T093000\r\n"))
    }

    @Test("parameters, escapes, RANGE and empty values come back as they came in")
    func lossless() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "keep.ics",
            calendar(
                event(
                    "series",
                    """
                    DTSTART:20261019T093000Z
                    DTEND:20261019T100000Z
                    RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6
                    DESCRIPTION;LANGUAGE=de;ALTREP="cid:part1@example.org":Beschreibung
                    CATEGORIES:Meeting\\, John,Work
                    X-CUSTOM:a\\,b\\;c
                    CONTACT:
                    ATTENDEE;EMAIL=ann@example.org;PARTSTAT=ACCEPTED:mailto:ann@example.org

                    """)
                    + event(
                        "series",
                        """
                        RECURRENCE-ID;RANGE=THISANDFUTURE:20261102T093000Z
                        DTSTART:20261102T110000Z
                        DTEND:20261102T113000Z

                        """)))
        #expect(try cli.run(["convert", "keep.ics", "-o", "keep.json"]).status == 0)
        let records = try Taskcal.recordList(try cli.read("keep.json"))
        #expect(records[0]["categories"] as? [String] == ["Meeting, John", "Work"])
        #expect(
            (records[0]["recurrence"] as? [String: Any])?["rule"] as? String
                == "FREQ=WEEKLY;BYDAY=MO;COUNT=6")
        #expect(records[1]["this_and_future"] as? Bool == true)
        #expect(try cli.run(["convert", "keep.json", "-o", "keep.ics"]).status == 0)
        let back = try cli.read("keep.ics").replacingOccurrences(of: "\r\n ", with: "")
        for line in [
            #"DESCRIPTION;LANGUAGE=de;ALTREP="cid:part1@example.org":Beschreibung"#,
            #"CATEGORIES:Meeting\, John,Work"#, #"X-CUSTOM:a\,b\;c"#, "CONTACT:",
            "ATTENDEE;EMAIL=ann@example.org;PARTSTAT=ACCEPTED:mailto:ann@example.org",
            "RECURRENCE-ID;RANGE=THISANDFUTURE:20261102T093000Z",
            "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6",
        ] {
            #expect(back.contains(line + "\r\n"), "\(line)")
        }
        #expect(!back.utf8.contains(0xFF), "no marker leaks into the output")
        // Expanded, the change of 2 November moves every later Monday too (11:00Z).
        let expanded = try cli.run([
            "convert", "keep.json", "--expand", "2026-10-01..2026-12-31", "--to", "ndjson", "-o",
            "-",
        ])
        let starts = try Taskcal.recordList(expanded.stdout).compactMap {
            $0["date_start"] as? String
        }.sorted()
        // 19 and 26 Oct at 09:30Z, then 2, 9, 16 and 23 Nov at 11:00Z.
        #expect(
            starts == [
                "1792402200", "1793007000", "1793617200", "1794222000", "1794826800", "1795431600",
            ])
    }

    @Test(
        "a file's VTIMEZONE that starts late or is an hour off: times kept, one VTIMEZONE a TZID")
    func lateZoneDefinition() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // As exporters write it (fablab_cottbus.ics, discourse_no_dtend.ics in the corpus):
        // Europe/Berlin's rules from October 2018 only, the spring change an hour late.
        let zone = """
            BEGIN:VTIMEZONE\nTZID:Europe/Berlin\nBEGIN:STANDARD\nDTSTART:20181028T030000\n\
            TZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\n\
            END:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:20190331T030000\nTZOFFSETFROM:+0100\n\
            TZOFFSETTO:+0200\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\nEND:DAYLIGHT\n\
            END:VTIMEZONE\n
            """
        try cli.write(
            "late.ics",
            calendar(
                zone
                    + event("january", "DTSTART;TZID=Europe/Berlin:20180104T174500\n")
                    + event("odd-hour", "DTSTART;TZID=Europe/Berlin:20200329T023000\n")
                    + event("summer", "DTSTART;TZID=Europe/Berlin:20200704T100000\n")))
        #expect(try cli.run(["convert", "late.ics", "-o", "one.json"]).status == 0)
        let first = try byUID(try cli.read("one.json"))
        // Before the file's rules begin, the system's history: 17:45 CET is 16:45Z.
        #expect(first["january"]?["date_start"] as? String == "1515084300")
        #expect(first["january"]?["time_zone"] as? String == "Europe/Berlin")
        // The file's own reading where it has one: 02:30 at +01:00 is 01:30Z.
        #expect(first["odd-hour"]?["date_start"] as? String == "1585445400")
        #expect(first["summer"]?["date_start"] as? String == "1593849600")
        // Back to .ics: one VTIMEZONE for Europe/Berlin, covering every record, and the
        // same instants read back by taskcal and by libical's own users.
        #expect(try cli.run(["convert", "one.json", "-o", "back.ics"]).status == 0)
        let back = try cli.read("back.ics")
        #expect(back.components(separatedBy: "TZID:Europe/Berlin\r\n").count == 2, "\(back)")
        #expect(back.contains("DTSTART;TZID=Europe/Berlin:20180104T174500\r\n"))
        #expect(try cli.run(["convert", "back.ics", "-o", "two.json"]).status == 0)
        let second = try byUID(try cli.read("two.json"))
        for uid in ["january", "odd-hour", "summer"] {
            #expect(
                second[uid]?["date_start"] as? String == first[uid]?["date_start"] as? String,
                "\(uid)")
        }
    }

    @Test("parameters with several values (DELEGATED-FROM, MEMBER) come back as several values")
    func parameterLists() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let delegated = #"DELEGATED-FROM="mailto:a@example.org","mailto:b@example.org""#
        let member = #"MEMBER="mailto:team@example.org","mailto:all@example.org""#
        try cli.write(
            "lists.ics",
            calendar(
                event(
                    "lists",
                    """
                    DTSTART:20260105T090000Z
                    ATTENDEE;CN="Doe, Jane";\(delegated):mailto:jane@example.org
                    X-ROOM;\(member);X-NOTE="a, b","c":Room 1

                    """)))
        let read = try cli.run(["convert", "lists.ics", "-o", "lists.json"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(!read.stderr.contains("left out"), "\(read.stderr)")
        #expect(try cli.run(["convert", "lists.json", "-o", "back.ics"]).status == 0)
        let back = try cli.read("back.ics").replacingOccurrences(of: "\r\n ", with: "")
        #expect(
            back.contains("ATTENDEE;CN=\"Doe, Jane\";\(delegated):mailto:jane@example.org\r\n"),
            "\(back)")
        #expect(back.contains("X-ROOM;\(member);X-NOTE=\"a, b\",\"c\":Room 1\r\n"), "\(back)")
        #expect(try cli.run(["convert", "back.ics", "-o", "again.json"]).status == 0)
        #expect(try cli.read("again.json") == cli.read("lists.json"))
    }

    @Test("a UTF-8 byte-order mark is accepted in JSON, NDJSON and .ics")
    func byteOrderMark() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let record = #"{"id": 1, "date_start": "0", "date_finish": "60", "name": "n"}"#
        try cli.write("a.json", bytes: bom + Array("[\(record)]".utf8))
        try cli.write("b.ndjson", bytes: bom + Array((record + "\n").utf8))
        try cli.write(
            "c.ics", bytes: bom + Array(calendar(event("x", "DTSTART:20260101T000000Z\n")).utf8))
        for file in ["a.json", "b.ndjson", "c.ics"] {
            let result = try cli.run(["validate", file])
            #expect(result.status == 0, "\(file): \(result.stderr)")
        }
    }

    @Test("validate --format json gives each problem with its place, severity and a stable code")
    func validateJSON() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "mixed.ics",
            calendar(
                event("a", "DTSTART;TZID=Mars/Olympus:20260101T100000\n")
                    + event("b", "DTEND:20260101T100000Z\n")))
        try cli.write(
            "bad.json", #"[{"id": 1, "date_start": "9", "date_finish": "1", "name": "x"}]"#)
        let result = try cli.run(["validate", "--format", "json", "mixed.ics", "bad.json"])
        #expect(result.status == 1)
        let object =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let diagnostics = object?["diagnostics"] as? [[String: Any]] ?? []
        let codes = Set(diagnostics.compactMap { $0["code"] as? String })
        #expect(codes.isSuperset(of: ["unknown-time-zone", "component-skipped", "invalid"]))
        let bad = diagnostics.first { $0["file"] as? String == "bad.json" }
        #expect(bad?["index"] as? Int == 0)
        #expect(bad?["field"] as? String == "date_finish")
        #expect(bad?["severity"] as? String == "error")
        let zone = diagnostics.first { $0["code"] as? String == "unknown-time-zone" }
        #expect(zone?["line"] as? Int == 8)
        #expect(zone?["severity"] as? String == "warning")
        let strict = try cli.run(["validate", "--strict", "--format", "json", "mixed.ics"])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains(#""severity": "error", "code": "unknown-time-zone""#))
    }

    @Test("every command names the input format option it has")
    func optionNames() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        for arguments in [
            ["convert", "-"], ["validate", "-"], ["overlaps", "-"], ["agenda", "2026-01-01", "-"],
            ["diary", "import", "-", "--store", cli.path("d.sqlite")],
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.stderr.contains("--input-format json|ndjson|ics"),
                "\(arguments): \(result.stderr)")
        }
        let ok = try cli.run(
            ["overlaps", "-", "--input-format", "json"], stdin: "[]")
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
