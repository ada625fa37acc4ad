import Foundation
import Testing

private let calendarHead = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bounded//EN\r\n"

private func event(
    _ uid: String, start: String = "20240101T100000Z", end: String = "20240101T110000Z",
    _ extra: String = ""
) -> String {
    "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:\(start)\r\nDTEND:\(end)\r\nSUMMARY:e \(uid)\r\n\(extra)END:VEVENT\r\n"
}

private func calendar(_ events: [String]) -> String {
    calendarHead + events.joined() + "END:VCALENDAR\r\n"
}

/// Every command ends, whatever the input asks for, and says where it stopped short.
/// (How long they take is measured by Benchmarks/hostile.py, never here.)
@Suite("Bounded work: hostile rules, pair explosions and huge days end, with warnings")
struct BoundedWorkTests {
    /// Rules libical searches far for: some never match, some match rarely, some step every
    /// second. Before, each of these ran for minutes (or until killed) in some command.
    static let hostileRules = [
        "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=MONTHLY;BYMONTHDAY=31;BYDAY=MO;BYMONTH=4",
        "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=YEARLY;INTERVAL=97;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYSETPOS=-1",
        "FREQ=SECONDLY;BYHOUR=23;BYMINUTE=59;BYSECOND=59",
    ]

    @Test(
        "rules that never match, match rarely or step every second end in every command",
        arguments: hostileRules)
    func hostileRule(rule: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // 12 events with the rule, each its own series (nothing can be shared between them):
        // a command that ran for minutes on one such series does on these; how long each
        // takes is Benchmarks/hostile.py's to measure (50 here cost CI 140 s of CPU).
        let events = (0..<12).map { index in
            event(
                "r\(index)", start: "202401\(String(format: "%02d", index % 28 + 1))T100000Z",
                end: "202401\(String(format: "%02d", index % 28 + 1))T100010Z", "RRULE:\(rule)\r\n")
        }
        try cli.write("rules.ics", calendar(events))
        let commands: [[String]] = [
            ["convert", "rules.ics", "-o", "rules.json"],
            ["validate", "rules.ics"],
            ["overlaps", "rules.ics", "--tz", "UTC"],
            ["agenda", "2024-02-29", "rules.ics", "--tz", "UTC"],
            ["month", "2024-02", "rules.ics", "--tz", "UTC"],
            ["convert", "rules.ics", "-o", "expanded.json", "--expand", "2024-01-01..2026-01-01"],
            ["diary", "import", "rules.ics", "--store", "diary.sqlite"],
            ["diary", "import", "rules.ics", "--store", "vdir:diary"],
        ]
        for command in commands {
            let result = try cli.run(command)
            #expect(!result.signaled, "\(command) crashed or hung")
            #expect((0...2).contains(result.status), "\(command): \(result.stderr.prefix(300))")
        }
        // The rule is kept as written: conversion does not judge whether it ever matches.
        #expect(try cli.read("rules.json").contains(rule.replacingOccurrences(of: ";", with: ";")))
    }

