import Foundation
import Testing

/// Why these checks are skipped here, and how to get what they need.
let readersMissing =
    "the nine readers are not all installed (apt-get install calcurse thunderbird libkf5calendarcore-dev g++ nodejs; python3 -m pip install icalendar==7.3.0 vobject==0.9.9 khal==0.14.1 radicale==3.9.0 recurring-ical-events==3.8.2 ical==14.3.1)"

/// The readers Scripts/acceptance.py asks, in its order.
let strictReaders = [
    "libical", "icalendar", "vobject", "calcurse", "khal", "radicale", "icaljs", "kcalendarcore",
    "homeassistant",
]

/// Whether every reader of ``strictReaders`` is here: Thunderbird's omni.ja (ical.js) and
/// Node, KCalendarCore's headers, a C++ compiler, and the Python ones.
let allReaders =
    pythonJudges && calcurse && available("khal", ["--version"])
    && available("python3", ["-c", "import radicale, recurring_ical_events, ical"])
    && available("node", ["--version"]) && available("c++", ["--version"])
    && available("pkg-config", ["--exists", "KF5CalendarCore"])
    && FileManager.default.fileExists(atPath: "/usr/lib/thunderbird/omni.ja")

/// One small calendar with one thing a strict reader refuses, the reader that refuses it as
/// taskcal keeps it, and the repair `--for any` makes.
struct StrictCase: CustomTestStringConvertible, Sendable {
    var name: String
    var events: [[String]]
    /// The reader that refuses the plain conversion.
    var refusedBy: String
    /// The code of the repair `--for any` says it made.
    var code: String
    /// Lines the repaired output holds.
    var holds: [String] = []
    /// Whether recurring-ical-events finds the same occurrences in the plain and the repaired
    /// output: not where the plain one stops it (an event without DTSTART, an end of another
    /// type), a rule is left out, or it reads the plain one otherwise than RFC 5545 (a rule
    /// ending before DTSTART: it shows no occurrence, reviewed in occurrences_reviewed.json).
    var peerCompares = true
    /// The calendar's own `VTIMEZONE`s, their lines.
    var zones: [String] = []
    var testDescription: String { name }

