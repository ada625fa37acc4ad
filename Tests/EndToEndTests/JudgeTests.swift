import Foundation
import Testing

/// Why these checks are skipped here, and how to get what they need.
let pythonJudgesMissing =
    "python3 with icalendar and vobject is not installed (python3 -m pip install icalendar==7.3.0 vobject==0.9.9)"
/// Why these checks are skipped here, and how to get what they need.
let calcurseMissing =
    "calcurse is not installed (apt-get install calcurse)"

/// Whether a program can be run here; the judges are installed by `.ci/run`.
func available(_ command: String, _ arguments: [String]) -> Bool {
    (try? Taskcal.execute(
        "/usr/bin/env", [command] + arguments, in: FileManager.default.temporaryDirectory
    ).status) == 0
}

let pythonJudges = available("python3", ["-c", "import icalendar, vobject"])

/// A C program of `Fixtures/` built against libical (`pkg-config`), or `nil` when it does not
/// build (no cc, no libical-dev).
func libicalProgram(_ fixture: String) -> String? {
    let source = Taskcal.packageRoot.appendingPathComponent(
        "Tests/EndToEndTests/Fixtures/\(fixture).c"
    ).path
    let binary = FileManager.default.temporaryDirectory.appendingPathComponent(
        "taskcal-\(fixture)-\(getpid())"
    ).path
    let flags =
        (try? Taskcal.execute(
            "/usr/bin/env", ["pkg-config", "--cflags", "--libs", "libical"],
            in: FileManager.default.temporaryDirectory
        ).stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        ?? ["-lical"]
    let compiled = try? Taskcal.execute(
        "/usr/bin/env", ["cc", "-O1", "-o", binary, source] + flags.filter { !$0.isEmpty },
        in: FileManager.default.temporaryDirectory)
    return compiled?.status == 0 ? binary : nil
}

/// libical's own whole-file parser as a judge: `Fixtures/libical_judge.c`, compiled once.
let libicalJudge = libicalProgram("libical_judge")
let calcurse = available("calcurse", ["--version"])
/// In CI the judges must be there: a missing one fails instead of skipping.
let required = ProcessInfo.processInfo.environment["CI"] != nil

@Suite("Independent judges read taskcal's output")
struct JudgeTests {
    @Test(
        "Python icalendar and vobject agree on events, times, text, attachment bytes and triggers",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"),
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
        #expect(libicalJudge != nil || !required, "the libical judge did not compile")
        let result = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", judge, cli.path("out.ics"), Taskcal.sample(sample)]
                + (libicalJudge.map { [$0] } ?? []), in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok "))
    }

    @Test(
        "the .ics samples, converted to JSON and back, are read right by every judge",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"),
        arguments: [
            "google-export.ics", "outlook-export.ics", "google-recurring.ics",
        ])
    func icsSamples(sample: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(try cli.run(["convert", Taskcal.sample(sample), "-o", "records.json"]).status == 0)
        #expect(try cli.run(["convert", "records.json", "-o", "records.ics"]).status == 0)
        let judge = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/judge.py"
        ).path
        let result = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", judge, cli.path("records.ics"), cli.path("records.json")]
                + (libicalJudge.map { [$0] } ?? []), in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(
        "a diary's export of a series with a moved occurrence is read right by every judge",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"),
        arguments: ["sqlite", "vdir"])
    func diaryExport(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = backend == "sqlite" ? cli.path("d.sqlite") : "vdir:" + cli.path("d")
        let sample = Taskcal.sample("google-recurring.ics")
        #expect(try cli.run(["diary", "import", sample, "--store", store]).status == 0)
        #expect(
            try cli.run([
                "diary", "edit", "1", "--occurrence", "2026-12-02", "--tz", "Europe/Berlin",
                "--name", "Planning, renamed", "--store", store,
            ]).status == 0)
        for output in ["out.ics", "out.json"] {
            #expect(
                try cli.run(["diary", "export", "-o", output, "--store", store]).status == 0)
        }
        #expect(try cli.read("out.ics").components(separatedBy: "RECURRENCE-ID").count == 3)
        let judge = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/judge.py"
        ).path
        let result = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", judge, cli.path("out.ics"), cli.path("out.json")]
                + (libicalJudge.map { [$0] } ?? []), in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(
        "every zone, twice a year 1970–2037: local times as the tz database says; icalendar, vobject and libical read the VTIMEZONEs so",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"))
    func everyZone() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let dates = (1970...2037).flatMap { year in
            [1, 7].map { Self.epoch(year: year, month: $0, day: 15, hour: 12) }
        }
        try judgeZones(cli, dates: dates, file: "zones")
    }

    @Test(
        "a file's VTIMEZONEs cover its years only, in every zone, and still say what the tz database says; a later record from an earlier year widens them",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"))
    func everyZoneTrimmed() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        func dates(_ year: Int) -> [Int64] {
            [1, 3, 4, 7, 10, 11].map { Self.epoch(year: year, month: $0, day: 15, hour: 12) }
        }
        for year in [1978, 1995, 2014, 2026] {
            let full = try judgeZones(cli, dates: dates(year), file: "zones-\(year)")
            // Each zone once a year at most: far smaller than its history since 1970.
            let lines = try cli.read("zones-\(year).ics").split(separator: "\r\n").count
            #expect(lines < full.events * 10, "\(year): \(lines) lines")
        }
        // Streamed: 2026 first, 1978 after it; the zones are rewritten at the end to cover both.
        try judgeZones(cli, dates: dates(2026) + dates(1978), file: "zones-widened")
        let berlin = try cli.read("zones-2026.ics").components(
            separatedBy: "TZID:Europe/Berlin\r\n")
        #expect(berlin.count == 2)
        #expect(
            berlin.last?.components(separatedBy: "END:VTIMEZONE").first?
                .components(separatedBy: "BEGIN:").count == 3,
            "Europe/Berlin in 2026: one STANDARD and one DAYLIGHT rule")
    }

    /// Writes one record per zone and date in one file, converts it to .ics and has the zone
    /// judge (Python icalendar, vobject, libical) check every local time and VTIMEZONE.
    @discardableResult
    private func judgeZones(_ cli: Taskcal, dates: [Int64], file: String) throws -> (
        events: Int, zones: Int
    ) {
        // The zones Python's zoneinfo knows (the system's tz database), independently listed.
        let names = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import zoneinfo; print('\\n'.join(sorted(n for n in zoneinfo.available_timezones() if not n.startswith(('posix/', 'right/')) and n not in ('localtime', 'Factory'))))",
            ], in: cli.directory
        ).stdout.split(separator: "\n").map(String.init)
        #expect(names.count > 500)
        var lines: [String] = []
        var id = 0
        for start in dates {
            for name in names {
                id += 1
                lines.append(
                    #"{"id": \#(id), "date_start": "\#(start)", "date_finish": "\#(start + 3600)", "name": "x", "time_zone": "\#(name)"}"#
                )
            }
        }
        try cli.write("\(file).ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try cli.run(["convert", "\(file).ndjson", "-o", "\(file).ics"]).status == 0)
        let judge = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/zones_judge.py"
        ).path
        let result = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", judge, cli.path("\(file).ics"), cli.path("\(file).ndjson")]
                + (libicalJudge.map { [$0] } ?? []), in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let summary =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        print("\(file): \(summary ?? [:])")
        #expect(summary?["events"] as? Int == lines.count)
        #expect((summary?["zones"] as? Int ?? 0) > 500)
        #expect(summary?["problem count"] as? Int == 0, "\(summary?["problems"] ?? "")")
        // Only a zone that changed by a whole day is beyond dateutil (vobject's zone code).
        #expect(
            (summary?["beyond dateutil"] as? [String] ?? []).allSatisfy { $0 == "Pacific/Apia" })
        return (lines.count, names.count)
    }

    static func epoch(year: Int, month: Int, day: Int, hour: Int) -> Int64 {
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour) = (
            year, month, day, hour
        )
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return Int64(calendar.date(from: components)!.timeIntervalSince1970)
    }

    @Test(
        "calcurse imports every sample's output without complaint",
        .enabled(if: calcurse || required, "\(calcurseMissing)"),
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

    @Test(
        "--split-size: complete calendars within the limit, a series whole in one, the union exactly the input; Python icalendar and calcurse read every part",
        .enabled(
            if: pythonJudges || required, "\(pythonJudgesMissing)"))
    func split() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/Moscow"]
        var lines: [String] = []
        for id in 1...600 {
            let start = 1_767_225_600 + Int64(id) * 86_400 * 3
            let text = String(repeating: "Описание дела \(id). ", count: id % 9 + 1)
            lines.append(
                #"{"id": \#(id), "date_start": "\#(start)", "date_finish": "\#(start + 3600)", "name": "Task \#(id)", "description": "\#(text)", "time_zone": "\#(zones[id % zones.count])"}"#
            )
        }
        // A weekly series whose two changed occurrences come at the end of the input.
        let series: Int64 = 1_767_261_600
        lines.insert(
            #"{"id": 1000, "uid": "gym@example.org", "date_start": "\#(series)", "date_finish": "\#(series + 3600)", "name": "Gym", "recurrence": {"rule": "FREQ=WEEKLY;COUNT=20"}}"#,
            at: 5)
        for week: Int64 in [3, 7] {
            let original = series + week * 7 * 86_400
            lines.append(
                #"{"id": 1000, "uid": "gym@example.org", "recurrence_id": "\#(original)", "date_start": "\#(original + 7200)", "date_finish": "\#(original + 10800)", "name": "Gym (moved)"}"#
            )
        }
        try cli.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let environment = ["SOURCE_DATE_EPOCH": "1767225600"]
        #expect(
            try cli.run(["convert", "in.ndjson", "-o", "one.ics"], environment: environment)
                .status == 0)
        let result = try cli.run(
            ["convert", "in.ndjson", "-o", "out.ics", "--split-size", "16KB"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
            .filter { $0.hasPrefix("out-") }.sorted()
        #expect(parts.count > 10, "\(parts)")
        #expect(parts.first == "out-001.ics")
        #expect(
            result.stderr.contains(
                "wrote 603 records to \(parts.count) parts, out-001.ics … out-"),
            "\(result.stderr)")
        var holdingSeries: [String] = []
        for part in parts {
            let text = try cli.read(part)
            #expect(text.utf8.count <= 16_000, "\(part): \(text.utf8.count) bytes")
            #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n") && text.hasSuffix("END:VCALENDAR\r\n"))
            // Every TZID used is defined in the part itself.
            for zone in zones where text.contains("TZID=\(zone):") {
                #expect(text.contains("TZID:\(zone)\r\n"), "\(part) lacks \(zone)")
            }
            if text.contains("UID:gym@example.org") { holdingSeries.append(part) }
        }
        #expect(holdingSeries.count == 1, "\(holdingSeries)")
        #expect(
            try cli.read(holdingSeries.first ?? "").components(separatedBy: "UID:gym@example.org")
                .count == 4)
        // The union: the parts read back give exactly the records of one file (the changed
        // occurrences now beside their series).
        #expect(try cli.run(["convert"] + parts + ["-o", "parts.ndjson"]).status == 0)
        #expect(try cli.run(["convert", "one.ics", "-o", "one.ndjson"]).status == 0)
        let union = try cli.read("parts.ndjson").split(separator: "\n").sorted()
        let whole = try cli.read("one.ndjson").split(separator: "\n").sorted()
        #expect(union.count == 603)
        #expect(union == whole)
        // Python icalendar reads each part; together they hold every event.
        let count = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, icalendar; print(sum(len(icalendar.Calendar.from_ical(open(f, 'rb').read()).walk('VEVENT')) for f in sys.argv[1:]))",
            ] + parts.map(cli.path), in: cli.directory)
        #expect(
            count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "603", "\(count.stderr)"
        )
        if calcurse {
            for part in parts.prefix(3) {
                let folder = cli.path("calcurse-\(part)")
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
                let imported = try Taskcal.execute(
                    "/usr/bin/env", ["calcurse", "-D", folder, "-i", cli.path(part)],
                    in: cli.directory)
                #expect(imported.status == 0, "\(part): \(imported.stderr)")
            }
        }
        // By count: at most 50 events a part (13 parts), and the first run's 14th is stale.
        let counted = try cli.run(
            ["convert", "in.ndjson", "-o", "out.ics", "--split-count", "50"],
            environment: environment)
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(
            counted.stderr.contains(
                "warning: out-014.ics: exists from an earlier run and is not part of this output (13 parts)"
            ), "\(counted.stderr)")
        for part in (1...13).map({ String(format: "out-%03d.ics", $0) }) {
            let events = try cli.read(part).components(separatedBy: "BEGIN:VEVENT").count - 1
            #expect(events <= 50 && events > 0, "\(part): \(events)")
        }
    }
}
