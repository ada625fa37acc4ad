import Foundation
import TaskModel
import Testing

private func decode(_ json: String) throws -> [Result<TaskRecord, RecordProblems>] {
    try TaskJSON.decodeFile(Data(json.utf8)).records
}

private func problems(_ json: String) throws -> [String] {
    guard case .failure(let failure)? = try decode(json).first else { return [] }
    return failure.problems.map(\.description)
}

@Suite("The task format: decoding and rules")
struct DecodingTests {
    @Test("the spec's example decodes, timestamps as strings or numbers")
    func specExample() throws {
        let results = try decode(
            #"[{"id": 1, "date_start": "147600000", "date_finish": 147610000, "name": "My task", "description": "Описание моего дела"}]"#
        )
        let record = try results[0].get()
        #expect(
            record
                == TaskRecord(
                    id: 1, dateStart: 147_600_000, dateFinish: 147_610_000, name: "My task",
                    description: "Описание моего дела"))
        #expect(
            record.jsonLine
                == #"{"id": 1, "date_start": "147600000", "date_finish": "147610000", "name": "My task", "description": "Описание моего дела"}"#
        )
    }

    @Test("a single object is one record")
    func singleObject() throws {
        #expect(
            try decode(#"{"id": 2, "date_start": "0", "date_finish": "60", "name": "x"}"#).count
                == 1)
    }

    @Test("every problem of a record is reported, with its field")
    func everyProblem() throws {
        let found = try problems(
            #"[{"id": "one", "date_start": "tomorrow", "date_finish": 1.5, "name": "", "colour": "red"}]"#
        )
        #expect(found.contains { $0.hasPrefix("colour: unknown field") })
        #expect(found.contains { $0.hasPrefix("id: expected a whole number") })
        #expect(found.contains { $0.hasPrefix("date_start: 'tomorrow' is not a timestamp") })
        #expect(found.contains { $0.hasPrefix("date_finish: 1.5 is not whole seconds") })
        #expect(found.count == 4)
    }

    @Test("rules: empty name, finish before start, control characters")
    func rules() throws {
        let found = try problems(
            #"[{"id": 1, "date_start": "100", "date_finish": "50", "name": " ", "description": "a\r\nb"}]"#
        )
        #expect(found.contains { $0.hasPrefix("name: is empty") })
        #expect(found.contains { $0.hasPrefix("date_finish: 50 is before date_start 100") })
        #expect(
            found.contains { $0.hasPrefix("description: contains the control character U+000D") })
    }

    @Test("a missing name is reported as missing")
    func missingName() throws {
        #expect(
            try problems(#"[{"id": 1, "date_start": "1", "date_finish": "2"}]"#) == [
                "name: missing; this field is required"
            ])
    }

    @Test("attachments and alarms report problems with their index")
    func nestedProblems() throws {
        let found = try problems(
            #"""
            [{"id": 1, "date_start": "1", "date_finish": "2", "name": "n",
              "attachments": [{"filename": "a", "data": "not base64!"}],
              "alarms": [{"action": "display", "trigger": "-15 minutes"}, {"action": "beep", "trigger_at": "5"}]}]
            """#)
        #expect(found.contains("attachments[0].data: invalid base64 (RFC 4648, no line breaks)"))
        #expect(
            found.contains {
                $0.hasPrefix("alarms[0].trigger: '-15 minutes' is not an RFC 5545 duration")
            })
        #expect(found.contains { $0.hasPrefix("alarms[1].action: 'beep' is not an alarm action") })
        // Rules run once a record has the right shape.
        let email = try problems(
            #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": "n", "alarms": [{"action": "email", "trigger": "-PT1H"}]}]"#
        )
        #expect(
            email == ["alarms[0].attendees: an email alarm needs at least one recipient (mailto:…)"]
        )
    }

    @Test("one bad record does not hide the others")
    func independentRecords() throws {
        let results = try decode(
            #"[{"id": 1, "date_start": "1", "date_finish": "2", "name": "ok"}, {"id": 2}, {"id": 3, "date_start": "1", "date_finish": "2", "name": "ok"}]"#
        )
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true])
    }

    @Test("malformed JSON names the line")
    func malformed() {
        do {
            _ = try TaskJSON.decodeFile(Data("[\n{\"id\": 1,\n\"name\": }\n]".utf8))
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.line == 3)
            #expect(error.message.hasPrefix("not valid JSON"))
        }
    }

    @Test("JSON output escapes what JSON needs and nothing else, deterministically")
    func encoding() {
        let record = TaskRecord(
            id: -3, dateStart: 0, dateFinish: 0, name: "q\"uote\\ /slash\ttab\u{1}",
            description: "Ж😀")
        #expect(
            record.jsonLine
                == #"{"id": -3, "date_start": "0", "date_finish": "0", "name": "q\"uote\\ /slash\ttab\u0001", "description": "Ж😀"}"#
        )
    }

    @Test(
        "RFC 5545 durations",
        arguments: [
            ("-PT15M", -900), ("P1D", 86_400), ("P2W", 1_209_600), ("PT1H30M", 5_400), ("+PT0S", 0),
            ("P1DT1S", 86_401),
        ])
    func durations(text: String, seconds: Int) {
        #expect(ISODuration.seconds(text) == seconds)
    }

    @Test("not durations", arguments: ["", "P", "PT", "15M", "-P1H", "P1W2D", "PT1M1H", "P1.5D"])
    func notDurations(text: String) {
        #expect(ISODuration.seconds(text) == nil)
    }
}
