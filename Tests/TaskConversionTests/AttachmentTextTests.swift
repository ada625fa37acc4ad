import Foundation
import ICalendar
import TaskModel
import Testing

@testable import TaskConversion

/// An inline attachment's base64 text is handed on to iCalendar as read when it is what
/// encoding its bytes gives, and encoded again when it is not (issue 59): the `ATTACH` line
/// is the same either way.
@Suite("An inline attachment's base64 text is written as read when it is what encoding gives")
struct AttachmentTextTests {
    /// Base64 texts and the bytes they decode to; `QR==` and `QUJ=` set bits past the data's
    /// end, which decoders accept and encoders never write.
    static let texts = ["", "QQ==", "QR==", "QUI=", "QUJ=", "QUJD", "QUJDRA==", "/+/+"]

    /// The record of one NDJSON line with an attachment of `text`; `plain: false` adds a
    /// field the plain reader does not read, so the general reader reads it.
    static func record(_ text: String, plain: Bool) throws -> TaskRecord {
        let extra = plain ? "" : #", "location": "Room 1""#
        let line =
            #"{"id": 1, "date_start": "1790000000", "date_finish": "1790003600", "name": "n""#
            + extra + #", "attachments": [{"filename": "a.bin", "data": "\#(text)"}]}"#
        return try TaskJSON.decodeLine(Data(line.utf8)).get()
    }

    /// The `ATTACH` value the writer gives `record`.
    static func attachValue(_ record: TaskRecord) throws -> String {
        let event = try EventWriter(timestamp: 0).event(for: record)
        let lines = event.serialized().replacingOccurrences(of: "\r\n ", with: "")
            .components(separatedBy: "\r\n")
        let attach = try #require(lines.first { $0.hasPrefix("ATTACH") })
        return String(attach[attach.index(after: try #require(attach.firstIndex(of: ":")))...])
    }

    @Test("the ATTACH value is the bytes encoded, whichever reader read the text", arguments: texts)
    func writtenAsEncoded(text: String) throws {
        let data = try #require(Data(base64Encoded: text))
        for plain in [true, false] {
            let record = try Self.record(text, plain: plain)
            #expect(record.attachments.first?.content == .inline(data))
            #expect(try Self.attachValue(record) == data.base64EncodedString(), "plain: \(plain)")
        }
    }

    @Test("the text is kept only when it is the canonical encoding", arguments: texts)
    func keptWhenCanonical(text: String) throws {
        let data = try #require(Data(base64Encoded: text))
        let canonical = data.base64EncodedString() == text
        for plain in [true, false] {
            let attachment = try #require(try Self.record(text, plain: plain).attachments.first)
            #expect((attachment.base64 == text) == canonical, "plain: \(plain)")
            #expect(attachment.base64 == nil || attachment.base64 == text)
        }
    }

    /// The records of an .ics whose two events (one plain, one with a line the plain
    /// reader leaves to the steps) carry `text` inline.
    static func icsRecords(_ text: String) throws -> [TaskRecord] {
        func event(_ uid: String, _ extra: String) -> String {
            "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\n"
                + "DTEND:20260101T110000Z\r\nSUMMARY:n\r\n\(extra)"
                + "ATTACH;ENCODING=BASE64;VALUE=BINARY;FILENAME=a.bin:\(text)\r\nEND:VEVENT\r\n"
        }
        let ics =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + event("a", "")
            + event("b", "RRULE:FREQ=DAILY;COUNT=2\r\n") + "END:VCALENDAR\r\n"
        var records: [TaskRecord] = []
        let report = Converter.read(
            bytes: Array(ics.utf8), name: "a.ics", format: .ics, options: ReadOptions()
        ) { record, _ in records.append(record) }
        #expect(report.errors.isEmpty, "\(report.errors)")
        return records
    }

    @Test(
        "read from .ics, the task format's data is the bytes encoded",
        arguments: texts.filter { !$0.isEmpty })
    func readFromICS(text: String) throws {
        let data = try #require(Data(base64Encoded: text))
        let canonical = data.base64EncodedString()
        let records = try Self.icsRecords(text)
        #expect(records.count == 2)
        for record in records {
            let attachment = try #require(record.attachments.first)
            #expect(attachment.content == .inline(data))
            #expect(attachment.base64 == (canonical == text ? text : nil))
            #expect(record.jsonLine.contains(#""data": "\#(canonical)""#), "\(record.jsonLine)")
        }
    }

    @Test("the kept text is not part of the value, and new bytes drop it")
    func notPartOfTheValue() throws {
        let record = try Self.record("QUJD", plain: true)
        var attachment = try #require(record.attachments.first)
        let same = Attachment(filename: "a.bin", content: .inline(Data("ABC".utf8)))
        #expect(attachment.base64 == "QUJD")
        #expect(attachment == same)
        #expect(attachment.hashValue == same.hashValue)
        attachment.content = .inline(Data([1, 2, 3]))
        #expect(attachment.base64 == nil)
        var changed = record
        changed.attachments = [attachment]
        #expect(try Self.attachValue(changed) == "AQID")
    }
}
