import Foundation
import Testing

@testable import TaskModel

@Suite("JSONValue: the task format's own JSON reader")
struct JSONValueTests {
    private func parse(_ text: String) throws(JSONValue.SyntaxError) -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    @Test("values, escapes and surrogate pairs read as JSON says")
    func values() throws {
        let value = try parse(
            #"{"a": [true, false, null, -1.5e3, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {}}"#)
        #expect(
            value
                == .object([
                    .init(
                        name: "a",
                        value: .array([
                            .bool(true), .bool(false), .null, .number("-1.5e3"),
                            .string("x\"\\/\u{8}\u{C}\n\r\té😀"),
                        ])),
                    .init(name: "b", value: .object([])),
                ]))
        #expect(try parse(#"{"k": 1, "k": 2}"#)["k"] == .number("1"), "the first member wins")
    }

    @Test("member names are read alike whether the task format knows them or not")
    func memberNames() throws {
        // Known names (from the table), near-misses, an escaped spelling and an unknown name,
        // in the middle of the text and as the last bytes of it (fewer than 16 left to load).
        let names = [
            "id", "date_start", "date_stArt", "date_star", "date_startx", "this_and_future",
            "ical_components", "x", "calendar", "records", "описание", "",
        ]
        func firstName(_ value: JSONValue) -> String? {
            guard case .object(let members) = value else { return nil }
            return members.first?.name
        }
        for name in names {
            #expect(firstName(try parse(#"{"\#(name)": 1, "padding to read past": 2}"#)) == name)
            #expect(firstName(try parse(#"{"\#(name)":1}"#)) == name)
        }
        #expect(firstName(try parse(#"{"dat\u0065_start": 1}"#)) == "date_start")
    }

    @Test("strings that are no text are values that say why, not syntax errors")
    func invalidStrings() throws {
        #expect(
            try parse(#""\uD800""#)
                == .invalidString(
                    "a \\u escape of half a UTF-16 pair, such as \\uD800, is no character"))
        #expect(
            try parse("\"a\tb\"")
                == .invalidString("a control character (U+0009) that is not escaped"))
        #expect(try parse(#""\x""#) == .invalidString("an escape \\x that JSON has not"))
        #expect(try parse(#""\u12""#) == .invalidString("a \\u escape without four hex digits"))
    }

    @Test(
        "syntax errors give the offset Foundation's parser gave",
        arguments: [
            ("[1 2]", 3), ("[,]", 1), ("{\"a\" 1}", 5), ("[1] x", 4), ("{1: 2}", 1), ("[tru]", 1),
        ])
    func offsets(text: String, offset: Int) {
        #expect(throws: JSONValue.SyntaxError.self) { _ = try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.offset == offset)
            #expect(error.reason == "Invalid value")
        }
    }

    @Test("the end of the text, nesting past 512 and trailing commas")
    func limits() throws {
        for text in ["[", "{\"a\": ", "\"abc", "[1,", "{\"a\": 1,"] {
            do {
                _ = try parse(text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.offset == nil, "\(text)")
            }
        }
        #expect(throws: Never.self) {
            _ = try parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        }
        do {
            _ = try parse(String(repeating: "[", count: 513) + String(repeating: "]", count: 513))
            Issue.record("513 levels parsed")
        } catch {
            #expect(error.reason == "Too many nested arrays or dictionaries")
            #expect(error.offset == 513)
        }
        #expect(try parse("[1, 2,]") == .array([.number("1"), .number("2")]))
        #expect(try parse(#"{"a": 1,}"#) == .object([.init(name: "a", value: .number("1"))]))
    }

    @Test(
        "numbers: whole, out of range, fractions and what is no JSON number",
        arguments: [
            ("1", "whole 1"), ("1.0", "whole 1"), ("1e2", "whole 100"), ("-0", "whole 0"),
            ("9223372036854775807", "whole 9223372036854775807"), ("9223372036854775808", "out"),
            ("1.5", "fraction"), ("01", "invalid"), ("1.", "invalid"), ("-", "invalid"),
            ("1E400", "invalid"), ("1e+2", "whole 100"), ("--1", "invalid"),
        ])
    func numbers(text: String, expected: String) {
        let found: String
        switch JSONNumber(text) {
        case .whole(let value): found = "whole \(value)"
        case .outOfRange: found = "out"
        case .fraction: found = "fraction"
        case .invalid: found = "invalid"
        }
        #expect(found == expected)
    }
}

