import Foundation
import Testing

@testable import TaskModel

/// What reading `text` the general way gives (`reading` times-only: the skeleton): the record
/// or its problems, or the syntax error.
private func fullReading(_ text: String, _ reading: TaskJSON.Reading = .whole) -> String {
    do {
        let value = try JSONValue.parse(
            Data(text.utf8), skipping: reading.skipping(recordDepth: .line))
        switch TaskJSON.record(value) {
        case .success(let record):
            return "record \((reading == .timesOnly ? record.timeSkeleton : record).jsonLine)"
        case .failure(let problems): return "problems \(problems)"
        }
    } catch {
        return "syntax \(error.reason) \(String(describing: error.offset))"
    }
}

/// What the plain reader gives for `text`: the record, or nil.
private func plainReading(_ text: String, _ reading: TaskJSON.Reading = .whole) -> String? {
    // As its callers take it: a record with problems is read in full.
    guard let record = TaskJSON.plainRecord(Data(text.utf8), reading: reading),
        record.problems.isEmpty
    else { return nil }
    if reading == .timesOnly { #expect(record.isTimeSkeleton) }
    return "record \(record.jsonLine)"
}

/// Records the plain reader takes only times-only: fields a report of times does not read,
/// holding anything, at the nesting limit and past it, named twice.
private let timesOnlyTexts: [String] = [
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "description": 5, "alarms": "x", "attachments": [{"bad": 1}], "location": {"a": [1, 2e5, null]}, "categories": null, "color": true, "url": [], "subtasks": [{}], "organizer": "o", "attendees": -1.5e3, "ical_components": [[]]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "location": "#
        + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}",
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "location": "#
        + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}",
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "description": "a", "description": "b"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [], "alarms": []}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "description": "\ud800"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "description": "a\u0000"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "color": tru}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "color": "red", "status": "cancelled"}"#,
    #"{"id": 1, "date_start": "\u0031", "date_finish": " 2", "name": "x", "color": "red"}"#,
    #"{"id": 1, "date_start": "1234567890123456789", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": "-", "date_finish": "-2", "name": "x"}"#,
]

/// Records around the plain shape, each plain or one change away from it.
private let texts: [String] = [
    #"{"id": 1, "date_start": "147600000", "date_finish": "147610000", "name": "My task", "description": "Описание моего дела"}"#,
    #"{"name":"n","id":-7,"date_finish":"10","date_start":"-5","uid":"a@b"}"#,
    #"  {"id": 0, "date_start": 5, "date_finish": 6, "name": "x"}  "#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "e\u0301\n\t\"\\/\ud83d\ude00 tail"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "DISPLAY", "trigger": "-PT15M", "description": "d"}, {"trigger": "P1D", "action": "Display", "summary": "s", "description": "b"}, {"action": "audio", "trigger": "PT0S"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": []}"#,
    // One change away.
    #"{"id": 1.0, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1e2, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 01, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": -0, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 9223372036854775807, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 92233720368547758070, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 9223372036854775808, "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": -9223372036854775809, "date_start": 99999999999999999999, "date_finish": "2", "name": "x"}"#,
    #"{"id": "1", "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": "+1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": "001", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": 1.5, "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "0", "name": "x"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": ""}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "  "}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "a\u0000b"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "\ud800"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "name": "y"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "description": null}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "uid": ""}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "color": "red"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "nam\u0065": "y"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x",}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x"} x"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x""#,
    #"{"id": 1 "date_start": "1", "date_finish": "2", "name": "x"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "procedure", "trigger": "-PT5M"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "display", "trigger": "PT-5M"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "display", "trigger": "-PT5M", "related": "end"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "display"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": [{"action": "display", "trigger": "-PT5M"},]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "alarms": {}}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "kind": "todo"}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"data": "!!"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"data": "aGk=", "url": "https://a"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"path": "a.txt"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"url": "https://a", "ical_parameters": "SIZE=1"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"url": "https://a", "mime_type": "no type"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"filename": "a", "filename": "b", "url": "https://a"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"filename": null, "url": "https://a"}]}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{}]}"#,
    // Plain again.
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": [{"filename": "a.txt", "mime_type": "text/plain", "data": "aGVsbG8="}, {"url": "https://example.com/a.pdf"}], "alarms": []}"#,
    #"{"id": 1, "date_start": "1", "date_finish": "2", "name": "x", "attachments": []}"#,
    #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": "x"}]"#,
    #""text""#, "", "{}", "[]",
]

