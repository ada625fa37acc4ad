import Foundation
import Testing

/// The bad-input catalogue: hand-made inputs across JSON, NDJSON and .ics, each with what
/// taskcal must say about it. A refused input gets exit 2, a message naming the place, no
/// output file and no change to a diary it is imported into; an input calendar apps accept
/// though it is damaged is read with a warning naming the line.
struct CatalogueCase: Sendable, CustomStringConvertible {
    enum Outcome: Sendable {
        /// Refused: exit 2 and this message (after `taskcal: `).
        case refused(String)
        /// Read with this warning (after `taskcal: warning: `), exit 0.
        case warned(String)
    }

    var name: String
    var file: String
    var bytes: [UInt8]
    var outcome: Outcome

    var description: String { name }
}

// MARK: - Building inputs

/// The catalogue's good record, with fields replaced or added: `record(id: "null")`,
/// `record(extra: #""all_day": "yes""#)`.
private func record(
    id: String = "1", start: String = #""1704103200""#, finish: String = #""1704106800""#,
    name: String = #""n""#, extra: String? = nil
) -> String {
    #"{"id": \#(id), "date_start": \#(start), "date_finish": \#(finish), "name": \#(name)"#
        + (extra.map { ", " + $0 } ?? "") + "}"
}

private func array(_ records: String...) -> String { "[" + records.joined(separator: ",\n") + "]" }

private let good = record()
private let head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"
private let event =
    "BEGIN:VEVENT\r\nUID:x@y\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T100000Z\r\nDTEND:20240101T110000Z\r\nSUMMARY:s\r\nEND:VEVENT\r\n"
private let whole = head + event + "END:VCALENDAR\r\n"

/// The whole calendar with one event line replaced (or lines added after SUMMARY).
private func ics(_ old: String, _ new: String) -> String {
    whole.replacingOccurrences(of: old, with: new)
}

/// The whole calendar with the SUMMARY line replaced (or lines added after it).
private func ics(_ new: String) -> String { ics("SUMMARY:s", new) }

/// The first `count` bytes of `text` (a Swift `prefix` counts "\r\n" as one character).
private func cut(_ text: String, _ count: Int) -> String {
    String(decoding: text.utf8.prefix(count), as: UTF8.self)
}

private func utf16LE(_ text: String, bom: Bool = true) -> [UInt8] {
    (bom ? [0xFF, 0xFE] : []) + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
}