@Suite("JSONWriter: bytes into one buffer")
struct JSONWriterTests {
    @Test("escapes what JSON requires, writes UTF-8 as is, and reads back to the same text")
    func escapes() throws {
        let text = "a\u{1}b\u{1F}\"\\\n\r\t é 😀 \u{7F}"
        var writer = JSONWriter()
        writer.string(text)
        #expect(writer.text == #""a\u0001b\u001f\"\\\n\r\t é 😀 \#u{7F}""#)
        #expect(try JSONValue.parse(Data(writer.bytes)) == .string(text))
    }

    @Test("each ASCII character at each place in an eight-byte word: escaped only if JSON needs")
    func escapesAcrossWords() throws {
        func expected(_ scalar: Unicode.Scalar) -> String {
            switch scalar {
            case "\"": #"\""#
            case "\\": #"\\"#
            case "\n": #"\n"#
            case "\r": #"\r"#
            case "\t": #"\t"#
            case _ where scalar.value < 0x20: String(format: "\\u%04x", scalar.value)
            default: String(scalar)
            }
        }
        for value in UInt8(0)...0x7F {
            let scalar = Unicode.Scalar(value)
            for before in 0..<17 {
                let padding = String(repeating: "a", count: before)
                let after = String(repeating: "é", count: (Int(value) + before) % 9)
                let text = padding + String(scalar) + after
                var writer = JSONWriter()
                writer.string(text)
                #expect(writer.text == "\"" + padding + expected(scalar) + after + "\"")
                #expect(try JSONValue.parse(Data(writer.bytes)) == .string(text))
            }
        }
    }

    @Test("numbers are written in place: the buffer is never copied for one (a debug build did)")
    func numbersInPlace() {
        var writer = JSONWriter()
        writer.reserveCapacity(1 << 24)
        writer.begin()
        var address = writer.bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        var moves = 0
        for value in Int64(0)..<1_000 {
            writer.field("n", number: value)
            writer.field("s", numberString: -value)
            // A copy lands elsewhere: with 16 MB reserved, as the overlap report's workers
            // reserve, the buffer is mapped anew (a small one may get its old place back).
            let now = writer.bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            if now != address { moves += 1 }
            address = now
        }
        writer.end()
        // A copy per number made an overlap report of 44,850 pairs take minutes.
        #expect(moves == 0)
        #expect(writer.bytes.count > 10_000)
    }

    @Test("numbers, the extremes included, as numbers and as strings")
    func numbers() {
        var writer = JSONWriter()
        writer.begin()
        writer.field("a", number: 0)
        writer.field("b", number: Int64.min)
        writer.field("c", numberString: Int64.max)
        writer.field("d", numberString: -7)
        writer.key("e")
        writer.array([10, -1]) { writer, value in writer.numberString(value) }
        writer.end()
        #expect(
            writer.text
                == #"{"a": 0, "b": -9223372036854775808, "c": "9223372036854775807", "d": "-7", "e": ["10", "-1"]}"#
        )
    }

    @Test("reset keeps nothing of the last record")
    func reset() {
        var writer = JSONWriter()
        writer.begin()
        writer.field("name", string: "first")
        writer.end()
        writer.reset()
        writer.begin()
        writer.field(named: "x-param", string: "second")
        writer.end()
        #expect(writer.text == #"{"x-param": "second"}"#)
    }
}

