import Foundation
import Testing

/// Why the peer's checks are skipped here, and how to get it.
let peerMissing =
    "python3 with recurring-ical-events is not installed (python3 -m pip install recurring-ical-events==3.8.2)"
let peerAvailable = available("python3", ["-c", "import recurring_ical_events, dateutil"])

/// A calendar of `body` with CRLF line ends.
private func calendar(_ body: String, lines: String = "") -> String {
    ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + lines + body + "END:VCALENDAR\n")
        .replacingOccurrences(of: "\n", with: "\r\n")
}

/// A corpus file by its path in the corpus, when the corpus is here.
private func corpusFile(_ path: String) -> String? {
    corpus?.first { $0.hasSuffix("/" + path) }
}

/// The occurrences `convert --expand` gives, as (UID, start) in UTC, in order.
private func occurrences(
    _ cli: Taskcal, _ file: String, _ window: String, _ options: [String] = ["--tz", "UTC"]
) throws -> (starts: [String], stderr: String) {
    let result = try cli.run(
        ["convert", file, "--expand", window, "-o", "occurrences.ndjson"] + options)
    #expect(result.status == 0, "\(result.stderr)")
    // recurring-ical-events reads events; a to-do of the file is not one of its occurrences.
    let records = try Taskcal.recordList(try cli.read("occurrences.ndjson")).filter {
        ($0["kind"] as? String ?? "event") == "event"
    }
    let starts = records.map {
        "\($0["uid"] as? String ?? "")@\($0["date_start"] as? String ?? "")"
    }
    return (starts, result.stderr)
}

/// The occurrences recurring-ical-events gives for `file`, in the same form.
private func peerOccurrences(_ file: String, from start: String, to end: String) throws -> [String]
{
    let script = """
        import sys, datetime as dt, icalendar, recurring_ical_events
        calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
        out = set()
        for c in recurring_ical_events.of(calendar).between(dt.date.fromisoformat(sys.argv[2]), dt.date.fromisoformat(sys.argv[3])):
            v = c['DTSTART'].dt
            if not isinstance(v, dt.datetime): v = dt.datetime(v.year, v.month, v.day)
            if v.tzinfo is None: v = v.replace(tzinfo=dt.timezone.utc)
            out.add(f"{c.get('UID', '')}@{int(v.timestamp())}")
        print('\\n'.join(sorted(out, key=lambda s: (int(s.split('@')[1]), s))))
        """
    let result = try Taskcal.execute(
        "/usr/bin/env", ["python3", "-W", "ignore", "-c", script, file, start, end],
        in: FileManager.default.temporaryDirectory)
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init)
}

