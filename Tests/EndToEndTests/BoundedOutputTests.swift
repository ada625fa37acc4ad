import Foundation
import Testing

/// Bounded by design: whatever a file of under 100 KB says, every command finishes within
/// 10 s, under 1 GB of memory, and prints under 100 MB, or stops with a message that names
/// the limit it reached and how to raise it (docs/limits.md).
///
/// The inputs are the samples and the corpus, mutated the ways that multiply work: a rule
/// every minute or second, an event that lasts a day or a century, names as long as the file,
/// events copied until the file is full, dates at the ends of the calendar, bytes flipped.
/// Each goes through the commands that expand, report and convert. The cases are drawn from
/// a seed (`TASKCAL_BOUNDED_SEED`, else one a run, printed) so that a failure can be had
/// again; `TASKCAL_BOUNDED_CASES` sets how many inputs (CI: the default, the deep check more).
@Suite("Bounded by design: small inputs never ask for unbounded time, memory or output")
struct BoundedOutputTests {
    /// Seconds a command may take (the release binary; a debug or sanitized one gets more).
    static let seconds: Double =
        ProcessInfo.processInfo.environment["TASKCAL_BINARY"] != nil
        ? 10 : 60
    /// Peak memory a command may use, in KB (a sanitized binary keeps shadow memory too).
    static let memoryKB =
        ProcessInfo.processInfo.environment["TASKCAL_SANITIZER"] == nil ? 1 << 20 : 3 << 20
    /// What a command may print, on either stream.
    static let outputBytes = 100_000_000
    /// Inputs a run mutates and runs every command on.
    static let cases =
        Int(ProcessInfo.processInfo.environment["TASKCAL_BOUNDED_CASES"] ?? "")
        ?? 24

    /// The seeds: the samples and the corpus calendars under 100 KB.
    static let seeds: [String] = {
        let root = Taskcal.packageRoot.appendingPathComponent("Samples")
        let found = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
        let samples = (found ?? []).filter { $0.hasSuffix(".json") || $0.hasSuffix(".ics") }
            .sorted().map { root.appendingPathComponent($0).path }
        let small = (corpus ?? []).filter {
            ((try? FileManager.default.attributesOfItem(atPath: $0)[.size]) as? Int ?? .max)
                < 60_000
        }
        return samples + small
    }()

