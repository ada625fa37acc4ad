import Foundation
import Testing

/// What Python icalendar sees in a calendar file: one line per event (UID, start, end,
/// summary, rule), sorted; `jcal` reads the file as jCal with icalendar's own reader.
private func pythonEvents(_ path: String, jcal: Bool, in cli: Taskcal) throws -> String {
    let script = """
        import sys, json, icalendar
        data = open(sys.argv[1], 'rb').read()
        cal = icalendar.Calendar.from_jcal(json.loads(data)) if sys.argv[2] == 'jcal' \
            else icalendar.Calendar.from_ical(data)
        rows = []
        for e in cal.walk('VEVENT'):
            end = e.decoded('DTEND') if 'DTEND' in e else None
            rows.append('|'.join(str(x) for x in [e.get('UID'), e.decoded('DTSTART'), end,
                e.get('SUMMARY'), e.get('RRULE', {}).to_ical().decode() if 'RRULE' in e else '',
                len(e.walk('VALARM'))]))
        print('\\n'.join(sorted(rows)))
        """
    let result = try Taskcal.execute(
        "/usr/bin/env", ["python3", "-c", script, path, jcal ? "jcal" : "ics"], in: cli.directory)
    #expect(result.status == 0, "\(path): \(result.stderr)")
    return result.stdout
}

@Suite("jCal (RFC 7265) both ways, judged by Python icalendar's own jCal reader")
struct JCalTests {
    static let samples = [
        "attachments-and-alarms.json", "google-export.ics", "google-recurring.ics",
        "outlook-export.ics", "overlaps.json", "spec-example.json", "todo-with-subtasks.ics",
        "weekly-habit.json",
    ]

