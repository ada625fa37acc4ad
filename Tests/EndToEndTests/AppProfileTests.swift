import Foundation
import Testing

/// The codes of a text lint report, one per finding line (`FILE:LINE: code: message`).
private func codes(_ stdout: String) -> [String] {
    let apps = ["outlook-", "google-", "apple-", "thunderbird-", "caldav-"]
    return stdout.split(separator: "\n").compactMap { line in
        line.components(separatedBy: ": ").first { part in
            apps.contains(where: part.hasPrefix) && !part.contains(" ") && !part.contains(".")
        }
    }
}

/// How often `text` holds `part`.
private func count(_ part: String, in text: String) -> Int {
    text.components(separatedBy: part).count - 1
}

/// The VEVENT blocks of an .ics text.
private func events(_ text: String) -> [String] {
    text.components(separatedBy: "BEGIN:VEVENT").dropFirst().map {
        $0.components(separatedBy: "END:VEVENT")[0]
    }
}

/// An .ics file as other apps export it, with what some app refuses or drops: a VEVENT
/// without UID (line 4), a TZID nobody defines (13), a UID used twice (10, 17) and an
/// alarm whose TRIGGER no reader understands (26).
private let oddExport = [
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Some app//EN",
    "BEGIN:VEVENT", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T090000Z",
    "DTEND:20260105T100000Z", "SUMMARY:No UID", "END:VEVENT",
    "BEGIN:VEVENT", "UID:twice@example.org", "DTSTAMP:20260101T000000Z",
    "DTSTART;TZID=Mars/Olympus:20260106T090000", "DTEND;TZID=Mars/Olympus:20260106T100000",
    "SUMMARY:Unknown zone", "END:VEVENT",
    "BEGIN:VEVENT", "UID:twice@example.org", "DTSTAMP:20260101T000000Z",
    "DTSTART:20260107T090000Z", "DTEND:20260107T100000Z", "SUMMARY:Same UID",
    "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:soon", "END:VALARM",
    "END:VEVENT", "END:VCALENDAR", "",
].joined(separator: "\r\n")

@Suite("Made for the app it goes into: lint --for and convert --for")
struct AppProfileTests {
    static let samples = [
        "attachments-and-alarms.json", "google-export.ics", "outlook-export.ics",
        "todo-with-subtasks.ics", "spec-example.json", "weekly-habit.json",
    ]

