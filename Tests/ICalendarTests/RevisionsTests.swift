import Foundation
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

    @Test(
        "many components of a few keys: the groups a plain reading gives, whatever the hashes",
        arguments: [
            (~0, "bytes"), (1, "bytes"), (0, "bytes"), (~0, "file"), (0, "file"), (~0, "pipe"),
            (0, "pipe"),
        ])
    func manyKeys(hashMask: Int, source: String) throws {
        // Kinds, UIDs (one of them not ASCII, one folded), RECURRENCE-IDs (kept as written
        // after the name), SEQUENCEs and
        // DTSTAMPs drawn from small pools, so that keys repeat; with a mask of 0 every key
        // has the same hash.
        var state: UInt64 = 42
        func draw(_ count: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % count
        }
        struct Component: Hashable {
            var kind: String, uid: String, recurrenceID: String?, sequence: Int, stamp: String
        }
        var lines = ["BEGIN:VCALENDAR"]
        var components: [(line: Int, Component)] = []
        for _ in 0..<300 {
            let component = Component(
                kind: ["VEVENT", "VTODO"][draw(2)], uid: ["a", "b", "ü-c", "long-uid-d"][draw(4)],
                recurrenceID: [nil, ":20240101T100000Z", ";VALUE=DATE:20240102"][draw(3)],
                sequence: draw(3), stamp: "2024010\(draw(5))T000000Z")
            components.append((lines.count + 1, component))
            lines.append("BEGIN:\(component.kind)")
            if component.uid.hasPrefix("long") {
                lines += ["UID:long-", " uid-d"]
            } else {
                lines.append("UID:\(component.uid)")
            }
            if let id = component.recurrenceID {
                lines.append("RECURRENCE-ID\(id)")
            }
            lines += ["SEQUENCE:\(component.sequence)", "DTSTAMP:\(component.stamp)"]
            lines.append("END:\(component.kind)")
        }
        lines.append("END:VCALENDAR")
        // Read twice from bytes and from a file (a pass of hashes, then the components whose
        // hash came twice); once from a pipe, which cannot be read again.
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "revisions-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        if source == "file" { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
        if source == "pipe" {
            #expect(mkfifo(path, 0o600) == 0)
            Thread {
                FileHandle(forWritingAtPath: path)?.write(Data(bytes))
            }.start()
        }
        let lineSource = source == "bytes" ? LineSource(bytes: bytes) : try LineSource(path: path)
        #expect(lineSource.canRewind == (source != "pipe"))
        let revisions = Revisions.scan(lineSource, hashMask: hashMask)

        // The same groups made the plain way.
        var order: [[String?]] = []
        var members: [[String?]: [(line: Int, Component)]] = [:]
        for entry in components {
            let key: [String?] = [entry.1.kind, entry.1.uid, entry.1.recurrenceID]
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(entry)
        }
        var expected: [(uid: String, recurrenceID: String?, chosen: Int, others: [Int])] = []
        for key in order where members[key]!.count > 1 {
            let group = members[key]!
            var chosen = group[0]
            for entry in group.dropFirst()
            where (entry.1.sequence, entry.1.stamp) > (chosen.1.sequence, chosen.1.stamp) {
                chosen = entry
            }
            expected.append(
                (key[1]!, key[2], chosen.line, group.map(\.line).filter { $0 != chosen.line }))
        }
        #expect(revisions.groups.count == expected.count)
        #expect(revisions.groups.map(\.uid) == expected.map(\.uid))
        #expect(revisions.groups.map(\.recurrenceID) == expected.map(\.recurrenceID))
        #expect(revisions.groups.map(\.chosen.line) == expected.map(\.chosen))
        #expect(revisions.groups.map { $0.superseded.map(\.line) } == expected.map(\.others))
        #expect(revisions.superseded == Set(expected.flatMap(\.others)))
    }
}