@Suite("The JSON reader's UTF-8 check")
struct UTF8CheckTests {
    @Test("agrees with the standard library on every lead and second byte")
    func agreesWithStandardLibrary() {
        let tails: [[UInt8]] = [[], [0x80], [0xBF], [0x7F], [0xC0], [0x80, 0x80], [0xBF, 0xBF]]
        var checked = 0
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0)...0xFF {
                for tail in tails {
                    // Text before it, of every length up to 11, moves the sequence across the
                    // eight-byte words the check reads ASCII in.
                    let before = [UInt8](repeating: 0x61, count: (Int(lead) + Int(second)) % 12)
                    let bytes =
                        [UInt8(ascii: "\"")] + before + [lead, second] + tail + [UInt8(ascii: "\"")]
                    let standard = String(validating: bytes, as: UTF8.self) != nil
                    let ours = TaskJSON.encodingProblem(Data(bytes)) == nil
                    if standard != ours {
                        Issue.record("\(bytes): standard library \(standard), ours \(ours)")
                        return
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 128 * 256 * 7)
    }

    @Test("agrees with the standard library on runs of mixed characters with a byte changed")
    func agreesOnRuns() {
        // Characters of every length, run together as words in Cyrillic, CJK or emoji are,
        // with ASCII between them; then one byte replaced by another, anywhere.
        let pieces = ["a", " ", "ж", "Ü", "会", "😀", "\u{7FF}", "\u{FFFD}", "\u{10FFFF}", "\u{800}"]
            .map { Array($0.utf8) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var disagreements = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<random(24) { bytes += pieces[random(pieces.count)] }
            if !bytes.isEmpty && random(4) != 0 {
                bytes[random(bytes.count)] = UInt8(random(256))
            }
            let standard =
                String(validating: bytes, as: UTF8.self) != nil && !bytes.contains(0)
            let ours = TaskJSON.encodingProblem(Data([0x22] + bytes + [0x22])) == nil
            if standard != ours { disagreements += 1 }
        }
        #expect(disagreements == 0)
    }

    @Test(
        "an NDJSON line read plain, not checked first, gives what checking first gives, whatever byte is changed"
    )
    func plainLinesCheckThemselves() {
        // The overload for a line's bytes reads a plain record before it checks the encoding
        // (the record's strings check themselves); the one for Data still checks first. The
        // text holds characters whose UTF-8 starts with EF (fullwidth letters, U+FFFD itself),
        // which a repair would write too.
        let line = Array(
            #"{"id": 3, "date_start": "1700000000", "date_finish": "1700003600", "name": "Встреча ü 会 ＡＢ �", "description": "две\nстроки ＣＤ \"в\" кавычках", "alarms": [{"action": "display", "trigger": "-PT15M", "description": "скоро"}], "attachments": [{"url": "https://example.com/a.pdf", "filename": "план.pdf"}]}"#
                .utf8)
        let replacements: [UInt8] = [
            0x00, 0x0A, 0x22, 0x5C, 0x61, 0x7F, 0x80, 0xBD, 0xBF, 0xC0, 0xD0, 0xE9, 0xEF, 0xFF,
        ]
        var generator = SplitMix(seed: 59)
        /// What a line gave, compared as values (a record's description is slow to make).
        enum Outcome: Equatable {
            case record(TaskRecord)
            case problems([Problem])
            case calendar
            case error(Int?, String)
        }
        func outcome(_ read: () throws(TaskJSON.SyntaxError) -> TaskJSON.Line) -> Outcome {
            do {
                switch try read() {
                case .record(.success(let record)): return .record(record)
                case .record(.failure(let problems)): return .problems(problems.problems)
                case .calendar, .invalidCalendar: return .calendar
                }
            } catch {
                return .error(error.line, error.message)
            }
        }
        var records = 0
        var differences: [String] = []
        for round in 0..<1_500 {
            var bytes = line
            for _ in 0...(round % 2) {
                bytes[Int(generator.next() % UInt64(bytes.count))] =
                    replacements[Int(generator.next() % UInt64(replacements.count))]
            }
            let checkedFirst = outcome { () throws(TaskJSON.SyntaxError) in
                try TaskJSON.decodeNDJSONLine(Data(bytes))
            }
            let plainFirst = bytes.withUnsafeBytes { raw in
                outcome { () throws(TaskJSON.SyntaxError) in try TaskJSON.decodeNDJSONLine(raw) }
            }
            if checkedFirst != plainFirst {
                differences.append(String(decoding: bytes, as: UTF8.self))
            }
            if case .record = checkedFirst { records += 1 }
        }
        #expect(differences.isEmpty, "\(differences.prefix(3))")
        // Both kinds of outcome were met: changes that leave a record and changes that do not.
        #expect(records > 50 && records < 1_450)
    }

    @Test("a NUL or a stray byte is found at its line and column wherever it falls in a word")
    func place() {
        for before in 0..<20 {
            for bad: UInt8 in [0x00, 0xE9] {
                let bytes = Array("{\n".utf8) + [UInt8](repeating: 0x61, count: before) + [bad]
                let problem = TaskJSON.encodingProblem(Data(bytes))
                #expect(problem?.line == 2)
                #expect(problem?.message.contains("column \(before + 1)") == true)
            }
        }
    }
}

@Suite("ByteScan: eight bytes at a time, the answers of the plain loop")
struct ByteScanTests {
    @Test("string stops and control characters at every offset of random text")
    func agreesWithPlainLoop() {
        var generator = SplitMix(seed: 7)
        let alphabet: [UInt8] = [
            0x00, 0x09, 0x0A, 0x1F, 0x20, 0x22, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0xD0,
        ]
        for _ in 0..<3_000 {
            let count = Int(generator.next() % 40)
            // Mostly plain letters, so that long runs cross whole words.
            let bytes = (0..<count).map { _ in
                generator.next() % 4 == 0 ? alphabet[Int(generator.next() % 12)] : 0x61
            }
            bytes.withUnsafeBytes { raw in
                for start in 0...count {
                    let stop =
                        bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
                        ?? count
                    #expect(ByteScan.stringStop(in: raw, from: start) == stop, "\(bytes) \(start)")
                }
                #expect(
                    ByteScan.firstControl(in: raw) == bytes.firstIndex { $0 < 0x20 || $0 == 0x7F })
                for byte: UInt8 in [0x00, 0x22, 0x7F, 0x80, 0xD0] {
                    #expect(ByteScan.contains(byte, in: raw) == bytes.contains(byte), "\(bytes)")
                }
            }
        }
    }
}

