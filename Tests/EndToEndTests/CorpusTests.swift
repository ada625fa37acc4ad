import Foundation
import Testing

/// Why these checks are skipped here, and how to get what they need.
let icalendarMissing =
    "python3 with icalendar is not installed (python3 -m pip install icalendar==7.3.0)"

/// The real-world corpus (calendar-app exports from other projects' test data), fetched at
/// test time into `.corpus-cache/` by `../shared/corpus/fetch.sh`; never committed.
let corpus: [String]? = {
    let cache = Taskcal.packageRoot.appendingPathComponent(".corpus-cache")
    let manifest = cache.appendingPathComponent("MANIFEST.tsv")
    let fetch = Taskcal.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/corpus/fetch.sh")
    if !FileManager.default.fileExists(atPath: manifest.path),
        FileManager.default.fileExists(atPath: fetch.path)
    {
        _ = try? Taskcal.execute("/bin/bash", [fetch.path, cache.path], in: Taskcal.packageRoot)
    }
    guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return nil }
    let files = text.split(separator: "\n").dropFirst().compactMap { line -> String? in
        let fields = line.split(separator: "\t")
        return fields.count == 3 ? cache.appendingPathComponent(String(fields[2])).path : nil
    }
    return files.isEmpty ? nil : files
}()

/// Why the corpus is not here, and how to get it.
let corpusMissing: String = {
    let fetch = Taskcal.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/corpus/fetch.sh")
    return FileManager.default.fileExists(atPath: fetch.path)
        ? "the corpus could not be fetched: ../shared/corpus/fetch.sh .corpus-cache needs PyPI"
        : "the corpus is not here: it comes from ../shared/corpus/fetch.sh (beside the project's clone), run as ../shared/corpus/fetch.sh .corpus-cache"
}()

/// Whether Python's icalendar (the independent judge) can be imported.
private let pythonJudgeAvailable: Bool = {
    let result = try? Taskcal.execute(
        "/usr/bin/env", ["python3", "-c", "import icalendar, zoneinfo"], in: Taskcal.packageRoot)
    return result?.status == 0
}()