    @Test("a rule that steps every second and matches once a day is cut short with a warning")
    func workRunsOut() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "daily.ics",
            calendar([event("d", "RRULE:FREQ=SECONDLY;BYHOUR=23;BYMINUTE=59;BYSECOND=59\r\n")]))
        let result = try cli.run([
            "convert", "daily.ics", "-o", "out.json", "--expand", "2024-01-01..2024-03-01",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning: daily.ics: 'e d' (id 1) is cut short after"))
        #expect(result.stderr.contains("the expansion ran out of work (1000000 steps"))
        // Raising the limit raises the work allowed with it.
        let more = try cli.run([
            "convert", "daily.ics", "-o", "all.json", "--expand", "2024-01-01..2024-03-01",
            "--max-occurrences", "1000000",
        ])
        #expect(more.status == 0)
        #expect(!more.stderr.contains("cut short"), "\(more.stderr)")
        let days = try cli.read("all.json").components(separatedBy: "\"recurrence_id\"").count - 1
        // The start, then 23:59:59 each day to February 29. libical 3.0.16 skips the first
        // day's 23:59:59 (its iterator steps past the first minute it matches); RFC 5545 and
        // Python's dateutil include it. That is libical's reading, and taskcal keeps it.
        #expect(days == 60, "the start and one occurrence a day from January 2 to February 29")
    }

    @Test("--expand stops at --max-occurrences across all series and names the limit")
    func occurrenceLimit() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "hourly.ics",
            calendar((0..<3).map { event("h\($0)", "RRULE:FREQ=HOURLY\r\n") }))
        let result = try cli.run([
            "convert", "hourly.ics", "-o", "out.json", "--expand", "2024-01-01..2025-01-01",
            "--max-occurrences", "100",
        ])
        #expect(result.status == 0)
        #expect(
            result.stderr.contains(
                "'e h0' (id 1) is cut short after 100 occurrences: the expansion reached its limit of 100 occurrences (raise it with --max-occurrences"
            ), "\(result.stderr)")
        #expect(result.stderr.contains("'e h1' (id 2) and 1 later repeating entries left out"))
        #expect(
            try cli.read("out.json").components(separatedBy: "\"recurrence_id\"").count - 1 == 100)
        #expect(
            try cli.run(["convert", "hourly.ics", "-o", "x.json", "--max-occurrences", "0"]).status
                == 2)
    }

    @Test(
        "3,000 entries in one slot: 4,498,500 pairs counted, 10,000 listed, in the report's words; JSON whole or saying it is not"
    )
    func pairExplosion() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let lines = (1...3000).map {
            #"{"id": \#($0), "date_start": "1704103200", "date_finish": "1704106800", "name": "n\#($0)"}"#
        }
        try cli.write("same.ndjson", lines.joined(separator: "\n") + "\n")
        let text = try cli.run(["overlaps", "same.ndjson", "--tz", "UTC"])
        #expect(text.status == 1)
        #expect(
            text.stdout.hasPrefix(
                "4,498,500 overlaps among 3,000 entries (times in UTC); the first 10,000 listed:"))
        #expect(
            text.stdout.hasSuffix(
                "… and 4,488,500 more overlapping pairs (list more with --max-pairs)\n"))
        let json = try cli.run([
            "overlaps", "same.ndjson", "--format", "json", "--max-pairs", "10000",
        ])
        #expect(json.status == 1)
        let counted =
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((counted?["overlaps"] as? [Any])?.count == 10_000)
        #expect(counted?["listed"] as? Int == 10_000)
        #expect(counted?["total"] as? Int == 4_498_500)
        #expect(counted?["truncated"] as? Bool == true)
        #expect(json.stderr.contains("listed the first 10000 of 4498500 overlapping pairs"))
        // Without a limit, JSON lists every pair: 300 of them in one slot make 44,850.
        try cli.write("three-hundred.ndjson", lines.prefix(300).joined(separator: "\n") + "\n")
        let all = try cli.run(["overlaps", "three-hundred.ndjson", "--format", "json"])
        #expect(all.status == 1)
        let pairs = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [Any]
        #expect(pairs?.count == 44_850)
        #expect(all.stderr.isEmpty, "\(all.stderr)")
        // The day screen shows twelve a row and counts the rest; its JSON lists them all.
        let agenda = try cli.run(["agenda", "2024-01-01", "same.ndjson", "--tz", "UTC"])
        #expect(agenda.stdout.contains("… and 2,988 more"))
        let agendaJSON = try cli.run([
            "agenda", "2024-01-01", "same.ndjson", "--tz", "UTC", "--format", "json",
        ])
        let rows =
            try JSONSerialization.jsonObject(with: Data(agendaJSON.stdout.utf8)) as? [[String: Any]]
        #expect((rows?[10]["entries"] as? [Any])?.count == 3000)
        #expect(!agendaJSON.stdout.contains("\"more\""))
    }

    @Test(
        "an import of 2,000 entries in one slot refuses 1,999, each naming the one it meets",
        arguments: ["diary.sqlite", "vdir:diary"])
    func importInOneSlot(store: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let lines = (1...2000).map {
            #"{"id": \#($0), "date_start": "1704103200", "date_finish": "1704106800", "name": "n\#($0)"}"#
        }
        try cli.write("same.ndjson", lines.joined(separator: "\n") + "\n")
        let refused = try cli.run(["diary", "import", "same.ndjson", "--store", store])
        #expect(refused.status == 1)
        let problems = refused.stderr.components(separatedBy: "\n").filter {
            $0.contains("overlaps #1 \"n1\"")
        }
        #expect(problems.count == 1999, "\(refused.stderr.prefix(400))")
        let partial = try cli.run([
            "diary", "import", "same.ndjson", "--store", store, "--skip-conflicts",
        ])
        #expect(partial.status == 0)
        let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        #expect(listed.stdout.components(separatedBy: "\"id\"").count - 1 == 1)
    }

    @Test(
        "repeating entries of one import share one occurrence limit; past it they are refused, never unchecked"
    )
    func importOccurrenceLimit() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // Ten hourly habits, each ten minutes of a different hour part: none overlaps another,
        // and each has 17,568 occurrences in the two years they are checked for.
        let lines = (0..<10).map { index in
            let start = 1_704_067_200 + index * 360
            return
                #"{"id": \#(index + 1), "date_start": "\#(start)", "date_finish": "\#(start + 300)", "name": "habit \#(index + 1)", "recurrence": {"rule": "FREQ=HOURLY"}}"#
        }
        try cli.write("habits.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try cli.run(["diary", "import", "habits.ndjson", "--store", "d.sqlite"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "cannot be checked for overlaps: the repeating entries of this import have more than 100000 occurrences to check in all"
            ), "\(result.stderr.prefix(500))")
        let partial = try cli.run([
            "diary", "import", "habits.ndjson", "--store", "d.sqlite", "--skip-conflicts",
        ])
        #expect(partial.status == 0)
        let stored = try cli.run(["diary", "list", "--store", "d.sqlite", "--format", "json"])
        let count = stored.stdout.components(separatedBy: "\"recurrence\"").count - 1
        #expect((1..<10).contains(count), "some habits fit in the limit, the rest were refused")
    }

    @Test("a VTIMEZONE whose rule never matches is refused as a zone, quickly")
    func impossibleZoneRule() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let zone =
            "BEGIN:VTIMEZONE\r\nTZID:Never\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        try cli.write(
            "zone.ics",
            calendarHead + zone
                + event("z").replacingOccurrences(
                    of: "DTSTART:20240101T100000Z", with: "DTSTART;TZID=Never:20240101T100000")
                + "END:VCALENDAR\r\n")
        let result = try cli.run(["convert", "zone.ics", "-o", "out.json"])
        #expect(
            result.stderr.contains(
                "the VTIMEZONE 'Never' has an observance that has a rule that does not occur within 100 years"
            ), "\(result.stderr)")
        #expect(!result.signaled)
    }

    /// Inputs the fuzzers found (Fuzz/README.md): each must go through every command.
    @Test("every input the fuzzers found goes through every command", arguments: fuzzFindings())
    func fuzzFinding(file: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let input = Taskcal.fixture("fuzz/" + file)
        for command in [
            ["convert", input, "-o", "out.json"], ["validate", input],
            ["overlaps", input, "--tz", "UTC"], ["agenda", "2020-09-14", input, "--tz", "UTC"],
            ["convert", input, "-o", "x.json", "--expand", "17965056..96709056"],
            ["diary", "import", input, "--store", "d.sqlite"],
            ["diary", "check", "--store", "d.sqlite"],
            ["diary", "import", input, "--store", "vdir:d"],
            ["diary", "check", "--store", "vdir:d"],
        ] {
            let result = try cli.run(command)
            #expect(!result.signaled, "\(command)")
            #expect((0...2).contains(result.status), "\(command): \(result.stderr.prefix(300))")
        }
    }

    static func fuzzFindings() -> [String] {
        let folder = Taskcal.fixture("fuzz")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