    @Test("lint says per record and line what each app drops, with codes and exit codes")
    func lintSamples() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let inputs = Self.samples.map(Taskcal.sample)
        let outlook = try cli.run(["lint"] + inputs + ["--for", "outlook"])
        #expect(outlook.status == 1, "\(outlook.stderr)")
        let outlookCodes = Set(codes(outlook.stdout))
        #expect(
            outlookCodes == [
                "outlook-one-alarm", "outlook-alarm-action", "outlook-alarm-repeat",
                "outlook-disabled-alarm", "outlook-todo",
            ], "\(outlook.stdout)")
        // Located: the JSON index of the record, the line of the to-do.
        #expect(
            outlook.stdout.contains(
                "attachments-and-alarms.json: [1]: outlook-disabled-alarm: \"Написать отчёт 📊\" has a disabled alarm"
            ), "\(outlook.stdout)")
        #expect(
            outlook.stdout.contains(
                "todo-with-subtasks.ics:4: outlook-todo: \"Move to the new flat\" is a to-do: not imported"
            ), "\(outlook.stdout)")
        #expect(outlook.stderr.contains("Outlook: 11 finding(s), 8 losing data, in"))

        let google = try cli.run(["lint"] + inputs + ["--for", "google"])
        #expect(google.status == 1)
        #expect(
            Set(codes(google.stdout)) == [
                "google-reminders", "google-inline-attachment", "google-todo",
            ],
            "\(google.stdout)")
        #expect(
            google.stdout.contains(
                "outlook-export.ics:59: google-inline-attachment: \"Vendor call\""))

        // Apple, Thunderbird and CalDAV servers take the samples whole.
        for app in ["apple", "thunderbird", "caldav"] {
            let clean = try cli.run(["lint"] + inputs + ["--for", app])
            #expect(clean.status == 0, "\(app): \(clean.stdout)")
            #expect(clean.stdout.isEmpty)
            #expect(
                clean.stderr.contains(": nothing refused, dropped or changed in"), "\(clean.stderr)"
            )
        }

        // For scripts: one JSON object whose losses count the findings that lose data.
        let json = try cli.run(["lint"] + inputs + ["--for", "outlook", "--format", "json"])
        #expect(json.status == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(object["app"] as? String == "outlook")
        #expect(object["files"] as? Int == inputs.count)
        #expect(findings.count == 11)
        #expect(
            object["losses"] as? Int
                == findings.filter { $0["effect"] as? String != "changes" }.count)
        #expect(object["losses"] as? Int == 8)
        for finding in findings {
            #expect((finding["code"] as? String)?.hasPrefix("outlook-") == true)
            #expect(finding["line"] is Int || finding["index"] is Int, "\(finding)")
            #expect(["drops", "refuses", "changes"].contains(finding["effect"] as? String ?? ""))
        }

        // --help names every rule with its source.
        let help = try cli.run(["lint", "--help"])
        for code in [
            "outlook-todo", "google-file-size", "apple-quoted-tzid", "caldav-duplicate-uid",
        ] {
            #expect(help.stdout.contains("  \(code), "), "\(code)")
        }
        #expect(help.stdout.contains("MS-OXCICAL"))
    }

    @Test("lint reads any app's export: missing and repeated UIDs, unknown zones, bad values")
    func lintOtherExports() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("odd.ics", oddExport)
        let caldav = try cli.run(["lint", "odd.ics", "--for", "caldav"])
        #expect(caldav.status == 1)
        #expect(caldav.stdout.contains("odd.ics:4: caldav-missing-uid: "), "\(caldav.stdout)")
        #expect(caldav.stdout.contains("odd.ics:17: caldav-duplicate-uid: "))
        #expect(caldav.stdout.contains("odd.ics:26: caldav-bad-value: "))
        let apple = try cli.run(["lint", "odd.ics", "--for", "apple"])
        #expect(apple.status == 1)
        #expect(codes(apple.stdout) == ["apple-malformed-line"], "\(apple.stdout)")
        // Outlook reads the unknown zone as floating: changed, nothing lost, exit 0.
        let outlook = try cli.run(["lint", "odd.ics", "--for", "outlook"])
        #expect(outlook.status == 0, "\(outlook.stdout)")
        #expect(outlook.stdout.contains("odd.ics:13: outlook-undeclared-zone: "))
        // A zone only the file defines, named with a comma as Outlook names them ("Canberra,
        // Melbourne, Sydney"): Apple needs the TZID quoted; convert --for apple writes those
        // times in UTC and says so.
        let zoned = oddExport.replacingOccurrences(
            of: "Mars/Olympus", with: "\"Sydney, Australia\""
        )
        .replacingOccurrences(
            of: "BEGIN:VEVENT\r\nUID:twice",
            with: """
                BEGIN:VTIMEZONE\r\nTZID:Sydney\\, Australia\r\nBEGIN:STANDARD\r\n\
                DTSTART:19700101T000000\r\nTZOFFSETFROM:+1037\r\nTZOFFSETTO:+1037\r\n\
                END:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:twice
                """)
        try cli.write("zoned.ics", zoned)
        let quoted = try cli.run(["lint", "zoned.ics", "--for", "apple"])
        #expect(
            quoted.stdout.contains(
                "apple-quoted-tzid: \"Unknown zone\": TZID \"Sydney, Australia\""),
            "\(quoted.stdout)")
        let shaped = try cli.run(["convert", "zoned.ics", "-o", "apple.ics", "--for", "apple"])
        #expect(shaped.status == 0, "\(shaped.stderr)")
        #expect(
            shaped.stderr.contains(
                "--for apple: apple-quoted-tzid: \"Unknown zone\": written in UTC, not in \"Sydney, Australia\""
            ), "\(shaped.stderr)")
        let apple2 = try cli.read("apple.ics")
        #expect(!apple2.contains("TZID=\""))
        #expect(
            apple2.contains(
                "DTSTART:20260105T222300Z\r\nDTEND:20260105T232300Z\r\nSUMMARY:Unknown zone"))

        // A file no reader can take: exit 2, whatever the app.
        try cli.write("broken.json", "[{\"id\": 1,")
        let broken = try cli.run(["lint", "broken.json", "--for", "google"])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("broken.json"))
        #expect(broken.stderr.contains("; 1 file could not be read (above)"), "\(broken.stderr)")
    }

    @Test("Google's 1 MB import limit: lint refuses a larger file, --split-size 1MB passes")
    func googleSize() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let long = String(repeating: "Заметка к делу. ", count: 40)
        let lines = (1...1_500).map { id in
            let start = 1_767_225_600 + id * 7_200
            return
                #"{"id": \#(id), "date_start": "\#(start)", "date_finish": "\#(start + 3600)", "name": "Task \#(id)", "description": "\#(long)"}"#
        }
        try cli.write("many.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try cli.run(["convert", "many.ndjson", "-o", "big.ics"]).status == 0)
        let big = try cli.run(["lint", "big.ics", "--for", "google"])
        #expect(big.status == 1)
        #expect(big.stdout.contains("big.ics: google-file-size: "), "\(big.stdout)")
        #expect(big.stdout.contains("over 1 MB: convert with --split-size 1MB"))
        let split = try cli.run([
            "convert", "many.ndjson", "-o", "part.ics", "--for", "google", "--split-size", "1MB",
        ])
        #expect(split.status == 0, "\(split.stderr)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
            .filter { $0.hasPrefix("part-") }.sorted()
        #expect(parts.count >= 2, "\(parts)")
        let checked = try cli.run(["lint"] + parts + ["--for", "google"])
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(checked.stderr.contains("nothing refused, dropped or changed in 1500 records"))
    }

    @Test(
        "convert --for outlook: to-dos and extra alarms out, files named, METHOD, all-day; each change said"
    )
    func outlook() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "day.json",
            #"[{"id": 40, "date_start": "1796774400", "date_finish": "1796860800", "name": "Holiday", "all_day": true}]"#
        )
        let inputs = [
            Taskcal.sample("attachments-and-alarms.json"), Taskcal.sample("todo-with-subtasks.ics"),
            Taskcal.sample("outlook-export.ics"), cli.path("day.json"),
        ]
        let plain = try cli.run(["convert"] + inputs + ["-o", "plain.ics"])
        #expect(plain.status == 0)
        let result = try cli.run(["convert"] + inputs + ["-o", "outlook.ics", "--for", "outlook"])
        #expect(result.status == 0, "\(result.stderr)")
        for warning in [
            "--for outlook: outlook-one-alarm: \"Dentist, then groceries; don't forget\": 2 alarm(s) after the first left out (Outlook keeps one reminder) (and 1 more like it)",
            "--for outlook: outlook-attachment-name: \"Dentist, then groceries; don't forget\": X-FILENAME=referral.txt added",
            "--for outlook: outlook-disabled-alarm: \"Написать отчёт 📊\": 1 disabled alarm(s) left out",
            "todo-with-subtasks.ics:4: --for outlook: outlook-todo: \"Move to the new flat\" is a to-do: left out",
        ] {
            #expect(result.stderr.contains(warning), "\(warning)\n\(result.stderr)")
        }
        let text = try cli.read("outlook.ics")
        let plainText = try cli.read("plain.ics")
        #expect(count("BEGIN:VTODO", in: plainText) > 0)
        #expect(count("BEGIN:VTODO", in: text) == 0)
        #expect(text.contains("\r\nMETHOD:PUBLISH\r\n"))
        #expect(!text.contains("X-TASKCAL-"), "no disabled alarm kept")
        for event in events(text) {
            #expect(count("BEGIN:VALARM", in: event) <= 1, "\(event)")
        }
        #expect(
            text.contains(";\r\n X-FILENAME=referral.txt:")
                || text.contains(";X-FILENAME=referral.txt"))
        #expect(text.contains("SUMMARY:Holiday\r\nX-MICROSOFT-CDO-ALLDAYEVENT:TRUE\r\n"), "\(text)")
        #expect(count("BEGIN:VEVENT", in: text) == count("BEGIN:VEVENT", in: plainText))
        // What the profile fixed, Outlook no longer drops: what remains only changes.
        let lint = try cli.run(["lint", "outlook.ics", "--for", "outlook"])
        #expect(lint.status == 0, "\(lint.stdout)")
        #expect(Set(codes(lint.stdout)).isSubset(of: ["outlook-alarm-action"]), "\(lint.stdout)")
        // A .json output or batch mode has no profile: said, nothing written.
        let json = try cli.run(["convert"] + inputs + ["-o", "out.json", "--for", "outlook"])
        #expect(json.status != 0)
        #expect(
            json.stderr.contains("--for outlook shapes .ics for the app; the output here is json"))
        #expect(!cli.exists("out.json"))
        let batch = try cli.run(["convert"] + inputs + ["--output-dir", "dir", "--for", "outlook"])
        #expect(batch.status != 0)
        #expect(batch.stderr.contains("in batch mode add --to ics, so that every output is one"))
        #expect(!cli.exists("dir"))
        // Batch mode with --to ics: each output shaped, the changes in the report.
        let shapedBatch = try cli.run(
            ["convert"] + inputs + [
                "--output-dir", "dir", "--for", "outlook", "--to", "ics", "--report", "report.json",
            ])
        #expect(shapedBatch.status == 0, "\(shapedBatch.stderr)")
        let todo = try cli.read("dir/todo-with-subtasks.ics")
        #expect(!todo.contains("BEGIN:VTODO") && todo.contains("METHOD:PUBLISH\r\n"))
        let alarms = try cli.read("dir/attachments-and-alarms.ics")
        #expect(
            alarms.contains("X-FILENAME=referral.txt")
                || alarms.contains("X-FILENAME=\r\n referral.txt"))
        #expect(try cli.read("report.json").contains("outlook-todo"), "warnings in the report")
        if pythonJudges || required {
            let read = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys, icalendar; c = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read()); print(len(c.walk('VEVENT')), len(c.walk('VTODO')), c['METHOD'])",
                    cli.path("outlook.ics"),
                ], in: cli.directory)
            #expect(
                read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "\(count("BEGIN:VEVENT", in: text)) 0 PUBLISH", "\(read.stderr)")
        }
    }

    @Test("convert --for google: to-dos and inline files out, links kept, dropped reminders said")
    func google() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let inputs = [
            Taskcal.sample("attachments-and-alarms.json"), Taskcal.sample("todo-with-subtasks.ics"),
            Taskcal.sample("outlook-export.ics"),
        ]
        let result = try cli.run(["convert"] + inputs + ["-o", "google.ics", "--for", "google"])
        #expect(result.status == 0, "\(result.stderr)")
        for warning in [
            "--for google: google-reminders: \"Dentist, then groceries; don't forget\": 3 alarm(s) Google will drop (and 2 more like it)",
            "--for google: google-inline-attachment: \"Dentist, then groceries; don't forget\": 1 inline attachment(s) left out (Google keeps links only) (and 1 more like it)",
            "--for google: google-todo: \"Move to the new flat\" is a to-do: left out",
        ] {
            #expect(result.stderr.contains(warning), "\(warning)\n\(result.stderr)")
        }
        let text = try cli.read("google.ics")
        #expect(count("BEGIN:VTODO", in: text) == 0)
        #expect(!text.contains("VALUE=BINARY"))
        #expect(text.contains("FILENAME=clinic-map.pdf:https:"), "links are kept")
        // Only the reminders Google drops on import remain.
        let lint = try cli.run(["lint", "google.ics", "--for", "google"])
        #expect(Set(codes(lint.stdout)) == ["google-reminders"], "\(lint.stdout)")
        // The same run gives the same bytes.
        #expect(
            try cli.run(
                ["convert"] + inputs + ["-o", "again.ics", "--for", "google"],
                environment: ["SOURCE_DATE_EPOCH": "1767225600"]
            ).status == 0)
        #expect(
            try cli.run(
                ["convert"] + inputs + ["-o", "google.ics", "--for", "google"],
                environment: ["SOURCE_DATE_EPOCH": "1767225600"]
            ).status == 0)
        #expect(try cli.read("again.ics") == cli.read("google.ics"))
    }

    @Test("--for google --attachment-base-url: inline files written to a folder and linked")
    func googleLinks() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let inputs = [
            Taskcal.sample("attachments-and-alarms.json"), Taskcal.sample("outlook-export.ics"),
        ]
        let result = try cli.run(
            ["convert"] + inputs + [
                "-o", "google.ics", "--for", "google", "--extract-attachments", "files",
                "--attachment-base-url", "https://files.example.org/cal/",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "google-inline-attachment: \"Dentist, then groceries; don't forget\": inline attachment linked as https://files.example.org/cal/7-0-referral.txt (and 1 more like it)"
            ), "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.path("files")).sorted()
        #expect(files.count == 2, "\(files)")
        #expect(try cli.read("files/7-0-referral.txt").hasPrefix("Referral for the dentist."))
        let text = try cli.read("google.ics").replacingOccurrences(of: "\r\n ", with: "")
        #expect(!text.contains("VALUE=BINARY"))
        #expect(text.contains(":https://files.example.org/cal/7-0-referral.txt\r\n"))
        for file in files {
            #expect(text.contains(":https://files.example.org/cal/\(file)\r\n"), "\(file)")
        }
        let lint = try cli.run(["lint", "google.ics", "--for", "google"])
        #expect(Set(codes(lint.stdout)) == ["google-reminders"], "\(lint.stdout)")
        // Only for Google, only with a folder, only a URL.
        for (arguments, message) in [
            (
                ["--attachment-base-url", "https://a.example"],
                "give it with --for google and --extract-attachments DIR"
            ),
            (
                [
                    "--for", "google", "--extract-attachments", "f", "--attachment-base-url",
                    "files",
                ],
                "is not a URL such as"
            ),
        ] {
            let refused = try cli.run(["convert"] + inputs + ["-o", "x.ics"] + arguments)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
    }

    @Test("inline attachments of two events named alike go to two files")
    func extractionNames() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        func event(_ uid: String, _ text: String) -> String {
            "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T090000Z\r\n"
                + "SUMMARY:\(uid)\r\nATTACH;VALUE=BINARY;ENCODING=BASE64;FILENAME=notes.txt:"
                + Data(text.utf8).base64EncodedString() + "\r\nEND:VEVENT\r\n"
        }
        try cli.write(
            "two.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"
                + event("a@example.org", "first")
                + event("b@example.org", "second") + "END:VCALENDAR\r\n")
        let result = try cli.run([
            "convert", "two.ics", "-o", "two.json", "--extract-attachments", "files",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.path("files")).sorted()
        #expect(files.count == 2, "\(files)")
        let contents = try files.map { try cli.read("files/\($0)") }.sorted()
        #expect(contents == ["first", "second"])
        #expect(!files.contains(where: { $0.contains("9223372036854775808") }))
    }

    @Test("no fold splits an escape (Google garbles it) or a UTF-8 character; lines ≤ 75 octets")
    func foldsKeepEscapes() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // Text without spaces, so that libical folds anywhere, with escapes at every offset.
        var lines: [String] = []
        for shift in 0..<80 {
            let text =
                String(repeating: "x", count: shift) + "\\n" + String(repeating: "y", count: 70)
                + "\\\\" + String(repeating: "z", count: 60) + ","
                + String(repeating: "ё", count: 50)
                + ";" + String(repeating: "w", count: 40)
            lines.append(
                #"{"id": \#(shift + 1), "date_start": "1795770000", "date_finish": "1795773600", "name": "n", "description": "\#(text)"}"#
            )
        }
        try cli.write("folds.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try cli.run(["convert", "folds.ndjson", "-o", "folds.ics"]).status == 0)
        let bytes = Array(try cli.read("folds.ics").utf8)
        var physical: [[UInt8]] = [[]]
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                physical.append([])
                index += 2
            } else {
                physical[physical.count - 1].append(bytes[index])
                index += 1
            }
        }
        var folds = 0
        for (number, line) in physical.enumerated() {
            #expect(line.count <= 75, "line \(number + 1): \(line.count) octets")
            guard number + 1 < physical.count, physical[number + 1].first == 0x20 else { continue }
            folds += 1
            let backslashes = line.reversed().prefix { $0 == 0x5C }.count
            #expect(backslashes % 2 == 0, "line \(number + 1) ends inside an escape")
            #expect(physical[number + 1].dropFirst().first.map { $0 & 0xC0 != 0x80 } ?? true)
        }
        #expect(folds > 200)
        // And the text comes back whole.
        #expect(try cli.run(["convert", "folds.ics", "-o", "back.ndjson"]).status == 0)
        let back = try Taskcal.recordList(try cli.read("back.ndjson"))
        let sent = try Taskcal.recordList(try cli.read("folds.ndjson"))
        #expect(
            back.map { $0["description"] as? String } == sent.map { $0["description"] as? String })
    }

    @Test("--for on thousands of records: the threads' bytes and counts, the profile's changes")
    func manyRecords() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // 3,000 records, every tenth a weekly series whose start its rule does not give.
        let lines = (0..<3_000).map { index in
            let start = 1_767_600_000 + index * 7_200
            let rule =
                index % 10 == 0
                ? #", "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=WE;COUNT=3"}"# : ""
            return
                #"{"id": \#(index + 1), "date_start": "\#(start)", "date_finish": "\#(start + 3_600)", "name": "Task \#(index)"\#(rule)}"#
        }
        try cli.write("many.ndjson", lines.joined(separator: "\n") + "\n")
        let environment = ["SOURCE_DATE_EPOCH": "1700000000"]
        let plain = try cli.run(
            ["convert", "many.ndjson", "-o", "plain.ics", "--jobs", "2"], environment: environment)
        let shaped = try cli.run(
            [
                "convert", "many.ndjson", "-o", "thunderbird.ics", "--for", "thunderbird", "--jobs",
                "2",
            ],
            environment: environment)
        #expect(plain.status == 0 && shaped.status == 0, "\(shaped.stderr)")
        #expect(try cli.read("thunderbird.ics") == cli.read("plain.ics"))
        #expect(shaped.stderr.contains("wrote 3000 records"), "\(shaped.stderr)")
        let any = try cli.run(
            ["convert", "many.ndjson", "-o", "any.ics", "--for", "any", "--jobs", "2"],
            environment: environment)
        #expect(any.status == 0)
        #expect(any.stderr.contains("wrote 3000 records"), "\(any.stderr)")
        // Each series not starting on a Wednesday (1970-01-01 was a Thursday), said once.
        let moved = stride(from: 0, to: 3_000, by: 10).filter { index in
            (((1_767_600_000 + index * 7_200) / 86_400) + 4) % 7 != 3
        }.count
        #expect(moved > 200)
        #expect(
            any.stderr.contains(
                "its own start is an RDATE (and \(moved - 1) more like it)"), "\(any.stderr)")
        #expect(try cli.read("any.ics").components(separatedBy: "BEGIN:VEVENT").count == 3_001)
    }
}
