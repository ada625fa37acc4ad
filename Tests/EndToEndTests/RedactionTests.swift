import Foundation
import Testing

/// Checks with Python icalendar that the redacted events of an .ics file carry their times and
/// "Busy" only; prints `busy=N whole=M`.
private let redactionJudge = """
    import sys
    from icalendar import Calendar
    calendar = Calendar.from_ical(open(sys.argv[1], 'rb').read())
    allowed = {'UID', 'DTSTAMP', 'DTSTART', 'DTEND', 'DUE', 'DURATION', 'SUMMARY', 'RRULE',
               'EXDATE', 'RDATE', 'RECURRENCE-ID', 'STATUS', 'TRANSP'}
    busy = whole = 0
    for event in calendar.walk('VEVENT'):
        if str(event.get('SUMMARY')) == 'Busy':
            busy += 1
            extra = set(event.keys()) - allowed
            assert not extra, (event.get('UID'), extra)
            assert not event.subcomponents, (event.get('UID'), 'has', event.subcomponents)
        else:
            whole += 1
    print(f'busy={busy} whole={whole}')
    """

@Suite("Redacted exports: private entries, or all, as Busy with their times only")
struct RedactionTests {
    @Test(
        "convert --redact hides the private series and its changed occurrence; --redact-all hides all",
        .enabled(if: pythonJudges || required, "\(pythonJudgesMissing)"))
    func convert() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("judge.py", redactionJudge)
        // The Google sample's weekly series made private (CLASS on the series only, as some
        // apps write it): its moved occurrence must be hidden too.
        let sample = try String(
            contentsOfFile: Taskcal.sample("google-recurring.ics"), encoding: .utf8)
        try cli.write(
            "private.ics",
            sample.replacingOccurrences(
                of: "SUMMARY:Planning\n", with: "SUMMARY:Planning\nCLASS:CONFIDENTIAL\n"))
        #expect(
            try cli.run(["convert", "private.ics", "-o", "shared.ics", "--redact"]).status == 0)
        let shared = try cli.read("shared.ics")
        for secret in ["Planning", "Christmas", "Alexanderplatz", "meet.google.com", "Anna"] {
            #expect(!shared.contains(secret), "\(secret) is in the redacted file")
        }
        #expect(shared.contains("Climbing"), "a public entry stays whole")
        #expect(shared.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,WE"), "the series keeps its times")
        let judged = try Taskcal.execute(
            "/usr/bin/env", ["python3", cli.path("judge.py"), cli.path("shared.ics")],
            in: cli.directory)
        #expect(judged.stdout == "busy=3 whole=1\n", "\(judged.stdout)\(judged.stderr)")
        #expect(
            try cli.run(["convert", "private.ics", "-o", "busy.ics", "--redact-all"]).status == 0)
        let all = try Taskcal.execute(
            "/usr/bin/env", ["python3", cli.path("judge.py"), cli.path("busy.ics")],
            in: cli.directory)
        #expect(all.stdout == "busy=4 whole=0\n", "\(all.stdout)\(all.stderr)")
        #expect(!(try cli.read("busy.ics")).contains("X-WR-CALNAME"))
        // The times are the same instants as without redaction.
        #expect(try cli.run(["convert", "busy.ics", "-o", "busy.json"]).status == 0)
        #expect(try cli.run(["convert", "private.ics", "-o", "plain.json"]).status == 0)
        func times(_ name: String) throws -> [String] {
            try Taskcal.records(cli.read(name)).compactMap { $0 as? [String: Any] }.map {
                "\($0["date_start"] ?? "")-\($0["date_finish"] ?? "")-\($0["recurrence_id"] ?? "")"
            }
        }
        #expect(try times("busy.json") == times("plain.json"))
    }

    @Test("diary export --redact and --redact-all", arguments: diaryBackends)
    func diaryExport(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        #expect(
            try cli.run([
                "diary", "import", Taskcal.sample("google-recurring.ics"), "--store", store,
            ])
            .status == 0)
        #expect(
            try cli.run(["diary", "export", "-o", "shared.json", "--redact", "--store", store])
                .status == 0)
        let names = try Taskcal.records(cli.read("shared.json")).compactMap {
            ($0 as? [String: Any])?["name"] as? String
        }
        #expect(names.sorted() == ["Busy"] + names.filter { $0 != "Busy" }.sorted())
        #expect(names.filter { $0 == "Busy" }.count == 1, "the private Christmas entry: \(names)")
        #expect(!(try cli.read("shared.json")).contains("Christmas"))
        #expect(
            try cli.run(["diary", "export", "-o", "busy.ics", "--redact-all", "--store", store])
                .status == 0)
        let busy = try cli.read("busy.ics")
        #expect(!busy.contains("Planning") && !busy.contains("Climbing"))
        #expect(busy.components(separatedBy: "SUMMARY:Busy").count - 1 == 4)
    }
}