    var text: String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + zones
            + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] } + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
    }

    static func event(_ uid: String, _ lines: [String], start: String = "20260105T090000Z")
        -> [String]
    {
        [
            "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART:\(start)",
            "DURATION:PT1H", "SUMMARY:\(uid)",
        ] + lines
    }

    static let all: [StrictCase] = [
        StrictCase(
            name: "an event without DTSTART beside a whole one",
            events: [event("whole", []), ["SUMMARY:No start", "UID:nostart"]],
            refusedBy: "vobject", code: "any-kept-component"),
        StrictCase(
            name: "properties without a value", events: [event("empty", ["CONTACT:", "X-EMPTY:"])],
            refusedBy: "libical", code: "any-empty-value"),
        StrictCase(
            name: "a date in the year 0",
            events: [event("created", ["CREATED:00001231T000000Z"])],
            refusedBy: "icalendar", code: "any-impossible-date"),
        StrictCase(
            name: "RDATE;VALUE=PERIOD",
            events: [
                event(
                    "period",
                    [
                        "RRULE:FREQ=WEEKLY;COUNT=3",
                        "RDATE;VALUE=PERIOD:20260107T180000Z/PT3H,20260108T080000Z/20260108T083000Z",
                    ])
            ],
            refusedBy: "radicale", code: "any-extra-repeat",
            holds: ["RDATE:20260107T180000Z", "RECURRENCE-ID:20260108T080000Z"]),
        StrictCase(
            name: "a second RRULE",
            events: [
                event("second", ["RRULE:FREQ=WEEKLY;COUNT=4", "RRULE:FREQ=DAILY;COUNT=3"])
            ],
            refusedBy: "khal", code: "any-extra-repeat",
            holds: ["RDATE:20260106T090000Z", "RDATE:20260107T090000Z"]),
        StrictCase(
            name: "UNTIL a DATE for a DATE-TIME start, and COUNT beside UNTIL",
            events: [
                event("until", ["RRULE:FREQ=DAILY;UNTIL=20260110"]),
                event("both", ["RRULE:FREQ=DAILY;COUNT=3;UNTIL=20260220T000000Z"]),
            ],
            refusedBy: "calcurse", code: "any-rule-form",
            holds: [
                "RRULE:FREQ=DAILY;UNTIL=20260109T090000Z",
                "RRULE:FREQ=DAILY;COUNT=3",
            ]),
        StrictCase(
            name: "a rule that ends before its start",
            events: [event("ended", ["RRULE:FREQ=DAILY;UNTIL=20260101T000000Z"])],
            refusedBy: "radicale", code: "any-rule-form", peerCompares: false),
        StrictCase(
            name: "a start its rule does not give",
            events: [
                // Monday the 5th, weekly on Wednesdays: the 5th, then the 7th, 14th, 21st.
                event("start", ["RRULE:FREQ=WEEKLY;BYDAY=WE;UNTIL=20260121T090000Z"])
            ],
            refusedBy: "calcurse", code: "any-rule-start",
            holds: ["DTSTART:20260107T090000Z", "RDATE:20260105T090000Z"]),
        StrictCase(
            name: "a rule no reader reads",
            events: [
                event("freq", ["RRULE:FREQ=FORTNIGHTLY;COUNT=3"])
            ],
            refusedBy: "khal", code: "any-rule-left-out"),
        StrictCase(
            name: "a rule of another calendar (RFC 7529) without an end",
            events: [event("lunar", ["RRULE:RSCALE=CHINESE;FREQ=YEARLY"])],
            refusedBy: "khal", code: "any-rule-left-out"),
        StrictCase(
            name: "a property name libical 3.0 cannot read",
            events: [event("vendor", ["EVENT-ID:42"])],
            refusedBy: "libical", code: "any-property-name", holds: ["X-EVENT-ID:42"]),
        StrictCase(
            name: "an all-day event that ends at a DATE-TIME",
            events: [
                [
                    "UID:allday", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:20260105",
                    "DTEND:20260107T000000Z", "SUMMARY:Away",
                ]
            ],
            refusedBy: "calcurse", code: "any-end-type", holds: ["DTEND;VALUE=DATE:20260107"]),
        StrictCase(
            name: "an alarm whose TRIGGER no reader reads",
            events: [
                event(
                    "alarm",
                    [
                        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x",
                        "TRIGGER;VALUE=TIME:230000", "END:VALARM",
                    ])
            ],
            refusedBy: "vobject", code: "any-kept-component"),
        StrictCase(
            name: "an IMAGE of inline data",
            events: [
                event(
                    "image",
                    ["IMAGE;VALUE=BINARY;ENCODING=BASE64;FMTTYPE=image/png:iVBORw0KGgo="])
            ],
            refusedBy: "radicale", code: "any-binary-image",
            holds: ["IMAGE;VALUE=URI;FMTTYPE=image/png:data:image/png;base64,iVBORw0KGgo="]),
        StrictCase(
            name: "changed occurrences without their series",
            events: [
                event("moved", ["RECURRENCE-ID:20260112T090000Z"], start: "20260112T100000Z"),
                event("moved", ["RECURRENCE-ID:20260119T090000Z"], start: "20260119T110000Z"),
            ],
            refusedBy: "radicale", code: "any-lone-change",
            holds: ["RDATE:20260119T110000Z", "RECURRENCE-ID:20260119T110000Z"]),
        StrictCase(
            name: "a TZID no VTIMEZONE defines and no system knows",
            events: [
                [
                    "UID:unknown", "DTSTAMP:20260101T000000Z",
                    "DTSTART;TZID=\"Western/Central Europe\":20260105T090000",
                    "DTEND;TZID=\"Western/Central Europe\":20260105T100000", "SUMMARY:Unknown",
                ]
            ],
            refusedBy: "homeassistant", code: "any-zone-name",
            holds: ["DTSTART:20260105T090000", "DTEND:20260105T100000"], peerCompares: false),
        StrictCase(
            name: "a zone only the calendar defines, under a name no reader knows",
            events: [
                [
                    "UID:own", "DTSTAMP:20260101T000000Z",
                    "DTSTART;TZID=\"Canberra, Melbourne, Sydney\":20260504T090000",
                    "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=8", "SUMMARY:Own zone",
                ]
            ],
            refusedBy: "homeassistant", code: "any-zone-name",
            holds: ["DTSTART;TZID=Australia/Sydney:20260504T090000", "TZID:Australia/Sydney"],
            zones: canberra),
        StrictCase(
            name: "a value of only spaces",
            events: [event("blank", ["LOCATION: ", "DESCRIPTION:  "])],
            refusedBy: "libical", code: "any-empty-value"),
        StrictCase(
            name: "an EXDATE of an entry that does not repeat",
            events: [
                event("exdate", ["EXDATE:20260112T090000Z"])
            ],
            refusedBy: "calcurse", code: "any-lone-exdate"),
    ]
}

