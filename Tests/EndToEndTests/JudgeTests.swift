import Foundation
import Testing

/// Whether a program can be run here; the judges are installed by `.ci/run`.
private func available(_ command: String, _ arguments: [String]) -> Bool {
    (try? Taskcal.execute(
        "/usr/bin/env", [command] + arguments, in: FileManager.default.temporaryDirectory
    ).status) == 0
}

private let pythonJudges = available("python3", ["-c", "import icalendar, vobject"])
private let calcurse = available("calcurse", ["--version"])
/// In CI the judges must be there: a missing one fails instead of skipping.
private let required = ProcessInfo.processInfo.environment["CI"] != nil

@Suite("Independent judges read taskcal's output")
struct JudgeTests {
    @Test(
        "Python icalendar and vobject agree on events, times, text, attachment bytes and triggers",
        .enabled(
            if: pythonJudges || required, "python3 with icalendar and vobject is not installed"),
        arguments: [
            ("attachments-and-alarms.json", nil), ("spec-example.json", "America/New_York"),
            ("attachments-and-alarms.json", "Asia/Kolkata"), ("weekly-habit.json", "UTC"),
        ] as [(String, String?)])
    func pythonParsers(sample: String, zone: String?) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(
            try cli.run(
                ["convert", Taskcal.sample(sample), "-o", "out.ics"]
                    + (zone.map { ["--tz", $0] } ?? [])
            ).status == 0)
        let judge = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/judge.py"
        ).path
        let result = try Taskcal.execute(
            "/usr/bin/env", ["python3", judge, cli.path("out.ics"), Taskcal.sample(sample)],
            in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok "))
    }

    @Test(
        "calcurse imports every sample's output without complaint",
        .enabled(if: calcurse || required, "calcurse is not installed"),
        arguments: [
            "spec-example.json", "attachments-and-alarms.json", "google-export.ics",
            "outlook-export.ics", "google-recurring.ics", "todo-with-subtasks.ics",
            "weekly-habit.json",
        ])
    func calcurseImport(sample: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var input = Taskcal.sample(sample)
        if sample.hasSuffix(".ics") {
            #expect(try cli.run(["convert", input, "-o", "records.json"]).status == 0)
            input = cli.path("records.json")
        }
        #expect(try cli.run(["convert", input, "-o", "out.ics"]).status == 0)
        try FileManager.default.createDirectory(
            atPath: cli.path("calcurse"), withIntermediateDirectories: true)
        let result = try Taskcal.execute(
            "/usr/bin/env", ["calcurse", "-D", cli.path("calcurse"), "-i", cli.path("out.ics")],
            in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(" 0 skipped"), "\(result.stdout)")
        #expect(!result.stderr.lowercased().contains("error"), "\(result.stderr)")
        let appointments = try String(contentsOfFile: cli.path("calcurse/apts"), encoding: .utf8)
        let events = try cli.read("out.ics").components(separatedBy: "BEGIN:VEVENT").count - 1
        let imported = appointments.split(separator: "\n").count
        #expect(imported == events)
    }
}