@Suite("Plain records read straight from their bytes are what reading them in full gives")
struct PlainJSONTests {
    @Test("records near the plain shape")
    func nearlyPlain() {
        var plain: [Int] = []
        for (index, text) in texts.enumerated() {
            let full = fullReading(text)
            guard let fast = plainReading(text) else { continue }
            plain.append(index)
            #expect(fast == full, "\(text)")
        }
        // The plain ones, and those one change away that are plain still (-0, "001").
        #expect(plain == [0, 1, 2, 3, 4, 5, 9, 16, 48, 49], "read straight from their bytes")
    }

    @Test("records read times-only straight from their bytes are their skeletons")
    func timesOnly() {
        var plain: [Int] = []
        for (index, text) in (texts + timesOnlyTexts).enumerated() {
            guard let fast = plainReading(text, .timesOnly) else { continue }
            plain.append(index)
            #expect(fast == fullReading(text, .timesOnly), "\(text)")
        }
        // The plain ones, those whose alarms, attachments or other fields skipped times-only
        // hold anything, and of the times-only shapes those that are JSON with each field once.
        #expect(
            plain == [
                0, 1, 2, 3, 4, 5, 9, 16, 24, 26, 33, 34, 35, 36, 37, 38, 40, 41, 42, 43, 44, 45,
                46, 47, 48, 49, 55, 56, 60, 61,
            ], "read straight from their bytes")
        // A file's array, times-only, each way.
        let elements = (texts + timesOnlyTexts).filter { $0.hasPrefix("{") || $0.hasPrefix("  {") }
        for text in ["[" + elements.joined(separator: ",\n") + "]"] + elements.map({ "[\($0)]" }) {
            let data = Data(text.utf8)
            let viaPlain = Self.describe { try TaskJSON.decodeFile(data, reading: .timesOnly) }
            let viaFull = Self.describe {
                try TaskJSON.decodeFile(data, reading: .timesOnly, plainRecords: false)
            }
            #expect(viaPlain == viaFull, "\(text.prefix(200))")
        }
    }

    @Test("an NDJSON line and a one-record file read alike either way")
    func lines() throws {
        for text in texts {
            let data = Data(text.utf8)
            var line: String
            do {
                switch try TaskJSON.decodeLine(data) {
                case .success(let record): line = "record \(record.jsonLine)"
                case .failure(let problems): line = "problems \(problems)"
                }
            } catch {
                line = "error \(error.message)"
            }
            let full = fullReading(text)
            if case .object? = try? JSONValue.parse(data) {
                #expect(line == full, "\(text)")
            } else {
                #expect(line.hasPrefix("error"), "\(text)")
            }
        }
    }

    @Test("a file's array: each element plain or read in full, syntax errors as before")
    func arrays() throws {
        let elements = texts.filter { $0.hasPrefix("{") || $0.hasPrefix("  {") }
        var arrays = [
            "[" + elements.joined(separator: ",\n") + "]",
            "[" + elements.prefix(4).joined(separator: ", ") + ",]",
            "[ ]", "[1, \"x\", null, {}]", "[{\"id\": 1}, ]", "[{\"id\": 1} {\"id\": 2}]",
            "[" + elements[0] + ", " + elements[1] + "] trailing",
        ]
        arrays.append(
            "[" + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "]")
        arrays.append(
            "[" + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "]")
        for text in arrays {
            let data = Data(text.utf8)
            let viaPlain = Self.describe { try TaskJSON.decodeFile(data) }
            let viaFull = Self.describe {
                try TaskJSON.decodeFile(data, reading: .whole, plainRecords: false)
            }
            #expect(viaPlain == viaFull, "\(text.prefix(200))")
        }
    }

    @Test("random changes to plain lines")
    func mutations() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[],:"\ 0123456789-+.eEaxnul"#.utf8)
        let plainTexts = texts.prefix(6)
        for _ in 0..<4000 {
            var bytes = Array(plainTexts.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let fast = plainReading(text) {
                #expect(fast == fullReading(text), "\(text)")
            }
            if let fast = plainReading(text, .timesOnly) {
                #expect(fast == fullReading(text, .timesOnly), "\(text)")
            }
        }
    }

    private static func describe(_ read: () throws -> TaskJSON.File) -> String {
        do {
            let file = try read()
            return file.records.map {
                switch $0 {
                case .success(let record): "record \(record.jsonLine)"
                case .failure(let problems): "problems \(problems)"
                }
            }.joined(separator: "\n")
        } catch {
            return "error \(error)"
        }
    }
}