@Suite("The real-world .ics corpus")
struct CorpusTests {
    @Test(
        "every file converts or is refused with a message; nothing crashes",
        .enabled(
            if: corpus != nil,
            "\(corpusMissing)"))
    func noCrash() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var converted = 0
        var refused = 0
        for file in corpus ?? [] {
            let result = try cli.run(["convert", file, "-o", "out.json", "--tz", "UTC", "-q"])
            #expect(
                result.status == 0 || result.status == 2,
                "\(file): exit \(result.status)\n\(result.stderr)")
            if result.status == 0 {
                converted += 1
            } else {
                refused += 1
                #expect(result.stderr.contains("taskcal: "), "\(file): refused without a message")
            }
        }
        print(
            "corpus: \(corpus?.count ?? 0) files, \(converted) converted, \(refused) refused with a message"
        )
        #expect(converted > 0)
    }

    @Test(
        "conformance: every calendar converts, agrees with Python icalendar, and .ics → JSON → .ics keeps every line",
        .enabled(
            if: corpus != nil,
            "\(corpusMissing)"),
        .enabled(if: pythonJudgeAvailable, "\(icalendarMissing)")
    )
    func conformance() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let script = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/conformance.py"
        ).path
        let samples = try FileManager.default.contentsOfDirectory(
            atPath: Taskcal.packageRoot.appendingPathComponent("Samples").path
        ).filter { $0.hasSuffix(".ics") }.sorted().map(Taskcal.sample)
        let result = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-W", "ignore", script, Taskcal.binary.path,
                Taskcal.packageRoot.appendingPathComponent(".corpus-cache").path,
                cli.path("work"),
            ] + samples, in: cli.directory, timeLimit: Taskcal.scriptLimit)
        #expect(result.status == 0, "\(result.stderr)")
        let summary =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let figures = summary?["figures"] as? [String: Int] ?? [:]
        let disagreements = summary?["disagreements"] as? [[String: Any]] ?? []
        print("conformance: \(figures.sorted { $0.key < $1.key })")
        #expect(figures["crashes", default: 0] == 0)
        // Every file converts but those that are no iCalendar at all (listed in the script).
        #expect(
            figures["files converted", default: 0]
                + figures["files refused: no iCalendar", default: 0]
                == figures["files", default: -1])
        #expect(figures["files refused: no iCalendar", default: 0] <= 16)
        // Every component is converted, or kept with the calendar as written with a warning.
        #expect(
            figures["components converted", default: 0]
                + figures["components kept as written, with a warning", default: 0]
                == figures["components", default: -1])
        #expect(figures["components converted", default: 0] >= 6_100)
        #expect(figures["components compared after the round trip", default: 0] >= 6_100)
        // Nothing lost: every component comes back, as a record or kept as written.
        #expect(
            figures["components compared after the round trip", default: 0]
                == figures["components", default: -1])
        #expect(figures["differences after the round trip", default: -1] == 0)
        #expect(
            figures["outputs valid UTF-8", default: 0] == figures["files converted", default: -1])
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    }

    @Test(
        "lint --for every app reads every calendar; profiles fix what they say; jCal carries each one",
        .enabled(
            if: corpus != nil,
            "\(corpusMissing)"),
        .enabled(if: pythonJudgeAvailable, "\(icalendarMissing)")
    )
    func appsAndJCal() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let files = corpus ?? []
        // The linter: one JSON report per app over the whole corpus.
        var fixable: [String: Set<String>] = [:]
        for app in ["outlook", "google", "apple", "thunderbird", "caldav", "any"] {
            let result = try cli.run(["lint"] + files + ["--for", app, "--format", "json"])
            #expect(result.status == 1 || result.status == 2, "\(app): exit \(result.status)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let findings = report["findings"] as? [[String: Any]] ?? []
            #expect(!findings.isEmpty, "\(app)")
            #expect(
                report["losses"] as? Int
                    == findings.filter { $0["effect"] as? String != "changes" }.count)
            for finding in findings {
                let code = finding["code"] as? String ?? ""
                #expect(code.hasPrefix(app + "-"), "\(finding)")
                #expect(files.contains(finding["file"] as? String ?? ""), "\(finding)")
                if ["outlook-todo", "outlook-one-alarm", "outlook-disabled-alarm", "google-todo"]
                    .contains(code)
                {
                    fixable[app, default: []].insert(finding["file"] as? String ?? "")
                }
            }
            print(
                "corpus lint --for \(app): \(findings.count) findings, \(report["losses"] ?? 0) losing data"
            )
        }
        // What a profile fixes, the app's linter no longer finds in its output.
        for (app, inputs) in fixable {
            for (index, input) in inputs.sorted().enumerated() {
                let output = "\(app)-\(index).ics"
                let shaped = try cli.run(["convert", input, "-o", output, "--for", app, "-q"])
                #expect(shaped.status == 0, "\(input): \(shaped.stderr)")
                let lint = try cli.run(["lint", output, "--for", app])
                for code in ["-todo", "-one-alarm", "-disabled-alarm"] {
                    #expect(!lint.stdout.contains(app + code), "\(input): \(lint.stdout)")
                }
            }
        }
        // jCal: every calendar taskcal reads goes to jCal and back to the same records, but
        // for spelling jCal does not keep (README); Python icalendar reads every jCal written.
        var read = 0
        var same = 0
        var written: [String] = []
        for (index, file) in files.enumerated() {
            let common = ["--uid-namespace", "n", "--tz", "UTC", "-q"]
            guard try cli.run(["convert", file, "-o", "direct.ndjson"] + common).status == 0
            else { continue }
            read += 1
            let jcal = "c\(index).jcal"
            let out = try cli.run(["convert", file, "-o", jcal] + common)
            #expect(out.status == 0, "\(file): \(out.stderr)")
            let back = try cli.run(["convert", jcal, "-o", "back.ndjson"] + common)
            #expect(back.status == 0, "\(file): \(back.stderr)")
            if try cli.read("back.ndjson") == cli.read("direct.ndjson") { same += 1 }
            written.append(cli.path(jcal))
        }
        print(
            "corpus jCal: \(read) calendars read, \(same) the same records after .ics → jCal → records"
        )
        // 21 differ, each in spelling jCal does not keep (parameter order and quoting, in the
        // components kept with the calendar as written too) or as .ics → JSON → .ics does.
        #expect(read - same <= 21, "\(same) of \(read)")
        // Python's jCal reader takes every jCal but those of inputs whose values are of no
        // type (an empty RDATE, periods of dates, a broken period, DTSTART:a2002…, a DURATION
        // of 10^14 weeks in a component kept as written): kept as written (`unknown`), they
        // are still parsed by the property's type, and fail.
        let python = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, json, icalendar\nfor f in sys.argv[1:]:\n    try: icalendar.Calendar.from_jcal(json.load(open(f)))\n    except Exception: print(f)",
            ] + written.map { $0 }, in: cli.directory, timeLimit: Taskcal.scriptLimit)
        #expect(python.status == 0, "\(python.stderr)")
        let failed = Set(python.stdout.split(separator: "\n").map(String.init))
        let inputsOf = Dictionary(
            uniqueKeysWithValues: files.enumerated().map {
                (cli.path("c\($0.offset).jcal"), $0.element)
            })
        let failedInputs = failed.compactMap {
            inputsOf[$0].map { ($0 as NSString).lastPathComponent }
        }
        #expect(
            Set(failedInputs) == [
                "empty_RDATE.ics", "issue_1633_rdate_with_dates.ics",
                "issue_1633_rdate_with_dates_and_tzid.ics", "issue_464_invalid_rdate.ics",
                "badstream.ics", "invalid_duration.ics",
            ], "\(failedInputs.sorted())")
    }

    @Test(
        "JSCalendar carries every calendar: the same records back, valid and the same instants for Python",
        .enabled(
            if: corpus != nil,
            "\(corpusMissing)"),
        .enabled(if: pythonJudgeAvailable, "\(icalendarMissing)")
    )
    func jscalendar() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var read = 0
        var same = 0
        var objects = 0
        for (index, file) in (corpus ?? []).enumerated() {
            let common = ["--uid-namespace", "n", "--tz", "UTC", "-q"]
            guard try cli.run(["convert", file, "-o", "direct.ndjson"] + common).status == 0
            else { continue }
            read += 1
            let output = "c\(index).jscal.json"
            let out = try cli.run(["convert", file, "-o", output] + common)
            #expect(out.status == 0, "\(file): \(out.stderr)")
            let back = try cli.run(["convert", output, "-o", "back.ndjson"] + common)
            #expect(back.status == 0, "\(file): \(back.stderr)")
            if try cli.read("back.ndjson") == cli.read("direct.ndjson") { same += 1 }
            // Records without a zone written in Berlin: times are judged in a zone with
            // daylight saving time, not only at UTC.
            let berlin = ["--uid-namespace", "n", "--tz", "Europe/Berlin", "-q"]
            #expect(try cli.run(["convert", file, "-o", "berlin.ndjson"] + berlin).status == 0)
            #expect(try cli.run(["convert", file, "-o", output] + berlin).status == 0)
            let check = try jscalendarCheck(
                cli.path(output), records: cli.path("berlin.ndjson"), in: cli)
            #expect(check.status == 0, "\(file): \(check.stdout)\(check.stderr)")
            objects += Int(check.stdout.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        print(
            "corpus JSCalendar: \(read) calendars read, \(same) the same records after .ics → JSCalendar → records, \(objects) objects valid"
        )
        #expect(read > 250)
        #expect(same == read, "\(same) of \(read)")
    }
}
