import Foundation
import Testing

/// Python 3 with zoneinfo runs `Fixtures/jscalendar_check.py`, an independent reading of
/// RFC 8984.
let pythonZoneinfo = available("python3", ["-c", "import zoneinfo"])

/// `Fixtures/jscalendar_check.py FILE [RECORDS]`: RFC 8984's types, and with RECORDS the
/// instants each object means, read with Python's zoneinfo.
func jscalendarCheck(_ file: String, records: String? = nil, in cli: Taskcal) throws
    -> Taskcal.Result
{
    try Taskcal.execute(
        "/usr/bin/env",
        ["python3", Taskcal.fixture("jscalendar_check.py"), file] + (records.map { [$0] } ?? []),
        in: cli.directory)
}

@Suite("JSCalendar (RFC 8984) both ways")
struct JSCalendarTests {
    static let environment = ["SOURCE_DATE_EPOCH": "1767225600", "TZ": "UTC"]

    /// Objects shaped like the examples of RFC 8984 §6 (one per example, with our own
    /// data), and the records each must give.
    static var rfcExamples: [(file: String, records: [[String: Any]], warnings: [String])] {
        [
            (
                "simple-event.jscal.json",
                [
                    [
                        "date_start": "1579111200", "date_finish": "1579114800",
                        "name": "Quarterly planning", "time_zone": "America/New_York",
                    ]
                ], []
            ),
            ("simple-task.jscal.json", [["name": "Renew the passport", "kind": "todo"]], []),
            (
                "group.jscal.json",
                [
                    [
                        "date_start": "1579514400", "date_finish": "1579521600",
                        "time_zone": "Europe/London",
                    ],
                    ["name": "Pay the council tax", "kind": "todo"],
                ], []
            ),
            (
                "all-day-event.jscal.json",
                [
                    [
                        "date_start": "-1572134400", "date_finish": "-1572048000", "all_day": true,
                        "recurrence": ["rule": "FREQ=YEARLY"],
                    ]
                ], []
            ),
            (
                "task-with-due.jscal.json",
                [
                    [
                        "kind": "todo", "due": "1579453200", "time_zone": "Europe/Vienna",
                        "status": "in-process",
                    ]
                ], ["estimatedDuration without a start"]
            ),
            (
                "end-time-zone.jscal.json",
                [
                    [
                        "date_start": "1585756800", "date_finish": "1585794600",
                        "time_zone": "America/Los_Angeles",
                    ]
                ], []
            ),
            (
                "floating-recurring.jscal.json",
                [
                    [
                        "date_start": "1577862000", "date_finish": "1577864700", "floating": true,
                        "time_zone": "UTC", "recurrence": ["rule": "FREQ=DAILY"],
                    ]
                ], []
            ),
            (
                "locations-and-localizations.jscal.json",
                [["location": "Konzerthaus", "ical_parameters": ["SUMMARY": "LANGUAGE=en"]]],
                ["2 locations", "localizations"]
            ),
            (
                "recurring-with-overrides.jscal.json",
                [
                    [
                        "date_start": "1578402000", "location": "Lecture hall 2",
                        "recurrence": [
                            "rule": "FREQ=WEEKLY;UNTIL=20200624T070000Z", "exdates": ["1579006800"],
                            // The exam is no Tuesday: an extra occurrence, as RFC 8984 says.
                            "rdates": ["1585724400"],
                        ],
                    ],
                    [
                        "recurrence_id": "1578402000",
                        "name": "Linear algebra (introduction, optional)",
                    ],
                    [
                        "recurrence_id": "1585724400", "date_start": "1585724400",
                        "date_finish": "1585731600", "name": "Linear algebra exam",
                        "location": "Main hall",
                    ],
                ], []
            ),
            (
                "participants.jscal.json",
                [
                    [
                        "organizer": ["address": "mailto:lead@example.com", "name": "Team Lead"],
                        "attendees": [
                            [
                                "address": "mailto:lead@example.com", "name": "Team Lead",
                                "parameters": ["PARTSTAT": "ACCEPTED", "ROLE": "CHAIR"],
                            ],
                            [
                                "address": "mailto:dev@example.com", "name": "Developer",
                                "parameters": ["PARTSTAT": "NEEDS-ACTION", "RSVP": "TRUE"],
                            ],
                            [
                                "address": "mailto:room101@example.com", "name": "Room 101",
                                "parameters": ["CUTYPE": "RESOURCE", "ROLE": "OPT-PARTICIPANT"],
                            ],
                        ],
                    ]
                ], []
            ),
        ]
    }