/// Outlook's zone for eastern Australia as Windows once wrote it (vobject's `ms_tzid.ics`):
/// summer time from the last Sunday of October to the last Sunday of March, which no IANA zone
/// has kept since 2008 (Sydney's runs from the first Sunday of October to the first of April).
/// Home Assistant refuses the definition itself (its `UNTIL`s).
let canberra = [
    "BEGIN:VTIMEZONE", "TZID:Canberra\\, Melbourne\\, Sydney",
    "BEGIN:STANDARD", "DTSTART:20010325T020000",
    "RRULE:FREQ=YEARLY;UNTIL=20050327T070000Z;BYDAY=-1SU;BYMONTH=3", "TZOFFSETFROM:+1100",
    "TZOFFSETTO:+1000", "END:STANDARD",
    "BEGIN:STANDARD", "DTSTART:20060402T020000",
    "RRULE:FREQ=YEARLY;UNTIL=20060402T070000Z;BYDAY=1SU;BYMONTH=4", "TZOFFSETFROM:+1100",
    "TZOFFSETTO:+1000", "END:STANDARD",
    "BEGIN:STANDARD", "DTSTART:20070325T020000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
    "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:20001029T020000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
    "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "END:DAYLIGHT", "END:VTIMEZONE",
]

@Suite("--for any: one output every reader takes")
struct StrictReadersTests {
    /// What each of the nine readers says of `file` (`ok` or why not), from
    /// Scripts/acceptance.py.
    static func verdicts(_ cli: Taskcal, _ file: String) throws -> [String: String] {
        let judge = try #require(libicalJudge, "the libical judge did not compile")
        let result = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", Taskcal.packageRoot.appendingPathComponent("Scripts/acceptance.py").path,
                judge, cli.path(file),
            ], in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let files = try #require((answer as? [String: Any])?["files"] as? [String: Any])
        return try #require(files.values.first as? [String: String])
    }

    /// The occurrences of an .ics file as recurring-ical-events expands it over 2026:
    /// `UID START END` lines, sorted.
    static func occurrences(_ cli: Taskcal, _ file: String) throws -> [String] {
        let script = """
            import sys, icalendar, recurring_ical_events
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for e in recurring_ical_events.of(cal).between((2026, 1, 1), (2027, 1, 1)):
                print(e['UID'], e['DTSTART'].dt.isoformat(), e['DTEND'].dt.isoformat())
            """
        let result = try Taskcal.execute(
            "/usr/bin/env", ["python3", "-c", script, cli.path(file)], in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test(
        "each repair: the reader that refused taskcal's plain output takes it, all nine take it, the occurrences stay",
        .enabled(if: allReaders || required, "\(readersMissing)"),
        arguments: StrictCase.all)
    func repair(_ strict: StrictCase) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("in.ics", strict.text)
        let plain = try cli.run(["convert", "in.ics", "-o", "plain.ics"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try Self.verdicts(cli, "plain.ics")[strict.refusedBy] != "ok")

        let any = try cli.run(["convert", "in.ics", "-o", "any.ics", "--for", "any"])
        #expect(any.status == 0, "\(any.stderr)")
        // Said once, with its code.
        #expect(
            any.stderr.components(separatedBy: "--for any: \(strict.code):").count == 2,
            "\(any.stderr)")
        let verdicts = try Self.verdicts(cli, "any.ics")
        #expect(
            verdicts.count == strictReaders.count && verdicts.values.allSatisfy { $0 == "ok" },
            "\(verdicts)")
        let written = try cli.read("any.ics")
        for line in strict.holds { #expect(written.contains(line + "\r\n"), "\(written)") }
        // The same occurrences for recurring-ical-events (a rule no reader reads is gone; an
        // event without DTSTART stops it).
        if strict.peerCompares
            && !["any-rule-left-out", "any-kept-component", "any-end-type"]
                .contains(strict.code)
        {
            #expect(try Self.occurrences(cli, "any.ics") == Self.occurrences(cli, "plain.ics"))
        }

        // lint --for any names the same repair; plain convert keeps everything as before.
        let lint = try cli.run(["lint", "in.ics", "--for", "any"])
        #expect(lint.stdout.contains(strict.code), "\(lint.stdout)\(lint.stderr)")
        #expect(try cli.read("plain.ics") != written)
    }

    @Test(
        "a series in a zone of its own that no IANA zone keeps stays in it, its VTIMEZONE written, on a pipe too"
    )
    func ownZoneKept() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // Weekly through October: the calendar's summer time begins on the 25th, Sydney's
        // on the 4th, so three occurrences would move an hour in Sydney, and any in UTC.
        let strict = StrictCase(
            name: "",
            events: [
                [
                    "UID:kept", "DTSTAMP:20260101T000000Z",
                    "DTSTART;TZID=\"Canberra, Melbourne, Sydney\":20260928T090000",
                    "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=6", "SUMMARY:Kept",
                ],
                [
                    "UID:moved", "DTSTAMP:20260101T000000Z",
                    "DTSTART;TZID=\"Canberra, Melbourne, Sydney\":20260601T090000",
                    "DURATION:PT1H", "SUMMARY:Moved",
                ],
            ], refusedBy: "", code: "", zones: canberra)
        try cli.write("in.ics", strict.text)
        let file = try cli.run(["convert", "in.ics", "-o", "any.ics", "--for", "any"])
        #expect(file.status == 0, "\(file.stderr)")
        let piped = try cli.run(["convert", "in.ics", "--to", "ics", "--for", "any"])
        for written in [try cli.read("any.ics"), piped.stdout] {
            #expect(written.contains("DTSTART;TZID=Australia/Sydney:20260601T090000\r\n"))
            #expect(
                written.contains(
                    "DTSTART;TZID=\"Canberra, Melbourne, Sydney\":20260928T090000\r\n"),
                "\(written)")
            #expect(written.contains("TZID:Canberra\\, Melbourne\\, Sydney\r\n"))
        }
        // Read back, both are where they were.
        let back = try cli.run(["diff", "in.ics", "any.ics"])
        #expect(back.status == 0, "\(back.stdout)\(back.stderr)")
    }

    @Test("--for google writes zones by their IANA names too, and only that of --for any's repairs")
    func googleZones() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let own = StrictCase.all.first { $0.code == "any-zone-name" && !$0.zones.isEmpty }!
        try cli.write("in.ics", own.text)
        let google = try cli.run(["convert", "in.ics", "-o", "google.ics", "--for", "google"])
        #expect(google.status == 0, "\(google.stderr)")
        #expect(google.stderr.contains("--for google: any-zone-name:"), "\(google.stderr)")
        let written = try cli.read("google.ics")
        #expect(written.contains("DTSTART;TZID=Australia/Sydney:20260504T090000\r\n"))
        #expect(!written.contains("Canberra"))
        // A repair Google does not need is not made: an empty value stays.
        let blank = StrictCase.all.first { $0.name == "a value of only spaces" }!
        try cli.write("blank.ics", blank.text)
        #expect(
            try cli.run(["convert", "blank.ics", "-o", "blank-google.ics", "--for", "google"])
                .status == 0)
        #expect(try cli.read("blank-google.ics").contains("LOCATION: \r\n"))
    }

    @Test(
        "a TZID on a UTC time is left out: Python icalendar read it as the zone's wall clock, an hour off",
        .enabled(if: allReaders || required, "\(readersMissing)"))
    func zoneOnUTCTime() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let strict = StrictCase(
            name: "",
            events: [
                [
                    "UID:utc", "DTSTAMP:20260101T000000Z",
                    "DTSTART;TZID=Europe/Berlin:20260105T090000Z", "DURATION:PT1H",
                    "SUMMARY:UTC",
                ]
            ], refusedBy: "", code: "")
        try cli.write("in.ics", strict.text)
        let any = try cli.run(["convert", "in.ics", "-o", "any.ics", "--for", "any"])
        #expect(any.status == 0)
        #expect(any.stderr.contains("--for any: any-zone-name:"), "\(any.stderr)")
        #expect(try cli.read("any.ics").contains("DTSTART:20260105T090000Z\r\n"))
        #expect(
            try Self.occurrences(cli, "any.ics")
                == ["utc 2026-01-05T09:00:00+00:00 2026-01-05T10:00:00+00:00"])
        let verdicts = try Self.verdicts(cli, "any.ics")
        #expect(verdicts.values.allSatisfy { $0 == "ok" }, "\(verdicts)")
        #expect(try cli.run(["lint", "in.ics", "--for", "any"]).stdout.contains("any-zone-name"))
    }

    @Test("a calendar with nothing left for readers is not written: an error, exit 2, no file")
    func nothingLeft() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let text = StrictCase(
            name: "", events: [["UID:nostart", "SUMMARY:No start"]], refusedBy: "",
            code: ""
        ).text
        try cli.write("in.ics", text)
        let any = try cli.run(["convert", "in.ics", "-o", "any.ics", "--for", "any"])
        // As every conversion that writes nothing: exit 2, the place named.
        #expect(any.status == 2)
        #expect(any.stderr.contains("any.ics: --for any: nothing to write"), "\(any.stderr)")
        #expect(any.stderr.contains("any-empty-calendar"), "\(any.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("any.ics")))
        // Plain convert keeps the component as written, as before.
        #expect(try cli.run(["convert", "in.ics", "-o", "plain.ics"]).status == 0)
        #expect(try cli.read("plain.ics").contains("SUMMARY:No start"))
    }

    @Test(
        "--for caldav takes the repairs Radicale needs, not calcurse's",
        .enabled(if: allReaders || required, "\(readersMissing)"))
    func caldavProfile() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let period = StrictCase.all.first { $0.code == "any-extra-repeat" }!
        let start = StrictCase.all.first { $0.code == "any-rule-start" }!
        try cli.write("period.ics", period.text)
        try cli.write("start.ics", start.text)
        let caldav = try cli.run(["convert", "period.ics", "-o", "out.ics", "--for", "caldav"])
        #expect(caldav.status == 0)
        #expect(caldav.stderr.contains("--for caldav: any-extra-repeat:"), "\(caldav.stderr)")
        #expect(try Self.verdicts(cli, "out.ics")["radicale"] == "ok")
        let kept = try cli.run(["convert", "start.ics", "-o", "start-out.ics", "--for", "caldav"])
        #expect(kept.status == 0)
        #expect(try cli.read("start-out.ics").contains("DTSTART:20260105T090000Z"))
    }
}

