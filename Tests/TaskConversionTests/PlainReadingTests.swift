import Foundation
import ICalendar
import TaskModel
import Testing

@testable import TaskConversion

/// Every record and diagnostic of `path`, read with `options`, as text for comparison.
private func transcript(_ path: String, _ options: ReadOptions) -> [String] {
    var lines: [String] = []
    let report = Converter.read(inputs: [path], options: options) { record, location in
        lines.append("\(location): \(record.jsonLine)")
    }
    return lines + report.errors.map { "error \($0)" } + report.warnings.map { "warning \($0)" }
}

/// Events around the plain shape: each either is plain or differs from it in one way that
/// the steps read their own way (a note, a kept line, another time form).
private let nearlyPlain: [(name: String, lines: [String])] = [
    ("plain", ["SUMMARY:Plan", "DESCRIPTION:Ein Text\\, mit Komma"]),
    (
        "plain with alarms",
        [
            "SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M",
            "DESCRIPTION:Soon", "END:VALARM", "BEGIN:VALARM", "ACTION:EMAIL", "TRIGGER:PT0S",
            "SUMMARY:Subject", "DESCRIPTION:Body", "END:VALARM", "BEGIN:VALARM", "ACTION:AUDIO",
            "TRIGGER:-P1D", "END:VALARM",
        ]
    ),
    (
        "kept lines",
        ["SUMMARY:Plan", "X-APPLE-TRAVEL:15", "SEQUENCE:3", "CREATED:20240101T000000Z"]
    ),
    ("no DTEND", ["SUMMARY:Plan"],),
    ("empty description", ["SUMMARY:Plan", "DESCRIPTION:"]),
    ("edge whitespace", ["SUMMARY:  Plan ", "DESCRIPTION:\t tab"]),
    ("lone backslash", ["SUMMARY:Plan\\"]),
    ("lower-case names", ["summary:Plan", "Description:text"]),
    ("no summary", ["DESCRIPTION:text"]),
    ("empty summary", ["SUMMARY:"]),
    ("second summary", ["SUMMARY:One", "SUMMARY:Two"]),
    ("parameter", ["SUMMARY;LANGUAGE=de:Plan"]),
    ("location", ["SUMMARY:Plan", "LOCATION:Room 1"]),
    (
        "alarm procedure",
        ["SUMMARY:Plan", "BEGIN:VALARM", "ACTION:PROCEDURE", "TRIGGER:-PT5M", "END:VALARM"]
    ),
    ("alarm none", ["SUMMARY:Plan", "BEGIN:VALARM", "ACTION:NONE", "TRIGGER:-PT5M", "END:VALARM"]),
    ("alarm without trigger", ["SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "END:VALARM"]),
    (
        "alarm related to end",
        [
            "SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;RELATED=END:PT5M",
            "DESCRIPTION:x", "END:VALARM",
        ]
    ),
    (
        "alarm absolute",
        [
            "SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY",
            "TRIGGER;VALUE=DATE-TIME:20260101T080000Z", "END:VALARM",
        ]
    ),
    (
        "alarm kept line",
        [
            "SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "X-WR-ALARMUID:1",
            "END:VALARM",
        ]
    ),
    (
        "alarm repeat",
        [
            "SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "REPEAT:2",
            "DURATION:PT5M", "END:VALARM",
        ]
    ),
    (
        "alarm inner sign",
        ["SUMMARY:Plan", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:PT-5M", "END:VALARM"]
    ),
    ("location component", ["SUMMARY:Plan", "BEGIN:VLOCATION", "NAME:Room", "END:VLOCATION"]),
    (
        "inline attachment",
        [
            "SUMMARY:Plan",
            "ATTACH;VALUE=BINARY;ENCODING=BASE64;FMTTYPE=text/plain;FILENAME=a b.txt:aGVsbG8=",
        ]
    ),
    (
        "linked attachment",
        ["SUMMARY:Plan", "ATTACH;FMTTYPE=application/pdf:https://example.com/a.pdf"]
    ),
    (
        "two attachments",
        ["SUMMARY:Plan", "ATTACH:https://example.com/a", "ATTACH:https://example.com/b"]
    ),
    (
        "attachment named by Apple",
        ["SUMMARY:Plan", "ATTACH;X-APPLE-FILENAME=a.pdf:https://example.com/a"]
    ),
    ("attachment not base64", ["SUMMARY:Plan", "ATTACH;VALUE=BINARY;ENCODING=BASE64:@@@@"]),
    (
        "attachment with size",
        ["SUMMARY:Plan", "ATTACH;SIZE=5;VALUE=BINARY;ENCODING=BASE64:aGVsbG8="]
    ),
    ("malformed kept line", ["SUMMARY:Plan", "X-FOO;=bad:1"]),
]

/// The calendar of `nearlyPlain`, each with `start` and `end` lines (nil: none).
private func calendar(uid: (Int) -> String, start: String, end: String?) -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"]
    for (index, event) in nearlyPlain.enumerated() {
        lines += ["BEGIN:VEVENT", "UID:\(uid(index))", "DTSTAMP:20240101T000000Z", start]
        if let end, event.name != "no DTEND" { lines.append(end) }
        lines += event.lines
        lines.append("END:VEVENT")
    }
    lines.append("END:VCALENDAR")
    return lines.joined(separator: "\r\n") + "\r\n"
}

@Suite("Plain events read in one pass give what the steps give")
struct PlainReadingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let scheme = UIDScheme(namespace: "plain")

    /// The times and UIDs each event of `nearlyPlain` is written with.
    static let variants:
        [(name: String, uid: @Sendable (Int) -> String, start: String, end: String?)] = [
            (
                "derived UIDs", { scheme.uid(for: Int64($0 + 1)) }, "DTSTART:20260101T090000Z",
                "DTEND:20260101T100000Z"
            ),
            (
                "foreign UIDs", { "event-\($0)@example.com" }, "DTSTART:20260101T090000Z",
                "DTEND:20260101T100000Z"
            ),
            ("empty UIDs", { _ in "" }, "DTSTART:20260101T090000Z", "DTEND:20260101T100000Z"),
            (
                "end before start", { "e\($0)" }, "DTSTART:20260101T090000Z",
                "DTEND:20260101T080000Z"
            ),
            ("zero length", { "e\($0)" }, "DTSTART:20260101T090000Z", "DTEND:20260101T090000Z"),
            ("dates", { "e\($0)" }, "DTSTART:20260101", "DTEND:20260102"),
            ("floating", { "e\($0)" }, "DTSTART:20260101T090000", "DTEND:20260101T100000"),
            (
                "zoned", { "e\($0)" }, "DTSTART;TZID=Europe/Berlin:20260101T090000",
                "DTEND;TZID=Europe/Berlin:20260101T100000"
            ),
            (
                "UTC start, floating end", { "e\($0)" }, "DTSTART:20260101T090000Z",
                "DTEND:20260101T100000"
            ),
            ("impossible date", { "e\($0)" }, "DTSTART:20261345T256199Z", "DTEND:20260101T100000Z"),
            ("no start", { "e\($0)" }, "X-NO-START:1", nil),
        ]

    private func directory() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "plain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func options(plain: Bool, strict: Bool) -> ReadOptions {
        var options = ReadOptions(uidScheme: Self.scheme, floatingZone: "Europe/Berlin")
        options.readsPlainEvents = plain
        options.strict = strict
        return options
    }

    @Test("events near the plain shape", arguments: [false, true])
    func nearlyPlainEvents(strict: Bool) throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for variant in Self.variants {
            let file = folder.appendingPathComponent("\(variant.name).ics")
            try calendar(uid: variant.uid, start: variant.start, end: variant.end)
                .write(to: file, atomically: true, encoding: .utf8)
            let stepwise = transcript(file.path, options(plain: false, strict: strict))
            #expect(!stepwise.isEmpty)
            #expect(
                transcript(file.path, options(plain: true, strict: strict)) == stepwise,
                "\(variant.name)")
        }
    }

    @Test("the plain events are read in one pass, the others are not")
    func plainShapeIsTaken() throws {
        let text = calendar(
            uid: { Self.scheme.uid(for: Int64($0 + 1)) }, start: "DTSTART:20260101T090000Z",
            end: "DTEND:20260101T100000Z")
        let reader = ICalendarReader(text: text)
        reader.interpretedProperties = RecordMapping.interpreted
        let events = EventReader(uidScheme: Self.scheme)
        var plain: [String] = []
        var index = 0
        while let item = try reader.next() {
            if case .component(let component) = item, events.readPlain(component) != nil {
                plain.append(nearlyPlain[index].name)
            }
            index += 1
        }
        #expect(index == nearlyPlain.count)
        #expect(
            plain == [
                "plain", "plain with alarms", "kept lines", "no DTEND", "empty description",
                "edge whitespace", "lone backslash", "lower-case names",
                // The reader repairs the sign before libical reads the line (with a note).
                "alarm inner sign", "inline attachment", "linked attachment", "two attachments",
            ])
    }

    @Test("the samples, the fuzz seeds and the real-world corpus")
    func files() throws {
        var files: [String] = []
        for folder in [
            "Samples", "Samples/broken", "Samples/invites", "Tests/EndToEndTests/Fixtures/fuzz",
        ] {
            let url = Self.root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path)
            where name.hasSuffix(".ics") {
                files.append(url.appendingPathComponent(name).path)
            }
        }
        // The corpus, when the end-to-end tests have fetched it (CorpusTests).
        let cache = Self.root.appendingPathComponent(".corpus-cache")
        if let walker = FileManager.default.enumerator(atPath: cache.path) {
            for case let path as String in walker
            where path.hasSuffix(".ics") && !path.hasPrefix("_sdists") {
                files.append(cache.appendingPathComponent(path).path)
            }
        }
        #expect(files.count >= 17)
        for file in files.sorted() {
            for strict in [false, true] {
                #expect(
                    transcript(file, options(plain: true, strict: strict))
                        == transcript(file, options(plain: false, strict: strict)),
                    "\(file) strict: \(strict)")
            }
        }
    }
}