@Suite("Reading records for their times only (reports)")
struct TimesOnlyReadingTests {
    /// A record with every kind of field, the skipped ones full of escapes, nesting and text.
    private static let full = #"""
        {"id": 7, "date_start": "1790005267", "date_finish": "1790009703", "name": "Überprüfung \"x\"",
         "description": "встреча\n\\ \u00e9 \ud83d\ude00", "uid": "u-7@example.com", "kind": "todo",
         "status": "in-process", "class": "private", "time_zone": "Europe/Berlin", "all_day": false,
         "recurrence": {"rule": "FREQ=WEEKLY;COUNT=3", "exdates": ["1790610067"]},
         "alarms": [{"action": "display", "trigger": "-PT5M", "description": "会議 [x] {y}"}],
         "attachments": [{"url": "https://example.com/a.pdf", "filename": "a.pdf"}],
         "location": "Room 1", "categories": ["a", "b"], "color": "red", "url": "https://example.com",
         "organizer": {"address": "mailto:a@example.com", "name": "A"},
         "attendees": [{"address": "mailto:b@example.com", "parameters": {"ROLE": "CHAIR"}}],
         "ical_extra": ["X-A:1"], "ical_parameters": {"DTSTART": "X-P=1"}, "ical_components": [],
         "subtasks": [{"id": 8, "kind": "todo", "name": "sub", "description": "d"}]}
        """#

    private func line(_ text: String, _ reading: TaskJSON.Reading) throws -> TaskRecord {
        guard
            case .record(let result) = try TaskJSON.decodeNDJSONLine(
                Data(text.utf8), reading: reading)
        else { throw RecordProblems([Problem(field: "", "not a record")]) }
        return try result.get()
    }

    @Test("a record read times-only is the skeleton of the record read whole")
    func skeleton() throws {
        let oneLine = Self.full.replacingOccurrences(of: "\n", with: " ")
        let whole = try line(oneLine, .whole)
        #expect(whole.description != nil && !whole.alarms.isEmpty && !whole.subtasks.isEmpty)
        #expect(try line(oneLine, .timesOnly) == whole.timeSkeleton)
        #expect(
            whole.timeSkeleton.recurrence != nil && whole.timeSkeleton.classification == .private)
        // The three shapes of a JSON file: an array, one record, and the object form.
        for text in [
            "[\(Self.full), \(Self.full.replacingOccurrences(of: "\"id\": 7", with: "\"id\": 9"))]",
            Self.full,
            "{\"calendar\": {\"name\": \"c\", \"ical_extra\": [\"X-WR-TIMEZONE:UTC\"]}, \"records\": [\(Self.full)]}",
        ] {
            let whole = try TaskJSON.decodeFile(Data(text.utf8))
            let timesOnly = try TaskJSON.decodeFile(Data(text.utf8), reading: .timesOnly)
            #expect(
                try whole.records.map { try $0.get().timeSkeleton }
                    == timesOnly.records.map { try $0.get() })
            // The calendar's own data is no record: read whole either way.
            #expect(whole.calendar == timesOnly.calendar)
        }
    }

    @Test("what is skipped is not checked; what is read is, and unknown fields still are")
    func checks() throws {
        let badAlarm =
            #"{"id": 1, "date_start": "10", "date_finish": "20", "name": "n", "alarms": [{"action": "shout"}]}"#
        #expect(throws: RecordProblems.self) { try line(badAlarm, .whole) }
        #expect(try line(badAlarm, .timesOnly).alarms.isEmpty)
        let badTime =
            #"{"id": 1, "date_start": "x", "date_finish": "20", "name": "n", "description": 5}"#
        #expect(throws: RecordProblems.self) { try line(badTime, .timesOnly) }
        let unknown =
            #"{"id": 1, "date_start": "10", "date_finish": "20", "name": "n", "nmae": "x"}"#
        #expect(throws: RecordProblems.self) { try line(unknown, .timesOnly) }
    }

    @Test(
        "a syntax error in a skipped field is the same error at the same place",
        arguments: [
            #"{"id": 1, "name": "n", "description": "open"#,
            #"{"id": 1, "name": "n", "description": "a\"#,
            #"{"id": 1, "name": "n", "alarms": [{"a": 1} {"b": 2}]}"#,
            #"{"id": 1, "name": "n", "alarms": [tru]}"#,
            #"{"id": 1, "name": "n", "subtasks": [[[[]]]"#,
            #"{"id": 1, "name": "n", "location": 1 2}"#,
            #"{"id": 1, "name": "n", "categories": ["a",, "b"]}"#,
            #"{"id": 1, "name": "n", "description": "\uD800\"", "x": }"#,
            "{\"id\": 1, \"attachments\": " + String(repeating: "[", count: 600)
                + String(repeating: "]", count: 600) + "}",
        ])
    func syntaxErrors(text: String) {
        func message(_ reading: TaskJSON.Reading) -> String? {
            do {
                _ = try TaskJSON.decodeNDJSONLine(Data(text.utf8), reading: reading)
                return nil
            } catch {
                return "\(error.line ?? -1): \(error.message)"
            }
        }
        #expect(message(.whole) != nil)
        #expect(message(.timesOnly) == message(.whole))
    }
}

@Suite("Blank names found without Unicode's tables for nearly every name")
struct BlankNameTests {
    @Test("every White_Space scalar is among those the quick test lets through")
    func everyWhitespaceScalar() {
        var missed: [UInt32] = []
        for value in UInt32(0)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.properties.isWhitespace && !TaskRecord.mayBeWhitespace(scalar) {
                missed.append(value)
            }
        }
        #expect(missed.isEmpty)
    }

    @Test("a name of whitespace alone is refused, a name with anything else is not")
    func blankNames() {
        for (name, blank) in [
            ("", true), (" ", true), ("\u{3000}", true), ("\u{A0}\u{2003}\t", true),
            (" \u{301}", true), ("ж", false), ("\u{3000}ж", false), ("😀", false),
            ("\u{2010}", false),
        ] {
            let record = TaskRecord(id: 1, dateStart: 0, dateFinish: 0, name: name)
            #expect(
                record.problems.contains { $0.field == "name" } == blank, "\(name.debugDescription)"
            )
        }
    }
}