/// What the nine readers took of each corpus calendar converted with `--for any`, when it was
/// last recorded: `PATH<TAB>READER,…<TAB>SHA-256` (`-`: nothing to write, an error), the hash
/// of the output then. A reader leaving a file it took fails the suite; recorded again with
/// Scripts/acceptance.sh (see the header).
private func recordedAcceptance() throws -> [String: (readers: Set<String>, digest: String)] {
    let text = try String(
        contentsOfFile: Taskcal.fixture("acceptance-any.tsv"), encoding: .utf8)
    var recorded: [String: (Set<String>, String)] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        let fields = line.split(separator: "\t")
        guard fields.count >= 2 else { continue }
        recorded[String(fields[0])] = (
            fields[1] == "-" ? [] : Set(fields[1].split(separator: ",").map(String.init)),
            fields.count > 2 ? String(fields[2]) : "-"
        )
    }
    return recorded
}

/// The SHA-256 of each of `files` (sha256sum, one process for all).
private func digests(_ files: [String], in directory: URL) throws -> [String: String] {
    guard !files.isEmpty else { return [:] }
    let run = try Taskcal.execute("/usr/bin/env", ["sha256sum"] + files, in: directory)
    var found: [String: String] = [:]
    for line in run.stdout.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { continue }
        found[String(parts[1].drop { $0 == " " || $0 == "*" })] = String(parts[0])
    }
    return found
}

