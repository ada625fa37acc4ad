import Foundation
import Locking
import Testing

@Suite("taskcal convert and validate, run as a user would")
struct ConvertCommandTests {
    @Test(
        "every JSON sample converts to .ics and back unchanged",
        arguments: ["spec-example.json", "attachments-and-alarms.json"])
    func jsonSamples(name: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // The .ics keeps the JSON file's name: its UIDs then read back to plain ids.
        let base = (name as NSString).deletingPathExtension
        let toICS = try cli.run(["convert", Taskcal.sample(name), "-o", base + ".ics"])
        #expect(toICS.status == 0, "\(toICS.stderr)")
        let back = try cli.run(["convert", base + ".ics", "-o", name])
        #expect(back.status == 0, "\(back.stderr)")
        let original = try Taskcal.records(
            String(contentsOfFile: Taskcal.sample(name), encoding: .utf8))
        #expect(try Taskcal.records(cli.read(name)) == original)
    }

    @Test(
        "every .ics sample converts to JSON, and that JSON survives another round",
        arguments: ["google-export.ics", "outlook-export.ics"])
    func icsSamples(name: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(try cli.run(["convert", Taskcal.sample(name), "-o", "first.json"]).status == 0)
        #expect(try cli.run(["convert", "first.json", "-o", "again.ics"]).status == 0)
        #expect(try cli.run(["convert", "again.ics", "-o", "second.json"]).status == 0)
        #expect(try cli.read("first.json") == cli.read("second.json"))
    }

