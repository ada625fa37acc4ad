import Foundation
import Testing

/// `taskcal diff` and `convert --verify` as a migration script runs them: over the samples and
/// the real-world corpus, each file against itself, its round trip, a copy with its lines
/// reordered and folded anew (none of which is a difference), and copies with an event taken
/// out, a name changed and a start moved an hour (exactly those, in text and in JSON).
@Suite("taskcal diff and convert --verify: a migration proven")
struct DiffCommandTests {
    /// An .ics as its unfolded content lines.
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n ", with: "").replacingOccurrences(of: "\n\t", with: "")
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// `lines` written back with CRLF, folded every `width` octets (never inside a UTF-8
    /// character).
    static func folded(_ lines: [String], width: Int) -> String {
        lines.map { line -> String in
            var out = ""
            var count = 0
            for character in line {
                let size = String(character).utf8.count
                if count + size > width {
                    out += "\r\n "
                    count = 1
                }
                out.append(character)
                count += size
            }
            return out
        }.joined(separator: "\r\n") + "\r\n"
    }

    /// The top-level components of a calendar's lines: (first line, last line, name).
    static func components(_ lines: [String]) -> [(start: Int, end: Int, name: String)] {
        var found: [(Int, Int, String)] = []
        var depth = 0
        var start = 0
        for (index, line) in lines.enumerated() {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:") {
                depth += 1
                if depth == 2 { start = index }
            } else if upper.hasPrefix("END:") {
                if depth == 2 { found.append((start, index, String(upper.dropFirst(4)))) }
                depth -= 1
            }
        }
        return found
    }

    /// `lines` with the properties of every component sorted by name, each name's lines in
    /// their order (a second DTSTART stays second: which one counts is its order), its
    /// subcomponents after them.
    static func reordered(_ lines: [String]) -> [String] {
        func block(_ slice: ArraySlice<String>) -> [String] {
            guard let first = slice.first, let last = slice.last else { return [] }
            var properties: [String] = []
            var children: [[String]] = []
            var index = slice.startIndex + 1
            while index < slice.endIndex - 1 {
                if slice[index].uppercased().hasPrefix("BEGIN:") {
                    var depth = 0
                    var end = index
                    repeat {
                        if slice[end].uppercased().hasPrefix("BEGIN:") { depth += 1 }
                        if slice[end].uppercased().hasPrefix("END:") { depth -= 1 }
                        end += 1
                    } while depth > 0 && end < slice.endIndex - 1
                    children.append(block(slice[index..<end]))
                    index = end
                } else {
                    properties.append(slice[index])
                    index += 1
                }
            }
            let sorted = properties.enumerated().sorted {
                (name($0.element), $0.offset) < (name($1.element), $1.offset)
            }.map(\.element)
            return [first] + sorted + children.flatMap { $0 } + [last]
        }
        func name(_ line: String) -> String {
            String(line.prefix { $0 != ";" && $0 != ":" }).uppercased()
        }
        // A calendar is one block; a file of bare components (no VCALENDAR) is several.
        var result: [String] = []
        var depth = 0
        var start = 0
        for (index, line) in lines.enumerated() {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:") {
                if depth == 0 { start = index }
                depth += 1
            } else if upper.hasPrefix("END:") {
                depth -= 1
                if depth == 0 { result += block(lines[start...index]) }
            } else if depth == 0 {
                result.append(line)
            }
        }
        return depth == 0 ? result : lines
    }

    /// A top-level VEVENT that can be told apart from every other: its own UID, no
    /// RECURRENCE-ID, a SUMMARY, a DTSTART of date and time at an hour before 23.
    static func simpleEvents(_ lines: [String]) -> [(start: Int, end: Int, uid: String)] {
        let all = components(lines)
        var uids: [String: Int] = [:]
        for component in all {
            for line in lines[component.start...component.end] where line.hasPrefix("UID:") {
                uids[String(line.dropFirst(4)), default: 0] += 1
            }
        }
        return all.compactMap { component in
            guard component.name == "VEVENT" else { return nil }
            let body = lines[component.start...component.end]
            guard body.filter({ $0.uppercased().hasPrefix("BEGIN:") }).count == 1,
                let uidLine = body.first(where: { $0.hasPrefix("UID:") }),
                uids[String(uidLine.dropFirst(4))] == 1,
                !body.contains(where: { $0.uppercased().hasPrefix("RECURRENCE-ID") }),
                body.contains(where: { $0.hasPrefix("SUMMARY:") && $0.count > 8 }),
                body.filter({ $0.uppercased().hasPrefix("DTSTART") }).count == 1,
                body.contains(where: {
                    $0.firstMatch(of: /^DTSTART[^:]*:\d{8}T(0\d|1\d|2[0-2])\d{4}Z?$/) != nil
                })
            else { return nil }
            return (component.start, component.end, String(uidLine.dropFirst(4)))
        }
    }

    /// The three changes made to a copy of a calendar, and what `diff` must find.
    struct Mutated {
        var text: String
        var removed: String?
        var renamed: String?
        var moved: String?
    }

    /// `lines` with the first simple event taken out, the second's SUMMARY changed and the
    /// third's DTSTART moved an hour later (as many as the file has).
    static func mutated(_ lines: [String]) -> Mutated {
        var lines = lines
        let events = simpleEvents(lines)
        var result = Mutated(text: "")
        if events.count > 2 {
            let event = events[2]
            for index in event.start...event.end {
                guard let match = lines[index].firstMatch(of: /^(DTSTART[^:]*:\d{8}T)(\d\d)(.*)$/)
                else { continue }
                lines[index] = "\(match.1)\(String(format: "%02d", Int(match.2)! + 1))\(match.3)"
                result.moved = event.uid
                break
            }
        }
        if events.count > 1 {
            let event = events[1]
            for index in event.start...event.end where lines[index].hasPrefix("SUMMARY:") {
                lines[index] += " (renamed)"
                result.renamed = event.uid
                break
            }
        }
        if let event = events.first {
            lines.removeSubrange(event.start...event.end)
            result.removed = event.uid
        }
        result.text = lines.joined(separator: "\r\n") + "\r\n"
        return result
    }

    /// The diff of `old` and `new` as JSON (exit 0 or 1), or nil when a side was unreadable.
    static func json(_ cli: Taskcal, _ old: String, _ new: String, _ extra: [String] = [])
        throws -> (status: Int32, report: [String: Any])?
    {
        let run = try cli.run(["diff", old, new, "--format", "json", "-q", "--tz", "UTC"] + extra)
        guard run.status != 2 else { return nil }
        let report =
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        return (run.status, report)
    }

    static func items(_ report: [String: Any], _ key: String) -> [[String: Any]] {
        report[key] as? [[String: Any]] ?? []
    }

    /// Runs the checks over `files`, on two threads; returns the problems and counts.
    static func check(_ files: [String]) throws -> (problems: [String], counts: [String: Int]) {
        let results = try concurrently(2) { worker -> ([String], [String: Int]) in
            let cli = try Taskcal()
            defer { cli.cleanUp() }
            var problems: [String] = []
            var counts: [String: Int] = [:]
            for (index, file) in files.enumerated() where index % 2 == worker {
                let name = file.replacingOccurrences(of: Taskcal.packageRoot.path + "/", with: "")
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    continue
                }
                // Against itself.
                guard let same = try json(cli, file, file) else {
                    counts["unreadable", default: 0] += 1
                    continue
                }
                if same.status != 0 { problems.append("\(name): differs from itself") }
                counts["read", default: 0] += 1
                // Against its round trip: .ics → JSON → .ics (what the JSON kept is what
                // comes back in the .ics).
                let converted = try cli.run(
                    ["convert", file, "-o", "trip.json", "-q", "--tz", "UTC"])
                if converted.status == 0 {
                    _ = try cli.run(["convert", "trip.json", "-o", "trip.ics", "-q", "--tz", "UTC"])
                    let trip = try json(cli, file, cli.path("trip.ics"))
                    if trip?.status != 0 {
                        problems.append(
                            "\(name): its round trip differs: \(trip.map { String("\($0.report)".prefix(400)) } ?? "unreadable")"
                        )
                    } else {
                        counts["round trips the same", default: 0] += 1
                    }
                }
                // Reordered and folded anew; when that differs, folded anew alone tells
                // whether the test's own reading of the lines gives the calendar back (blank
                // lines inside a folded line, a file cut short: the damage some corpus files
                // were made to test is beyond it).
                let lines = lines(text)
                try cli.write("reordered.ics", folded(reordered(lines), width: 40))
                let reordered = try json(cli, file, cli.path("reordered.ics"))
                if reordered?.status != 0 {
                    try cli.write("refolded.ics", folded(lines, width: 40))
                    if try json(cli, file, cli.path("refolded.ics"))?.status != 0 {
                        counts["beyond the test's line reading", default: 0] += 1
                        continue
                    }
                    problems.append(
                        "\(name): reordered and refolded, it differs: \(reordered.map { String("\($0.report)".prefix(400)) } ?? "unreadable")"
                    )
                } else {
                    counts["reordered the same", default: 0] += 1
                }
                // Mutated: exactly the changes made.
                let mutation = mutated(lines)
                guard mutation.removed != nil else { continue }
                try cli.write("mutated.ics", mutation.text)
                guard let found = try json(cli, file, cli.path("mutated.ics")) else {
                    problems.append("\(name): the mutated copy is unreadable")
                    continue
                }
                let missing = items(found.report, "missing").compactMap { $0["uid"] as? String }
                let extra = items(found.report, "extra")
                let changed = items(found.report, "changed")
                var expected: [String: [String]] = [:]
                if let renamed = mutation.renamed { expected[renamed] = ["SUMMARY"] }
                if let moved = mutation.moved { expected[moved] = ["DTSTART"] }
                var got: [String: [String]] = [:]
                for item in changed {
                    guard let uid = item["uid"] as? String else { continue }
                    got[uid] = (item["fields"] as? [[String: Any]] ?? []).compactMap {
                        $0["name"] as? String
                    }
                }
                // A start moved with DTEND kept moves nothing else; with DURATION the end
                // moves too, and an end before the start (read in order) is the start.
                if let moved = mutation.moved, let fields = got[moved], !fields.isEmpty,
                    Set(fields).isSubset(of: ["DTSTART", "DTEND"])
                {
                    got[moved] = ["DTSTART"]
                }
                if missing != [mutation.removed!] || !extra.isEmpty || got != expected
                    || found.status != 1
                {
                    problems.append(
                        "\(name): mutated, expected missing \(mutation.removed!) and changes \(expected), found missing \(missing), \(extra.count) extra, changes \(got)"
                    )
                } else {
                    counts["mutations found exactly", default: 0] += 1
                }
            }
            return (problems, counts)
        }
        var counts: [String: Int] = [:]
        for (_, part) in results { counts.merge(part, uniquingKeysWith: +) }
        return (results.flatMap(\.0), counts)
    }

    static let samples: [String] = {
        let root = Taskcal.packageRoot.appendingPathComponent("Samples")
        let found = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
        return (found ?? []).filter { $0.hasSuffix(".ics") }.sorted()
            .map { root.appendingPathComponent($0).path }
    }()

    @Test(
        "the samples: the same as themselves, their round trips and reordered copies; mutations found exactly"
    )
    func samplesCompared() throws {
        let (problems, counts) = try Self.check(Self.samples)
        print("diff over the samples: \(counts)")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(counts["read", default: 0] >= Self.samples.count - 1)
        #expect(counts["round trips the same", default: 0] >= Self.samples.count - 2)
        #expect(counts["mutations found exactly", default: 0] >= 2)
    }

    @Test(
        "the corpus: the same as themselves, their round trips and reordered copies; mutations found exactly",
        .enabled(if: corpus != nil, "\(corpusMissing)"))
    func corpusCompared() throws {
        let (problems, counts) = try Self.check(corpus ?? [])
        print("diff over the corpus: \(counts), \(problems.count) problems")
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        #expect(counts["read", default: 0] > 250)
        #expect(counts["reordered the same", default: 0] > 250)
        #expect(counts["round trips the same", default: 0] > 250)
        #expect(counts["mutations found exactly", default: 0] > 50)
    }

    @Test("the text report: one line per difference, the counts last, exit 1; 0 when the same")
    func textReport() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let original = Self.folded(
            Self.lines(
                try String(contentsOfFile: Taskcal.sample("google-recurring.ics"), encoding: .utf8)
            ), width: 75)
        try cli.write("old.ics", original)
        try cli.write(
            "new.ics",
            original.replacingOccurrences(of: "SUMMARY:Planning\r\n", with: "SUMMARY:Review\r\n")
                .replacingOccurrences(
                    of: "DTSTART;TZID=Europe/Berlin:20261019T093000",
                    with: "DTSTART;TZID=Europe/Berlin:20261019T103000"
                )
                .replacingOccurrences(
                    of: "DTEND;TZID=Europe/Berlin:20261019T100000",
                    with: "DTEND;TZID=Europe/Berlin:20261019T110000"))
        let run = try cli.run(["diff", "old.ics", "new.ics", "--tz", "UTC"])
        #expect(run.status == 1, "\(run.stderr)")
        let uid = "5q2r8s1t4u7v0w3x6y9z@google.com"
        #expect(
            run.stdout
                == """
                changed \(uid) "Planning": SUMMARY "Planning" → "Review"
                changed \(uid) "Planning": DTSTART 2026-10-19 09:30 → 10:30 (Europe/Berlin)
                changed \(uid) "Planning": DTEND 2026-10-19 10:00 → 11:00 (Europe/Berlin)
                0 missing, 0 extra, 1 changed, 3 the same

                """, "\(run.stdout)")
        let same = try cli.run(["diff", "old.ics", "old.ics"])
        #expect(same.status == 0)
        #expect(same.stdout == "0 missing, 0 extra, 0 changed, 4 the same\n")
        let russian = try cli.run(
            ["diff", "old.ics", "new.ics", "--tz", "UTC"], environment: ["LANG": "ru_RU.UTF-8"])
        #expect(
            russian.stdout.contains("изменено \(uid) \"Planning\": SUMMARY"), "\(russian.stdout)")
        #expect(russian.stdout.hasSuffix("недостаёт: 0, лишних: 0, изменено: 1, совпадает: 3\n"))
        // A side that cannot be read: exit 2, the reason, nothing on standard output.
        let broken = try cli.run(["diff", "old.ics", Taskcal.sample("broken/bad.json")])
        #expect(broken.status == 2)
        #expect(broken.stdout.isEmpty)
        #expect(broken.stderr.contains("bad.json"), "\(broken.stderr)")
        let usage = try cli.run(["diff", "old.ics"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("give two sides"), "\(usage.stderr)")
    }

    @Test("a task file against its own .ics, through standard input, and a diary")
    func taskFilesStdinAndDiary() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let sample = Taskcal.sample("attachments-and-alarms.json")
        #expect(try cli.run(["convert", sample, "-o", "tasks.ics", "-q"]).status == 0)
        let ics = try cli.run(["diff", sample, "tasks.ics"])
        #expect(ics.status == 0, "\(ics.stdout)\(ics.stderr)")
        #expect(ics.stdout.hasSuffix(", 2 the same\n"), "\(ics.stdout)")
        // The same through a pipe.
        let piped = try cli.run(
            ["diff", sample, "-", "--input-format", "ics"], stdin: try cli.read("tasks.ics"))
        #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")
        // A diary is NEW with --store; it keeps its own UIDs, so a backup of it compares.
        #expect(
            try cli.run([
                "diary", "import", Taskcal.sample("attachments-and-alarms.json"), "--store",
                "d.sqlite",
            ]).status == 0)
        #expect(
            try cli.run(["diary", "export", "-o", "backup.json", "--store", "d.sqlite"]).status == 0
        )
        let diary = try cli.run(["diff", "backup.json", "--store", "d.sqlite"])
        #expect(diary.status == 0, "\(diary.stdout)\(diary.stderr)")
        let listed = try cli.run(["diary", "list", "--store", "d.sqlite", "--format", "json"])
        let first = try #require(try Taskcal.recordList(listed.stdout).first?["id"] as? Int)
        #expect(try cli.run(["diary", "delete", "\(first)", "--store", "d.sqlite"]).status == 0)
        let deleted = try cli.run([
            "diff", "backup.json", "--store", "d.sqlite", "--format", "json",
        ])
        #expect(deleted.status == 1)
        let report =
            try JSONSerialization.jsonObject(with: Data(deleted.stdout.utf8)) as? [String: Any]
        #expect(Self.items(report ?? [:], "missing").count == 1, "\(deleted.stdout)")
        // A vdir: a folder of .ics files, one per UID.
        #expect(
            try cli.run([
                "diary", "import", Taskcal.sample("attachments-and-alarms.json"), "--store",
                "vdir:v",
            ])
            .status == 0)
        #expect(
            try cli.run(["diary", "export", "-o", "vdir.json", "--store", "vdir:v"]).status == 0)
        let vdir = try cli.run(["diff", "vdir.json", cli.path("v")])
        #expect(vdir.status == 0, "\(vdir.stdout)\(vdir.stderr)")
    }

    @Test(
        "--expand: a changed rule with the same occurrences is the same; an EXDATE is one missing occurrence"
    )
    func occurrences() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let original = Self.folded(
            Self.lines(
                try String(contentsOfFile: Taskcal.sample("google-recurring.ics"), encoding: .utf8)
            ), width: 75)
        try cli.write("old.ics", original)
        let window = ["--expand", "2026-10-01..2027-01-01"]
        // The weekly rule written as the same dates by another rule (a twice-weekly series of
        // Mondays and Wednesdays until its last date): a change of RRULE, not of occurrences.
        let rule = try #require(
            original.firstMatch(of: /RRULE:(FREQ=WEEKLY;BYDAY=MO,WE[^\r\n]*)/).map { String($0.1) })
        try cli.write(
            "rule.ics",
            original.replacingOccurrences(of: "RRULE:\(rule)", with: "RRULE:\(rule);WKST=MO"))
        let plain = try cli.run(["diff", "old.ics", "rule.ics"])
        #expect(plain.status == 0, "WKST=MO is the default: \(plain.stdout)")
        try cli.write(
            "interval.ics",
            original.replacingOccurrences(
                of: "RRULE:\(rule)",
                with:
                    "RRULE:BYDAY=WE,MO;FREQ=WEEKLY;INTERVAL=1\(rule.dropFirst("FREQ=WEEKLY;BYDAY=MO,WE".count))"
            ))
        let expanded = try cli.run(["diff", "old.ics", "interval.ics"] + window)
        #expect(expanded.status == 0, "\(expanded.stdout)\(expanded.stderr)")
        // An occurrence taken out: one missing item, its original start as recurrence_id.
        try cli.write(
            "exdate.ics",
            original.replacingOccurrences(
                of: "RRULE:\(rule)\r\n", with: "RRULE:\(rule)\r\nEXDATE:20261019T073000Z\r\n"))
        let taken = try cli.run(["diff", "old.ics", "exdate.ics", "--format", "json"] + window)
        #expect(taken.status == 1, "\(taken.stdout)\(taken.stderr)")
        let report =
            try JSONSerialization.jsonObject(with: Data(taken.stdout.utf8)) as? [String: Any]
        let missing = Self.items(report ?? [:], "missing")
        #expect(missing.count == 1, "\(taken.stdout)")
        #expect(missing.first?["recurrence_id"] as? String == "2026-10-19T07:30:00Z")
        #expect(
            Self.items(report ?? [:], "changed").isEmpty
                && Self.items(report ?? [:], "extra").isEmpty)
        // Without --expand the same change is one changed EXDATE.
        let series = try cli.run(["diff", "old.ics", "exdate.ics", "--format", "json"])
        let seriesReport =
            try JSONSerialization.jsonObject(with: Data(series.stdout.utf8)) as? [String: Any]
        let fields = Self.items(seriesReport ?? [:], "changed").first?["fields"] as? [[String: Any]]
        #expect(fields?.map { $0["name"] as? String } == ["EXDATE"], "\(series.stdout)")
        // A moved occurrence in the text report, with its start.
        let moved = try cli.run(
            ["diff", "old.ics", "exdate.ics", "--tz", "Europe/Berlin"] + window)
        #expect(
            moved.stdout.hasPrefix(
                "missing 5q2r8s1t4u7v0w3x6y9z@google.com (2026-10-19 09:30) \"Planning\""),
            "\(moved.stdout)")
    }

    @Test("convert --verify: the samples read back as written, to a file and through a pipe")
    func verify() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let root = Taskcal.packageRoot.appendingPathComponent("Samples")
        let samples =
            ((FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? [])
            .filter { ($0.hasSuffix(".json") || $0.hasSuffix(".ics")) && !$0.hasPrefix("broken/") }
            .sorted()
        #expect(samples.count > 10)
        for sample in samples {
            let path = root.appendingPathComponent(sample).path
            for (output, extra) in [
                ("out.ics", [String]()), ("out.json", []), ("out.jscal.json", []),
                ("any.ics", ["--for", "any"]), ("outlook.ics", ["--for", "outlook"]),
            ] {
                let run = try cli.run(["convert", path, "-o", output, "--verify"] + extra)
                #expect(run.status == 0, "\(sample) \(extra): \(run.stderr)")
                #expect(run.stderr.contains("verified: "), "\(sample): \(run.stderr)")
            }
        }
        // Through standard output: the bytes a file gets.
        let sample = root.appendingPathComponent("google-recurring.ics").path
        let piped = try cli.run(["convert", sample, "--to", "json", "--verify", "-q"])
        #expect(piped.status == 0, "\(piped.stderr)")
        _ = try cli.run(["convert", sample, "-o", "file.json", "-q"])
        #expect(piped.stdout == (try cli.read("file.json")))
        // Batch mode counts it in the report.
        try FileManager.default.createDirectory(
            atPath: cli.path("in"), withIntermediateDirectories: true)
        for name in ["google-recurring.ics", "outlook-export.ics"] {
            try FileManager.default.copyItem(
                atPath: root.appendingPathComponent(name).path, toPath: cli.path("in/\(name)"))
        }
        let batch = try cli.run(
            ["convert", "in", "--output-dir", "out", "--verify", "--report", "report.json"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(
            batch.stderr.contains("verified: 2 output(s) read back as written"), "\(batch.stderr)")
        let report = try cli.read("report.json")
        #expect(report.contains("\"differing\": 0"), "\(report)")
        #expect(report.contains("\"differences\": 0"), "\(report)")
    }
}
