import Foundation
import ICalendar
import Testing

/// Reads every top-level component of `text`, failing the test on any thrown error.
private func items(_ text: String) throws -> [ICalendarReader.Item] {
    let reader = ICalendarReader(text: text)
    var result: [ICalendarReader.Item] = []
    while let item = try reader.next() { result.append(item) }
    return result
}

private func calendar(_ body: String) -> String {
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + body + "END:VCALENDAR\r\n"
}

private func event(_ lines: String) -> String {
    "BEGIN:VEVENT\r\nUID:1@test\r\nDTSTAMP:20240101T000000Z\r\n" + lines + "END:VEVENT\r\n"
}

/// The error `text` makes the reader throw (strict: damage to the structure is an error).
private func readingError(_ text: String, strict: Bool = true) -> ICalendarError? {
    let reader = ICalendarReader(text: text)
    reader.strict = strict
    do {
        while try reader.next() != nil {}
        return nil
    } catch {
        return error
    }
}

/// The items and the reader's notes of `text` read leniently.
private func lenient(_ text: String) throws -> (items: [ICalendarReader.Item], notes: [String]) {
    let reader = ICalendarReader(text: text)
    var result: [ICalendarReader.Item] = []
    var notes: [String] = []
    while let item = try reader.next() {
        result.append(item)
        notes += reader.takeNotes().map { "\($0.line): \($0.message)" }
    }
    notes += reader.takeNotes().map { "\($0.line): \($0.message)" }
    return (result, notes)
}

@Suite("ICalendarReader: streaming and libical's traps")
struct ReaderTests {
    @Test("each VEVENT comes back in file order with its properties")
    func readsEventsInOrder() throws {
        let text = calendar(
            event("DTSTART:20240310T093000Z\r\nSUMMARY:first\r\n")
                + event("DTSTART:20240311T093000Z\r\nSUMMARY:second\r\n"))
        let summaries = try items(text).map { item -> String in
            guard case .component(let component) = item else { return "failed" }
            return component.firstProperty(named: "SUMMARY")?.text ?? "none"
        }
        #expect(summaries == ["first", "second"])
    }

    @Test("leading and trailing whitespace of text survives (libical trims it)")
    func keepsEdgeWhitespace() throws {
        let text = calendar(
            event("DTSTART:20240310T093000Z\r\nSUMMARY:  two spaces, a tab\t\r\nDESCRIPTION:\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("no component")
            return
        }
        #expect(component.firstProperty(named: "SUMMARY")?.text == "  two spaces, a tab\t")
        #expect(component.firstProperty(named: "DESCRIPTION")?.text == "")
    }

    @Test("folded lines are unfolded, including inside multi-byte characters")
    func unfoldsLines() throws {
        // The fold splits "д" (D0 B4) between its two bytes: legal for the bytes on the wire.
        var bytes = Array(calendar(event("DTSTART:20240310T093000Z\r\nSUMMARY:Пер\u{0}")).utf8)
        let marker = bytes.firstIndex(of: 0)!
        bytes.replaceSubrange(
            marker...marker,
            with: Array("\u{0434}".utf8.prefix(1)) + Array("\r\n ".utf8)
                + Array("\u{0434}".utf8.suffix(1)) + Array("ело\r\n".utf8))
        let reader = ICalendarReader(bytes: bytes)
        guard case .component(let component)? = try reader.next() else {
            Issue.record("no component")
            return
        }
        #expect(component.firstProperty(named: "SUMMARY")?.text == "Перд" + "ело")
    }

    @Test(
        "a missing END: strict, an error naming the BEGIN line; else the cut component is left out")
    func missingEnd() throws {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:2\r\n"
        let error = readingError(text)
        #expect(error?.kind == .unbalancedComponents)
        #expect(error?.line == 5)
        #expect(error?.message.contains("BEGIN:VEVENT has no END:VEVENT") == true)
        let (items, notes) = try lenient(text)
        #expect(items.count == 1)
        #expect(
            notes == [
                "5: BEGIN:VEVENT has no END:VEVENT before the end of the file; left out",
                "1: BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file",
            ])
    }

