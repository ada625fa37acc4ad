import ICalendar
import Testing

/// What a line kept verbatim looks like after libical printed it, unfolded.
private func printed(_ text: String) throws -> String {
    let component = Component(kind: .event)
    component.add(Property(verbatim: try ContentLine(parsing: text)))
    let serialized = component.serialized().replacingOccurrences(of: "\r\n ", with: "")
    let lines = serialized.components(separatedBy: "\r\n")
    return lines[1]
}

@Suite("Lines kept verbatim go back out as they came in")
struct VerbatimTests {
    @Test(
        "libical prints the line unchanged",
        arguments: [
            #"X-FOO:a\,b\;c\\d\ne"#,
            "RELATED-TO;VALUE=UID:abc",
            "RDATE;VALUE=TIME:100000",
            "GEO:1.5;2.5",
            "REQUEST-STATUS:2.0;Success",
            "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6",
            #"ATTENDEE;EMAIL=a@b.example;X-NUM-GUESTS=0;CN="Doe, Jane":mailto:a@b.example"#,
            "X-EMPTY:",
            "CONTACT:",
            "X-SPACES:  padded  ",
            #"CATEGORIES:Meeting\, John,Other"#,
            "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=Home:geo:52.5,13.4",
            "EXDATE;TZID=Europe/Berlin:20240101T100000,20240108T100000",
            "X-CYRILLIC:" + String(repeating: "Описание ", count: 30) + #"\, end\\"#,
        ])
    func roundTrip(line: String) throws {
        #expect(try printed(line) == line)
    }

    @Test("a parameter value with a colon, comma or semicolon is quoted; a caret is encoded")
    func quoting() throws {
        #expect(try printed(#"X-A;X-P="a:b":v"#) == #"X-A;X-P="a:b":v"#)
        #expect(try printed(#"X-A;X-P="x^'y^'":v"#) == #"X-A;X-P=x^'y^':v"#)
    }

    @Test("a backslash next to a fold survives, and no line grows past 75 octets")
    func backslashAcrossFolds() throws {
        for padding in 60...80 {
            let line =
                "X-A:" + String(repeating: "x", count: padding) + #"\,\\\n"#
                + String(repeating: "y", count: 100)
            let component = Component(kind: .event)
            component.add(Property(verbatim: try ContentLine(parsing: line)))
            let bytes = Array(component.serialized().utf8)
            #expect(!bytes.contains(0xFF))
            for physical in component.serialized().components(separatedBy: "\r\n") {
                #expect(physical.utf8.count <= 75)
            }
            #expect(
                component.serialized().replacingOccurrences(of: "\r\n ", with: "")
                    .contains(line))
        }
    }

    @Test(
        "malformed lines are refused with what is wrong",
        arguments: [
            ("no colon here", "expected ':'"),
            ("SUMMARY;LANGUAGE:x", "NAME=VALUE"),
            (#"SUMMARY;X-A="open:x"#, "not closed"),
            ("BEGIN:VEVENT", "structure"),
            ("X-A:a\u{1}b", "control character"),
        ])
    func refused(line: String, expected: String) {
        let problem = Property.verbatimProblem(line)
        #expect(problem?.contains(expected) == true, "\(problem ?? "nil")")
    }
}

@Suite("A content line's value refuses control characters, wherever they stand")
struct ControlCharacterTests {
    @Test("each ASCII byte at each place of a value two words long: refused if CONTROL")
    func everyByteEveryPlace() {
        for byte in UInt8(0)...UInt8(0x7F) {
            let isControl = byte < 0x20 && byte != 0x09 || byte == 0x7F
            for place in 0..<19 {
                var value = Array("abcdefghijklmnopqrs".utf8)
                value[place] = byte
                let line = "X-TEST:" + String(decoding: value, as: UTF8.self)
                let refused = (try? ContentLine(parsing: line)) == nil
                #expect(refused == isControl, "byte \(byte) at \(place)")
            }
        }
        // Text beyond ASCII (its bytes are 0x80 and above) holds no control character.
        #expect((try? ContentLine(parsing: "X-TEST:отчёт 会議 😀 naïve")) != nil)
    }
}
