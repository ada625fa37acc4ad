import Foundation
import TaskConversion
import TaskModel
import Testing

/// `taskcal diff`'s comparison, on calendars written by hand: what only changes the form is
/// the same, what changes the meaning is said property by property.
@Suite("Calendars compared by meaning, not by form")
struct CalendarDiffTests {
    /// Reads `text` (an .ics unless `name` says otherwise) as one side.
    private func side(_ text: String, name: String = "side.ics", everyRevision: Bool = false)
        throws -> CalendarDiff.Side
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var options = ReadOptions()
        options.floatingZone = "Europe/Berlin"
        options.readsEveryRevision = everyRevision
        let read = CalendarDiff.read([path], name: name, options: options)
        #expect(read.report.errors.isEmpty, "\(read.report.errors)")
        return read
    }

    private func calendar(_ events: String...) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//diff//EN\r\n" + events.joined()
            + "END:VCALENDAR\r\n"
    }

    private func difference(_ old: String, _ new: String, strict: Bool = false) throws
        -> CalendarDiff
    {
        CalendarDiff(try side(old), try side(new), strict: strict)
    }

    private let meeting =
        "BEGIN:VEVENT\r\nUID:m@x\r\nDTSTAMP:20240101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20240301T090000\r\nDTEND;TZID=Europe/Berlin:20240301T100000\r\nSUMMARY:Meeting\r\nCATEGORIES:Work,Team\r\nATTENDEE;CN=Anna;PARTSTAT=ACCEPTED:mailto:anna@example.org\r\nRRULE:FREQ=WEEKLY;BYDAY=FR,MO;COUNT=4\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Soon\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nX-LABEL;X-A=1;X-B=2:blue\r\nEND:VEVENT\r\n"

    @Test("another zone form, DURATION for DTEND, order, case, quoting and folding are the same")
    func formIsNoDifference() throws {
        let rewritten =
            "BEGIN:VEVENT\r\nsummary:Meeting\r\nuid:m@x\r\nDTSTAMP:20991231T000000Z\r\nDTSTART:20240301T080000Z\r\nDURATION:PT1H\r\nCATEGORIES:Team,Work\r\nATTENDEE;PARTSTAT=ACCEPTED;CN=\"Anna\":MAILTO:ANNA@EXAMPLE.ORG\r\nRRULE:BYDAY=MO,FR;FREQ=WEEKLY;INTERVAL=1;COUNT=4\r\nX-LABEL;X-B=2;VALUE=TEXT;X-A=\"1\":blue\r\nBEGIN:VALARM\r\nTRIGGER:-PT900S\r\nDESCRIPTION:Soon\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VEVENT\r\n"
        let found = try difference(calendar(meeting), calendar(rewritten))
        #expect(found.isEmpty, "\(found.text(zone: "UTC"))")
        #expect(found.same == 1)
        // --strict sees that the time is written in UTC, not in Europe/Berlin.
        let strict = try difference(calendar(meeting), calendar(rewritten), strict: true)
        #expect(strict.changed.first?.changes.map(\.name) == ["TZID"])
    }

    @Test("a rule's `+3WE` is `3WE` and `BYMONTHDAY=01` is `1`, as libical writes them")
    func ruleSignsAndZeros() throws {
        func event(_ rule: String) -> String {
            "BEGIN:VEVENT\r\nUID:r@x\r\nDTSTART:20240117T090000Z\r\nSUMMARY:Rule\r\nRRULE:\(rule)\r\nEND:VEVENT\r\n"
        }
        let signs = try difference(
            calendar(event("FREQ=MONTHLY;BYDAY=+3WE;COUNT=3")),
            calendar(event("FREQ=MONTHLY;BYDAY=3WE;COUNT=3")), strict: true)
        #expect(signs.isEmpty, "\(signs.text(zone: "UTC"))")
        let zeros = try difference(
            calendar(event("FREQ=MONTHLY;BYMONTHDAY=01,17;COUNT=3")),
            calendar(event("FREQ=MONTHLY;BYMONTHDAY=17,1;COUNT=3")))
        #expect(zeros.isEmpty, "\(zeros.text(zone: "UTC"))")
        // A different ordinal is a different rule.
        let other = try difference(
            calendar(event("FREQ=MONTHLY;BYDAY=+3WE;COUNT=3")),
            calendar(event("FREQ=MONTHLY;BYDAY=-3WE;COUNT=3")))
        #expect(other.changed.first?.changes.map(\.name) == ["RRULE"])
    }

    @Test("a changed name, a moved start, a lost attendee and alarm are said by property")
    func meaningIsDifference() throws {
        let changed =
            meeting.replacingOccurrences(of: "SUMMARY:Meeting", with: "SUMMARY:Planning")
            .replacingOccurrences(
                of: "DTSTART;TZID=Europe/Berlin:20240301T090000",
                with: "DTSTART;TZID=Europe/Berlin:20240301T093000"
            )
            .replacingOccurrences(
                of: "ATTENDEE;CN=Anna;PARTSTAT=ACCEPTED:mailto:anna@example.org\r\n", with: ""
            )
            .replacingOccurrences(
                of:
                    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Soon\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n",
                with: "")
        let found = try difference(calendar(meeting), calendar(changed))
        #expect(found.missing.isEmpty && found.extra.isEmpty)
        let names = found.changed.first?.changes.map(\.name)
        #expect(names == ["SUMMARY", "DTSTART", "ATTENDEE", "VALARM"], "\(names ?? [])")
        let text = found.text(zone: "Europe/Berlin")
        #expect(text.contains(#"changed m@x "Meeting": SUMMARY "Meeting" → "Planning""#), "\(text)")
        #expect(
            text.contains(
                #"changed m@x "Meeting": DTSTART 2024-03-01 09:00 → 09:30 (Europe/Berlin)"#),
            "\(text)")
        #expect(text.hasSuffix("0 missing, 0 extra, 1 changed, 0 the same\n"))
        let json = try JSONSerialization.jsonObject(with: Data(found.json.utf8)) as? [String: Any]
        let item = (json?["changed"] as? [[String: Any]])?.first
        #expect(item?["uid"] as? String == "m@x")
        #expect(item?["recurrence_id"] is NSNull)
        let fields = item?["fields"] as? [[String: Any]]
        #expect(fields?.first?["old"] as? String == "Meeting")
        #expect(fields?[1]["new"] as? String == "2024-03-01T08:30:00Z")
        // A list that lost its only item is an array on one side and null on the other.
        #expect((fields?[2]["old"] as? [String])?.count == 1)
        #expect(fields?[2]["new"] is NSNull)
    }

    @Test("missing and extra events, changed occurrences by their instant")
    func missingAndExtra() throws {
        let lunch =
            "BEGIN:VEVENT\r\nUID:l@x\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240301T120000Z\r\nDTEND:20240301T130000Z\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\n"
        let moved =
            "BEGIN:VEVENT\r\nUID:m@x\r\nDTSTAMP:20240101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20240304T090000\r\nDTSTART;TZID=Europe/Berlin:20240304T110000\r\nDTEND;TZID=Europe/Berlin:20240304T120000\r\nSUMMARY:Meeting\r\nEND:VEVENT\r\n"
        // The same change of one occurrence, its RECURRENCE-ID written in UTC.
        let movedUTC = moved.replacingOccurrences(
            of: "RECURRENCE-ID;TZID=Europe/Berlin:20240304T090000",
            with: "RECURRENCE-ID:20240304T080000Z")
        let found = try difference(calendar(meeting, lunch, moved), calendar(movedUTC, meeting))
        #expect(found.missing.map(\.uid) == ["l@x"])
        #expect(found.extra.isEmpty)
        #expect(found.changed.isEmpty, "\(found.text(zone: "UTC"))")
        #expect(found.same == 2)
        let text = found.text(zone: "UTC")
        #expect(text.hasPrefix(#"missing l@x "Lunch" ("#), "\(text)")
        #expect(text.contains("side.ics:20)"), "\(text)")
    }

    @Test("a duplicate taskcal renamed after its line matches the UID it came from")
    func renamedDuplicate() throws {
        let first =
            "BEGIN:VEVENT\r\nUID:dup@x\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240301T120000Z\r\nDTEND:20240301T130000Z\r\nSUMMARY:One\r\nEND:VEVENT\r\n"
        let second = first.replacingOccurrences(of: "SUMMARY:One", with: "SUMMARY:Two")
        let renamed = second.replacingOccurrences(of: "UID:dup@x", with: "UID:dup@x-12")
        // Read with every revision (--revisions all), OLD's second is dup@x-LINE (its line,
        // 11); NEW has it renamed after another line, as a conversion of a longer file did.
        let old = try side(calendar(first, second), everyRevision: true)
        #expect(old.records.map(\.uid) == ["dup@x", "dup@x-11"])
        let new = try side(
            calendar(first, renamed.replacingOccurrences(of: "-12", with: "-40")),
            everyRevision: true)
        let found = CalendarDiff(old, new)
        #expect(found.isEmpty, "\(found.text(zone: "UTC"))")
        #expect(found.same == 2)
    }

    @Test("components without a UID match by start and name")
    func withoutUID() throws {
        let loose =
            "BEGIN:VEVENT\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240301T120000Z\r\nDTEND:20240301T130000Z\r\nSUMMARY:Loose\r\nEND:VEVENT\r\n"
        let found = try difference(calendar(meeting, loose), calendar(loose, meeting))
        #expect(found.isEmpty, "\(found.text(zone: "UTC"))")
        #expect(found.same == 2)
        let later = loose.replacingOccurrences(of: "T120000Z", with: "T140000Z")
        let moved = try difference(calendar(loose), calendar(later))
        #expect(moved.missing.count == 1 && moved.extra.count == 1)
        #expect(moved.missing.first?.uid == nil)
    }

    @Test("a task file and its .ics are the same; the calendar's name is compared")
    func taskFileAndCalendar() throws {
        let json =
            #"[{"id": 1, "date_start": "147600000", "date_finish": "147610000", "name": "My task", "description": "Описание"}]"#
        let old = try side(json, name: "tasks.json")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("tasks.json").path
        let output = folder.appendingPathComponent("out.ics").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: input))
        var write = WriteOptions(timestamp: 0)
        write.calendarName = "Mine"
        let report = Converter.convert(
            inputs: [input], output: output, read: ReadOptions(), write: write)
        #expect(report.succeeded)
        let new = CalendarDiff.read([output], name: "out.ics", options: ReadOptions())
        let found = CalendarDiff(old, new)
        #expect(found.missing.isEmpty && found.extra.isEmpty)
        #expect(found.same == 1)
        // The name the output was given is the calendar's own difference.
        #expect(found.changed.map(\.uid) == [nil])
        #expect(found.changed.first?.changes.map(\.name).contains("X-WR-CALNAME") == true)
    }

    @Test("--verify: every format reads back as written; a difference no warning said fails it")
    func verification() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.ics").path
        try Data(calendar(meeting).utf8).write(to: URL(fileURLWithPath: input))
        for format in ["json", "ndjson", "ics", "jcal", "jscal.json"] {
            let output = folder.appendingPathComponent("out.\(format)").path
            let report = Converter.convert(
                inputs: [input], output: output, read: ReadOptions(),
                write: WriteOptions(timestamp: 0), verify: true)
            #expect(report.succeeded, "\(format): \(report.errors)")
            let verification = try #require(report.verification)
            #expect(verification.succeeded, "\(format): \(verification.unsaid.text(zone: "UTC"))")
            #expect(verification.difference.same == 1)
        }
        // An output that lost the meeting's name: a difference, unless a warning said it.
        let written = CalendarDiff.read([input], name: input, options: ReadOptions())
        let damaged = folder.appendingPathComponent("damaged.ics").path
        try Data(
            calendar(meeting.replacingOccurrences(of: "SUMMARY:Meeting", with: "SUMMARY:M")).utf8
        ).write(to: URL(fileURLWithPath: damaged))
        let unsaid = Verification.verify(
            written: written, outputs: [damaged], options: ReadOptions(), said: [])
        #expect(!unsaid.succeeded)
        #expect(unsaid.unsaid.changed.first?.changes.map(\.name) == ["SUMMARY"])
        let said = Verification.verify(
            written: written, outputs: [damaged], options: ReadOptions(),
            said: [try #require(written.records.first?.source)])
        #expect(said.succeeded)
        #expect(said.difference.changed.count == 1)
    }

    /// A floating time is a wall clock: read in São Paulo (the JSON's `time_zone`) and again
    /// in Berlin (the reader's floating zone), 09:00 is the same 09:00, and a changed one is
    /// shown as the wall clock, not as an instant in some zone.
    @Test("floating times compare as the wall clock, whatever zone each side was read in")
    func floatingWallClock() throws {
        // 2024-03-01 09:00 in São Paulo (UTC-3) is 12:00Z; its EXDATE a week later.
        let json =
            #"[{"id": 1, "uid": "f@x", "date_start": "1709294400", "date_finish": "1709298000", "name": "Floating", "time_zone": "America/Sao_Paulo", "floating": true, "recurrence": {"rule": "FREQ=DAILY;COUNT=9", "exdates": ["1709899200"]}}]"#
        func ics(_ start: String) -> String {
            calendar(
                "BEGIN:VEVENT\r\nUID:f@x\r\nDTSTART:20240301T\(start)\r\nDTEND:20240301T100000\r\nSUMMARY:Floating\r\nRRULE:FREQ=DAILY;COUNT=9\r\nEXDATE:20240308T090000\r\nEND:VEVENT\r\n"
            )
        }
        let same = CalendarDiff(try side(json, name: "side.json"), try side(ics("090000")))
        #expect(same.isEmpty, "\(same.text(zone: "UTC"))")
        let moved = CalendarDiff(try side(json, name: "side.json"), try side(ics("083000")))
        #expect(
            moved.text(zone: "UTC").contains(
                "changed f@x \"Floating\": DTSTART 2024-03-01 09:00 → 08:30 (floating)"),
            "\(moved.text(zone: "UTC"))")
    }
}
