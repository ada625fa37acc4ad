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
}