    @Test("RFC 8984's examples become the records they describe", arguments: rfcExamples.indices)
    func examples(index: Int) throws {
        let (file, expected, warnings) = Self.rfcExamples[index]
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let path = Taskcal.fixture("jscalendar/" + file)
        let result = try cli.run(
            ["convert", path, "-o", "out.ndjson"], environment: Self.environment)
        #expect(result.status == 0, "\(file): \(result.stderr)")
        let records = try Taskcal.recordList(cli.read("out.ndjson"))
        #expect(records.count == expected.count, "\(file): \(records)")
        for (record, fields) in zip(records, expected) {
            for (name, value) in fields {
                #expect(
                    record[name].map { NSDictionary(dictionary: ["v": $0]) }
                        == NSDictionary(dictionary: ["v": value]),
                    "\(file): \(name) is \(record[name] ?? "absent"), expected \(value)")
            }
        }
        for warning in warnings {
            #expect(result.stderr.contains(warning), "\(file): \(result.stderr)")
        }
        if warnings.isEmpty { #expect(!result.stderr.contains("warning"), "\(result.stderr)") }
        // Through .ics too: the records are the ones read directly.
        let ics = try cli.run(["convert", path, "-o", "out.ics"], environment: Self.environment)
        #expect(ics.status == 0, "\(ics.stderr)")
        let back = try cli.run(
            ["convert", "out.ics", "-o", "back.ndjson"], environment: Self.environment)
        #expect(back.status == 0, "\(back.stderr)")
        let again = try Taskcal.recordList(cli.read("back.ndjson"))
        #expect(again.count == records.count)
        for (one, other) in zip(records, again) {
            for name in ["date_start", "date_finish", "name", "recurrence", "recurrence_id"] {
                #expect(
                    one[name].map { NSDictionary(dictionary: ["v": $0]) }
                        == other[name].map { NSDictionary(dictionary: ["v": $0]) },
                    "\(file): \(name) through .ics")
            }
        }
    }

    @Test(
        "records → JSCalendar → records is exact, valid by RFC 8984, the same instants for Python",
        arguments: JCalTests.samples)
    func roundTrip(sample: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let common = ["--uid-namespace", "sample"]
        for (input, output) in [
            (Taskcal.sample(sample), "records.ndjson"), (Taskcal.sample(sample), "out.jscal.json"),
            ("out.jscal.json", "back.ndjson"), ("out.jscal.json", "again.jscal.json"),
        ] {
            let result = try cli.run(
                ["convert", input, "-o", output, "--to", outputFormat(output)] + common,
                environment: Self.environment)
            #expect(result.status == 0, "\(input) → \(output): \(result.stderr)")
        }
        #expect(try cli.read("back.ndjson") == cli.read("records.ndjson"))
        // Written again from what it reads, JSCalendar is byte for byte the same.
        #expect(try cli.read("again.jscal.json") == cli.read("out.jscal.json"))
        let text = try cli.read("out.jscal.json")
        #expect(text.hasPrefix("{\"@type\": \"Group\", \"uid\": \"taskcal-group-"))
        #expect(text.contains("\"updated\": \"2026-01-01T00:00:00Z\""))
        if pythonZoneinfo || required {
            let check = try jscalendarCheck(
                cli.path("out.jscal.json"), records: cli.path("records.ndjson"), in: cli)
            #expect(check.status == 0, "\(sample): \(check.stdout)\(check.stderr)")
            #expect(check.stdout.hasPrefix("ok "), "\(check.stdout)")
        }
    }

    /// The `--to` value for an output name.
    private func outputFormat(_ output: String) -> String {
        output.hasSuffix(".jscal.json") ? "jscalendar" : "ndjson"
    }

    @Test("What JSCalendar says, readers see: alarms, attachments, people, repeats, subtasks")
    func standardProperties() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        for sample in [
            "attachments-and-alarms.json", "google-export.ics", "google-recurring.ics",
            "todo-with-subtasks.ics",
        ] {
            let result = try cli.run(
                ["convert", Taskcal.sample(sample), "-o", "\(sample).jscal.json"],
                environment: Self.environment)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let alarms = try cli.read("attachments-and-alarms.json.jscal.json")
        // An inline attachment is a data: URI with its type and size; a link stays a link.
        #expect(alarms.contains("\"href\": \"data:text/plain;base64,"))
        #expect(alarms.contains("\"href\": \"https://example.com/maps/clinic.pdf\""))
        #expect(
            alarms.contains("\"trigger\": {\"@type\": \"OffsetTrigger\", \"offset\": \"-PT15M\"}"))
        #expect(alarms.contains("\"action\": \"email\""))
        // The text of an alarm has no JSCalendar property: kept in the vendor field.
        #expect(
            alarms.contains(
                "\"taskcal.invalid:fields\": {\"description\": \"Leave for the dentist\"}"))
        let google = try cli.read("google-export.ics.jscal.json")
        #expect(google.contains("\"title\": \"Work\""))
        let people = try cli.read("google-recurring.ics.jscal.json")
        #expect(
            people.contains(
                "\"organizer\": {\"@type\": \"Participant\", \"name\": \"Anna Schmidt\", \"email\": \"anna@example.com\", \"sendTo\": {\"imip\": \"mailto:anna@example.com\"}, \"roles\": {\"owner\": true}}"
            ))
        #expect(people.contains("\"participationStatus\": \"accepted\""))
        #expect(people.contains("\"recurrenceRules\": [{\"@type\": \"RecurrenceRule\""))
        let todo = try cli.read("todo-with-subtasks.ics.jscal.json")
        #expect(todo.contains("\"@type\": \"Task\""))
        #expect(
            todo.contains(
                "\"relatedTo\": {\"moving-2026@tasks.example.org\": {\"@type\": \"Relation\", \"relation\": {\"parent\": true}}}"
            ))
        #expect(todo.contains("\"progress\": \"completed\""))
        // The subtasks come back nested under their parent.
        let back = try cli.run(
            ["convert", "todo-with-subtasks.ics.jscal.json", "-o", "todo.json"],
            environment: Self.environment)
        #expect(back.status == 0, "\(back.stderr)")
        let records = try Taskcal.recordList(cli.read("todo.json"))
        #expect(records.count == 1)
        #expect((records.first?["subtasks"] as? [Any])?.count == 3)
    }

    @Test("Bad JSCalendar is refused with the place and what is expected; nothing is written")
    func badInput() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let cases: [(text: String, expected: String)] = [
            ("{\"@type\": \"Group\",\n \"entries\": [}", "bad.jscal.json:2: not JSON"),
            (
                "{\"@type\": \"Group\", \"uid\": \"g\", \"entries\": [{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\"}]}",
                "bad.jscal.json: entries[0].start: missing; an Event has a start"
            ),
            (
                "[{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\", \"start\": \"2026-13-01T10:00:00\"}]",
                "bad.jscal.json: [0].start: '2026-13-01T10:00:00' is no LocalDateTime"
            ),
            (
                "{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\", \"start\": \"2026-01-01T10:00:00\", \"duration\": \"1 hour\"}",
                "bad.jscal.json: duration: '1 hour' is no duration"
            ),
            (
                // A unit twice could add up past Int64 (and trap): refused by the grammar.
                "{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\", \"start\": \"2026-01-01T10:00:00\", \"duration\": \"PT999999999999H999999999999H\"}",
                "bad.jscal.json: duration: 'PT999999999999H999999999999H' is no duration"
            ),
            (
                "{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\", \"start\": \"2026-01-01T10:00:00\", \"recurrenceRules\": [{\"frequency\": \"fortnightly\"}]}",
                "bad.jscal.json: recurrenceRules[0].frequency: expected one of yearly"
            ),
            (
                "{\"@type\": \"Event\", \"title\": \"x\", \"start\": \"2026-01-01T10:00:00\"}",
                "bad.jscal.json: uid: missing"
            ),
            (
                "{\"@type\": \"Note\", \"uid\": \"a\"}",
                "bad.jscal.json: @type: 'Note' cannot be read as a record"
            ),
            (
                "{\"@type\": \"Event\", \"uid\": \"a\", \"title\": \"x\", \"start\": \"2026-01-01T10:00:00\", \"recurrenceRules\": [{\"frequency\": \"daily\"}], \"recurrenceOverrides\": {\"2026-01-02T10:00:00\": {\"locations/nowhere/name\": \"y\"}}}",
                "recurrenceOverrides.2026-01-02T10:00:00.locations/nowhere/name: the patch names no property"
            ),
        ]
        for (text, expected) in cases {
            try cli.write("bad.jscal.json", text)
            let result = try cli.run(["convert", "bad.jscal.json", "-o", "out.ics"])
            #expect(result.status == 2, "\(text): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(text): \(result.stderr)")
            #expect(!cli.exists("out.ics"))
        }
        // What apps write and the task format has no field for is read with a warning.
        try cli.write(
            "apps.jscal.json",
            """
            {"@type": "Event", "uid": "u1", "start": "2026-03-01T09:00:00",
             "timeZone": "Mars/Olympus_Mons", "virtualLocations": {"v": {"@type": "VirtualLocation", "uri": "https://meet.example/x"}}}
            """)
        let lenient = try cli.run(
            ["convert", "apps.jscal.json", "-o", "apps.ndjson", "--tz", "Europe/Berlin"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("unknown time zone 'Mars/Olympus_Mons'"))
        #expect(lenient.stderr.contains("left out: virtualLocations"))
        #expect(lenient.stderr.contains("has no title; it was named (untitled)"))
        let records = try Taskcal.recordList(cli.read("apps.ndjson"))
        #expect(records.first?["floating"] as? Bool == true)
        #expect(records.first?["time_zone"] as? String == "Europe/Berlin")
    }
}
