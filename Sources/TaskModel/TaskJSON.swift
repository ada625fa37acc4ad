import Foundation

/// Reading the task format from JSON text: whole files (an array or one record) and single
/// NDJSON lines. Each record is decoded on its own, so one bad record does not hide the
/// problems of the others.
public enum TaskJSON {
    /// Text that is not JSON at all, with the position the parser gave up at.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// 1-based line, when the parser said.
        public var line: Int?
        /// What the parser said.
        public var message: String

        public var description: String { message }
    }

    /// What a JSON file holds: its records and, in the object form, the calendar's own data.
    public struct File: Sendable {
        /// The `calendar` member of the object form, when there is one.
        public var calendar: CalendarInfo?
        /// Each record, or its problems.
        public var records: [Result<TaskRecord, RecordProblems>]
        /// Problems of the object form itself (an unknown member, bad calendar data).
        public var problems: [Problem] = []
    }

    /// The records of a JSON file: an array of records, a single record object, or the object
    /// form `{"calendar": {…}, "records": […]}`. A UTF-8 byte-order mark is skipped.
    public static func decodeFile(_ data: Data) throws(SyntaxError) -> File {
        if let problem = encodingProblem(data) { throw problem }
        let data = withoutByteOrderMark(data)
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        do {
            switch first {
            case UInt8(ascii: "["):
                return File(
                    records: try JSONDecoder().decode([Lossy].self, from: data).map(\.result))
            case UInt8(ascii: "{"):
                let object = try JSONDecoder().decode(FileObject.self, from: data)
                return File(
                    calendar: object.calendar, records: object.records,
                    problems: object.problems?.problems ?? [])
            case nil:
                throw SyntaxError(
                    line: 1, message: "the file is empty; expected a JSON array of task records")
            default:
                throw SyntaxError(
                    line: 1,
                    message:
                        "expected a JSON array of task records ([…]), one record ({…}) or {\"calendar\": {…}, \"records\": […]}"
                )
            }
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    /// One record from one line of NDJSON.
    public static func decodeLine(_ data: Data) throws(SyntaxError) -> Result<
        TaskRecord, RecordProblems
    > {
        if let problem = encodingProblem(data) { throw problem }
        do {
            return try JSONDecoder().decode(Lossy.self, from: withoutByteOrderMark(data)).result
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    /// One line of NDJSON: a record, or (the first line) the calendar's own data.
    public enum Line: Sendable {
        case record(Result<TaskRecord, RecordProblems>)
        case calendar(CalendarInfo)
        /// `{"calendar": …}` that is not calendar data, with its problems.
        case invalidCalendar(RecordProblems)
    }

    /// One line of NDJSON, which may be `{"calendar": {…}}`. A reader of many lines passes
    /// one `decoder` for all of them: making a JSONDecoder for each line cost NDJSON a fifth
    /// more time than a JSON array of the same records.
    public static func decodeNDJSONLine(_ data: Data, decoder: JSONDecoder = JSONDecoder())
        throws(SyntaxError) -> Line
    {
        if let problem = encodingProblem(data) { throw problem }
        let data = withoutByteOrderMark(data)
        do {
            let object = try decoder.decode(FileObject.self, from: data)
            if object.isCalendarLine {
                if let problems = object.problems { return .invalidCalendar(problems) }
                return .calendar(object.calendar ?? CalendarInfo())
            }
            guard object.records.count == 1, let record = object.records.first else {
                // `{"records": […]}` is the object form of a whole file, not a line.
                throw SyntaxError(
                    line: nil,
                    message:
                        "expected one task record ({…}) on each line of NDJSON (or {\"calendar\": {…}} on the first); {\"records\": […]} belongs in a .json file"
                )
            }
            return .record(record)
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    /// Why `data` is not UTF-8 JSON text as RFC 8259 requires, said so that the file can be
    /// fixed: UTF-16 or UTF-32 (by their byte-order marks or zero bytes), a NUL byte, or the
    /// first byte that is not UTF-8 (a Latin-1 `é`), with its line and column.
    static func encodingProblem(_ data: Data) -> SyntaxError? {
        let head = Array(data.prefix(4))
        func wide(_ name: String) -> SyntaxError {
            SyntaxError(
                line: 1,
                message:
                    "the file is \(name), not UTF-8 as JSON must be; re-encode it, for example with iconv -f \(name) -t UTF-8"
            )
        }
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return wide("UTF-32LE") }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return wide("UTF-32BE") }
        if head.starts(with: [0xFF, 0xFE]) { return wide("UTF-16LE") }
        if head.starts(with: [0xFE, 0xFF]) { return wide("UTF-16BE") }
        if head.count == 4, head[0] != 0, head[1] == 0, head[2] != 0, head[3] == 0 {
            return wide("UTF-16LE")
        }
        if head.count == 4, head[0] == 0, head[1] != 0, head[2] == 0, head[3] != 0 {
            return wide("UTF-16BE")
        }
        return data.withUnsafeBytes { bytes -> SyntaxError? in
            var line = 1
            var column = 1
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0 {
                    return SyntaxError(
                        line: line, message: "a NUL byte at column \(column); JSON text has none")
                }
                if byte < 0x80 {
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else {
                        column += 1
                    }
                    index += 1
                    continue
                }
                let length =
                    byte >= 0xC2 && byte <= 0xDF
                    ? 2 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xF0 && byte <= 0xF4 ? 4 : 0
                let end = index + length
                guard length > 0, end <= bytes.count,
                    String(validating: bytes[index..<end], as: UTF8.self) != nil
                else {
                    return SyntaxError(
                        line: line,
                        message:
                            "byte 0x\(String(byte, radix: 16, uppercase: true)) at column \(column) is not UTF-8, which JSON must be; re-encode the file, for example with iconv -f LATIN1 -t UTF-8"
                    )
                }
                column += 1
                index = end
            }
            return nil
        }
    }

    private static func withoutByteOrderMark(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }

    /// A syntax error with a line and column. Foundation's JSONDecoder on Linux says only
    /// "not valid JSON"; JSONSerialization says "around character N", which is turned into
    /// a line and column here.
    private static func syntaxError(_ error: any Error, in data: Data) -> SyntaxError {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let text =
                (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                ?? "not valid JSON"
            var line = 1
            var column = 1
            if let range = text.range(of: "character "),
                let offset = Int(text[range.upperBound...].prefix { $0.isNumber })
            {
                for byte in data.prefix(offset) {
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        column += 1
                    }
                }
                let reason = text[..<range.lowerBound].replacingOccurrences(
                    of: " around ", with: "")
                // One line (NDJSON, or a file on one line): the caller names the line.
                let place =
                    data.contains(0x0A) ? "line \(line), column \(column)" : "column \(column)"
                return SyntaxError(line: line, message: "not valid JSON: \(reason) at \(place)")
            }
            if text.contains("end of file") || text.contains("Unexpected end") {
                let lines =
                    data.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 } - (data.last == 0x0A ? 1 : 0)
                return SyntaxError(
                    line: lines,
                    message:
                        "not valid JSON: the text ends before the JSON does (a ] or } missing, or the file cut short)"
                )
            }
            return SyntaxError(line: nil, message: "not valid JSON: \(text)")
        }
        let found =
            parsed is [Any]
            ? "an array"
            : parsed is String
                ? "a string"
                : parsed is NSNull
                    ? "null" : parsed is NSNumber ? "a number or true/false" : "something else"
        return SyntaxError(
            line: nil, message: "expected a JSON object (a task record), found \(found)")
    }

    /// A top-level object: the object form of a file (`calendar`, `records`), the calendar
    /// line of NDJSON, or one record.
    private struct FileObject: Decodable {
        var calendar: CalendarInfo?
        var records: [Result<TaskRecord, RecordProblems>] = []
        var problems: RecordProblems?
        var isCalendarLine = false

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: FieldKey.self)
            // Almost every NDJSON line is a record: two lookups, not a set of its keys.
            guard
                container.contains(FieldKey("calendar")) || container.contains(FieldKey("records"))
            else {
                records = [try Lossy(from: decoder).result]
                return
            }
            let keys = Set(container.allKeys.map(\.stringValue))
            isCalendarLine = !keys.contains("records")
            var found: [Problem] = []
            for key in keys.sorted() where key != "calendar" && key != "records" {
                found.append(
                    Problem(field: key, "unknown field; expected calendar and records"))
            }
            if keys.contains("calendar") {
                do {
                    calendar = try container.decode(CalendarInfo.self, forKey: FieldKey("calendar"))
                } catch let error as RecordProblems {
                    found += error.problems.map { $0.nested(in: "calendar") }
                } catch {
                    found.append(Problem(field: "calendar", "expected an object"))
                }
            }
            if keys.contains("records") {
                do {
                    records = try container.decode([Lossy].self, forKey: FieldKey("records")).map(
                        \.result)
                } catch {
                    found.append(Problem(field: "records", "expected an array of task records"))
                }
            }
            if !found.isEmpty { problems = RecordProblems(found) }
        }
    }

    /// A record decoded with its problems caught instead of thrown.
    private struct Lossy: Decodable {
        var result: Result<TaskRecord, RecordProblems>

        init(from decoder: any Decoder) throws {
            do {
                let record = try TaskRecord(from: decoder)
                let problems = record.problems
                result = problems.isEmpty ? .success(record) : .failure(RecordProblems(problems))
            } catch let problems as RecordProblems {
                result = .failure(problems)
            }
        }
    }
}
