import Foundation
import Testing

/// Random intervals on a 15-minute grid: identical, nested, adjacent and zero-length ones are common.
private func randomRecords(count: Int, seed: UInt64) -> [(id: Int, start: Int, finish: Int)] {
    var state = seed
    func next() -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(truncatingIfNeeded: state >> 33)
    }
    return (1...count).map { id in
        let start = 1_795_766_400 + (next() % 400) * 900
        return (id, start, start + (next() % 9) * 900)
    }
}

private func bruteForcePairs(_ records: [(id: Int, start: Int, finish: Int)]) -> Set<String> {
    var pairs = Set<String>()
    for a in records {
        for b in records
        where a.id < b.id && a.start < b.finish && b.start < a.finish && a.start < a.finish
            && b.start < b.finish
        {
            pairs.insert("\(a.id)-\(b.id)@\(max(a.start, b.start))-\(min(a.finish, b.finish))")
        }
    }
    return pairs
}

/// Counts as the text report groups them (`12,497,500`).
enum OverlapCount {
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        return String(
            digits.enumerated().flatMap { index, digit in
                index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
            })
    }
}

private func reportedPairs(_ json: String) throws -> Set<String> {
    let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
    let array =
        (value as? [[String: Any]]) ?? ((value as! [String: Any])["overlaps"] as! [[String: Any]])
    return Set(
        array.map { pair in
            let first = (pair["first"] as! [String: Any])["id"] as! Int
            let second = (pair["second"] as! [String: Any])["id"] as! Int
            return
                "\(min(first, second))-\(max(first, second))@\(pair["overlap_start"] as! String)-\(pair["overlap_finish"] as! String)"
        })
}

