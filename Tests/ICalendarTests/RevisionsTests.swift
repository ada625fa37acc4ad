import ICalendar
import Testing

@Suite("Revisions: which components of one UID supersede which, found by a scan of the lines")
struct RevisionsTests {
    private func scan(_ lines: [String]) -> Revisions {
        Revisions.scan(LineSource(bytes: Array((lines.joined(separator: "\r\n") + "\r\n").utf8)))
    }

    @Test("the highest SEQUENCE, then the latest DTSTAMP, then the first in the file")
    func choice() {
        let revisions = scan([
            "BEGIN:VCALENDAR",
            "BEGIN:VEVENT", "UID:a", "SEQUENCE:1", "DTSTAMP:20240101T000000Z", "END:VEVENT",  // 2
            "BEGIN:VEVENT", "UID:a", "SEQUENCE: 2 ", "DTSTAMP:20230101T000000Z", "END:VEVENT",  // 7
            "BEGIN:VEVENT", "uid;x-p=1:a", "sequence:2", "DTSTAMP:20230101T000000Z",
            "END:VEVENT",  // 12
            "BEGIN:VEVENT", "UID:b", "DTSTAMP:20240101T000000Z", "END:VEVENT",  // 17
            "BEGIN:VEVENT", "UID:b", "DTSTAMP:20250101T000000Z", "END:VEVENT",  // 21
            "END:VCALENDAR",
        ])
        #expect(revisions.groups.map(\.uid) == ["a", "b"])
        #expect(revisions.groups.map(\.chosen.line) == [7, 21])
        #expect(revisions.groups[0].superseded.map(\.line) == [2, 12])
        #expect(revisions.superseded == [2, 12, 17])
    }

    @Test("folded UIDs, RECURRENCE-IDs, kinds, nested components and bare components")
    func keys() {
        let revisions = scan([
            "BEGIN:VCALENDAR",
            // One UID folded two ways is one UID.
            "BEGIN:VEVENT", "UID:long-", " uid", "END:VEVENT",  // 2
            "BEGIN:VEVENT", "UID:long-u", "\tid", "SEQUENCE:3", "END:VEVENT",  // 6
            // A changed occurrence is its own group; so is a to-do with the same UID.
            "BEGIN:VEVENT", "UID:long-uid", "RECURRENCE-ID;TZID=Europe/Berlin:20240101T100000",
            "END:VEVENT",  // 11
            "BEGIN:VTODO", "UID:long-uid", "END:VTODO",  // 15
            // A UID inside an alarm belongs to the alarm, not to the event.
            "begin:vevent", "UID:c", "BEGIN:VALARM", "UID:long-uid", "SEQUENCE:9", "END:VALARM",
            "end:vevent",  // 18
            "END:VCALENDAR",
            // A component outside any calendar, and a time zone (no revisions of it).
            "BEGIN:VEVENT", "UID:c", "SEQUENCE:1", "END:VEVENT",  // 26
            "BEGIN:VTIMEZONE", "TZID:x", "END:VTIMEZONE",
            "BEGIN:VTIMEZONE", "TZID:x", "END:VTIMEZONE",
        ])
        #expect(revisions.groups.map(\.uid) == ["long-uid", "c"])
        #expect(revisions.groups.map(\.recurrenceID) == [nil, nil])
        #expect(revisions.groups.map(\.chosen.line) == [6, 26])
        #expect(revisions.superseded == [2, 18])
    }
}