private func utf16BE(_ text: String) -> [UInt8] {
    [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
}

private func utf32LE(_ text: String) -> [UInt8] {
    [0xFF, 0xFE, 0, 0]
        + text.unicodeScalars.flatMap { scalar in
            (0..<4).map { UInt8((scalar.value >> (8 * UInt32($0))) & 0xFF) }
        }
}

private func bytes(_ text: String, replacing old: String, with new: [UInt8]) -> [UInt8] {
    let parts = text.components(separatedBy: old)
    return Array(parts[0].utf8) + new + Array(parts.dropFirst().joined(separator: old).utf8)
}

private func refused(_ name: String, _ file: String, _ text: String, _ message: String)
    -> CatalogueCase
{
    CatalogueCase(name: name, file: file, bytes: Array(text.utf8), outcome: .refused(message))
}

private func refused(_ name: String, _ file: String, bytes: [UInt8], _ message: String)
    -> CatalogueCase
{
    CatalogueCase(name: name, file: file, bytes: bytes, outcome: .refused(message))
}

private func warned(_ name: String, _ text: String, _ message: String) -> CatalogueCase {
    CatalogueCase(name: name, file: "a.ics", bytes: Array(text.utf8), outcome: .warned(message))
}

private let endsEarly =
    "not valid JSON: the text ends before the JSON does (a ] or } missing, or the file cut short)"
private let notTopLevel =
    #"a.json:1: expected a JSON array of task records ([…]), one record ({…}) or {"calendar": {…}, "records": […]}"#

// MARK: - JSON

private let jsonCases: [CatalogueCase] =
    [
        refused(
            "empty file", "a.json", "", "a.json:1: the file is empty; expected a JSON array"),
        refused(
            "only whitespace", "a.json", "  \n\t\n",
            "a.json:1: the file is empty; expected a JSON array"),
        refused("a JSON string", "a.json", #""hello""#, notTopLevel),
        refused("a JSON number", "a.json", "42", notTopLevel),
        refused("null", "a.json", "null", notTopLevel),
        refused(
            "an object that is no record", "a.json", #"{"name": "x"}"#,
            "a.json: [0].id: missing; this field is required"),
        refused(
            "records not an array", "a.json", #"{"records": {"id": 1}}"#,
            "a.json: records: expected an array of task records"),
        refused(
            "an array of numbers", "a.json", "[1, 2]",
            "a.json: [0]: expected a JSON object (a task record)"),
        refused(
            "an array of arrays", "a.json", "[[1]]",
            "a.json: [0]: expected a JSON object (a task record)"),
        refused("missing closing bracket", "a.json", "[" + good, "a.json:1: " + endsEarly),
        refused(
            "single quotes", "a.json", "[{'id': 1}]",
            "a.json:1: not valid JSON: Invalid value at column 3"),
        refused("a comment line", "a.json", "// diary\n" + array(good), notTopLevel),
        refused(
            "garbage after the array", "a.json", array(good) + " x",
            "a.json:1: not valid JSON: Invalid value at column 83"),
        refused(
            "two arrays", "a.json", array(good) + array(good),
            "a.json:1: not valid JSON: Invalid value at column 82"),
        refused(
            "an array cut over two lines", "a.json", "[\n" + good + ",\n" + good.prefix(30),
            "a.json:3: " + endsEarly),
        refused(
            "deep nesting", "a.json",
            String(repeating: "[", count: 600)
                + String(repeating: "]", count: 600),
            "a.json:1: not valid JSON: Too many nested arrays or dictionaries at column 514"),
    ]
    + [1, 10, 30, 60, 79].map { cut in
        refused(
            "truncated after \(cut) bytes", "a.json", String(array(good).prefix(cut)),
            "a.json:1: " + endsEarly)
    }
    + [
        refused(
            "id as a string", "a.json", array(record(id: #""1""#)),
            "a.json: [0].id: expected a whole number"),
        refused(
            "id with a fraction", "a.json", array(record(id: "1.5")),
            "a.json: [0].id: expected a whole number"),
        refused(
            "id true", "a.json", array(record(id: "true")),
            "a.json: [0].id: expected a whole number"),
        refused(
            "id null", "a.json", array(record(id: "null")),
            "a.json: [0].id: is null; this field is required"),
        refused(
            "id past 2^63", "a.json", array(record(id: "9223372036854775808")),
            "a.json: [0].id: the number is out of range; expected a whole number from -9223372036854775808 to 9223372036854775807"
        ),
        refused(
            "id of 31 digits", "a.json", array(record(id: "1" + String(repeating: "0", count: 30))),
            "a.json: [0].id: a number of 31 digits is out of range"),
        refused(
            "missing id", "a.json", array(#"{"date_start": "1", "date_finish": "2", "name": "n"}"#),
            "a.json: [0].id: missing; this field is required"),
        refused(
            "missing date_start", "a.json", array(#"{"id": 1, "date_finish": "2", "name": "n"}"#),
            "a.json: [0].date_start: missing; this field is required"),
        refused(
            "missing date_finish", "a.json", array(#"{"id": 1, "date_start": "2", "name": "n"}"#),
            "a.json: [0].date_finish: missing; this field is required"),
        refused(
            "date_start as an array", "a.json", array(record(start: #"["1"]"#)),
            #"a.json: [0].date_start: expected Unix seconds as a string such as "147600000" or a number"#
        ),
        refused(
            "date_start as an object", "a.json", array(record(start: #"{"s": 1}"#)),
            #"a.json: [0].date_start: expected Unix seconds as a string"#),
        refused(
            "date_start null", "a.json", array(record(start: "null")),
            "a.json: [0].date_start: is null; this field is required"),
        refused(
            "date_start empty", "a.json", array(record(start: #""""#)),
            "a.json: [0].date_start: '' is not a timestamp; expected Unix seconds"),
        refused(
            "date_start with a space", "a.json", array(record(start: #"" 1704103200""#)),
            "a.json: [0].date_start: ' 1704103200' is not a timestamp"),
        refused(
            "date_start an ISO date", "a.json", array(record(start: #""2024-01-01""#)),
            "a.json: [0].date_start: '2024-01-01' is not a timestamp"),
        refused(
            "date_start with a fraction", "a.json", array(record(start: #""1704103200.5""#)),
            "a.json: [0].date_start: '1704103200.5' is not a timestamp"),
        refused(
            "date_start a fractional number", "a.json", array(record(start: "1704103200.5")),
            "a.json: [0].date_start: 1704103200.5 is not whole seconds"),
        refused(
            "date_start past 2^63", "a.json", array(record(start: #""9223372036854775808""#)),
            "a.json: [0].date_start: '9223372036854775808' is not a timestamp"),
        refused(
            "dates past the year 9999", "a.json",
            array(record(start: #""253402300800""#, finish: #""253402304400""#)),
            "a.json: [0].date_start: 253402300800 is outside the years 0001–9999"),
        refused(
            "date_start before the year 1", "a.json", array(record(start: #""-62135596801""#)),
            "a.json: [0].date_start: -62135596801 is outside the years 0001–9999"),
        refused(
            "date_finish before date_start", "a.json", array(record(finish: #""1704103199""#)),
            "a.json: [0].date_finish: 1704103199 is before date_start 1704103200"),
        refused(
            "name a number", "a.json", array(record(name: "5")),
            "a.json: [0].name: expected a string"),
        refused(
            "name null", "a.json", array(record(name: "null")),
            "a.json: [0].name: is null; this field is required"),
        refused(
            "name only spaces", "a.json", array(record(name: #""   ""#)),
            "a.json: [0].name: is empty; every record needs a name"),
        refused(
            "description a number", "a.json", array(record(extra: #""description": 5"#)),
            "a.json: [0].description: expected a string"),
        refused(
            "all_day a string", "a.json", array(record(extra: #""all_day": "yes""#)),
            "a.json: [0].all_day: expected true or false"),
        refused(
            "all_day not at midnight", "a.json", array(record(extra: #""all_day": true"#)),
            "a.json: [0].all_day: an all-day record starts and ends at midnight UTC"),
        refused(
            "a done to-do with another status", "a.json",
            array(
                record(
                    extra: #""kind": "todo", "done": true, "status": "in-process""#)),
            "a.json: [0].status: 'in-process' says the to-do is not done, and done says it is: iCalendar keeps one status; leave out one of the two"
        ),
        refused(
            "an unknown field", "a.json", array(record(extra: #""colour": "red""#)),
            "a.json: [0].colour: unknown field; expected one of alarms, all_day"),
        refused(
            "the same id twice", "a.json", array(good, record(name: #""m""#)),
            "a.json: [1].id: id 1 is also the id of record [0]"),
        refused(
            "the same id three times: the third names the first", "a.json",
            array(good, record(name: #""m""#), record(name: #""n""#)),
            "a.json: [2].id: id 1 is also the id of record [0]"),
        refused(
            "an unknown time_zone", "a.json", array(record(extra: #""time_zone": "Mars/Olympus""#)),
            "a.json: [0].time_zone: unknown time zone 'Mars/Olympus'"),
        refused(
            "time_zone a number", "a.json", array(record(extra: #""time_zone": 3"#)),
            "a.json: [0].time_zone: expected a string"),
        refused(
            "recurrence a string", "a.json", array(record(extra: #""recurrence": "weekly""#)),
            "a.json: [0].recurrence: expected a JSON object (a recurrence)"),
        refused(
            "a malformed rule", "a.json",
            array(record(extra: #""recurrence": {"rule": "FREQ=SOMETIMES"}"#)),
            "a.json: [0].recurrence.rule: 'FREQ=SOMETIMES' is not an RFC 5545 rule"),
        refused(
            "BYYEARDAY with FREQ=MONTHLY", "a.json",
            array(record(extra: #""recurrence": {"rule": "FREQ=MONTHLY;BYYEARDAY=3"}"#)),
            "a.json: [0].recurrence.rule: 'FREQ=MONTHLY;BYYEARDAY=3' is not a rule libical can expand (BYYEARDAY is not allowed with FREQ=MONTHLY)"
        ),
        refused(
            "an empty rule", "a.json", array(record(extra: #""recurrence": {"rule": ""}"#)),
            "a.json: [0].recurrence.rule: '' is not an RFC 5545 rule"),
        refused(
            "exdates not an array", "a.json",
            array(record(extra: #""recurrence": {"rule": "FREQ=DAILY", "exdates": "1"}"#)),
            "a.json: [0].recurrence.exdates: expected an array of Unix seconds"),
        refused(
            "exdates of words", "a.json",
            array(record(extra: #""recurrence": {"rule": "FREQ=DAILY", "exdates": ["monday"]}"#)),
            "a.json: [0].recurrence.exdates[0]: expected Unix seconds"),
        refused(
            "attachments an object", "a.json",
            array(record(extra: #""attachments": {"url": "x"}"#)),
            "a.json: [0].attachments: expected an array"),
        refused(
            "an attachment field that does not exist", "a.json",
            array(record(extra: #""attachments": [{"fmttype": "text/plain"}]"#)),
            "a.json: [0].attachments[0].fmttype: unknown field; expected one of data, filename"),
        refused(
            "invalid base64", "a.json", array(record(extra: #""attachments": [{"data": "%%%"}]"#)),
            "a.json: [0].attachments[0].data: invalid base64"),
        refused(
            "2 MB of base64 with one bad character at the end", "a.json",
            array(
                record(
                    extra: #""attachments": [{"data": ""#
                        + String(repeating: "QUFB", count: 500_000)
                        + #"!"}]"#)),
            "a.json: [0].attachments[0].data: invalid base64"),
        refused(
            "alarms an object", "a.json", array(record(extra: #""alarms": {"trigger": "-PT5M"}"#)),
            "a.json: [0].alarms: expected an array"),
        refused(
            "an alarm trigger in words", "a.json",
            array(
                record(
                    extra: #""alarms": [{"action": "display", "trigger": "5 minutes before"}]"#)),
            "a.json: [0].alarms[0].trigger: '5 minutes before' is not an RFC 5545 duration"),
        refused(
            "an unknown alarm action", "a.json",
            array(record(extra: #""alarms": [{"trigger": "-PT5M", "action": "shout"}]"#)),
            "a.json: [0].alarms[0].action: 'shout' is not an alarm action"),
        refused(
            "an alarm without a trigger", "a.json",
            array(record(extra: #""alarms": [{"action": "display"}]"#)),
            "a.json: [0].alarms[0].trigger: missing; give trigger (a duration) or trigger_at"),
        refused(
            "an unknown status", "a.json", array(record(extra: #""status": "maybe""#)),
            "a.json: [0].status: 'maybe' is not a status"),
        refused(
            "an empty uid", "a.json", array(record(extra: #""uid": """#)),
            "a.json: [0].uid: is empty; omit it to derive the UID from id"),
        refused(
            "categories a string", "a.json", array(record(extra: #""categories": "work""#)),
            "a.json: [0].categories: expected an array of strings"),
        refused(
            "ical_extra not a content line", "a.json",
            array(record(extra: #""ical_extra": ["no colon here"]"#)),
            "a.json: [0].ical_extra[0]: 'no colon here' is not an iCalendar content line"),
        refused(
            "ical_extra a BEGIN line", "a.json",
            array(record(extra: #""ical_extra": ["BEGIN:VEVENT"]"#)),
            "a.json: [0].ical_extra[0]: 'BEGIN:VEVENT' is not an iCalendar content line"),
        // A line that repeats or contradicts a field: refused by validate and diary import as
        // convert refuses it, never imported into a diary that then cannot export it.
        refused(
            "ical_extra a second SUMMARY", "a.json",
            array(record(extra: #""ical_extra": ["X-KEPT:1", "SUMMARY:again"]"#)),
            "a.json: [0].ical_extra[1]: SUMMARY comes from the field name; a line here would repeat or contradict it"
        ),
        refused(
            "ical_extra a second ORGANIZER", "a.json",
            array(
                record(
                    extra:
                        #""organizer": {"address": "mailto:a@example.org"}, "ical_extra": ["ORGANIZER:mailto:b@example.org"]"#
                )),
            "a.json: [0].ical_extra[0]: ORGANIZER comes from the field organizer"),
        refused(
            "ical_extra a DTEND beside date_finish", "a.ndjson",
            record(finish: #""1704103200""#, extra: #""ical_extra": ["DTEND:20240201T000000Z"]"#),
            "a.ndjson:1: ical_extra[0]: DTEND comes from the field date_finish"),
        refused(
            "recurrence_id a word", "a.json", array(record(extra: #""recurrence_id": "first""#)),
            "a.json: [0].recurrence_id: 'first' is not a timestamp"),
        refused(
            "a person without an address", "a.json",
            array(record(extra: #""organizer": {"name": "Ann"}"#)),
            "a.json: [0].organizer.address: missing; this field is required"),
        refused(
            "a person whose address is null", "a.json",
            array(record(extra: #""organizer": {"address": null}"#)),
            "a.json: [0].organizer.address: is null; this field is required"),
        refused(
            "UTF-16 LE with a byte-order mark", "a.json", bytes: utf16LE(array(good)),
            "a.json:1: the file is UTF-16LE, not UTF-8 as JSON must be; re-encode it, for example with iconv -f UTF-16LE -t UTF-8"
        ),
        refused(
            "UTF-16 BE with a byte-order mark", "a.json", bytes: utf16BE(array(good)),
            "a.json:1: the file is UTF-16BE, not UTF-8 as JSON must be"),
        refused(
            "UTF-16 LE without a byte-order mark", "a.json",
            bytes: utf16LE(array(good), bom: false),
            "a.json:1: the file is UTF-16LE, not UTF-8 as JSON must be"),
        refused(
            "UTF-32 LE with a byte-order mark", "a.json", bytes: utf32LE(array(good)),
            "a.json:1: the file is UTF-32LE, not UTF-8 as JSON must be"),
        refused(
            "Latin-1 in a name", "a.json",
            bytes: bytes(array(record(name: #""caf@""#)), replacing: "@", with: [0xE9]),
            "a.json:1: byte 0xE9 at column 81 is not UTF-8, which JSON must be; re-encode the file, for example with iconv -f LATIN1 -t UTF-8"
        ),
        refused(
            "Latin-1 on the third line", "a.json",
            bytes: bytes(
                "[\n" + good + ",\n" + record(id: "2", name: #""caf@""#) + "]",
                replacing: "@", with: [0xE9]),
            "a.json:3: byte 0xE9 at column 80 is not UTF-8"),
        refused(
            "a raw NUL byte in a name", "a.json",
            bytes: bytes(array(record(name: #""a@b""#)), replacing: "@", with: [0]),
            "a.json:1: a NUL byte at column 79; JSON text has none"),
        refused(
            "an escaped NUL in a name", "a.json", array(record(name: #""a\u0000b""#)),
            "a.json: [0].name: contains the control character U+0000"),
        refused(
            "a lone surrogate escape", "a.json", array(record(name: #""\ud800""#)),
            "a.json: [0].name: is not valid text (a \\u escape of half a UTF-16 pair"),
        refused(
            "an overlong UTF-8 sequence", "a.json",
            bytes: bytes(array(record(name: #""@""#)), replacing: "@", with: [0xC0, 0xAF]),
            "a.json:1: byte 0xC0 at column 78 is not UTF-8"),
        refused(
            "a UTF-8 sequence cut short", "a.json",
            bytes: bytes(array(record(name: #""@""#)), replacing: "@", with: [0xE2, 0x82]),
            "a.json:1: byte 0xE2 at column 78 is not UTF-8"),
        refused(
            "binary garbage", "a.json", bytes: Array(0...255),
            "a.json:1: a NUL byte at column 1; JSON text has none"),
    ]

// MARK: - NDJSON

private let ndjsonCases: [CatalogueCase] = [
    refused(
        "NDJSON: a bad second line", "a.ndjson", good + "\n{\"id\": 2}\n",
        "a.ndjson:2: date_start: missing; this field is required"),
    refused(
        "NDJSON: the last line cut short", "a.ndjson", good + "\n" + good.prefix(20),
        "a.ndjson:2: " + endsEarly),
    refused(
        "NDJSON: an array on a line", "a.ndjson", array(good) + "\n",
        "a.ndjson:1: expected a JSON object (a task record), found an array"),
    refused(
        "NDJSON: a number on a line", "a.ndjson", good + "\n7\n",
        "a.ndjson:2: expected a JSON object (a task record), found a number or true/false"),
    refused(
        "NDJSON: a string on a line", "a.ndjson", good + "\n\"x\"\n",
        "a.ndjson:2: expected a JSON object (a task record), found a string"),
    refused(
        "NDJSON: the object form of a file on a line", "a.ndjson", #"{"records": []}"# + "\n",
        #"a.ndjson:1: expected one task record ({…}) on each line of NDJSON"#),
    refused(
        "NDJSON: calendar and records on the first line", "a.ndjson",
        #"{"calendar": {"name": "x"}, "records": []}"# + "\n",
        #"a.ndjson:1: expected one task record ({…}) on each line of NDJSON"#),
    refused(
        "NDJSON: an id past 2^63", "a.ndjson", record(id: "18446744073709551616") + "\n",
        "a.ndjson:1: id: a number of 20 digits is out of range"),
    refused(
        "NDJSON: a date past 9999", "a.ndjson",
        record(start: #""253402300800""#, finish: #""253402300801""#) + "\n",
        "a.ndjson:1: date_start: 253402300800 is outside the years 0001–9999"),
    refused(
        "NDJSON: Latin-1", "a.ndjson",
        bytes: bytes(record(name: #""caf@""#) + "\n", replacing: "@", with: [0xE9]),
        "a.ndjson:1: byte 0xE9 at column 80 is not UTF-8"),
    refused(
        "NDJSON: a NUL line between records", "a.ndjson",
        bytes: Array((good + "\n").utf8) + [0, 0x0A] + Array((record(id: "2") + "\n").utf8),
        "a.ndjson:2: a NUL byte at column 1; JSON text has none"),
    refused(
        "NDJSON: UTF-16 with a byte-order mark", "a.ndjson", bytes: utf16LE(good + "\n"),
        "a.ndjson:1: the file is UTF-16LE, not UTF-8 as JSON must be"),
    refused(
        "NDJSON: lines ending in CR alone", "a.ndjson", good + "\r" + record(id: "2") + "\r",
        "a.ndjson:1: not valid JSON: Invalid value at column 81"),
    refused(
        "NDJSON: the same id on line 3", "a.ndjson",
        good + "\n" + record(id: "2") + "\n" + record(name: #""again""#) + "\n",
        "a.ndjson:3: id: id 1 is also the id of the record of line 1"),
    refused(
        "NDJSON: deep nesting", "a.ndjson",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "\n",
        "a.ndjson:1: not valid JSON: Too many nested arrays or dictionaries at column 514"),
    refused(
        "NDJSON: finish before start on line 2", "a.ndjson",
        good + "\n" + record(id: "2", finish: #""1""#) + "\n",
        "a.ndjson:2: date_finish: 1 is before date_start 1704103200"),
    refused(
        "NDJSON: calendar data not on the first line", "a.ndjson",
        good + "\n" + #"{"calendar": {"name": "x"}}"# + "\n",
        "a.ndjson:2: calendar data belongs on the first line of NDJSON"),
    refused(
        "NDJSON: an unknown field", "a.ndjson", record(extra: #""prio": 1"#) + "\n",
        "a.ndjson:1: prio: unknown field"),
    refused(
        "NDJSON: null where a record should be", "a.ndjson", good + "\nnull\n",
        "a.ndjson:2: expected a JSON object (a task record), found null"),
    refused(
        "NDJSON: two records on one line", "a.ndjson", good + good + "\n",
        "a.ndjson:1: not valid JSON: Invalid value at column 80"),
]

// MARK: - iCalendar

private let icsRefused: [CatalogueCase] =
    [
        refused(
            "ics: an empty file", "a.ics", "", "a.ics: not an iCalendar file: no BEGIN:VCALENDAR"),
        refused(
            "ics: blank lines only", "a.ics", "\r\n\r\n",
            "a.ics:1: not an iCalendar file: no BEGIN:VCALENDAR"),
        refused(
            "ics: cut after BEGIN", "a.ics", cut(whole, 5),
            "a.ics:1: BEGIN has no component name"),
        refused(
            "ics: cut after END", "a.ics", cut(whole, 160),
            "a.ics:10: END has no component name"),
        refused(
            "ics: UTF-16 LE with a byte-order mark", "a.ics", bytes: utf16LE(whole),
            "a.ics:1: the file is UTF-16LE, not UTF-8 as iCalendar must be (RFC 5545 §3.1.4); re-encode it, for example with iconv -f UTF-16LE -t UTF-8"
        ),
        refused(
            "ics: UTF-16 BE with a byte-order mark", "a.ics", bytes: utf16BE(whole),
            "a.ics:1: the file is UTF-16BE, not UTF-8 as iCalendar must be"),
        refused(
            "ics: UTF-16 without a byte-order mark", "a.ics", bytes: utf16LE(whole, bom: false),
            "a.ics:1: the file is UTF-16LE, not UTF-8 as iCalendar must be"),
        refused(
            "ics: UTF-32 with a byte-order mark", "a.ics", bytes: utf32LE(whole),
            "a.ics:1: the file is UTF-32LE, not UTF-8 as iCalendar must be"),
        refused(
            "ics: a Latin-1 summary", "a.ics",
            bytes: bytes(whole, replacing: "SUMMARY:s", with: Array("SUMMARY:caf".utf8) + [0xE9]),
            "a.ics:9: the line is not valid UTF-8 (RFC 5545 text is UTF-8; re-encode the file)"),
        refused(
            "ics: a NUL in a description", "a.ics", ics("SUMMARY:s\r\nDESCRIPTION:a\u{0}b"),
            "a.ics:10: the line contains a NUL byte"),
        refused(
            "ics: lines ending in CR alone", "a.ics",
            whole.replacingOccurrences(of: "\r\n", with: "\r"),
            "a.ics:1: not an iCalendar file as read: its lines end in CR alone (classic Mac OS)"),
        refused(
            "ics: a vCard", "a.ics", "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:A\r\nEND:VCARD\r\n",
            "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found BEGIN:VCARD"),
        refused(
            "ics: HTML", "a.ics", "<html><body>calendar</body></html>\r\n",
            "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found '<html><body>calendar</body></html>'"
        ),
        refused(
            "ics: JSON named .ics", "a.ics", array(good),
            #"a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found '[{"id": 1, "#),
        refused(
            "ics: a megabyte on one line", "a.ics",
            "BEGIN:VCALENDAR" + String(repeating: "x", count: 1 << 20),
            "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found BEGIN:VCALENDARXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX…"
        ),
        refused(
            "ics: nested 13 deep", "a.ics",
            head + String(repeating: "BEGIN:X-A\r\n", count: 13)
                + String(repeating: "END:X-A\r\n", count: 13) + "END:VCALENDAR\r\n",
            "a.ics:15: BEGIN:X-A is nested 13 deep; the limit is 12"),
        refused(
            "ics: binary garbage", "a.ics", bytes: Array(0...255) + Array(0...255),
            "a.ics:1: the line contains a NUL byte"),
        refused(
            "ics: a fold before the first line", "a.ics", " continuation\r\n" + whole,
            "a.ics:1: not an iCalendar file: expected BEGIN:VCALENDAR, found ' continuation'"),
    ]

/// Damaged calendars that calendar apps read: taskcal reads them too, saying what it did
/// and where.
private let icsWarned: [CatalogueCase] =
    [16, 40].map { count in
        warned(
            "ics: cut after \(count) bytes", cut(whole, count),
            "a.ics:1: BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file")
    }
    + [80, 120].map { count in
        warned(
            "ics: cut after \(count) bytes, inside the event", cut(whole, count),
            "a.ics:4: BEGIN:VEVENT has no END:VEVENT before the end of the file; left out")
    }
    + [
        warned(
            "ics: a DTSTART in the year 10000",
            ics("DTSTART:20240101T100000Z", "DTSTART:100000101T100000Z"),
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: its DTSTART cannot be read"
        ),
        warned(
            "ics: a DTSTART in month 13",
            ics("DTSTART:20240101T100000Z", "DTSTART:20241301T100000Z"),
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: DTSTART: month 13 is out of range 1–12"
        ),
        warned(
            "ics: February 30", ics("DTSTART:20240101T100000Z", "DTSTART:20240230T100000Z"),
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: DTSTART: day 30 does not exist in 2024-02"
        ),
        warned(
            "ics: a DTSTART in words", ics("DTSTART:20240101T100000Z", "DTSTART:soon"),
            "a.ics:7: the VEVENT of line 4 cannot become a record; kept with the calendar as written: its DTSTART cannot be read"
        ),
        warned(
            "ics: DTEND before DTSTART", ics("DTEND:20240101T110000Z", "DTEND:20240101T090000Z"),
            "a.ics:8: DTEND is before DTSTART; read as the time between them"),
        warned(
            "ics: an unknown TZID",
            ics("DTSTART:20240101T100000Z", "DTSTART;TZID=Mars/Olympus:20240101T100000"),
            "a.ics:7: DTSTART: unknown time zone 'Mars/Olympus'"),
        warned(
            "ics: an RRULE without FREQ", ics("SUMMARY:s\r\nRRULE:COUNT=3"),
            "a.ics:10: RRULE cannot be read by libical"),
        warned(
            "ics: FREQ=SOMETIMES", ics("SUMMARY:s\r\nRRULE:FREQ=SOMETIMES"),
            "a.ics:10: RRULE cannot be read by libical"),
        warned(
            "ics: BYWEEKNO with FREQ=MONTHLY", ics("SUMMARY:s\r\nRRULE:FREQ=MONTHLY;BYWEEKNO=3"),
            "a.ics:10: RRULE: 'FREQ=MONTHLY;BYWEEKNO=3' is not a rule libical can expand (BYWEEKNO is not allowed with FREQ=MONTHLY); kept as written"
        ),
        warned(
            "ics: COUNT and UNTIL together",
            ics("SUMMARY:s\r\nRRULE:FREQ=DAILY;COUNT=3;UNTIL=20240110T000000Z"),
            "a.ics:10: RRULE cannot be read by libical"),
        warned(
            "ics: an EXDATE in words", ics("SUMMARY:s\r\nRRULE:FREQ=DAILY\r\nEXDATE:tomorrow"),
            "a.ics:11: EXDATE cannot be read by libical"),
        warned(
            "ics: a TRIGGER in words",
            ics(
                "SUMMARY:s\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:d\r\nTRIGGER:soon\r\nEND:VALARM"
            ), "a.ics:13: Can't parse as DURATION value in TRIGGER property"),
        warned(
            "ics: broken base64 in ATTACH",
            ics("SUMMARY:s\r\nATTACH;ENCODING=BASE64;VALUE=BINARY:%%%"),
            "a.ics:10: ATTACH: the inline data is not valid base64; the ATTACH line is kept as written"
        ),
        warned(
            "ics: 2 MB of base64 with one bad character",
            ics(
                "SUMMARY:s\r\nATTACH;ENCODING=BASE64;VALUE=BINARY:"
                    + String(repeating: "QUFB", count: 500_000) + "!"),
            "a.ics:10: ATTACH: the inline data is not valid base64"),
        warned(
            "ics: a line without a colon", ics("SUMMARY:s\r\nNOCOLON"),
            "a.ics:10: 'NOCOLON' is not a content line"),
        warned(
            "ics: a quoted parameter never closed", ics(#"SUMMARY;LANGUAGE="en:s"#),
            #"a.ics:9: 'SUMMARY;LANGUAGE="en:s' is not a content line (a quoted parameter value is not closed); left out"#
        ),
        warned(
            "ics: an END with no BEGIN", head + "END:VEVENT\r\n" + event + "END:VCALENDAR\r\n",
            "a.ics:4: END:VEVENT closes nothing (no BEGIN:VEVENT is open); left out"),
        warned(
            "ics: no END:VCALENDAR", head + event,
            "a.ics:1: BEGIN:VCALENDAR has no END:VCALENDAR; read to the end of the file"),
        warned(
            "ics: the END of another component", ics("END:VEVENT", "END:VTODO"),
            "a.ics:10: END:VTODO closes BEGIN:VEVENT of line 4; read as END:VEVENT"),
        warned(
            "ics: a VEVENT without DTSTART", ics("DTSTART:20240101T100000Z\r\n", ""),
            "a.ics:4: the VEVENT of line 4 cannot become a record; kept with the calendar as written: it has no DTSTART"
        ),
        warned(
            "ics: two DTSTARTs", ics("SUMMARY:s\r\nDTSTART:20240102T100000Z"),
            "a.ics:10: a second DTSTART in one VEVENT was left out"),
        warned(
            "ics: a DURATION in words", ics("DTEND:20240101T110000Z", "DURATION:one hour"),
            "a.ics:8: the VEVENT of line 4 cannot become a record; kept with the calendar as written: its DURATION cannot be read"
        ),
        warned(
            "ics: a VTIMEZONE without observances",
            head + "BEGIN:VTIMEZONE\r\nTZID:Empty\r\nEND:VTIMEZONE\r\n"
                + event.replacingOccurrences(
                    of: "DTSTART:20240101T100000Z", with: "DTSTART;TZID=Empty:20240101T100000")
                + "END:VCALENDAR\r\n",
            "a.ics:10: the VTIMEZONE 'Empty' has no STANDARD or DAYLIGHT; it is not used"),
        warned(
            "ics: a VTIMEZONE that changes every second",
            head
                + "BEGIN:VTIMEZONE\r\nTZID:Fast\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nRRULE:FREQ=SECONDLY\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
                + event.replacingOccurrences(
                    of: "DTSTART:20240101T100000Z", with: "DTSTART;TZID=Fast:20240101T100000")
                + "END:VCALENDAR\r\n",
            "a.ics:16: the VTIMEZONE 'Fast' has an observance that repeats more often than yearly (FREQ=SECONDLY); it is not used"
        ),
        warned(
            "ics: a RECURRENCE-ID in words", ics("SUMMARY:s\r\nRECURRENCE-ID:first"),
            "a.ics:10: the VEVENT of line 4 cannot become a record; kept with the calendar as written: its RECURRENCE-ID cannot be read"
        ),
        warned(
            "ics: an alarm without TRIGGER",
            ics("SUMMARY:s\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:d\r\nEND:VALARM"),
            "a.ics:10: VALARM has no TRIGGER; the VALARM is kept as written"),
        warned(
            "ics: an all-day DTEND before DTSTART",
            ics("DTSTART:20240101T100000Z", "DTSTART;VALUE=DATE:20240105").replacingOccurrences(
                of: "DTEND:20240101T110000Z", with: "DTEND;VALUE=DATE:20240101"),
            "a.ics:8: DTEND is before DTSTART; read as lasting one day"),
        warned(
            "ics: an event with no SUMMARY", ics("SUMMARY:s\r\n", ""),
            "a.ics:4: the VEVENT of line 4 has no SUMMARY; it was named (untitled)"),
        warned(
            "ics: an X-LIC-ERROR another program left", ics("SUMMARY:s\r\nX-LIC-ERROR:oops"),
            "a.ics:10: an X-LIC-ERROR line another program left in the file was left out"),
        warned(
            "ics: a TRIGGER with its sign inside",
            ics(
                "SUMMARY:s\r\nBEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:PT-2H\r\nEND:VALARM"),
            "a.ics:12: TRIGGER: 'PT-2H' has its sign inside; read as '-PT2H'"),
        warned(
            "ics: an RRULE with no value", ics("SUMMARY:s\r\nRRULE:"),
            "a.ics:10: RRULE has no value; left out"),
        warned(
            "ics: a summary ending in a lone backslash", ics("SUMMARY:s", "SUMMARY:s\\"),
            "a.ics:9: SUMMARY ends in a lone backslash; read as a backslash"),
    ]

@Suite("The bad-input catalogue: every case refused or read as it says, never a crash")
struct BadInputCatalogueTests {
    static let refusedCases = jsonCases + ndjsonCases + icsRefused
    static let warnedCases = icsWarned

    @Test("the catalogue has at least 150 cases")
    func size() {
        #expect(Self.refusedCases.count + Self.warnedCases.count >= 150)
        let names = (Self.refusedCases + Self.warnedCases).map(\.name)
        #expect(Set(names).count == names.count, "each case has its own name")
    }

    @Test(
        "refused: exit 2, the place and what is expected, no output, diary unchanged",
        arguments: refusedCases)
    func refused(input: CatalogueCase) throws {
        guard case .refused(let message) = input.outcome else { return }
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(input.file, bytes: input.bytes)
        let output = input.file.hasSuffix(".ics") ? "out.json" : "out.ics"
        let result = try cli.run(["convert", input.file, "-o", output])
        #expect(!result.signaled, "crashed: \(result.stderr.prefix(300))")
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("taskcal: " + message),
            "stderr was: \(result.stderr.prefix(400))")
        #expect(!cli.exists(output), "a refused input leaves no output file")
        let debris = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
            .filter { $0.hasPrefix(".") }
        #expect(debris.isEmpty, "temporary files left: \(debris)")
        let validate = try cli.run(["validate", input.file])
        #expect(!validate.signaled)
        #expect(validate.status == 1 || validate.status == 2)
        #expect(validate.stderr.contains(message) || validate.stdout.contains(message))
        // Imported into a diary that holds one entry, it changes nothing.
        try cli.write(
            "one.json", #"[{"id": 900, "date_start": "0", "date_finish": "60", "name": "kept"}]"#)
        #expect(try cli.run(["diary", "import", "one.json", "--store", "d.sqlite"]).status == 0)
        let before = try cli.run(["diary", "list", "--store", "d.sqlite", "--format", "json"])
            .stdout
        let imported = try cli.run(["diary", "import", input.file, "--store", "d.sqlite"])
        #expect(!imported.signaled)
        #expect(imported.status != 0, "a refused file is not imported")
        #expect(imported.stderr.contains(message), "\(imported.stderr.prefix(400))")
        let after = try cli.run(["diary", "list", "--store", "d.sqlite", "--format", "json"]).stdout
        #expect(before == after, "the diary did not change")
    }

    @Test("read with a warning naming the line, exit 0, output written", arguments: warnedCases)
    func warned(input: CatalogueCase) throws {
        guard case .warned(let message) = input.outcome else { return }
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(input.file, bytes: input.bytes)
        let result = try cli.run(["convert", input.file, "-o", "out.json"])
        #expect(!result.signaled, "crashed: \(result.stderr.prefix(300))")
        #expect(result.status == 0, "\(result.stderr.prefix(400))")
        #expect(
            result.stderr.contains("taskcal: warning: " + message),
            "stderr was: \(result.stderr.prefix(400))")
        #expect(cli.exists("out.json"))
    }
}