extension StrictReadersTests {
    @Test(
        "the corpus through --for any: no reader refuses a calendar it took when last recorded",
        .enabled(if: corpus != nil, "\(corpusMissing)"),
        .enabled(if: allReaders || required, "\(readersMissing)"))
    func corpusAcceptance() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let recorded = try recordedAcceptance()
        let cache = Taskcal.packageRoot.appendingPathComponent(".corpus-cache").path + "/"
        var outputs: [String: String] = [:]
        var nothing: [String] = []
        for (index, file) in (corpus ?? []).enumerated() {
            let path = String(file.dropFirst(cache.count))
            let result = try cli.run(
                ["convert", file, "-o", "\(index).ics", "--for", "any", "-q"],
                environment: ["SOURCE_DATE_EPOCH": "1700000000"])
            if result.status == 0 {
                outputs[cli.path("\(index).ics")] = path
            } else {
                #expect(result.status == 2, "\(path): \(result.stderr)")
                nothing.append(path)
            }
        }
        // An output with the bytes it had when recorded is taken by the readers (the
        // versions the record names) as it was then: only the others are judged again, unless
        // TASKCAL_JUDGE_ALL=1 (the deep check) asks for every one.
        let hashes = try digests(outputs.keys.sorted(), in: cli.directory)
        let judgeAll = ProcessInfo.processInfo.environment["TASKCAL_JUDGE_ALL"] == "1"
        let changed = outputs.filter { output, path in
            judgeAll || hashes[output] == nil || hashes[output] != recorded[path]?.digest
        }
        var verdicts: [String: [String: String]] = [:]
        if !changed.isEmpty {
            let judge = try #require(libicalJudge, "the libical judge did not compile")
            let result = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3",
                    Taskcal.packageRoot.appendingPathComponent("Scripts/acceptance.py").path,
                    "--jobs", "\(max(2, ProcessInfo.processInfo.activeProcessorCount))", judge,
                ] + changed.keys.sorted(), in: cli.directory, timeLimit: 3_600)
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            verdicts = try #require(
                (answer as? [String: Any])?["files"] as? [String: [String: String]])
        }
        var lost: [String] = []
        var everyReader = 0
        for (output, path) in outputs {
            let took =
                changed[output] == nil
                ? recorded[path]?.readers ?? []
                : Set((verdicts[output] ?? [:]).filter { $0.value == "ok" }.keys)
            if took.count == strictReaders.count { everyReader += 1 }
            for reader in (recorded[path]?.readers ?? []).subtracting(took).sorted() {
                lost.append("\(path): \(reader): \(verdicts[output]?[reader] ?? "no verdict")")
            }
        }
        for path in nothing where !(recorded[path]?.readers ?? []).isEmpty {
            lost.append(
                "\(path): nothing written now, taken by \(recorded[path]!.readers.sorted())")
        }
        #expect(lost.isEmpty, "\(lost.joined(separator: "\n"))")
        print(
            "corpus --for any: \(outputs.count) calendars written, \(changed.count) changed since recorded and judged, \(everyReader) taken by all \(strictReaders.count) readers, \(nothing.count) with nothing to write"
        )
    }
}
