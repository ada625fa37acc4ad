import Foundation
import Testing

@Suite("taskcal convert --output-dir: many files, a summary a script can trust")
struct BatchCommandTests {
    /// A folder of valid files in three formats, in two levels, plus three broken ones.
    private func makeInputs(_ cli: Taskcal) throws {
        try FileManager.default.createDirectory(
            atPath: cli.path("in/sub"), withIntermediateDirectories: true)
        for index in 1...30 {
            let record =
                #"{"id": \#(index), "date_start": "\#(index * 3600)", "date_finish": "\#(index * 3600 + 60)", "name": "task \#(index) — задача"}"#
            switch index % 3 {
            case 0: try cli.write("in/f\(index).json", "[\(record)]")
            case 1: try cli.write("in/sub/f\(index).ndjson", record + "\n")
            default: try cli.write("in/sub/f\(index).jsonl", record + "\n")
            }
        }
        try cli.write(
            "in/google.ics",
            String(contentsOfFile: Taskcal.sample("google-export.ics"), encoding: .utf8))
        try cli.write(
            "in/broken.json", #"[{"id": 1, "date_start": "9", "date_finish": "1", "name": "x"}]"#)
        try cli.write("in/sub/broken.ics", "BEGIN:VCARD\r\nFN:Not a calendar\r\nEND:VCARD\r\n")
        try cli.write("in/sub/broken.ndjson", "{nope\n")
        try cli.write("in/notes.txt", "ignored: not a task file")
    }

    @Test(
        "converts a folder in parallel, keeps the layout, names the broken files, writes a JSON report"
    )
    func folder() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try makeInputs(cli)
        let result = try cli.run([
            "convert", "in", "--output-dir", "out", "--report", "report.json", "--jobs", "2",
        ])
        #expect(result.status == 1, "a failed file makes the exit code 1")
        #expect(
            result.stderr.contains("converted 31 file(s), failed 3, skipped 0; 33 records written"))
        #expect(
            result.stderr.contains(
                "in/sub/broken.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found BEGIN:VCARD"
            ))
        #expect(
            cli.exists("out/sub/f1.ics") && cli.exists("out/f3.ics")
                && cli.exists("out/google.json"))
        #expect(!cli.exists("out/broken.ics") && !cli.exists("out/notes.ics"))
        let report =
            try JSONSerialization.jsonObject(with: Data(try cli.read("report.json").utf8))
            as! [String: Any]
        #expect(report["converted"] as? Int == 31)
        #expect(report["failed"] as? Int == 3)
        let files = report["files"] as! [[String: Any]]
        #expect(files.count == 34)
        let broken = files.first { $0["input"] as? String == "in/broken.json" }!
        #expect(broken["status"] as? String == "failed")
        let error = (broken["errors"] as! [[String: Any]])[0]
        #expect(error["index"] as? Int == 0)
        #expect(error["field"] as? String == "date_finish")
        #expect((error["message"] as? String)?.contains("before date_start") == true)
    }

    @Test("existing outputs are skipped unless --force; --fail-fast stops starting files")
    func forceAndFailFast() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try makeInputs(cli)
        try cli.run(["convert", "in", "--output-dir", "out"])
        let again = try cli.run(["convert", "in", "--output-dir", "out"])
        #expect(again.stderr.contains("converted 0 file(s), failed 3, skipped 31"))
        let forced = try cli.run(["convert", "in", "--output-dir", "out", "--force"])
        #expect(forced.stderr.contains("converted 31 file(s), failed 3, skipped 0"))
        let fast = try cli.run([
            "convert", "in", "--output-dir", "fast", "--fail-fast", "--jobs", "1",
        ])
        #expect(fast.status == 1)
        #expect(fast.stderr.contains("failed 1,"), "\(fast.stderr)")
    }

    @Test("the same files come out byte-identical whatever --jobs is")
    func deterministic() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try makeInputs(cli)
        try cli.run(["convert", "in", "--output-dir", "one", "--jobs", "1"])
        try cli.run(["convert", "in", "--output-dir", "two", "--jobs", "4"])
        for name in ["sub/f1.ics", "f3.ics", "google.json", "sub/f29.ics"] {
            #expect(try cli.read("one/" + name) == cli.read("two/" + name))
        }
    }

    @Test("two workers convert a share each (--shard); their reports merge into one run's")
    func shardsMerge() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try makeInputs(cli)
        try FileManager.default.copyItem(
            atPath: Taskcal.sample(""), toPath: cli.path("in/samples"))
        let whole = try cli.run(["convert", "in", "--output-dir", "one", "--report", "one.json"])
        #expect(whole.status == 1, "three broken files: \(whole.stderr)")
        // Two workers side by side, as GNU parallel or an Indexed Job would start them.
        let workers = try concurrently(2) { index in
            try cli.run([
                "convert", "in", "--output-dir", "two", "--shard", "\(index)/2", "--report",
                "share-\(index).json", "--jobs", "1",
            ])
        }
        let shares = try (0..<2).map {
            try JSONSerialization.jsonObject(with: Data(cli.read("share-\($0).json").utf8))
                as! [String: Any]
        }
        let sizes = shares.map { ($0["files"] as! [Any]).count }
        #expect(sizes[0] > 0 && sizes[1] > 0 && abs(sizes[0] - sizes[1]) <= 1, "\(sizes)")
        #expect(workers.map(\.status).max() == 1, "a broken file fails its worker")
        let merged = try cli.run([
            "convert", "--merge-reports", "share-1.json", "share-0.json", "--report", "all.json",
        ])
        #expect(merged.status == 1, "a file failed: \(merged.stderr)")
        let failed =
            try JSONSerialization.jsonObject(with: Data(cli.read("one.json").utf8))
            as! [String: Any]
        #expect(merged.stderr.contains("failed \(failed["failed"] as! Int),"), "\(merged.stderr)")
        func comparable(_ report: String) throws -> String {
            try cli.read(report).replacingOccurrences(
                of: #""seconds": [0-9.]+"#, with: "", options: .regularExpression
            ).replacingOccurrences(of: #""output": "one/"#, with: #""output": "two/"#)
        }
        #expect(try comparable("all.json") == comparable("one.json"))
        let outputs = try FileManager.default.subpathsOfDirectory(atPath: cli.path("one"))
        #expect(outputs.count > 30)
        for name in outputs where !name.hasSuffix("/") {
            #expect(
                FileManager.default.contents(atPath: cli.path("one/" + name))
                    == FileManager.default.contents(atPath: cli.path("two/" + name)), "\(name)")
        }
        // On standard output without --report; a missing or doubled share is refused.
        let printed = try cli.run(["convert", "--merge-reports", "share-0.json", "share-1.json"])
        #expect(printed.stdout.contains(#""converted": "#) && printed.status == 1)
        let missing = try cli.run(["convert", "--merge-reports", "share-0.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("share 1/2 is missing"), "\(missing.stderr)")
        let twice = try cli.run(["convert", "--merge-reports", "share-0.json", "share-0.json"])
        #expect(twice.status == 2 && twice.stderr.contains("as share-0.json is"))
        let mixed = try cli.run(["convert", "--merge-reports", "share-0.json", "one.json"])
        #expect(mixed.status == 2 && mixed.stderr.contains("a whole run"), "\(mixed.stderr)")
        // A worker that saw other inputs: the shares do not fit one plan.
        try cli.write("in/late.json", "[]")
        try cli.run([
            "convert", "in", "--output-dir", "three", "--shard", "1/2", "--report", "late-1.json",
        ])
        let misfit = try cli.run(["convert", "--merge-reports", "share-0.json", "late-1.json"])
        #expect(misfit.status == 2 && misfit.stderr.contains("same inputs"), "\(misfit.stderr)")
        let usage = try cli.run(["convert", "in", "--shard", "2/2", "--output-dir", "x"])
        #expect(usage.status == 2 && usage.stderr.contains("is not a share K/N"))
    }

    @Test("batch options without --output-dir are a usage error")
    func usage() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(
            try cli.run(["convert", Taskcal.sample("spec-example.json"), "--force"]).status == 2)
        #expect(
            try cli.run([
                "convert", Taskcal.sample("spec-example.json"), "-o", "a.ics", "--output-dir", "x",
            ]).status == 2)
    }

    @Test("two inputs that would write one output are refused before anything is written")
    func outputCollision() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let record = #"{"id": 1, "date_start": "0", "date_finish": "60", "name": "x"}"#
        try FileManager.default.createDirectory(
            atPath: cli.path("in"), withIntermediateDirectories: true)
        try cli.write("in/x.json", "[\(record)]")
        try cli.write("in/x.ndjson", record + "\n")
        try cli.write("in/y.json", "[\(record)]")
        let result = try cli.run(["convert", "in", "--output-dir", "out"])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("would write out/x.ics, as in/x.json does"), "\(result.stderr)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: cli.path("out"))) ?? []
        #expect(written.isEmpty, "nothing converted: \(written)")
    }

    @Test("an output folder inside the input folder is never read as input")
    func outputInsideInput() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(
            atPath: cli.path("in"), withIntermediateDirectories: true)
        try cli.write(
            "in/a.json", #"[{"id": 1, "date_start": "0", "date_finish": "60", "name": "x"}]"#)
        for _ in 0..<2 {
            let result = try cli.run(["convert", "in", "--output-dir", "in/out", "--to", "json"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cli.path("in/out")).sorted() == [
                "a.json"
            ])
    }
}
