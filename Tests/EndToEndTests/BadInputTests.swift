import Foundation
import Testing

/// One bad input: the file, and what the error must say.
struct BadInput: Sendable, CustomStringConvertible {
    var name: String
    var file: String
    var bytes: [UInt8]
    var message: String
    /// What `--strict` says instead, when it says something else.
    var strictMessage: String?

    init(
        _ name: String, file: String, _ text: String, expect message: String,
        strict: String? = nil
    ) {
        self.name = name
        self.file = file
        self.bytes = Array(text.utf8)
        self.message = message
        self.strictMessage = strict
    }

    init(_ name: String, file: String, bytes: [UInt8], expect message: String) {
        self.name = name
        self.file = file
        self.bytes = bytes
        self.message = message
    }

    var description: String { name }
}

private let calendarStart = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"
private let eventStart = "BEGIN:VEVENT\r\nUID:x@y\r\nDTSTAMP:20240101T000000Z\r\n"

private let badInputs: [BadInput] = [
    BadInput(
        "malformed JSON", file: "a.json", "[{\"id\": 1,\n \"name\": }]",
        expect: "a.json:2: not valid JSON"),
    BadInput(
        "missing name", file: "a.json", #"[{"id": 1, "date_start": "1", "date_finish": "2"}]"#,
        expect: "a.json: [0].name: missing"),
    BadInput(
        "empty name", file: "a.json",
        #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": ""}]"#,
        expect: "a.json: [0].name: is empty"),
    BadInput(
        "finish before start", file: "a.json",
        #"[{"id": 1, "date_start": "9", "date_finish": "2", "name": "n"}]"#,
        expect: "a.json: [0].date_finish: 2 is before date_start 9"),
    BadInput(
        "timestamp not a number", file: "a.json",
        #"[{"id": 1, "date_start": "noon", "date_finish": "2", "name": "n"}]"#,
        expect: "a.json: [0].date_start: 'noon' is not a timestamp"),
    BadInput(
        "unknown field", file: "a.json",
        #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": "n", "prio": 3}]"#,
        expect: "a.json: [0].prio: unknown field"),
    BadInput(
        "invalid base64", file: "a.json",
        #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": "n", "attachments": [{"data": "%%%"}]}]"#,
        expect: "a.json: [0].attachments[0].data: invalid base64"),
    BadInput(
        "NDJSON line", file: "a.ndjson",
        "{\"id\": 1, \"date_start\": \"1\", \"date_finish\": \"2\", \"name\": \"n\"}\n{\"id\": 2}\n",
        expect: "a.ndjson:2: date_start: missing"),

    BadInput(
        "NUL byte", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:20240101T100000Z\r\nSUMMARY:a\u{0}b\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect: "a.ics:8: the line contains a NUL byte"),

    BadInput(
        "not UTF-8", file: "a.ics",
        bytes: Array((calendarStart + eventStart + "SUMMARY:caf").utf8) + [0xE9]
            + Array("\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8),
        expect: "a.ics:7: the line is not valid UTF-8"),

    BadInput(
        "not a calendar", file: "a.ics", "hello\r\n",
        expect: "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found 'hello'"),
    BadInput(
        "a vCard", file: "a.ics", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ann\r\nEND:VCARD\r\n",
        expect: "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found BEGIN:VCARD"),
]

/// Input calendar apps accept though it is unclear or beyond libical: read with a warning
/// naming the line and the reading chosen; refused (as before) with `--strict`.
private let unclearInputs: [BadInput] = [
    BadInput(
        "garbage line", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:20240101T100000Z\r\nwhat is this\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect: "a.ics:8: 'what is this' is not a content line"),
    BadInput(
        "bad date", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:20241345T256199Z\r\nSUMMARY:s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect:
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: DTSTART: month 13 is out of range",
        strict: "a.ics:7: the VEVENT of line 4 is left out: DTSTART: month 13 is out of range"),
    BadInput(
        "unparseable date", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:tomorrow\r\nSUMMARY:s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect:
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: its DTSTART cannot be read (Can't parse as DATE-TIME value in DTSTART property",
        strict:
            "a.ics:7: the VEVENT of line 4 is left out: its DTSTART cannot be read (Can't parse as DATE-TIME value in DTSTART property"
    ),
    BadInput(
        "unknown zone", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART;TZID=Mars/Olympus:20240101T100000\r\nSUMMARY:s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect: "a.ics:7: DTSTART: unknown time zone 'Mars/Olympus'"),
    BadInput(
        "no DTSTART", file: "a.ics",
        calendarStart + eventStart + "SUMMARY:s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect:
            "a.ics:4: the VEVENT of line 4 cannot become a record; kept with the calendar as written: it has no DTSTART",
        strict: "a.ics:4: the VEVENT of line 4 is left out: it has no DTSTART"),
    BadInput(
        "missing END", file: "a.ics", calendarStart + eventStart + "DTSTART:20240101T100000Z\r\n",
        expect: "a.ics:4: BEGIN:VEVENT has no END:VEVENT before the end of the file; left out",
        strict: "a.ics:4: BEGIN:VEVENT has no END:VEVENT before the end of the input"),
    BadInput(
        "END closing another component", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:20240101T100000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
        expect: "a.ics:8: END:VTODO closes BEGIN:VEVENT of line 4; read as END:VEVENT",
        strict: "a.ics:8: END:VTODO closes BEGIN:VEVENT of line 4; expected END:VEVENT"),
    BadInput(
        "no VCALENDAR around the event", file: "a.ics",
        eventStart + "DTSTART:20240101T100000Z\r\nEND:VEVENT\r\n",
        expect: "a.ics:1: BEGIN:VEVENT is not inside BEGIN:VCALENDAR; read as if it were",
        strict: "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found BEGIN:VEVENT"),
    BadInput(
        "TRIGGER with the sign inside", file: "a.ics",
        calendarStart + eventStart
            + "DTSTART:20240101T100000Z\r\nSUMMARY:s\r\nBEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:PT-2H\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        expect: "a.ics:11: TRIGGER: 'PT-2H' has its sign inside; read as '-PT2H'"),
]

@Suite("Unclear input: read with a warning naming the line; refused with --strict")
struct UnclearInputTests {
    @Test(arguments: unclearInputs)
    func readLeniently(input: BadInput) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(input.file, bytes: input.bytes)
        let lenient = try cli.run(["convert", input.file, "-o", "out.json"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(
            lenient.stderr.contains("taskcal: warning: " + input.message),
            "stderr was: \(lenient.stderr.prefix(500))")
        #expect(cli.exists("out.json"))
        let strict = try cli.run(["convert", input.file, "-o", "strict.json", "--strict"])
        if input.name == "TRIGGER with the sign inside" {
            #expect(strict.status == 0, "a repaired value is a warning even under --strict")
            return
        }
        #expect(strict.status == 2)
        #expect(
            strict.stderr.contains("taskcal: " + (input.strictMessage ?? input.message)),
            "stderr was: \(strict.stderr.prefix(500))")
        #expect(!cli.exists("strict.json"))
        let validate = try cli.run(["validate", "--strict", input.file])
        #expect(validate.status == 1)
    }

    @Test("a 10 MB content line (an unfolded attachment) is read, in linear time")
    func longLine() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "a.ics",
            calendarStart + eventStart + "DTSTART:20240101T100000Z\r\nSUMMARY:s\r\nDESCRIPTION:"
                + String(repeating: "z", count: 10 << 20) + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        let result = try cli.run(["convert", "a.ics", "-o", "out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.read("out.json").utf8.count > 10 << 20)
    }
}

@Suite("Bad input: a clear error with its location, exit 2, no output file, no crash")
struct BadInputTests {
    @Test(arguments: badInputs)
    func refused(input: BadInput) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(input.file, bytes: input.bytes)
        let output = input.file.hasSuffix(".ics") ? "out.json" : "out.ics"
        let result = try cli.run(["convert", input.file, "-o", output])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("taskcal: " + input.message),
            "stderr was: \(result.stderr.prefix(500))")
        #expect(!cli.exists(output), "a failed conversion must not leave an output file")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
            .filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        let validate = try cli.run(["validate", input.file])
        #expect(validate.status == 1 || validate.status == 2)
    }

    @Test("a failed conversion leaves an existing output file untouched")
    func keepsExistingOutput() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("out.ics", "precious")
        try cli.write("bad.json", "[{]")
        #expect(try cli.run(["convert", "bad.json", "-o", "out.ics"]).status == 2)
        #expect(try cli.read("out.ics") == "precious")
    }

    @Test("bad usage exits 2 with a hint")
    func usage() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let unknownFormat = try cli.run(["convert", "notes.txt"])
        #expect(unknownFormat.status == 2)
        let noFrom = try cli.run(["convert", "-"])
        #expect(noFrom.status == 2)
        #expect(noFrom.stderr.contains("--input-format"))
        let badZone = try cli.run([
            "convert", Taskcal.sample("spec-example.json"), "--tz", "Moscow",
        ])
        #expect(badZone.status == 2)
        #expect(badZone.stderr.contains("unknown time zone 'Moscow'"))
    }
}