@Suite("Occurrences as calendar apps see them, judged by recurring-ical-events")
struct OccurrenceTests {
    @Test(
        "every corpus file's occurrences agree with recurring-ical-events, or differ as reviewed",
        .enabled(if: corpus != nil, "\(corpusMissing)"),
        .enabled(if: peerAvailable || required, "\(peerMissing)"))
    func corpusAgrees() throws {
        let result = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-W", "ignore", Taskcal.fixture("occurrences_judge.py"),
                Taskcal.binary.path, "2015-01-01", "2026-01-01",
                Taskcal.fixture("occurrences_reviewed.json"),
            ] + (corpus ?? []).filter { $0.hasSuffix(".ics") },
            in: Taskcal.packageRoot, timeLimit: Taskcal.scriptLimit)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = report["files"] as? Int ?? 0
        let agree = report["agree"] as? Int ?? 0
        let reviewed = report["reviewed"] as? Int ?? 0
        print(
            "occurrences: \(files) files compared, \(agree) agree, \(reviewed) differ as reviewed; \(report["agreeing"] ?? 0) of \(report["occurrences"] ?? 0) occurrences agree"
        )
        #expect(files >= 230)
        let unreviewed = (report["disagreements"] as? [[String: Any]] ?? []).filter {
            $0["reviewed"] == nil
        }
        #expect(unreviewed.isEmpty, "not reviewed: \(unreviewed)")
        #expect(agree + reviewed == files)
    }

    /// How many random series a run draws: 10,000, or `TASKCAL_RANDOM_SERIES` (CI draws 2,000
    /// a run to stay in its time; Scripts/deep-check.sh the full 10,000).
    static let randomSeriesCount =
        ProcessInfo.processInfo.environment["TASKCAL_RANDOM_SERIES"].flatMap(Int.init)
        .map { max($0, 500) } ?? 10_000

    @Test(
        "random series (10,000 unless TASKCAL_RANDOM_SERIES) agree with recurring-ical-events, or differ as reviewed",
        .enabled(if: peerAvailable || required, "\(peerMissing)"))
    func randomSeries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let count = Self.randomSeriesCount
        // A seed of its own for each day (printed, and TASKCAL_SEED repeats a run).
        let seed =
            ProcessInfo.processInfo.environment["TASKCAL_SEED"].flatMap(Int.init)
            ?? Int(Date().timeIntervalSince1970 / 86_400)
        let result = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-W", "ignore", Taskcal.fixture("occurrences_property.py"),
                Taskcal.binary.path, String(seed), String(count), cli.path("series"),
            ], in: cli.directory, timeLimit: Taskcal.scriptLimit)
        #expect(result.status == 0, "seed \(seed): \(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let disagreements = report["disagreements"] as? [[String: Any]] ?? []
        print(
            "random series (seed \(seed)): \(report["series"] ?? 0) series, \(report["agreeing"] ?? 0) of \(report["occurrences"] ?? 0) occurrences agree; reviewed: \(report["reviewed"] ?? [:])"
        )
        #expect(report["series"] as? Int == count)
        #expect(
            disagreements.isEmpty,
            "seed \(seed) (TASKCAL_SEED=\(seed) repeats it): \(disagreements.count) series differ, first:\n\(disagreements.first?["event"] ?? "")"
        )
        // Each feature the generator draws was drawn.
        let features = report["features"] as? [String: Int] ?? [:]
        for feature in [
            "BYDAY with ordinal", "BYMONTHDAY", "BYSETPOS", "EXDATE", "RDATE", "moved occurrence",
            "cancelled occurrence", "zone with DST", "all-day", "COUNT", "UNTIL",
        ] {
            // Over 100 of each in 10,000 series; as many in proportion in fewer.
            #expect(
                features[feature, default: 0] > 100 * count / 10_000,
                "\(feature): \(features[feature] ?? 0) of \(count) series")
        }
    }

    @Test("revisions of one UID: the newest is the event, the others kept as written, said once")
    func revisions() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "revised.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:standup
                DTSTAMP:20250101T000000Z
                SEQUENCE:0
                DTSTART:20250106T090000Z
                DTEND:20250106T091500Z
                RRULE:FREQ=DAILY;COUNT=5
                SUMMARY:Stand-up
                END:VEVENT
                BEGIN:VEVENT
                UID:standup
                DTSTAMP:20250103T000000Z
                SEQUENCE:1
                DTSTART:20250106T100000Z
                DTEND:20250106T101500Z
                RRULE:FREQ=DAILY;COUNT=5
                SUMMARY:Stand-up (moved to ten)
                END:VEVENT

                """))
        let (starts, stderr) = try occurrences(cli, "revised.ics", "2025-01-01..2025-02-01")
        // Five at ten, none at nine.
        #expect(starts.count == 5)
        #expect(starts.first == "standup@1736157600")
        #expect(
            stderr.contains(
                "revised.ics:13: UID standup has 2 revisions: this one (SEQUENCE 1, DTSTAMP 20250103T000000Z) is the event"
            ))
        #expect(stderr.components(separatedBy: "revisions:").count == 2, "said once: \(stderr)")
        // The older revision comes back as written.
        #expect(try cli.run(["convert", "revised.ics", "-o", "revised.json", "-q"]).status == 0)
        #expect(try cli.run(["convert", "revised.json", "-o", "back.ics", "-q"]).status == 0)
        let back = try cli.read("back.ics")
        #expect(back.contains("SUMMARY:Stand-up\r\n"))
        #expect(back.contains("SUMMARY:Stand-up (moved to ten)\r\n"))
        #expect(back.contains("SEQUENCE:0\r\n"))
        // Chosen by DTSTAMP (one SEQUENCE): the chosen one keeps its DTSTAMP, so the written
        // file, read again, chooses it again (SOURCE_DATE_EPOCH is older than both).
        try cli.write(
            "stamped.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:review
                DTSTAMP:20250103T000000Z
                DTSTART:20250106T100000Z
                SUMMARY:Review (newer)
                END:VEVENT
                BEGIN:VEVENT
                UID:review
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T090000Z
                SUMMARY:Review
                END:VEVENT

                """))
        #expect(try cli.run(["convert", "stamped.ics", "-o", "stamped.json", "-q"]).status == 0)
        #expect(try cli.run(["convert", "stamped.json", "-o", "stamped2.ics", "-q"]).status == 0)
        #expect(try cli.run(["convert", "stamped2.ics", "-o", "again.json", "-q"]).status == 0)
        #expect(try cli.read("again.json") == cli.read("stamped.json"))
        #expect(try cli.read("stamped.json").contains(#""name": "Review (newer)""#))
        #expect(try cli.read("stamped2.ics").contains("DTSTAMP:20250103T000000Z\r\n"))
        // --revisions all: each revision an event of its own.
        let all = try occurrences(
            cli, "revised.ics", "2025-01-01..2025-02-01", ["--tz", "UTC", "--revisions", "all"])
        #expect(all.starts.count == 10)
        // The same on the file from recurring-ical-events' tests, against the peer.
        if let file = corpusFile("calendars/issue_164_duplicated_event.ics"), peerAvailable {
            let ours = try occurrences(cli, file, "2020-01-01..2026-01-01").starts
            let theirs = try peerOccurrences(file, from: "2020-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test("several RRULEs and an EXRULE: the union of the rules, less the exception rule")
    func severalRules() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "rules.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:gym
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T170000Z
                DTEND:20250106T180000Z
                RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4
                RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=4
                EXRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=1
                SUMMARY:Gym
                END:VEVENT

                """))
        let (starts, _) = try occurrences(cli, "rules.ics", "2025-01-01..2025-03-01")
        // Mondays 6, 13, 20, 27 January; Thursdays 16, 23, 30 January (the 9th taken away).
        #expect(
            starts == [
                "gym@1736182800", "gym@1736787600", "gym@1737046800", "gym@1737392400",
                "gym@1737651600", "gym@1737997200", "gym@1738256400",
            ])
        if let file = corpusFile("calendars/multiple_rrule.ics"), peerAvailable {
            let ours = try occurrences(cli, file, "2015-01-01..2026-01-01").starts
            let theirs = try peerOccurrences(file, from: "2015-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test("RDATE of periods: each an occurrence with its own length")
    func periods() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "periods.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:talk
                DTSTAMP:20250101T000000Z
                DTSTART;TZID=Europe/Berlin:20250106T090000
                DTEND;TZID=Europe/Berlin:20250106T100000
                RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20250110T140000/PT3H,20250117T080000/20250117T083000
                SUMMARY:Talk
                END:VEVENT

                """))
        #expect(
            try cli.run([
                "convert", "periods.ics", "--expand", "2025-01-01..2025-02-01", "--tz", "UTC", "-o",
                "p.json", "-q",
            ]).status == 0)
        let records = try Taskcal.recordList(try cli.read("p.json"))
        let spans = records.map {
            (
                Int($0["date_start"] as? String ?? "") ?? 0,
                Int($0["date_finish"] as? String ?? "") ?? 0
            )
        }
        #expect(spans.count == 3)
        #expect(spans.map { $0.1 - $0.0 } == [3600, 3 * 3600, 1800])
        // .ics → JSON → .ics keeps the line as written.
        #expect(try cli.run(["convert", "periods.ics", "-o", "p2.json", "-q"]).status == 0)
        #expect(try cli.run(["convert", "p2.json", "-o", "back.ics", "-q"]).status == 0)
        let unfolded = try cli.read("back.ics").replacingOccurrences(of: "\r\n ", with: "")
        #expect(
            unfolded.contains(
                "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20250110T140000/PT3H,20250117T080000/20250117T083000\r\n"
            ))
        if let file = corpusFile("calendars/issue_113_period_rdate_duration.ics"), peerAvailable {
            let ours = try occurrences(cli, file, "2015-01-01..2026-01-01").starts
            let theirs = try peerOccurrences(file, from: "2015-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test(
        "a rule libical cannot read counts as what can be read of it, said with the part left out")
    func damagedRule() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "damaged.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:weekly
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T090000Z
                DTEND:20250106T100000Z
                RRULE:FREQ=WEEKLY;COUNT=-1;UNTIL=20250127T090000Z
                SUMMARY:Weekly
                END:VEVENT

                """))
        let (starts, stderr) = try occurrences(cli, "damaged.ics", "2025-01-01..2025-03-01")
        #expect(starts.count == 4)
        #expect(stderr.contains("its repeats counted without COUNT=-1"), "\(stderr)")
        let strict = try cli.run(["convert", "damaged.ics", "-o", "s.json", "--strict"])
        #expect(strict.status != 0)
        #expect(!cli.exists("s.json"))
        if let file = corpusFile("calendars/issue_128_only_first_event.ics"), peerAvailable {
            let ours = try occurrences(cli, file, "2015-01-01..2026-01-01").starts
            let theirs = try peerOccurrences(file, from: "2015-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test("DTEND before DTSTART: the time between them, said, written back in order")
    func swappedTimes() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "swapped.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:once
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T100000Z
                DTEND:20250106T093000Z
                SUMMARY:Once
                END:VEVENT
                BEGIN:VEVENT
                UID:daily
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T100000Z
                DTEND:20250106T093000Z
                RRULE:FREQ=DAILY;COUNT=2
                SUMMARY:Daily
                END:VEVENT

                """))
        let result = try cli.run(["convert", "swapped.ics", "-o", "s.json"])
        #expect(result.status == 0)
        let records = try Taskcal.recordList(try cli.read("s.json"))
        // Single: 09:30–10:00. Repeating: DTSTART stays (the rule steps from it), 30 minutes.
        #expect(records[0]["date_start"] as? String == "1736155800")
        #expect(records[0]["date_finish"] as? String == "1736157600")
        #expect(records[1]["date_start"] as? String == "1736157600")
        #expect(records[1]["date_finish"] as? String == "1736159400")
        #expect(
            result.stderr.contains(
                "swapped.ics:8: DTEND is before DTSTART; read as the time between them"))
        #expect(
            result.stderr.contains(
                "swapped.ics:15: DTEND is before DTSTART; the repeating VEVENT is read as lasting as long after DTSTART"
            ))
        if let file = corpusFile("calendars/issue_132_swapped_start_and_end.ics"), peerAvailable {
            let ours = try occurrences(cli, file, "2015-01-01..2026-01-01").starts
            let theirs = try peerOccurrences(file, from: "2015-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test("an override whose series is not in the file is one occurrence, its rule or not")
    func loneOverride() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "invitation.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:review
                DTSTAMP:20250101T000000Z
                RECURRENCE-ID:20250108T150000Z
                DTSTART:20250108T160000Z
                DTEND:20250108T170000Z
                RRULE:FREQ=WEEKLY
                SUMMARY:Review (this week at four)
                END:VEVENT

                """, lines: "METHOD:REQUEST\n"))
        let (starts, _) = try occurrences(cli, "invitation.ics", "2025-01-01..2026-01-01")
        #expect(starts == ["review@1736352000"])
    }

    @Test("components that cannot become records are kept with the calendar, as written")
    func nothingLost() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "broken.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:fine
                DTSTAMP:20250101T000000Z
                DTSTART:20250106T090000Z
                SUMMARY:Fine
                END:VEVENT
                BEGIN:VEVENT
                UID:no-start
                DTSTAMP:20250101T000000Z
                SUMMARY:No start
                X-APP-NOTE;LANG=en:kept
                BEGIN:VALARM
                ACTION:DISPLAY
                TRIGGER:-PT5M
                DESCRIPTION:x
                END:VALARM
                END:VEVENT
                BEGIN:VEVENT
                UID:bad-start
                DTSTAMP:20250101T000000Z
                DTSTART:INVALID-DATE
                SUMMARY:Bad start
                END:VEVENT

                """))
        let result = try cli.run(["convert", "broken.ics", "-o", "b.json"])
        #expect(result.status == 0)
        #expect(
            result.stderr.contains(
                "the VEVENT of line 10 cannot become a record; kept with the calendar as written: it has no DTSTART"
            ))
        #expect(
            result.stderr.contains(
                "the VEVENT of line 21 cannot become a record; kept with the calendar as written"))
        #expect(try Taskcal.recordList(try cli.read("b.json")).count == 1)
        #expect(try cli.run(["convert", "b.json", "-o", "back.ics", "-q"]).status == 0)
        let back = try cli.read("back.ics")
        for line in [
            "UID:no-start", "X-APP-NOTE;LANG=en:kept", "TRIGGER:-PT5M", "UID:bad-start",
            "DTSTART:INVALID-DATE",
        ] {
            #expect(back.contains(line + "\r\n"), "\(line) lost")
        }
        // --strict refuses the file instead.
        #expect(try cli.run(["convert", "broken.ics", "-o", "s.json", "--strict"]).status != 0)
    }

    @Test("a DTSTART in the hour the clocks skip: repeats at the time as written, written back")
    func skippedHour() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "gap.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:early
                DTSTAMP:20240101T000000Z
                DTSTART;TZID=Europe/Berlin:20240331T023000
                DTEND;TZID=Europe/Berlin:20240331T040000
                RRULE:FREQ=DAILY;COUNT=2
                SUMMARY:Early
                END:VEVENT

                """))
        let (starts, _) = try occurrences(cli, "gap.ics", "2024-03-01..2024-05-01")
        // 02:30 does not exist on 31 March (read with the offset before: 01:30Z, RFC 5545
        // §3.3.5); on 1 April it does: 02:30 CEST is 00:30Z.
        #expect(starts == ["early@1711848600", "early@1711931400"])
        #expect(try cli.run(["convert", "gap.ics", "-o", "gap.json", "-q"]).status == 0)
        #expect(try cli.run(["convert", "gap.json", "-o", "back.ics", "-q"]).status == 0)
        #expect(try cli.read("back.ics").contains("DTSTART;TZID=Europe/Berlin:20240331T023000\r\n"))
        #expect(!(try cli.read("back.ics").contains("X-TASKCAL-WALL-TIME")))
    }

    @Test("floating times: --tz places them; without it, the calendar's X-WR-TIMEZONE, as the peer")
    func floatingInCalendarZone() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "wr.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:match
                DTSTAMP:20210101T000000Z
                DTSTART:20210916T210000
                DTEND:20210916T230000
                SUMMARY:Match
                END:VEVENT

                """, lines: "X-WR-TIMEZONE:Europe/Berlin\n"))
        let utc = try occurrences(cli, "wr.ics", "2021-09-01..2021-10-01")
        #expect(utc.starts == ["match@1631826000"])
        let own = try occurrences(cli, "wr.ics", "2021-09-01..2021-10-01", [])
        #expect(own.starts == ["match@1631818800"])
        if let file = corpusFile("calendars/issue_86_x_wr_timezone_without_time_zone_in_dt.ics"),
            peerAvailable
        {
            let ours = try occurrences(cli, file, "2015-01-01..2026-01-01", []).starts
            let theirs = try peerOccurrences(file, from: "2015-01-01", to: "2026-01-01")
            #expect(Set(ours) == Set(theirs))
        }
    }

    @Test("YEARLY;BYMONTHDAY without BYMONTH, as Google Calendar writes a birthday: once a year")
    func yearlyMonthDay() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "birthday.ics",
            calendar(
                """
                BEGIN:VEVENT
                UID:birthday
                DTSTAMP:20200101T000000Z
                DTSTART;VALUE=DATE:20200716
                DTEND;VALUE=DATE:20200717
                RRULE:FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTHDAY=16
                SUMMARY:Birthday
                END:VEVENT

                """))
        let (starts, _) = try occurrences(cli, "birthday.ics", "2024-01-01..2026-01-01")
        #expect(starts == ["birthday@1721088000", "birthday@1752624000"])
    }
}
