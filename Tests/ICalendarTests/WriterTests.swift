import Foundation
import ICalendar
import Testing

@Suite("Building and serializing through libical")
struct WriterTests {
    @Test("output is CRLF, folded at 75 octets, never splitting a UTF-8 character")
    func foldsSafely() throws {
        let event = Component(kind: .event)
        for offset in 0..<4 {
            let text = String(repeating: "a", count: offset) + String(repeating: "Ж😀中é", count: 40)
            event.addProperty("SUMMARY", .text(text))
        }
        let bytes = Array(event.serialized().utf8)
        var lines: [[UInt8]] = [[]]
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D {
                #expect(bytes[index + 1] == 0x0A, "bare CR")
                lines.append([])
                index += 2
                continue
            }
            #expect(bytes[index] != 0x0A, "bare LF")
            lines[lines.count - 1].append(bytes[index])
            index += 1
        }
        for line in lines {
            #expect(line.count <= 75)
            #expect(String(validating: line, as: UTF8.self) != nil, "a fold split a character")
        }
    }

    @Test("a fold never falls inside an escape, also after what a buffer already holds")
    func foldsKeepEscapes() throws {
        var events: [Component] = []
        for shift in 0..<80 {
            let event = Component(kind: .event)
            event.addProperty(
                "DESCRIPTION",
                .text(
                    String(repeating: "x", count: shift) + "\n" + String(repeating: "y", count: 90))
            )
            events.append(event)
        }
        var one: [UInt8] = Array("BEGIN:VCALENDAR\r\n".utf8)
        for event in events { event.serialize(into: &one) }
        let apart = "BEGIN:VCALENDAR\r\n" + events.map { $0.serialized() }.joined()
        #expect(one == Array(apart.utf8), "the buffer's earlier bytes stay as they were")
        let text = String(decoding: one, as: UTF8.self)
        #expect(!text.contains("\\\r\n "), "a fold right after a backslash")
        for line in text.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75) }
        #expect(
            text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\\n").count
                == 81)
    }

    @Test("a zone is written as TZID with the plain IANA name, in the event and the VTIMEZONE")
    func plainZoneNames() throws {
        let calendar = Component(kind: .calendar)
        calendar.add(try TimeZones.vtimezone(named: "Europe/Moscow"))
        let event = Component(kind: .event)
        event.addProperty(
            "DTSTART", .dateTime(try DateTimeValue(epoch: 1_710_054_000, inZone: "Europe/Moscow")))
        calendar.add(event)
        let text = calendar.serialized()
        #expect(text.contains("TZID:Europe/Moscow\r\n"))
        #expect(text.contains("DTSTART;TZID=Europe/Moscow:20240310T100000\r\n"))
        #expect(!text.contains("freeassociation"))
    }

    @Test("text escaping round-trips commas, semicolons, backslashes and newlines")
    func escapes() throws {
        let original = "Meet, greet; plan\nsecond line \\ backslash"
        let event = Component(kind: .event)
        event.addProperty("UID", .text("x"))
        event.addProperty("DTSTART", .dateTime(DateTimeValue(utcEpoch: 0)))
        event.addProperty("SUMMARY", .text(original))
        let text = "BEGIN:VCALENDAR\r\n" + event.serialized() + "END:VCALENDAR\r\n"
        #expect(text.contains("SUMMARY:Meet\\, greet\\; plan\\nsecond line \\\\ backslash"))
        let reader = ICalendarReader(text: text)
        guard case .component(let parsed)? = try reader.next() else {
            Issue.record("no component")
            return
        }
        #expect(parsed.firstProperty(named: "SUMMARY")?.text == original)
    }

    @Test("attachments and triggers read back as written")
    func attachmentsAndTriggers() throws {
        let event = Component(kind: .event)
        let bytes = Data((0...255).map { UInt8($0) })
        event.addProperty(
            "ATTACH", .attachmentBase64(bytes.base64EncodedString()),
            parameters: [Parameter("FILENAME", "all bytes.bin")])
        event.addProperty("ATTACH", .attachmentURI("https://example.com/a.pdf"))
        let alarm = Component(kind: .alarm)
        alarm.addProperty(
            "TRIGGER", .relativeTrigger("-PT900S"), parameters: [Parameter("RELATED", "END")])
        alarm.addProperty("TRIGGER", .absoluteTrigger(epoch: 1_700_000_000))
        event.add(alarm)
        let text = "BEGIN:VCALENDAR\r\n" + event.serialized() + "END:VCALENDAR\r\n"
        let reader = ICalendarReader(text: text)
        guard case .component(let parsed)? = try reader.next() else {
            Issue.record("no component")
            return
        }
        let attachments = parsed.properties(named: "ATTACH")
        #expect(attachments[0].attachment == .base64(bytes.base64EncodedString()))
        #expect(attachments[0].parameter("FILENAME") == "all bytes.bin")
        #expect(attachments[0].parameter("ENCODING") == "BASE64")
        #expect(attachments[1].attachment == .uri("https://example.com/a.pdf"))
        let triggers = parsed.subcomponents(ofKind: .alarm)[0].properties(named: "TRIGGER").map(
            \.trigger)
        #expect(
            triggers == [.relative("-PT900S", relatedToEnd: true), .absolute(epoch: 1_700_000_000)])
    }
}
