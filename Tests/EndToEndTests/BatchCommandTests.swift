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
