import Foundation
import ICalendar
import TaskModel
import Testing

@testable import TaskConversion

/// A record's verbatim lines (`ical_extra`) are written after the lines made from its fields;
/// one that would repeat a property RFC 5545 allows once, or contradict the field it is read
/// into, is refused, naming the line: by the writer, and by the checks of JSON input and the
/// diary alike (one rule, `RecordMapping.field(governing:in:)`). Times a kind has no field for
/// are kept from .ics and written back.
@Suite("Verbatim lines that repeat or contradict a field are refused, others are kept")
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
            ("SUMMARY:again", "SUMMARY", "name"),
            ("DTSTART:20260101T000000Z", "DTSTART", "date_start"),
            ("UID:other", "UID", "uid"), ("dtend:20260101T010000Z", "DTEND", "date_finish"),
        ])
    func repeatedSingle(line: String, name: String, field: String) throws {
        let record = try Self.record(extra: ["X-KEPT:yes", line])
        let expected =
            "ical_extra[1]: \(name) comes from the field \(field); a line here would repeat or contradict it (RFC 5545 allows one)"
        #expect(Self.refusal(record) == expected)
        // JSON input and the diary are refused the same (validate, diary import).
        #expect(CalendarChecks.problems(of: record).map(\.description) == [expected])
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

    /// Records of each shape the writer meets: events with a length and without, all-day,
    /// to-dos due, lasting, and without a start, a journal; one with every text field set. (A
    /// journal's length is not written back: RFC 5545 gives VJOURNAL no end, and `taskcal
    /// diff` reports the change.)
    static let shapes: [String] = [
        #"{"id": 1, "date_start": "1790000000", "date_finish": "1790003600", "name": "n"}"#,
        #"{"id": 2, "date_start": "1790000000", "date_finish": "1790000000", "name": "n"}"#,
        #"{"id": 3, "date_start": "1789948800", "date_finish": "1790035200", "name": "n", "all_day": true}"#,
        #"{"id": 4, "date_start": "1790000000", "date_finish": "1790003600", "name": "n", "description": "d", "status": "tentative", "free": true, "location": "l", "color": "red", "class": "private", "url": "https://example.org/", "organizer": {"address": "mailto:a@example.org"}}"#,
        #"{"id": 5, "date_start": "1790000000", "date_finish": "1790000000", "name": "n", "kind": "todo", "due": "1790007200"}"#,
        #"{"id": 6, "date_start": "1790000000", "date_finish": "1790003600", "name": "n", "kind": "todo", "done": true}"#,
        #"{"id": 7, "name": "n", "kind": "todo"}"#,
        #"{"id": 8, "date_start": "1790000000", "date_finish": "1790000000", "name": "n", "kind": "journal", "description": "d"}"#,
    ]

    /// A line of each property RFC 5545 allows once that a field writes, with a value that
    /// would change the field it was read into.
    static let lines = [
        "UID:other", "DTSTART:20260102T000000Z", "DTEND:20260103T000000Z", "DURATION:PT5H",
        "DURATION:-PT1H", "DUE:20260103T000000Z", "RECURRENCE-ID:20260102T000000Z",
        "SUMMARY:other", "DESCRIPTION:other", "STATUS:CANCELLED", "TRANSP:TRANSPARENT",
        "LOCATION:other", "COLOR:blue", "CLASS:CONFIDENTIAL", "URL:https://example.com/",
        "ORGANIZER:mailto:b@example.org",
    ]

    static func readBack(_ event: String) -> [TaskRecord] {
        let ics =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\(event)END:VCALENDAR\r\n"
        var records: [TaskRecord] = []
        _ = Converter.read(
            bytes: Array(ics.utf8), name: "a.ics", format: .ics, options: ReadOptions()
        ) { record, _ in records.append(record) }
        return records
    }

    @Test(
        "a line the checks let stand is written once and read back into the same fields",
        arguments: shapes)
    func governedLines(shape: String) throws {
        let base = try TaskJSON.decodeLine(Data(shape.utf8)).get()
        var accepted = 0
        for line in Self.lines {
            var record = base
            record.icalExtra = [line]
            let name = String(line.prefix { $0 != ":" })
            let checked = CalendarChecks.problems(of: record)
            let text: String
            do {
                text = try EventWriter(timestamp: 0).event(for: record).serialized()
            } catch {
                // The writer refuses exactly what the checks refuse, in the same words.
                #expect(checked.map(\.description) == ["\(error)"], "\(line) in \(shape)")
                continue
            }
            #expect(checked.isEmpty, "\(line) in \(shape): \(checked)")
            accepted += 1
            // A journal may have several DESCRIPTIONs.
            let twice =
                name == "DESCRIPTION" && record.kind == .journal && record.description != nil
            let count = text.components(separatedBy: "\r\n").filter {
                $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";")
            }.count
            #expect(count == (twice ? 2 : 1), "\(line) in \(shape): \(count) \(name) lines")
            // Read back, the times and the name are the record's; a time line stays a line.
            // A line beside an empty field may fill it (a text, a to-do's DUE): nothing is
            // lost or contradicted.
            let back = try #require(Self.readBack(text).first, "\(line) in \(shape)")
            let fillsDue = name == "DUE" && record.kind == .todo && record.due == nil
            #expect(back.dateStart == record.dateStart, "\(line) in \(shape)")
            #expect(back.dateFinish == record.dateFinish, "\(line) in \(shape)")
            #expect(back.due == record.due || (fillsDue && back.due != nil), "\(line) in \(shape)")
            #expect(back.unscheduled == record.unscheduled && back.name == record.name)
            if ["DTEND", "DURATION", "DUE"].contains(name) && !fillsDue {
                #expect(back.icalExtra.contains(line), "\(line) in \(shape): \(back.icalExtra)")
            }
        }
        // Each shape lets a line stand: the rule refuses what it must, not everything.
        #expect(accepted >= 1, "\(shape)")
    }

    @Test("times a kind has no field for come in from .ics kept, and go back as they came")
    func foreignTimes() throws {
        let events = [
            "BEGIN:VEVENT\r\nUID:e\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\nDUE:20260101T130000Z\r\nSUMMARY:x\r\nEND:VEVENT\r\n",
            "BEGIN:VTODO\r\nUID:t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\nDTEND:20260101T110000Z\r\nSUMMARY:x\r\nEND:VTODO\r\n",
            "BEGIN:VTODO\r\nUID:d\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\nDUE:20260101T120000Z\r\nDURATION:PT1H\r\nSUMMARY:x\r\nEND:VTODO\r\n",
            "BEGIN:VTODO\r\nUID:u\r\nDTSTAMP:20260101T000000Z\r\nDTEND:20260101T110000Z\r\nDURATION:PT1H\r\nSUMMARY:x\r\nEND:VTODO\r\n",
            "BEGIN:VJOURNAL\r\nUID:j\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\nDTEND:20260101T110000Z\r\nDUE:20260101T120000Z\r\nSUMMARY:x\r\nEND:VJOURNAL\r\n",
        ]
        let kept = [
            ["DUE:20260101T130000Z"], ["DTEND:20260101T110000Z"], ["DURATION:PT1H"],
            ["DTEND:20260101T110000Z", "DURATION:PT1H"],
            ["DTEND:20260101T110000Z", "DUE:20260101T120000Z"],
        ]
        for (event, lines) in zip(events, kept) {
            let record = try #require(Self.readBack(event).first, "\(event)")
            #expect(record.icalExtra == lines)
            // None of them is read into a field (a journal entry has a date and no end).
            #expect(record.dateFinish == record.dateStart || record.unscheduled)
            #expect(CalendarChecks.problems(of: record).isEmpty)
            let text = try EventWriter(timestamp: 0).event(for: record).serialized()
            for line in lines { #expect(text.contains("\r\n\(line)\r\n"), "\(line)") }
            let again = try #require(Self.readBack(text).first)
            #expect(again.icalExtra == lines && again.dateFinish == record.dateFinish)
        }
    }
}