    @Test("an END that closes another component: strict, an error; else it closes the innermost")
    func mismatchedEnd() throws {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nEND:VTODO\r\nBEGIN:VEVENT\r\nUID:2\r\nEND:VEVENT\r\nEND:VCALENDARD\r\n"
        let error = readingError(text)
        #expect(error?.kind == .unbalancedComponents)
        #expect(error?.line == 4)
        let (items, notes) = try lenient(text)
        #expect(items.count == 2)
        #expect(notes.first == "4: END:VTODO closes BEGIN:VEVENT of line 2; read as END:VEVENT")
        #expect(
            notes.last
                == "8: END:VCALENDARD closes BEGIN:VCALENDAR of line 1; read as END:VCALENDAR")
    }

    @Test("deep nesting is refused before libical's recursive free can overflow the stack")
    func deepNesting() {
        let depth = 100_000
        let text =
            "BEGIN:VCALENDAR\r\n" + String(repeating: "BEGIN:VEVENT\r\n", count: depth)
            + String(repeating: "END:VEVENT\r\n", count: depth) + "END:VCALENDAR\r\n"
        let error = readingError(text)
        #expect(error?.kind == .nestingTooDeep)
        #expect(error?.line == 13)
    }

    @Test("a 10 MB unfolded line is read (linear time); past the limit it is refused at once")
    func hugeLine() throws {
        let text = calendar(
            event(
                "DTSTART:20240310T093000Z\r\nDESCRIPTION:" + String(repeating: "x", count: 10 << 20)
                    + "\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("no component")
            return
        }
        #expect(component.firstProperty(named: "DESCRIPTION")?.text.utf8.count == 10 << 20)
        let limited = ICalendarReader(text: text)
        limited.maximumLineLength = 1 << 20
        do {
            while try limited.next() != nil {}
            Issue.record("expected the limit to refuse the line")
        } catch {
            #expect(error.kind == .lineTooLong)
            #expect(error.line == 8)
        }
    }

    @Test("a long folded value is fine: folding is how RFC 5545 carries it")
    func longFoldedValue() throws {
        let value = String(repeating: "y", count: 2 << 20)
        var folded = "DESCRIPTION:"
        var rest = Substring(value)
        while !rest.isEmpty {
            folded += rest.prefix(70) + "\r\n "
            rest = rest.dropFirst(70)
        }
        folded.removeLast(1)
        let text = calendar(event("DTSTART:20240310T093000Z\r\n" + folded))
        guard case .component(let component) = try items(text).first else {
            Issue.record("no component")
            return
        }
        #expect(component.firstProperty(named: "DESCRIPTION")?.text.count == value.count)
    }

    @Test("a NUL byte is an error with its line")
    func nulByte() {
        let error = readingError(calendar(event("DTSTART:20240310T093000Z\r\nSUMMARY:a\u{0}b\r\n")))
        #expect(error?.kind == .invalidEncoding)
        #expect(error?.line == 8)
    }

    @Test("bytes that are not UTF-8 are an error with their line")
    func invalidUTF8() {
        var bytes = Array(calendar(event("DTSTART:20240310T093000Z\r\nSUMMARY:caf#\r\n")).utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "#"))!] = 0xE9  // Latin-1 é
        let reader = ICalendarReader(bytes: bytes)
        #expect(throws: ICalendarError.self) {
            while try reader.next() != nil {}
        }
        do {
            let again = ICalendarReader(bytes: bytes)
            while try again.next() != nil {}
        } catch {
            #expect(error.kind == .invalidEncoding)
            #expect(error.line == 8)
        }
    }

    @Test("a garbage line is taken out of its component with libical's reason and its line")
    func garbageLine() throws {
        let text = calendar(
            event("DTSTART:20240310T093000Z\r\nthis is not a content line\r\nSUMMARY:kept\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("expected the component without the line")
            return
        }
        #expect(component.firstProperty(named: "SUMMARY")?.text == "kept")
        let unreadable = component.unreadableLines
        #expect(unreadable.map(\.line.line) == [8])
        #expect(unreadable.first?.line.text == "this is not a content line")
        #expect(unreadable.first?.reason.isEmpty == false)
    }

    @Test("an unparseable date is taken out with libical's reason; the rest of the event stays")
    func unparseableDate() throws {
        let text = calendar(event("DTSTART:tomorrow\r\nSUMMARY:kept\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("expected the component without the line")
            return
        }
        #expect(component.firstProperty(named: "DTSTART") == nil)
        #expect(component.firstProperty(named: "SUMMARY")?.text == "kept")
        #expect(component.unreadableLines.first?.line.line == 7)
        #expect(component.unreadableLines.first?.reason.contains("DTSTART") == true)
    }

    @Test("an impossible date that libical accepts is refused when read")
    func impossibleDate() throws {
        let text = calendar(event("DTSTART:20240230T100000Z\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("libical should accept the line")
            return
        }
        #expect(throws: ICalendarError.self) {
            try component.firstProperty(named: "DTSTART")?.dateTimeValue()
        }
        do {
            _ = try component.firstProperty(named: "DTSTART")?.dateTimeValue()
        } catch {
            #expect(error.message.contains("day 30 does not exist"))
            #expect(error.line == 7)
        }
    }

    @Test("a TZID comes back as written: placing it is the caller's, never libical's UTC guess")
    func unknownZone() throws {
        let text = calendar(event("DTSTART;TZID=Nowhere/Zone:20240310T093000\r\n"))
        guard case .component(let component) = try items(text).first else {
            Issue.record("no component")
            return
        }
        let value = try #require(try component.firstProperty(named: "DTSTART")?.dateTimeValue())
        #expect(value.zone == .tzid("Nowhere/Zone"))
        #expect(
            (value.year, value.month, value.day, value.hour, value.minute) == (2024, 3, 10, 9, 30))
    }

    @Test("a file's VTIMEZONE defines a zone; IANA names are the system's")
    func resolvesZones() throws {
        let custom = """
            BEGIN:VTIMEZONE\r
            TZID:My Office\r
            BEGIN:STANDARD\r
            DTSTART:19700101T000000\r
            TZOFFSETFROM:+0500\r
            TZOFFSETTO:+0500\r
            END:STANDARD\r
            END:VTIMEZONE\r

            """
        let text = calendar(custom + event("DTSTART;TZID=My Office:20240310T100000\r\n"))
        let reader = ICalendarReader(text: text)
        var values: [DateTimeValue] = []
        while let item = try reader.next() {
            guard case .component(let component) = item else { continue }
            values.append(
                try #require(try component.firstProperty(named: "DTSTART")?.dateTimeValue()))
        }
        let office = try CalendarZone(defining: try #require(reader.timeZones.first))
        #expect(office.tzid == "My Office")
        #expect(office.epoch(of: try #require(values.first)) == 1_710_046_800)
        let moscow = try #require(CalendarZone.system("Europe/Moscow"))
        let local = DateTimeValue(year: 2024, month: 3, day: 10, hour: 10, zone: .floating)
        #expect(moscow.epoch(of: local) == 1_710_054_000)
    }

    @Test("components libical has no kind for come back with their own name, no crash")
    func unknownComponents() throws {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:X-MINE\r\nUID:1\r\nBEGIN:UNKNOWN\r\nEND:UNKNOWN\r\nEND:X-MINE\r\nEND:VCALENDAR\r\n"
        guard case .component(let component) = try items(text).first else {
            Issue.record("no component")
            return
        }
        #expect(component.kind == .other("X-MINE"))
        #expect(component.subcomponents().map(\.kind) == [.other("UNKNOWN")])
    }

    @Test("input without a calendar is an error; a bare event is read, strict refuses it")
    func noCalendar() throws {
        #expect(readingError("", strict: false)?.kind == .noCalendarData)
        #expect(readingError("hello\r\n", strict: false)?.kind == .noCalendarData)
        #expect(
            readingError("BEGIN:VCARD\r\nEND:VCARD\r\n", strict: false)?.kind == .noCalendarData)
        let bare = "BEGIN:VEVENT\r\nUID:1\r\nEND:VEVENT\r\n"
        #expect(readingError(bare)?.kind == .noCalendarData)
        let (items, notes) = try lenient(bare)
        #expect(items.count == 1)
        #expect(notes == ["1: BEGIN:VEVENT is not inside BEGIN:VCALENDAR; read as if it were"])
    }

    @Test("what the reader knows of a name follows interpretedProperties and holds past 512 names")
    func nameFacts() throws {
        // 600 distinct names, past the 512 the reader remembers: an X- name is kept as
        // written, a made-up one without X- is left out with a note (libical would refuse
        // the event for it), a standard one reaches libical.
        var lines = ""
        for number in 0..<600 { lines += "X-NAME\(number):x\r\nMADEUP\(number):y\r\n" }
        let text = calendar(
            event("DTSTART:20240310T093000Z\r\n" + lines + "SUMMARY:first\r\n")
                + event("DTSTART:20240311T093000Z\r\nSUMMARY:second\r\n"))
        let reader = ICalendarReader(text: text)
        reader.interpretedProperties = ["UID", "DTSTART", "DTSTAMP", "SUMMARY"]
        guard case .component(let first) = try reader.next() else {
            Issue.record("no first event")
            return
        }
        #expect(first.firstProperty(named: "SUMMARY")?.text == "first")
        #expect(first.verbatimLines.count == 1200)
        #expect(first.verbatimLines.last?.text == "MADEUP599:y")
        // SUMMARY is no longer given to libical: the answer kept for it must not be used.
        reader.interpretedProperties = ["UID", "DTSTART", "DTSTAMP"]
        guard case .component(let second) = try reader.next() else {
            Issue.record("no second event")
            return
        }
        #expect(second.firstProperty(named: "SUMMARY") == nil)
        #expect(second.verbatimLines.map(\.text) == ["SUMMARY:second"])

        // Without interpretedProperties the made-up names are left out, each with a note.
        let (items, notes) = try lenient(
            calendar(event("DTSTART:20240310T093000Z\r\n" + lines)))
        guard case .component(let event)? = items.first else {
            Issue.record("no event")
            return
        }
        #expect(event.properties().filter { $0.name.hasPrefix("X-NAME") }.count == 600)
        #expect(notes.filter { $0.contains("a property libical 3.0 cannot read") }.count == 600)
    }
}