@Suite("taskcal overlaps, agenda and month")
struct ReportCommandTests {
    @Test("overlaps equals a brute-force check, from JSON and from .ics", arguments: [1, 2, 3])
    func bruteForce(seed: UInt64) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let records = randomRecords(count: 1500, seed: seed)
        let json =
            "[\n"
            + records.map {
                #"{"id": \#($0.id), "date_start": "\#($0.start)", "date_finish": "\#($0.finish)", "name": "entry \#($0.id)"}"#
            }.joined(separator: ",\n") + "\n]\n"
        try cli.write("entries.json", json)
        try cli.run(["convert", "entries.json", "-o", "entries.ics"])
        let expected = bruteForcePairs(records)
        for file in ["entries.json", "entries.ics"] {
            // Machine output is whole: every pair, without being asked.
            let result = try cli.run(["overlaps", file, "--format", "json"])
            #expect(result.status == (expected.isEmpty ? 0 : 1))
            #expect(result.stdout.hasPrefix("["), "a JSON array, as DESIGN.md fixes")
            #expect(try reportedPairs(result.stdout) == expected, "\(file)")
            let roomy = try cli.run([
                "overlaps", file, "--format", "json", "--max-pairs", "1000000",
            ])
            let whole = try #require(
                try JSONSerialization.jsonObject(with: Data(roomy.stdout.utf8)) as? [String: Any])
            #expect(whole["truncated"] as? Bool == false)
            #expect(whole["total"] as? Int == expected.count)
            #expect(try reportedPairs(roomy.stdout) == expected, "\(file)")
        }
        // A limit the user sets cuts the list, and the JSON says so inside itself.
        let capped = try cli.run([
            "overlaps", "entries.json", "--format", "json", "--max-pairs", "100",
        ])
        #expect(capped.status == 1)
        let listed = try reportedPairs(capped.stdout)
        #expect(listed.count == min(100, expected.count) && listed.isSubset(of: expected))
        let counted = try #require(
            try JSONSerialization.jsonObject(with: Data(capped.stdout.utf8)) as? [String: Any])
        #expect(counted["listed"] as? Int == listed.count)
        #expect(counted["total"] as? Int == expected.count)
        #expect(counted["truncated"] as? Bool == (expected.count > 100))
        #expect(
            capped.stderr.contains("listed the first 100 of \(expected.count) overlapping pairs"))
        let text = try cli.run(["overlaps", "entries.json", "--max-pairs", "100", "--tz", "UTC"])
        #expect(
            text.stdout.contains(
                "… and \(OverlapCount.grouped(expected.count - 100)) more overlapping pairs"))
    }

    @Test("several files at once, mixed formats")
    func mixedInputs() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "a.json",
            #"[{"id": 1, "date_start": "3600", "date_finish": "7200", "name": "from json"}]"#)
        try cli.write(
            "b.ndjson",
            #"{"id": 2, "date_start": "5400", "date_finish": "9000", "name": "from ndjson"}"# + "\n"
        )
        let result = try cli.run(["overlaps", "a.json", "b.ndjson", "--format", "json"])
        #expect(result.status == 1)
        #expect(try reportedPairs(result.stdout) == ["1-2@5400-7200"])
        #expect(result.stdout.contains(#""source": "b.ndjson:1""#))
    }

    @Test("no overlap exits 0; bad input exits 2")
    func exitCodes() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "ok.json",
            #"[{"id": 1, "date_start": "0", "date_finish": "3600", "name": "a"}, {"id": 2, "date_start": "3600", "date_finish": "7200", "name": "b"}]"#
        )
        let clean = try cli.run(["overlaps", "ok.json"])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("No overlaps among 2 entries"))
        try cli.write("bad.json", #"[{"id": 1}]"#)
        #expect(try cli.run(["overlaps", "bad.json"]).status == 2)
    }

    @Test(
        "overlaps reads times, ids and names: a bad field it does not show is validate's to refuse",
        arguments: ["json", "ndjson"])
    func timesOnly(format: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let records = [
            #"{"id": 1, "date_start": "0", "date_finish": "3600", "name": "a", "alarms": [{"action": "shout", "trigger": "-PT5M"}]}"#,
            #"{"id": 2, "date_start": "1800", "date_finish": "7200", "name": "b", "description": "d"}"#,
        ]
        let file = "t.\(format)"
        try cli.write(
            file,
            format == "json"
                ? "[" + records.joined(separator: ",\n") + "]" : records.joined(separator: "\n"))
        let report = try cli.run(["overlaps", file, "--format", "json"])
        #expect(report.status == 1, "\(report.stderr)")
        #expect(try reportedPairs(report.stdout) == ["1-2@1800-3600"])
        let validate = try cli.run(["validate", file])
        #expect(validate.status == 1)
        #expect(validate.stderr.contains("alarms[0].action"), "\(validate.stderr)")
        // A syntax error is still an error, wherever it is.
        try cli.write(file, records[1].replacingOccurrences(of: #""d"}"#, with: #""d}"#))
        let broken = try cli.run(["overlaps", file])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("not valid JSON"), "\(broken.stderr)")
    }

    @Test(
        "cancelled and free entries are left out unless --include-free; --from/--to limit the window"
    )
    func filters() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run(["overlaps", Taskcal.sample("overlaps.json"), "--format", "json"])
        #expect(
            try reportedPairs(result.stdout) == [
                "1-2@1795768200-1795770000", "2-3@1795770000-1795773600",
            ])
        let all = try cli.run([
            "overlaps", Taskcal.sample("overlaps.json"), "--format", "json", "--include-free",
        ])
        #expect(try reportedPairs(all.stdout).contains("5-6@1795782600-1795784400"))
        let window = try cli.run([
            "overlaps", Taskcal.sample("overlaps.json"), "--format", "json", "--from",
            "2026-11-27T12:00+03:00", "--to", "2026-11-27T12:30+03:00",
        ])
        #expect(try reportedPairs(window.stdout) == ["2-3@1795770000-1795771800"])
        let text = try cli.run([
            "overlaps", Taskcal.sample("overlaps.json"), "--tz", "Europe/Moscow",
        ])
        #expect(text.stdout.contains("Friday 2026-11-27"))
        #expect(text.stdout.contains("11:30–12:00 (30 min double-booked)"))
        #expect(!text.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    @Test(
        "agenda: 24 hour rows; an entry spanning hours appears in each", arguments: ["json", "ics"])
    func agenda(format: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var input = Taskcal.sample("overlaps.json")
        if format == "ics" {
            try cli.run(["convert", input, "-o", "overlaps.ics"])
            input = cli.path("overlaps.ics")
        }
        let result = try cli.run([
            "agenda", "2026-11-27", input, "--tz", "Europe/Moscow", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let slots =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        #expect(slots.count == 24)
        #expect(slots[0]["label"] as? String == "00:00–01:00")
        let names = slots.map { ($0["entries"] as! [[String: Any]]).map { $0["name"] as! String } }
        #expect(names[11] == ["Standup", "Dentist"])
        #expect(names[12] == ["Dentist", "Call with Bob"])
        #expect(names[15].contains("Reminder: send invoice"))
        let text = try cli.run(["agenda", "2026-11-27", input, "--tz", "Europe/Moscow"])
        #expect(
            text.stdout.contains("12:00–13:00 │ [11:30–13:00 Dentist] [12:00–13:00 Call with Bob]"))
    }

    @Test(
        "agenda on daylight-saving days has 23 and 25 rows",
        arguments: [("2026-03-29", 23), ("2026-10-25", 25), ("2026-11-22", 24)])
    func daylightSaving(date: String, rows: Int) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run([
            "agenda", date, Taskcal.sample("spec-example.json"), "--tz", "Europe/Berlin",
            "--format", "json",
        ])
        let slots =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        #expect(slots.count == rows)
        if rows == 25 {
            let labels = slots.map { $0["label"] as! String }
            #expect(labels.contains("02:00–03:00 +02:00") && labels.contains("02:00–03:00 +01:00"))
        }
    }

    @Test("month: a grid from Monday with entry days marked; JSON counts per day")
    func month() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let text = try cli.run([
            "month", "2026-11", Taskcal.sample("overlaps.json"), "--tz", "Europe/Moscow",
        ])
        #expect(text.status == 0)
        #expect(text.stdout.contains("November 2026"))
        #expect(text.stdout.contains(" Mo  Tu  We  Th  Fr  Sa  Su"))
        // Today is in brackets, wherever the test runs.
        let grid = text.stdout.replacingOccurrences(of: "[", with: " ").replacingOccurrences(
            of: "]", with: " ")
        #expect(grid.contains(" 23  24  25  26  27* 28  29"))
        let json = try cli.run([
            "month", "2026-12", Taskcal.sample("google-export.ics"), "--tz", "Europe/Berlin",
            "--format", "json",
        ])
        let object =
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let days = object["days"] as! [[String: Any]]
        #expect(days.count == 31)
        // The all-day conference covers Dec 1 and 2 (exclusive end); the review is on Dec 2.
        #expect(days.prefix(3).map { $0["entries"] as! Int } == [1, 2, 0])
    }

    @Test(
        "month: today with entries shows both marks, today without shows its brackets",
        .enabled(if: faketime || required, "faketime is not installed (apt-get install faketime)"),
        .disabled(if: sanitized, "libfaketime hangs a sanitized process as it starts"))
    func monthToday() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        for (now, line) in [
            ("2026-11-27 12:00:00", " 23  24  25  26 [27* 28  29"),
            ("2026-11-28 12:00:00", " 23  24  25  26  27*[28] 29"),
        ] {
            let result = try Taskcal.execute(
                "/usr/bin/faketime",
                [
                    now, Taskcal.binary.path, "month", "2026-11", Taskcal.sample("overlaps.json"),
                    "--tz", "Europe/Moscow",
                ], in: cli.directory)
            #expect(result.stdout.contains(line + "\n"), "\(now): \(result.stdout)")
        }
    }
}
