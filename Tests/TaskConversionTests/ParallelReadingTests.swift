import Foundation
import TaskConversion
import TaskModel
import Testing

/// Every record and diagnostic of `path`, read with `options`, as text for comparison.
private func transcript(_ path: String, _ options: ReadOptions) -> [String] {
    var lines: [String] = []
    let report = Converter.read(inputs: [path], options: options) { record, location in
        lines.append("\(location): \(record.jsonLine)")
    }
    // Records and errors in file order; warnings as a set (one thread and several may say
    // them in another order).
    return lines + report.errors.map { "error \($0)" }
        + report.warnings.map { "warning \($0)" }.sorted()
}

private func parallel(_ workers: Int, batch: Int) -> ReadOptions {
    var options = ReadOptions(floatingZone: "Europe/Berlin")
    options.parallelism = workers
    options.parallelMinimumBytes = 0
    options.parallelBatchSize = batch
    return options
}

@Suite("Parsing one .ics on several cores gives what one core gives")
struct ParallelReadingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("samples", arguments: ["google-export.ics", "outlook-export.ics"])
    func samples(name: String) {
        let path = Self.root.appendingPathComponent("Samples/\(name)").path
        let sequential = transcript(path, ReadOptions(floatingZone: "Europe/Berlin"))
        for batch in [1, 2, 1000] {
            #expect(transcript(path, parallel(3, batch: batch)) == sequential, "batch \(batch)")
        }
    }

    @Test("foreign UIDs, a zone defined midway, a floating time, a broken event, two calendars")
    func mixed() throws {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:Asia/Tokyo\r\n"
        for index in 1...40 {
            if index == 17 {
                text +=
                    "BEGIN:VTIMEZONE\r\nTZID:Office\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0500\r\nTZOFFSETTO:+0500\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
            }
            let uid =
                index % 3 == 0
                ? "foreign-\(index)@example.org" : "taskcal-\(index * 10)@taskcal.invalid"
            let start =
                index % 5 == 0
                ? "DTSTART:20260101T0\(index % 10)0000"
                : index > 17 && index % 4 == 0
                    ? "DTSTART;TZID=Office:20260101T100000" : "DTSTART:20260101T100000Z"
            let broken = index == 23 ? "DTEND:tomorrow\r\n" : ""
            text +=
                "BEGIN:VEVENT\r\nUID:\(uid)\r\n\(start)\r\n\(broken)SUMMARY:event \(index)\r\nEND:VEVENT\r\n"
            if index == 30 { text += "END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\n" }
        }
        text += "END:VCALENDAR\r\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parallel-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = transcript(url.path, ReadOptions(floatingZone: "Europe/Berlin"))
        #expect(sequential.contains { $0.hasPrefix("warning") && $0.contains("DTEND") })
        for batch in [1, 3, 7, 100] {
            #expect(transcript(url.path, parallel(4, batch: batch)) == sequential, "batch \(batch)")
        }
    }

    @Test("structural damage is reported as the one-thread reader reports it")
    func damage() throws {
        for text in [
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260101T100000Z\r\nSUMMARY:s\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b\r\n",
            "garbage\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
            "",
        ] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "damage-\(UUID().uuidString).ics")
            try Data(text.utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(
                transcript(url.path, parallel(2, batch: 1))
                    == transcript(url.path, ReadOptions(floatingZone: "Europe/Berlin")))
        }
    }

    @Test("damage the splitter meets, under --strict, ends the file after the records before it")
    func strictDamageAfterRecords() throws {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for index in 1...9 {
            text +=
                "BEGIN:VEVENT\r\nUID:s\(index)\r\nDTSTART:20260101T100000Z\r\nSUMMARY:s\(index)\r\nEND:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\nX-AFTER:1\r\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strict-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var strict = ReadOptions(floatingZone: "Europe/Berlin")
        strict.strict = true
        let sequential = transcript(url.path, strict)
        #expect(sequential.filter { $0.contains("\"name\"") }.count == 9)
        #expect(sequential.contains { $0.hasPrefix("error") })
        for batch in [1, 2, 4, 100] {
            var options = parallel(2, batch: batch)
            options.strict = true
            #expect(transcript(url.path, options) == sequential, "batch \(batch)")
        }
    }

    @Test("blank lines, stray ENDs and LF line ends between events: the same lines named")
    func betweenEvents() throws {
        func event(_ index: Int) -> String {
            let end = index == 9 ? "DTEND:tomorrow" : "DTEND:20260101T110000Z"
            return
                "BEGIN:VEVENT\nUID:e\(index)\nDTSTART:20260101T100000Z\n\(end)\nSUMMARY:s\(index)\nEND:VEVENT\n"
        }
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for index in 1...12 {
            text += event(index)
            switch index % 4 {
            case 0: text += "\n\n"
            case 1: text += "   \n"
            case 2: text += "END:VEVENT\r\n"
            default: text += "\t\r\n"
            }
        }
        text += "END:VCALENDAR\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "between-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = transcript(url.path, ReadOptions(floatingZone: "Europe/Berlin"))
        #expect(sequential.contains { $0.contains("DTEND") && $0.contains(":") })
        for batch in [1, 2, 5, 100] {
            #expect(transcript(url.path, parallel(2, batch: batch)) == sequential, "batch \(batch)")
        }
    }

    @Test("inside events: blank and CR-only lines, folds, E and B properties, across read blocks")
    func linesInsideEvents() throws {
        // The splitter skips an event's property lines in one go, up to the end of what it
        // has read: a file of several 256 KB blocks puts lines across their seams.
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for index in 1...3000 {
            text += "BEGIN:VEVENT\r\nUID:i\(index)\r\nDTSTART:20260101T100000Z\r\n"
            text += "DTEND:20260101T110000Z\r\nSUMMARY:event \(index)\r\n"
            text += "DESCRIPTION:\(String(repeating: "Описание ", count: 12))\r\n"
            text += " continued \(index)\r\n\tand a tab\r\n"
            switch index % 5 {
            case 0: text += "\r\n"
            case 1: text += "\r\r\n"
            case 2: text += "EXDATE:20260108T100000Z\r\nBEGINNING:X\r\n"
            case 3: text += "ENDING:Y\nX-B:1\n"
            default: text += "  \r\n"
            }
            text += "END:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        #expect(text.utf8.count > 3 << 18)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "inside-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = transcript(url.path, ReadOptions(floatingZone: "Europe/Berlin"))
        #expect(sequential.filter { $0.contains(#""name": "event "#) }.count == 3000)
        for batch in [7, 1000] {
            #expect(transcript(url.path, parallel(2, batch: batch)) == sequential, "batch \(batch)")
        }
    }

    @Test("BEGIN and END in any case, with blanks around the name, or with non-ASCII after it")
    func keywordSpellings() throws {
        let events = [
            "begin:vevent\r\nUID:a\r\nDTSTART:20260101T100000Z\r\nSUMMARY:lower\r\nend:vevent\r\n",
            "Begin: VEvent \t\r\nUID:b\r\nDTSTART:20260102T100000Z\r\nSUMMARY:blanks\r\nEnd:\tVEVENT \r\n",
            "BEGIN:VEVENT\u{A0}\r\nUID:c\r\nDTSTART:20260103T100000Z\r\nSUMMARY:nbsp\r\nEND:VEVENT\u{A0}\r\n",
            "BEGIN:VEVENT\r\nUID:d\r\nDTSTART:20260104T100000Z\r\nSUMMARY:é\r\nBEGIN:X-ÉTÉ\r\nX-A:1\r\nEND:X-ÉTÉ\r\nEND:VEVENT\r\n",
        ]
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + events.joined() + "end:vcalendar\r\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keywords-\(UUID().uuidString).ics")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = transcript(url.path, ReadOptions(floatingZone: "Europe/Berlin"))
        // Lower case is read as events; a name with blanks or NBSP around it is no VEVENT
        // to libical, and is kept with the calendar on one thread as on several.
        #expect(sequential.contains { $0.contains(#""name": "lower""#) })
        #expect(sequential.contains { $0.contains(#""name": "é""#) })
        for batch in [1, 2, 1000] {
            #expect(transcript(url.path, parallel(2, batch: batch)) == sequential, "batch \(batch)")
        }
    }

    @Test("NDJSON decoded on several threads: the same records, errors and order as on one")
    func ndjson() throws {
        var lines = [#"{"calendar": {"name": "Team"}}"#]
        for number in 2...5_000 {
            switch number {
            case 7, 2_049: lines.append("")  // blank lines count as lines
            case 4_100: lines.append(#"{"id": 5, "date_start": "#)  // not JSON
            case 4_101:
                lines.append(#"{"id": 9, "date_start": "x", "date_finish": "1", "name": "n"}"#)
            case 4_500: lines.append(#"{"calendar": {"name": "late"}}"#)
            case 4_900:
                lines.append(#"{"id": 10, "date_start": "1", "date_finish": "2", "name": "again"}"#)
            default:
                lines.append(
                    #"{"id": \#(number), "date_start": "\#(number * 3600)", "date_finish": "\#(number * 3600 + 1800)", "name": "entry \#(number) ✓"}"#
                )
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parallel-\(UUID().uuidString).ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = transcript(url.path, ReadOptions())
        #expect(sequential.filter { $0.hasPrefix("error") }.count == 4, "\(sequential.suffix(5))")
        #expect(sequential.count > 4_000)
        for workers in [2, 3] {
            var options = ReadOptions()
            options.parallelism = workers
            #expect(transcript(url.path, options) == sequential, "\(workers) workers")
        }
    }
}
