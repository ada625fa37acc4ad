import Foundation
import Testing

@Suite("The tracker's fields in the diary: categories, colour, search in any case and accent")
struct DiaryTrackerTests {
    @Test(
        "add, list, search and edit categories and colours; export carries them",
        arguments: diaryBackends)
    func categories(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Moscow"])
        }
        #expect(
            try diary([
                "add", "--name", "Ёлка в парке", "--start", "2026-12-31T18:00", "--end",
                "2026-12-31T20:00", "--category", "Праздник", "--category", "Семья", "--color",
                "red",
            ]).stdout == "1\n")
        #expect(
            try diary([
                "add", "--name", "Café Müller", "--start", "2026-12-30T10:00", "--end",
                "2026-12-30T11:00", "--category", "Work",
            ]).stdout == "2\n")
        let tree = "#1  2026-12-31 Thu 18:00–20:00  Ёлка в парке  [Праздник, Семья]\n"
        // Case and accents do not matter, in Cyrillic either (ё is е with a diaeresis).
        #expect(try diary(["list", "--search", "елка"]).stdout == tree)
        #expect(try diary(["list", "--search", "ЁЛКА"]).stdout == tree)
        #expect(try diary(["list", "--search", "праздник"]).stdout == tree)
        #expect(try diary(["list", "--category", "семья"]).stdout == tree)
        #expect(
            try diary(["list", "--search", "cafe muller"]).stdout
                == "#2  2026-12-30 Wed 10:00–11:00  Café Müller  [Work]\n")
        #expect(try diary(["list", "--category", "Sport"]).stdout == "No entries.\n")
        // A colour that is no CSS name is refused with the field named.
        let bad = try diary([
            "add", "--name", "x", "--start", "2027-01-01T10:00", "--end", "2027-01-01T11:00",
            "--color", "not a colour",
        ])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("color: 'not a colour' is not a CSS colour name"))
        // Exported, the calendar keeps them (RFC 5545 CATEGORIES, RFC 7986 COLOR).
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let ics = try cli.read("out.ics")
        #expect(ics.contains("CATEGORIES:Праздник,Семья\r\n"), "\(ics)")
        #expect(ics.contains("COLOR:red\r\n"))
        if pythonJudges || required {
            let python = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys, icalendar\nfor e in icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read()).walk('VEVENT'):\n    print(e['SUMMARY'], '|', ','.join(e['CATEGORIES'].cats) if 'CATEGORIES' in e else '', '|', e.get('COLOR', ''))",
                    cli.path("out.ics"),
                ], in: cli.directory)
            #expect(python.status == 0, "\(python.stderr)")
            #expect(
                python.stdout.contains("Ёлка в парке | Праздник,Семья | red"), "\(python.stdout)")
        }
        // Edited: new categories replace the old, '' removes them and the colour.
        #expect(try diary(["edit", "1", "--category", "", "--color", ""]).status == 0)
        let json = try diary(["show", "1", "--format", "json"]).stdout
        #expect(!json.contains("categories") && !json.contains("color"), "\(json)")
        #expect(try diary(["edit", "2", "--category", "Work", "--category", "Coffee"]).status == 0)
        #expect(try diary(["list", "--category", "coffee"]).stdout.contains("[Work, Coffee]"))
    }

    @Test(
        "emoji and pin: shown in lists, pinned first, kept through .ics",
        arguments: diaryBackends)
    func marks(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"])
        }
        #expect(
            try diary([
                "add", "--name", "Run", "--start", "2026-12-01T07:00", "--end", "2026-12-01T07:30",
                "--emoji", "🏃",
            ]).status == 0)
        #expect(
            try diary([
                "add", "--name", "Taxes", "--start", "2026-12-05T10:00", "--end",
                "2026-12-05T12:00", "--pin", "--emoji", "💶",
            ]).status == 0)
        #expect(
            try diary(["list"]).stdout == """
                #2  2026-12-05 Sat 10:00–12:00  💶 Taxes  (pinned)
                #1  2026-12-01 Tue 07:00–07:30  🏃 Run

                """)
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let ics = try cli.read("out.ics")
        #expect(ics.contains("X-TASKCAL-EMOJI:💶\r\n") && ics.contains("X-TASKCAL-PINNED:TRUE\r\n"))
        // Into another diary through the .ics: the marks come along.
        let other = cli.path("other.sqlite")
        #expect(
            try cli.run(["diary", "import", cli.path("out.ics"), "--store", other]).status == 0)
        #expect(
            try cli.run(["diary", "list", "--store", other, "--tz", "Europe/Berlin"]).stdout
                .hasPrefix(
                    "#2  2026-12-05 Sat 10:00–12:00  💶 Taxes  (pinned)\n"))
        #expect(try diary(["edit", "2", "--no-pin", "--emoji", ""]).status == 0)
        #expect(try diary(["list"]).stdout.hasSuffix("#2  2026-12-05 Sat 10:00–12:00  Taxes\n"))
        let long = try diary([
            "add", "--name", "x", "--start", "2026-12-06T10:00", "--end", "2026-12-06T11:00",
            "--emoji", "not one",
        ])
        #expect(long.status == 2)
    }

    @Test(
        "the diary's export with every new field is read by Python icalendar, vobject and calcurse",
        .enabled(
            if: (pythonJudges && calcurse) || required, "\(pythonJudgesMissing); \(calcurseMissing)"
        ))
    func judges() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(["diary"] + arguments + ["--store", cli.path("d.sqlite"), "--tz", "UTC"])
        }
        try cli.write("note.txt", "Bring the referral.\n")
        for arguments in [
            [
                "add", "--name", "Dentist", "--start", "2026-12-01T09:00", "--end",
                "2026-12-01T10:00", "--category", "Health", "--color", "teal", "--emoji", "🦷",
                "--pin", "--alarm", "-15m", "--alarm", "-1d", "--attach", cli.path("note.txt"),
            ],
            ["add", "--todo", "--name", "Move", "--due", "2026-12-15", "--alarm", "-1d"],
            ["add", "--todo", "--name", "Boxes", "--parent", "2"],
            ["alarm", "off", "1", "--number", "2"],
            ["done", "3"],
        ] {
            let result = try diary(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let python = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, icalendar, vobject\ndata = open(sys.argv[1]).read()\ncal = icalendar.Calendar.from_ical(data)\nprint(len(cal.walk('VEVENT')), len(cal.walk('VTODO')), len(cal.walk('VALARM')))\nv = vobject.readOne(data)\nprint(len(v.vevent_list), len(v.vtodo_list))",
                cli.path("out.ics"),
            ], in: cli.directory)
        #expect(python.status == 0, "\(python.stderr)")
        // One event, two to-dos; the alarms that may fire (the one switched off is no VALARM).
        #expect(python.stdout == "1 2 2\n1 2\n", "\(python.stdout)")
        try FileManager.default.createDirectory(
            atPath: cli.path("calcurse"), withIntermediateDirectories: true)
        let imported = try Taskcal.execute(
            "/usr/bin/env", ["calcurse", "-D", cli.path("calcurse"), "-i", cli.path("out.ics")],
            in: cli.directory)
        #expect(
            imported.stdout.contains("1 app / 0 events / 2 todos / 0 skipped"), "\(imported.stdout)"
        )
    }
}