    @Test(
        "records → jCal → records is exact, and jCal → .ics is the .ics taskcal writes",
        arguments: samples)
    func roundTrip(sample: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let environment = ["SOURCE_DATE_EPOCH": "1767225600"]
        let common = ["--uid-namespace", "sample"]
        for (input, output) in [
            (Taskcal.sample(sample), "records.ndjson"), (Taskcal.sample(sample), "out.jcal"),
            ("out.jcal", "back.ndjson"), (Taskcal.sample(sample), "direct.ics"),
            ("out.jcal", "via.ics"),
        ] {
            let result = try cli.run(
                ["convert", input, "-o", output] + common, environment: environment)
            #expect(result.status == 0, "\(input) → \(output): \(result.stderr)")
        }
        #expect(try cli.read("back.ndjson") == cli.read("records.ndjson"))
        #expect(try cli.read("via.ics") == cli.read("direct.ics"))
        let jcal = try cli.read("out.jcal")
        #expect(jcal.hasPrefix("[\"vcalendar\", [[\"version\", {}, \"text\", \"2.0\"]"))
        #expect(try JSONSerialization.jsonObject(with: Data(jcal.utf8)) is [Any])
        if pythonJudges || required {
            // icalendar's jCal reader sees in our jCal the events it sees in our .ics.
            let fromJCal = try pythonEvents(cli.path("out.jcal"), jcal: true, in: cli)
            let fromICS = try pythonEvents(cli.path("direct.ics"), jcal: false, in: cli)
            #expect(fromJCal == fromICS)
            #expect(!fromICS.isEmpty || sample == "todo-with-subtasks.ics")
            // And taskcal reads icalendar's jCal of the sample as it reads the sample.
            if sample.hasSuffix(".ics") {
                let converted = try Taskcal.execute(
                    "/usr/bin/env",
                    [
                        "python3", "-c",
                        "import sys, json, icalendar; json.dump(icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read()).to_jcal(), open(sys.argv[2], 'w'))",
                        Taskcal.sample(sample), cli.path("python.jcal"),
                    ], in: cli.directory)
                #expect(converted.status == 0, "\(converted.stderr)")
                let read = try cli.run(
                    ["convert", "python.jcal", "-o", "python.ndjson"] + common,
                    environment: environment)
                #expect(read.status == 0, "\(read.stderr)")
                #expect(
                    try cli.run(
                        ["convert", Taskcal.sample(sample), "-o", "python.ndjson.expected"]
                            + common + ["--to", "ndjson"], environment: environment
                    ).status == 0)
                #expect(try cli.read("python.ndjson") == cli.read("python.ndjson.expected"))
            }
        }
    }

    @Test("jCal's value forms: dates, offsets, rules as objects, lists, numbers, parameters")
    func valueForms() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "forms.ics",
            """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:forms@example.org\r\n\
            DTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20260105\r\nDTEND;VALUE=DATE:20260106\r\n\
            SUMMARY:Tea\\, biscuits\\; and a line\\nbreak\r\nCATEGORIES:Home,Tea\\, hot\r\n\
            RRULE:FREQ=WEEKLY;UNTIL=20260301;BYDAY=MO,TH;INTERVAL=2\r\nGEO:52.52;13.405\r\n\
            PRIORITY:5\r\nATTENDEE;CN="Doe, Jane";DELEGATED-FROM="mailto:a@example.org","mailto:b@example.org":mailto:jane@example.org\r\n\
            X-CUSTOM;X-P=1:some\\,value\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """)
        let result = try cli.run(["convert", "forms.ics", "-o", "forms.jcal"])
        #expect(result.status == 0, "\(result.stderr)")
        let jcal = try cli.read("forms.jcal")
        for expected in [
            #"["dtstart", {}, "date", "2026-01-05"]"#,
            #"["summary", {}, "text", "Tea, biscuits; and a line\nbreak"]"#,
            #"["categories", {}, "text", "Home", "Tea, hot"]"#,
            #"["rrule", {}, "recur", {"freq": "WEEKLY", "until": "2026-03-01", "byday": ["MO", "TH"], "interval": 2}]"#,
            #"["geo", {}, "float", [52.52, 13.405]]"#,
            #"["priority", {}, "integer", 5]"#,
            #"["attendee", {"cn": "Doe, Jane", "delegated-from": ["mailto:a@example.org", "mailto:b@example.org"]}, "cal-address", "mailto:jane@example.org"]"#,
            #"["x-custom", {"x-p": "1"}, "unknown", "some\\,value"]"#,
            #"["dtstamp", {}, "date-time", "#,
        ] {
            #expect(jcal.contains(expected), "\(expected)\n\(jcal)")
        }
        // Back: the same lines, in the record and in the .ics.
        #expect(try cli.run(["convert", "forms.ics", "-o", "a.json"]).status == 0)
        #expect(try cli.run(["convert", "forms.jcal", "-o", "forms.json"]).status == 0)
        #expect(try cli.read("forms.json") == cli.read("a.json"))
    }

    @Test("RFC 7265's own example reads; bad jCal is refused with its place, nothing written")
    func examplesAndErrors() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // RFC 7265 appendix B.1.
        try cli.write(
            "rfc.jcal",
            """
            ["vcalendar",
              [["calscale", {}, "text", "GREGORIAN"],
               ["prodid", {}, "text", "-//Example Inc.//Example Calendar//EN"],
               ["version", {}, "text", "2.0"]],
              [["vevent",
                [["dtstamp", {}, "date-time", "2008-02-05T19:12:24Z"],
                 ["dtstart", {}, "date", "2008-10-06"],
                 ["summary", {}, "text", "Planning meeting"],
                 ["uid", {}, "text", "4088E990AD89CB3DBB484909"]],
                []]]]
            """)
        let read = try cli.run(["convert", "rfc.jcal", "--to", "ndjson"])
        #expect(read.status == 0, "\(read.stderr)")
        let record = try #require(try Taskcal.recordList(read.stdout).first)
        #expect(record["name"] as? String == "Planning meeting")
        #expect(record["uid"] as? String == "4088E990AD89CB3DBB484909")
        #expect(record["all_day"] as? Bool == true)
        #expect(record["date_start"] as? String == "1223251200")  // 2008-10-06

        let cases: [(name: String, text: String, message: String)] = [
            (
                "short", #"["vcalendar", [], [["vevent", [["summary", {}, "text"]], []]]]"#,
                "short.jcal: components[0].properties[0]: a property is [name, {parameters}, type, value…]"
            ),
            (
                "shape", #"{"vcalendar": []}"#,
                "shape.jcal: document: a component is [name, [properties], [components]]"
            ),
            (
                "break",
                #"["vcalendar", [], [["vevent", [["x-a", {}, "unknown", "a\nBEGIN:VTODO"]], []]]]"#,
                "break.jcal: components[0].properties[0]: the value holds a control character"
            ),
            (
                "name", #"["vcalendar", [], [["vevent", [["x-a:b", {}, "text", "a"]], []]]]"#,
                "name.jcal: components[0].properties[0]: 'x-a:b' is not a property name"
            ),
            ("json", #"["vcalendar", [], "#, "json.jcal: not JSON: "),
        ]
        for bad in cases {
            try cli.write("\(bad.name).jcal", bad.text)
            let result = try cli.run(["convert", "\(bad.name).jcal", "-o", "\(bad.name).json"])
            #expect(result.status == 2, "\(bad.name): \(result.stderr)")
            #expect(result.stderr.contains(bad.message), "\(bad.name): \(result.stderr)")
            #expect(!cli.exists("\(bad.name).json"))
        }
        // A value that is not its type's form is read as in an .ics file: with a warning
        // naming the component.
        try cli.write(
            "value.jcal",
            #"["vcalendar", [], [["vevent", [["uid", {}, "text", "u"], ["dtstart", {}, "date-time", "2026-01-05T09:00:00Z"], ["summary", {}, "text", "ok"]], []], ["vevent", [["uid", {}, "text", "v"], ["dtstart", {}, "date-time", "soon"]], []]]]"#
        )
        let lenient = try cli.run(["convert", "value.jcal", "--to", "ndjson"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(
            lenient.stderr.contains(
                "warning: value.jcal: components[1]: the VEVENT of components[1] cannot become a record; kept with the calendar as written"
            ),
            "\(lenient.stderr)")
        #expect(try Taskcal.recordList(lenient.stdout).count == 1)
        // Through the other commands, as any format.
        let overlaps = try cli.run(["overlaps", "value.jcal"])
        #expect(overlaps.status == 0, "\(overlaps.stderr)")
    }
}