    @Test("mutated samples and corpus files stay within 10 s, 1 GB and 100 MB in every command")
    func mutatedInputs() throws {
        let seed =
            UInt64(ProcessInfo.processInfo.environment["TASKCAL_BOUNDED_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("bounded: seed \(seed) (TASKCAL_BOUNDED_SEED=\(seed) draws these cases again)")
        var random = SplitMix(seed: seed)
        var drawn: [(name: String, bytes: [UInt8], ics: Bool)] = []
        for number in 0..<Self.cases {
            let path = Self.seeds[Int(random.next() % UInt64(Self.seeds.count))]
            let ics = path.hasSuffix(".ics")
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let mutation = Mutation.allCases[number % Mutation.allCases.count]
            var bytes = mutation.apply(to: original, ics: ics, random: &random)
            if bytes.count > 100_000 { bytes = Array(bytes.prefix(100_000)) }
            let name = URL(fileURLWithPath: path).lastPathComponent
            drawn.append(("\(number)-\(mutation)-\(name)", bytes, ics))
        }
        let inputs = drawn
        let results = try concurrently(2) { worker -> (findings: [String], worst: Worst) in
            let cli = try Taskcal()
            defer { cli.cleanUp() }
            var findings: [String] = []
            var worst = Worst()
            for (index, input) in inputs.enumerated() where index % 2 == worker {
                let file = "in-\(index).\(input.ics ? "ics" : "json")"
                try cli.write(file, bytes: input.bytes)
                let day = Self.firstDay(in: input.bytes) ?? "2024-01-01"
                for command in Self.commands(file, day: day) {
                    let run = try Self.measure(cli, command)
                    let said = "\(input.name): taskcal \(command.joined(separator: " "))"
                    worst.note(run, said)
                    if run.signaled || !(0...2).contains(run.status) {
                        findings.append("\(said): ended with \(run.status)")
                    }
                    if run.seconds > Self.seconds {
                        findings.append("\(said): took \(run.seconds) s")
                    }
                    if run.peakKB > Self.memoryKB {
                        findings.append("\(said): used \(run.peakKB / 1024) MB")
                    }
                    if run.stdoutBytes >= Self.outputBytes || run.stderrBytes >= Self.outputBytes {
                        findings.append(
                            "\(said): printed \(run.stdoutBytes) + \(run.stderrBytes) bytes")
                    }
                    // A command the limit stopped says so, and prints nothing else.
                    if run.stderr.contains("the output would pass") {
                        if !run.stderr.contains("--max-output") || run.status != 2
                            || run.stdoutBytes != 0
                        {
                            findings.append("\(said): stopped at the limit without saying how")
                        }
                    }
                }
            }
            return (findings, worst)
        }
        let findings = results.flatMap(\.findings)
        var worst = Worst()
        for result in results { worst.merge(result.worst) }
        print("bounded: \(worst.runs) runs; \(worst.summary)")
        #expect(worst.runs == inputs.count * Self.commands("x", day: "2024-01-01").count)
        #expect(findings.isEmpty, "seed \(seed):\n\(findings.prefix(30).joined(separator: "\n"))")
    }

    /// A series of seven lines whose name fills the file: 100,000 occurrences of it are 6 GB.
    static let longNamedSeries =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bounded//EN\r\nBEGIN:VEVENT\r\nUID:long\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T000000Z\r\nDTEND:20240101T000100Z\r\nRRULE:FREQ=MINUTELY\r\nSUMMARY:\(String(repeating: "N", count: 60_000))\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    @Test("an expansion past the output limit stops, names the limit and writes nothing")
    func expansionLimit() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("long.ics", Self.longNamedSeries)
        let expand = ["--expand", "2024-01-01..2025-01-01", "--tz", "UTC"]
        let piped = try cli.run(["convert", "long.ics", "--to", "json"] + expand)
        #expect(piped.status == 2, "\(piped.stderr.prefix(500))")
        #expect(piped.stdout.isEmpty, "\(piped.stdout.utf8.count) bytes on stdout")
        #expect(
            piped.stderr.contains("the output would pass 64 MiB"), "\(piped.stderr.prefix(500))")
        #expect(piped.stderr.contains("--max-output"))
        #expect(piped.stderr.contains("--max-occurrences"))
        // The warning names the series by the start of its name, not by 60,000 characters.
        #expect(piped.stderr.utf8.count < 5_000, "\(piped.stderr.utf8.count) bytes of messages")
        let filed = try cli.run(["convert", "long.ics", "-o", "out.json"] + expand)
        #expect(filed.status == 2)
        #expect(!cli.exists("out.json"))
        // Raised, it writes what was asked for.
        let raised = try cli.run(
            [
                "convert", "long.ics", "-o", "out.json", "--max-output", "none",
                "--max-occurrences",
                "2000",
            ] + expand)
        #expect(raised.status == 0, "\(raised.stderr.prefix(500))")
        #expect(try Taskcal.recordList(try cli.read("out.json")).count == 2_000)
        // A conversion without --expand has no limit unless told.
        let lowered = try cli.run(["convert", "long.ics", "--to", "json", "--max-output", "10KB"])
        #expect(lowered.status == 2)
        #expect(lowered.stderr.contains("the output would pass 9.8 KiB"), "\(lowered.stderr)")
        let refused = try cli.run(["convert", "long.ics", "--to", "json", "--max-output", "lots"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--max-output 'lots' is not a size"), "\(refused.stderr)")
    }

    @Test(
        "a series whose occurrences each span all time, beside two such entries: its pairs with them listed within the bounds"
    )
    func seriesBesideEntries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // The deep check drew this (523 bytes): 100,000 occurrences all running at once, and
        // listing each one's pairs looked through all of them (6 s of CPU, release build).
        let all = "\"date_start\": \"-62135596800\", \"date_finish\": \"253402300799\""
        try cli.write(
            "all.json",
            """
            [{"id": 1, \(all), "name": "Gym", "time_zone": "Europe/Berlin", "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=MO,WE,FR"}},
            {"id": 2, \(all), "name": "Dentist", "time_zone": "Europe/Berlin"},
            {"id": 3, \(all), "name": "Call", "time_zone": "Europe/Berlin"}]
            """)
        let run = try Self.measure(
            cli, ["overlaps", "all.json", "--format", "json", "--tz", "UTC"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.seconds <= Self.seconds, "took \(run.seconds) s")
        #expect(run.stdoutBytes > 10_000_000 && run.stdoutBytes < Self.outputBytes)
    }

    @Test("two series that overlap each other by the million stop at the report's limit")
    func reportLimit() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // 50,000 occurrences each, four hours long, one a minute: 12 million pairs between them.
        func series(_ uid: String, _ start: String) -> String {
            "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:\(start)\r\nDTEND:20240101T040000Z\r\nRRULE:FREQ=MINUTELY;COUNT=50000\r\nSUMMARY:\(uid)\r\nEND:VEVENT\r\n"
        }
        try cli.write(
            "two.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bounded//EN\r\n"
                + series("a", "20240101T000000Z") + series("b", "20240101T000000Z")
                + "END:VCALENDAR\r\n")
        let json = try cli.run(["overlaps", "two.ics", "--format", "json", "--tz", "UTC"])
        #expect(json.status == 2, "\(json.stderr.prefix(500))")
        #expect(json.stdout.isEmpty)
        #expect(json.stderr.contains("--max-pairs"), "\(json.stderr.prefix(500))")
        // What it suggests works: the first pairs listed, all counted.
        let listed = try cli.run(
            ["overlaps", "two.ics", "--format", "json", "--tz", "UTC", "--max-pairs", "100"])
        #expect(listed.status == 1, "\(listed.stderr.prefix(500))")
        let object =
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        #expect(object?["listed"] as? Int == 100)
        #expect((object?["total"] as? Int ?? 0) > 10_000_000)
        // The text report lists 10,000 and counts the rest, well within the limit.
        let text = try cli.run(["overlaps", "two.ics", "--tz", "UTC"])
        #expect(text.status == 1)
        #expect(text.stdout.contains("more overlapping pairs"), "\(text.stdout.suffix(300))")
        let small = try cli.run(
            ["overlaps", "two.ics", "--tz", "UTC", "--max-output", "1KiB"])
        #expect(small.status == 2)
        #expect(small.stdout.isEmpty)
        #expect(small.stderr.contains("the output would pass 1 KiB"), "\(small.stderr)")
    }

    /// The commands each input goes through.
    static func commands(_ file: String, day: String) -> [[String]] {
        let month = String(day.prefix(7))
        return [
            ["convert", file, "--to", "json", "-q"],
            ["convert", file, "--to", "ics", "-q"],
            ["validate", file],
            ["convert", file, "--to", "json", "-q", "--expand", "1990-01-01..2040-01-01"],
            ["overlaps", file, "--format", "json", "--tz", "UTC"],
            ["overlaps", file, "--tz", "UTC"],
            ["agenda", day, file, "--format", "json", "--tz", "UTC"],
            [
                "free", file, "--from", day, "--to", "\(month)-28", "--format", "json", "--tz",
                "UTC",
            ],
            ["stats", file, "--format", "json", "--tz", "UTC", "--by", "day"],
            ["month", month, file, "--tz", "UTC"],
        ]
    }

    /// The first date a `DTSTART` or `date_start` of `bytes` gives, as YYYY-MM-DD, so that the
    /// day reports look where the entries are.
    static func firstDay(in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if let match = text.firstMatch(of: /DTSTART[^:\r\n]*:(\d{4})(\d{2})(\d{2})/),
            (1..<10).contains(Int(match.2) ?? 0), (1...28).contains(Int(match.3) ?? 0)
        {
            return "\(match.1)-\(match.2)-\(match.3)"
        }
        if let match = text.firstMatch(of: /"date_start": *"?(\d{1,11})/),
            let seconds = Double(match.1)
        {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            let day = formatter.string(from: Date(timeIntervalSince1970: seconds))
            return day.hasSuffix("-29") || day.hasSuffix("-30") || day.hasSuffix("-31")
                ? String(day.prefix(8)) + "28" : day
        }
        return nil
    }

    /// The slowest, largest and most talkative runs seen.
    struct Worst: Sendable {
        var runs = 0
        var seconds: (Double, String) = (0, "")
        var memoryKB: (Int, String) = (0, "")
        var output: (Int, String) = (0, "")
        var limited = 0

        mutating func note(_ run: Measured, _ said: String) {
            runs += 1
            if run.seconds > seconds.0 { seconds = (run.seconds, said) }
            if run.peakKB > memoryKB.0 { memoryKB = (run.peakKB, said) }
            let printed = run.stdoutBytes + run.stderrBytes
            if printed > output.0 { output = (printed, said) }
            if run.stderr.contains("the output would pass") { limited += 1 }
        }

        mutating func merge(_ other: Worst) {
            runs += other.runs
            limited += other.limited
            if other.seconds.0 > seconds.0 { seconds = other.seconds }
            if other.memoryKB.0 > memoryKB.0 { memoryKB = other.memoryKB }
            if other.output.0 > output.0 { output = other.output }
        }

        var summary: String {
            "slowest \(seconds.0) s (\(seconds.1)); most memory \(memoryKB.0 / 1024) MB (\(memoryKB.1)); most printed \(output.0) bytes (\(output.1)); \(limited) stopped at the output limit"
        }
    }

    struct Measured {
        var status: Int32
        var signaled: Bool
        var seconds: Double
        var peakKB: Int
        var stdoutBytes: Int
        var stderrBytes: Int
        var stderr: String
    }

    /// Runs `taskcal arguments…` under GNU time (peak memory, elapsed time), its output to
    /// files that are measured and not read whole.
    static func measure(_ cli: Taskcal, _ arguments: [String]) throws -> Measured {
        let times = cli.path("time-\(UUID().uuidString)")
        let out = cli.path("out-\(UUID().uuidString)")
        let err = cli.path("err-\(UUID().uuidString)")
        defer {
            for path in [times, out, err] { try? FileManager.default.removeItem(atPath: path) }
        }
        // `timeout` kills the command itself at the limit: killing GNU time (the process
        // started) left its child running on, for twenty minutes once under ASan.
        let limit = Int(max(60, seconds * 3))
        let script =
            "exec /usr/bin/time -f '%M %e' -o \"$0\" timeout -s KILL \(limit) \"$@\" > \"\(out)\" 2> \"\(err)\" < /dev/null"
        let run = try Taskcal.execute(
            "/bin/sh", ["-c", script, times, Taskcal.binary.path] + arguments, in: cli.directory,
            timeLimit: Double(limit + 30))
        let fields =
            ((try? String(contentsOfFile: times, encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isNewline).last?.split(separator: " ") ?? []
        func size(_ path: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int ?? 0
        }
        let errorText =
            (try? FileHandle(forReadingFrom: URL(fileURLWithPath: err)))
            .map { handle in
                defer { try? handle.close() }
                return String(decoding: handle.readData(ofLength: 4_096), as: UTF8.self)
            } ?? ""
        return Measured(
            // GNU time exits with the command's status; a killed command is 128 + its signal.
            status: run.status, signaled: run.signaled || run.hung || run.status > 128,
            seconds: run.hung ? .infinity : Double(fields.count > 1 ? fields[1] : "") ?? 0,
            peakKB: Int(fields.first ?? "") ?? 0, stdoutBytes: size(out), stderrBytes: size(err),
            stderr: errorText)
    }
}

/// The ways an input is made to ask for more than it holds.
enum Mutation: CaseIterable, CustomStringConvertible {
    case everyMinute, everySecond, dayLong, centuryLong, longName, copies, extremeDates, bytes

    var description: String {
        switch self {
        case .everyMinute: "minutely"
        case .everySecond: "secondly"
        case .dayLong: "25h"
        case .centuryLong: "century"
        case .longName: "longname"
        case .copies: "copies"
        case .extremeDates: "extremes"
        case .bytes: "bytes"
        }
    }

    func apply(to bytes: [UInt8], ics: Bool, random: inout SplitMix) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .bytes:
            var mutated = bytes
            for _ in 0..<(1 + Int(random.next() % 16)) where !mutated.isEmpty {
                let at = Int(random.next() % UInt64(mutated.count))
                switch random.next() % 3 {
                case 0: mutated[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: mutated.remove(at: at)
                default:
                    let from = Int(random.next() % UInt64(mutated.count))
                    let length = min(200, mutated.count - from)
                    mutated.insert(contentsOf: mutated[from..<(from + length)], at: at)
                }
            }
            return mutated
        case .everyMinute, .everySecond:
            let rule = self == .everyMinute ? "FREQ=MINUTELY" : "FREQ=SECONDLY;INTERVAL=30"
            if ics {
                let ruled = text.replacing(/RRULE:[^\r\n]*/, with: "RRULE:\(rule)")
                return Array(
                    (ruled == text
                        ? ruled.replacing(/END:VEVENT/, with: "RRULE:\(rule)\r\nEND:VEVENT")
                        : ruled).utf8)
            }
            return Array(
                text.replacing(
                    #/"name": /#, with: #""recurrence": {"rule": "\#(rule)"}, "name": "#
                ).utf8)
        case .dayLong, .centuryLong:
            let days = self == .dayLong ? 1 : 36_500
            if ics {
                // Each DTSTART's end moved: the DTEND (or DURATION) becomes a long DURATION.
                let stretched = text.replacing(/\r?\nDTEND[^\r\n]*/, with: "")
                    .replacing(/\r?\nDURATION[^\r\n]*/, with: "")
                    .replacing(/(\r?\n)(DTSTART:[0-9T]+Z?)/) { match in
                        "\(match.1)\(match.2)\(match.1)DURATION:P\(days)DT1H"
                    }
                return Array(stretched.replacing(/FREQ=[A-Z]+/, with: "FREQ=HOURLY").utf8)
            }
            return Array(
                text.replacing(/"date_finish": *"?(\d+)"?/) { match in
                    #""date_finish": "\#((Int(match.1) ?? 0) + days * 86_400 + 3_600)""#
                }.utf8)
        case .longName:
            let padding = String(repeating: "Ж", count: 20_000)
            if ics {
                return Array(
                    text.replacing(/SUMMARY:/, with: "SUMMARY:\(padding)", maxReplacements: 1)
                        .utf8)
            }
            return Array(
                text.replacing(#/"name": "/#, with: "\"name\": \"\(padding)", maxReplacements: 1)
                    .utf8)
        case .copies:
            if ics, let begin = text.firstRange(of: "BEGIN:VEVENT"),
                let end = text[begin.upperBound...].firstRange(of: "END:VEVENT")
            {
                let event = String(text[begin.lowerBound..<end.upperBound])
                var copies = ""
                var number = 0
                while copies.utf8.count + text.utf8.count + event.utf8.count < 95_000 {
                    number += 1
                    copies +=
                        event.replacing(/UID:([^\r\n]*)/) { "UID:\($0.1)-copy\(number)" }
                        + "\r\n"
                }
                return Array(
                    text.replacingCharacters(in: begin.lowerBound..<begin.lowerBound, with: copies)
                        .utf8)
            }
            return Array(text.utf8) + Array(text.utf8)
        case .extremeDates:
            if ics {
                return Array(
                    text.replacing(/DTSTART([^:\r\n]*):\d{4}/) { "DTSTART\($0.1):0001" }
                        .replacing(/DTEND([^:\r\n]*):\d{4}/) { "DTEND\($0.1):9999" }.utf8)
            }
            return Array(
                text.replacing(/"date_start": *"?\d+"?/, with: #""date_start": "-62135596800""#)
                    .replacing(/"date_finish": *"?\d+"?/, with: #""date_finish": "253402300799""#)
                    .utf8)
        }
    }
}

/// A small deterministic random number generator (SplitMix64), so a seed draws the same cases.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
