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