    @Test("the Outlook sample's Windows zone names resolve through its own VTIMEZONEs")
    func outlookZones() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run(["convert", Taskcal.sample("outlook-export.ics"), "--to", "json"])
        let records = try Taskcal.records(result.stdout)
        let first = records[0] as! [String: Any]
        let second = records[1] as! [String: Any]
        // 2026-12-03 16:00 W. Europe = 15:00Z; 08:30 Pacific + PT45M = 17:15Z.
        #expect(first["date_start"] as? String == "1796310000")
        #expect(second["date_finish"] as? String == "1796404500")
    }

    @Test("output is byte-identical for identical input, and DTSTAMP is SOURCE_DATE_EPOCH")
    func deterministic() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.run(["convert", Taskcal.sample("attachments-and-alarms.json"), "-o", "a.ics"])
        try cli.run(["convert", Taskcal.sample("attachments-and-alarms.json"), "-o", "b.ics"])
        #expect(try cli.read("a.ics") == cli.read("b.ics"))
        #expect(try cli.read("a.ics").contains("DTSTAMP:20231114T221320Z\r\n"))
    }

    @Test("a rule comes back as written, in its order and case, through .ics and back")
    func ruleAsWritten() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let rule = "BYDAY=MO,WE;FREQ=weekly;INTERVAL=2;UNTIL=20271231T000000Z"
        try cli.write(
            "r.json",
            #"[{"id": 1, "date_start": "1795766400", "date_finish": "1795770000", "name": "r", "recurrence": {"rule": "\#(rule)"}}]"#
        )
        #expect(try cli.run(["convert", "r.json", "-o", "r.ics"]).status == 0)
        #expect(try cli.read("r.ics").contains("RRULE:" + rule + "\r\n"))
        #expect(try cli.run(["convert", "r.ics", "-o", "back.json"]).status == 0)
        #expect(try cli.read("back.json").contains(#""rule": "\#(rule)""#))
    }

    @Test("standard input and output work with --from and --to")
    func pipes() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let json = try String(contentsOfFile: Taskcal.sample("spec-example.json"), encoding: .utf8)
        let ics = try cli.run(["convert", "-", "--from", "json", "--to", "ics"], stdin: json)
        #expect(ics.status == 0)
        #expect(ics.stdout.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))
        let ndjson = try cli.run(
            ["convert", "-", "--from", "ics", "--to", "ndjson"], stdin: ics.stdout)
        #expect(
            ndjson.stdout
                == #"{"id": 1, "date_start": "147600000", "date_finish": "147610000", "name": "My task", "description": "Описание моего дела"}"#
                + "\n")
    }

    @Test(
        "a pipe named by a path (a FIFO, <(curl …)) reads as the file does",
        arguments: [
            ("google-export.ics", "ics", "ndjson"), ("google-recurring.ics", "ics", "jcal"),
            ("spec-example.json", "json", "ics"), ("first.ndjson", "ndjson", "ics"),
            ("first.jcal", "jcal", "ndjson"),
        ])
    func namedPipe(name: String, format: String, to output: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // NDJSON and jCal inputs made from a sample first.
        let source: String
        if name.hasPrefix("first.") {
            #expect(
                try cli.run(["convert", Taskcal.sample("google-export.ics"), "-o", name]).status
                    == 0)
            source = cli.path(name)
        } else {
            source = Taskcal.sample(name)
        }
        let fromFile = try cli.run(
            ["convert", source, "--to", output, "--uid-namespace", "n", "-o", "-"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")

        // An .ics is read more than once (revisions, zones): from a pipe, the second reading
        // found nothing ("not an iCalendar file"), and JSON could not be read at all.
        let fifo = cli.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(bytes)
            try? handle.close()
        }
        writer.start()
        let fromPipe = try cli.run(
            [
                "convert", fifo, "--input-format", format, "--to", output, "--uid-namespace", "n",
                "-o", "-",
            ])
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(!fromPipe.stdout.isEmpty)
        #expect(fromPipe.stdout == fromFile.stdout)
    }

    @Test("an output path that is a link, a pipe or a descriptor is written through, not replaced")
    func outputThroughPaths() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let sample = Taskcal.sample("spec-example.json")
        let expected = try cli.run(["convert", sample, "--to", "ics", "-o", "-", "-q"]).stdout
        #expect(expected.hasPrefix("BEGIN:VCALENDAR"))

        // A link to a file (made or not yet): the file is written, the link stays.
        try FileManager.default.createDirectory(
            atPath: cli.path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: cli.path("link.ics"), withDestinationPath: "real/real.ics")
        for _ in 0..<2 {
            #expect(try cli.run(["convert", sample, "-o", "link.ics", "-q"]).status == 0)
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: cli.path("link.ics"))
                    == "real/real.ics")
            #expect(try cli.read("real/real.ics") == expected)
        }

        // A FIFO: written to as it is (a temporary file renamed over it replaced it).
        let fifo = cli.path("out.pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Locked(Data())
        let reader = Thread {
            let data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            received.withLock { $0 = data }
        }
        reader.start()
        #expect(try cli.run(["convert", sample, "-o", fifo, "--to", "ics", "-q"]).status == 0)
        for _ in 0..<100 where received.withLock({ $0.isEmpty }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(String(decoding: received.withLock { $0 }, as: UTF8.self) == expected)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)

        // A descriptor's path (as /dev/stdout is): the process's standard output.
        let descriptor = try cli.run(["convert", sample, "-o", "/dev/fd/1", "--to", "ics", "-q"])
        #expect(descriptor.status == 0, "\(descriptor.stderr)")
        #expect(descriptor.stdout == expected)

        // A device (a null device of our own, where making one is allowed, as root): it
        // stays a device. (/dev/null renamed over became a regular file root owned, and
        // every other user's `> /dev/null` failed.)
        let device = cli.path("null")
        // Major 1, minor 3 (glibc's makedev is a macro Swift does not see).
        if mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 {
            #expect(
                try cli.run(["convert", sample, "-o", device, "--to", "ics", "-q"]).status == 0)
            #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        }
    }

    @Test("NDJSON streams both ways and keeps order")
    func ndjson() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let lines = (1...500).map {
            #"{"id": \#($0), "date_start": "\#($0 * 3600)", "date_finish": "\#($0 * 3600 + 1800)", "name": "task \#($0)"}"#
        }
        try cli.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try cli.run(["convert", "in.ndjson", "-o", "in.ics"]).status == 0)
        #expect(try cli.run(["convert", "in.ics", "-o", "in.jsonl"]).status == 0)
        #expect(try cli.read("in.jsonl") == cli.read("in.ndjson"))
    }

    @Test("--tz writes TZID and a VTIMEZONE with the plain IANA name")
    func zoneOutput() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let result = try cli.run([
            "convert", Taskcal.sample("spec-example.json"), "--tz", "Europe/Moscow",
        ])
        #expect(result.stdout.contains("TZID:Europe/Moscow\r\n"))
        #expect(result.stdout.contains("DTSTART;TZID=Europe/Moscow:19740905T110000\r\n"))
        #expect(!result.stdout.contains("freeassociation"))
    }

    @Test("floating times are read in --tz, else the local zone with a warning")
    func floatingTimes() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "f.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20240101T100000\r\nDTEND:20240101T110000\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
        let local = try cli.run(
            ["convert", "f.ics", "--to", "ndjson"], environment: ["TZ": "Asia/Tokyo"])
        #expect(local.stdout.contains(#""date_start": "1704070800""#))
        #expect(local.stderr.contains("floating time"))
        let chosen = try cli.run(["convert", "f.ics", "--to", "ndjson", "--tz", "Europe/London"])
        #expect(chosen.stdout.contains(#""date_start": "1704103200""#))
        #expect(!chosen.stderr.contains("floating"))
    }

    @Test("--extract-attachments writes files that cannot escape the folder")
    func extraction() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "a.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:taskcal-5@taskcal.invalid\r\nDTSTART:20240101T100000Z\r\nSUMMARY:x\r\n"
                + "ATTACH;ENCODING=BASE64;VALUE=BINARY;FILENAME=../../escape.txt:aGVsbG8=\r\n"
                + "ATTACH;ENCODING=BASE64;VALUE=BINARY;X-APPLE-FILENAME=.hidden:d29ybGQ=\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
        let result = try cli.run([
            "convert", "a.ics", "-o", "out/a.json", "--extract-attachments", "out/files",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.read("out/files/5-0-escape.txt") == "hello")
        #expect(try cli.read("out/files/5-1-hidden") == "world")
        #expect(!cli.exists("escape.txt"))
        #expect(try cli.read("out/a.json").contains(#""path": "files/5-0-escape.txt""#))
        // And back: the path is read relative to the JSON file and inlined again.
        #expect(try cli.run(["convert", "out/a.json", "-o", "b.ics"]).status == 0)
        #expect(try cli.read("b.ics").contains(":aGVsbG8=\r\n"))
    }

    @Test("validate: exit 0 when valid, 1 with every problem, 2 when unreadable")
    func validate() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let valid = try cli.run([
            "validate", Taskcal.sample("spec-example.json"), Taskcal.sample("google-export.ics"),
        ])
        #expect(valid.status == 0)
        #expect(valid.stdout.contains("valid: 4 records in 2 files"))
        try cli.write(
            "bad.json",
            #"[{"id": 1, "date_start": "5", "date_finish": "1", "name": ""}, {"id": 2, "date_start": "1", "date_finish": "2", "name": "ok", "extra": 1}]"#
        )
        let invalid = try cli.run(["validate", "bad.json"])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("taskcal: bad.json: [0].name: is empty"))
        #expect(
            invalid.stderr.contains("taskcal: bad.json: [0].date_finish: 1 is before date_start 5"))
        #expect(invalid.stderr.contains("taskcal: bad.json: [1].extra: unknown field"))
        let missing = try cli.run(["validate", "nope.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.json: cannot read"))
    }

    @Test("--help teaches: examples and exit codes")
    func help() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let help = try cli.run(["convert", "--help"])
        #expect(help.stdout.contains("taskcal convert tasks.json -o tasks.ics"))
        #expect(help.stdout.contains("SOURCE_DATE_EPOCH"))
        #expect(try cli.run(["--help"]).stdout.contains("Exit codes"))
    }

    /// iCalendar gives a journal entry (`VJOURNAL`) a date and no end: a JSON journal entry
    /// that ends after its start loses its end in .ics, and says so, once a file, with the
    /// first place; `--verify` counts the difference as said.
    @Test(
        "a journal entry's end, which .ics cannot carry, is named as left out",
        arguments: ["ics", "jcal"])
    func journalEndLeftOut(format: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let entries = (1...3).map { number in
            #"{"id": \#(number), "date_start": "1767225600", "date_finish": "\#(1_767_225_600 + number * 600)", "name": "journal \#(number)", "kind": "journal"}"#
        }
        let event =
            #"{"id": 9, "date_start": "1767225600", "date_finish": "1767229200", "name": "meeting"}"#
        let sameDay =
            #"{"id": 8, "date_start": "1767225600", "date_finish": "1767225600", "name": "note", "kind": "journal"}"#
        try cli.write(
            "diary.json", "[" + ([event, sameDay] + entries).joined(separator: ",\n") + "]")
        let converted = try cli.run(["convert", "diary.json", "-o", "diary.\(format)", "--verify"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let warnings = converted.stderr.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.count == 1, "\(converted.stderr)")
        #expect(
            warnings.first?.contains(
                "diary.json: [2].date_finish: date_finish is not written: iCalendar gives a journal entry a date and no end (RFC 5545), so read back it ends at its start (and 2 more like it)"
            ) == true, "\(converted.stderr)")
        #expect(
            converted.stderr.contains("3 differ as the warnings above say"), "\(converted.stderr)")
        // An output that keeps the end says nothing.
        let kept = try cli.run(["convert", "diary.json", "-o", "diary.ndjson"])
        #expect(kept.status == 0 && !kept.stderr.contains("warning"), "\(kept.stderr)")
    }
}
