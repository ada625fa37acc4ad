import Foundation
import Testing

/// Migration scripts chain taskcal through pipes; what reaches standard output must be what
/// the same command writes to a file, byte for byte: the calendar data a JSON or NDJSON sink
/// learns only at the end (a revision kept as written, a zone a later event defines) included.
@Suite("Standard output carries what a file carries")
struct PipeOutputTests {
    /// Every output format, with the extension `-o` is given.
    static let formats = ["json", "ndjson", "jcal", "jscalendar", "ics"]

    /// The samples taskcal reads (the broken ones are refused the same way on both sides).
    static let samples: [String] = {
        let root = Taskcal.packageRoot.appendingPathComponent("Samples")
        let found = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
        return (found ?? []).filter { $0.hasSuffix(".json") || $0.hasSuffix(".ics") }.sorted()
            .map { root.appendingPathComponent($0).path }
    }()

    /// Converts each of `inputs` to every format twice, `-o FILE` and to standard output, on
    /// two threads, and returns the differences, one line each, and how many pairs agreed.
    static func compare(_ inputs: [String]) throws -> (differences: [String], same: Int) {
        let results = try concurrently(2) { worker -> ([String], Int) in
            let cli = try Taskcal()
            defer { cli.cleanUp() }
            var differences: [String] = []
            var same = 0
            for (index, input) in inputs.enumerated() where index % 2 == worker {
                for format in formats {
                    let file = "out.\(format == "jscalendar" ? "jscal.json" : format)"
                    try? FileManager.default.removeItem(atPath: cli.path(file))
                    let written = try cli.run(
                        ["convert", input, "-o", file, "--to", format, "-q", "--tz", "UTC"])
                    let piped = try cli.run(["convert", input, "--to", format, "-q", "--tz", "UTC"])
                    let name = input.replacingOccurrences(
                        of: Taskcal.packageRoot.path + "/", with: "")
                    guard written.status == piped.status else {
                        differences.append(
                            "\(name) --to \(format): exit \(written.status) to a file, \(piped.status) to stdout"
                        )
                        continue
                    }
                    guard written.status == 0 else {
                        #expect(
                            !cli.exists(file), "\(name) --to \(format): refused, yet a file is left"
                        )
                        #expect(
                            piped.stdout.isEmpty,
                            "\(name) --to \(format): refused, yet stdout has \(piped.stdout.utf8.count) bytes"
                        )
                        continue
                    }
                    let fileBytes = try Data(contentsOf: URL(fileURLWithPath: cli.path(file)))
                    if Data(piped.stdout.utf8) == fileBytes {
                        same += 1
                    } else {
                        differences.append(
                            "\(name) --to \(format): stdout \(piped.stdout.utf8.count) bytes, file \(fileBytes.count)"
                        )
                    }
                }
            }
            return (differences, same)
        }
        return (results.flatMap(\.0), results.map(\.1).reduce(0, +))
    }

    @Test("the samples in every format: standard output is the file")
    func samplesThroughPipe() throws {
        let (differences, same) = try Self.compare(Self.samples)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(same >= Self.samples.count * Self.formats.count - 2 * Self.formats.count)
    }

    @Test(
        "the corpus in every format: standard output is the file",
        .enabled(if: corpus != nil, "\(corpusMissing)"))
    func corpusThroughPipe() throws {
        let (differences, same) = try Self.compare(corpus ?? [])
        print("stdout against file: \(same) outputs the same, \(differences.count) differ")
        #expect(differences.isEmpty, "\(differences.prefix(20).joined(separator: "\n"))")
        #expect(same > 1000)
    }

    @Test("a superseded revision kept with the calendar reaches stdout as it reaches a file")
    func keptRevisionOnStdout() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // Two revisions of one UID (khal's event_dt_multi_uid.ics has the same shape): the
        // older is kept with the calendar as written, under calendar.ical_components.
        try cli.write(
            "two.ics",
            """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:meeting\r
            DTSTAMP:20240101T000000Z\r
            SEQUENCE:2\r
            DTSTART:20240105T090000Z\r
            DTEND:20240105T100000Z\r
            SUMMARY:Planning (moved)\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:meeting\r
            DTSTAMP:20231201T000000Z\r
            SEQUENCE:1\r
            DTSTART:20240104T090000Z\r
            DTEND:20240104T100000Z\r
            SUMMARY:Planning\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        for format in ["json", "ndjson"] {
            let piped = try cli.run(["convert", "two.ics", "--to", format])
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout.contains("ical_components"), "\(format): \(piped.stdout)")
            #expect(piped.stdout.contains("SUMMARY:Planning"), "\(format): \(piped.stdout)")
            let written = try cli.run(["convert", "two.ics", "-o", "out.\(format)"])
            #expect(written.status == 0)
            #expect(try cli.read("out.\(format)") == piped.stdout)
            // And what came through the pipe reads back to the same .ics as the file does.
            let back = try cli.run(
                ["convert", "-", "--from", format, "--to", "ics"], stdin: piped.stdout)
            let backFromFile = try cli.run(["convert", "out.\(format)", "--to", "ics"])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.stdout == backFromFile.stdout)
        }
    }

    @Test("a failed conversion writes nothing to standard output")
    func failureWritesNothing() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run(["convert", Taskcal.sample("broken/bad.json"), "--to", "ics"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("bad.json"))
    }

    @Test(
        "the diary's export on stdout is its export to a file",
        arguments: ["json", "ndjson", "ics", "jcal"])
    func diaryExport(format: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.path("diary.sqlite")
        let imported = try cli.run(
            ["diary", "import", Taskcal.sample("google-recurring.ics"), "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        let file = try cli.run(
            ["diary", "export", "--store", store, "-o", "out.\(format)", "--to", format])
        let piped = try cli.run(["diary", "export", "--store", store, "-o", "-", "--to", format])
        #expect(file.status == 0, "\(file.stderr)")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try cli.read("out.\(format)") == piped.stdout)
        #expect(!piped.stdout.isEmpty)
    }
}
