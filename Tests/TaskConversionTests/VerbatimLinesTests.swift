import Foundation
import ICalendar
import TaskModel
import Testing

@testable import TaskConversion

/// A record's verbatim lines (`ical_extra`) are written after the lines made from its fields;
/// one that would repeat a property RFC 5545 allows once is refused, naming the line. The
/// writer keeps the names it wrote only for records with such lines (issue 59): these pin
/// that the check still sees every name, the RRULE written verbatim included.
@Suite("Verbatim lines that repeat a property written once are refused, others are kept")
struct VerbatimLinesTests {
    static func record(extra: [String], rule: String? = nil) throws -> TaskRecord {
        var fields: [String] = [
            #""id": 7"#, #""date_start": "1790000000""#, #""date_finish": "1790003600""#,
            #""name": "n""#,
        ]
        let lines = extra.map { #""\#($0)""# }.joined(separator: ", ")
        fields.append(#""ical_extra": [\#(lines)]"#)
        if let rule { fields.append(#""recurrence": {"rule": "\#(rule)"}"#) }
        return try TaskJSON.decodeLine(Data(("{" + fields.joined(separator: ", ") + "}").utf8))
            .get()
    }

    static func refusal(_ record: TaskRecord, dropExtra: Bool = false) -> String? {
        var writer = EventWriter(timestamp: 0)
        writer.dropExtra = dropExtra
        do {
            _ = try writer.event(for: record)
            return nil
        } catch let problem as Problem {
            return "\(problem.field): \(problem.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "a line naming what the fields wrote once is refused, at its index",
        arguments: [
            ("SUMMARY:again", "SUMMARY"), ("DTSTART:20260101T000000Z", "DTSTART"),
            ("UID:other", "UID"), ("dtend:20260101T010000Z", "DTEND"),
        ])
    func repeatedSingle(line: String, name: String) throws {
        let record = try Self.record(extra: ["X-KEPT:yes", line])
        #expect(
            Self.refusal(record)
                == "ical_extra[1]: \(name) is written from the record's fields; RFC 5545 allows one"
        )
        // Dropped lines are not checked: nothing of them is written.
        #expect(Self.refusal(record, dropExtra: true) == nil)
    }

    @Test("lines RFC 5545 allows several of, and X- lines, are written as given")
    func keptLines() throws {
        let record = try Self.record(
            extra: ["X-KEPT:yes", "COMMENT:one", "RRULE:FREQ=WEEKLY"], rule: "FREQ=DAILY")
        #expect(Self.refusal(record) == nil)
        let text = try EventWriter(timestamp: 0).event(for: record).serialized()
        for line in ["X-KEPT:yes", "COMMENT:one", "RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY"] {
            #expect(text.contains("\r\n\(line)\r\n"), "\(line)")
        }
    }
}
