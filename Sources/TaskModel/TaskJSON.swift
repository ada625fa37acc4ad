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

    /// How much of each record to read.
    public enum Reading: Sendable {
        /// Every field, each checked.
        case whole
        /// Each record as its ``TaskRecord/timeSkeleton``, for reports of times: the other
        /// fields (description, attachments, alarms …) are checked for JSON syntax only, never
        /// built or validated, so a report over a million records does not make their text.
        case timesOnly

        /// What the parser skips when the records are the objects at depth 1 (an NDJSON line
        /// or a file of one record), 2 (a file's array) or 1 and 3 (a file's object form).
        func skipping(recordDepth: RecordDepth) -> JSONValue.Skipping? {
            switch self {
            case .whole: nil
            case .timesOnly: Self.skippings[recordDepth.rawValue]
            }
        }

        enum RecordDepth: Int {
            case line, array, object
        }

        private static let skippings = [[1], [2], [1, 3]].map {
            JSONValue.Skipping(TaskRecord.untimedFields, depths: Set($0))
        }
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
    public static func decodeFile(_ data: Data, reading: Reading = .whole) throws(SyntaxError)
        -> File
    {
        try decodeFile(data, reading: reading, plainRecords: true)
    }

    /// ``decodeFile(_:reading:)``; `plainRecords: false` reads every record in full (the
    /// tests compare the two).
    static func decodeFile(_ data: Data, reading: Reading, plainRecords: Bool) throws(SyntaxError)
        -> File
    {
        if let problem = encodingProblem(data) { throw problem }
        let data = withoutByteOrderMark(data)
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        switch first {
        case JSONByte.beginArray:
            // The records are the array's objects: plain ones read straight from the bytes.
            if plainRecords,
                let records = data.withUnsafeBytes({ arrayRecords($0, reading: reading) })
            {
                return File(records: records)
            }
            let skipping = reading.skipping(recordDepth: .array)
            guard case .array(var values) = try parse(data, skipping: skipping) else {
                return File(records: [])
            }
            return File(records: slimmed(records(consuming: &values), reading))
        case JSONByte.beginObject:
            // One record (depth 1), or the objects of `records` (depth 3): a record's own
            // objects at depth 3 are those of fields it skips at depth 1 or of `recurrence`.
            let object = FileObject(
                try parse(data, skipping: reading.skipping(recordDepth: .object)))
            return File(
                calendar: object.calendar, records: slimmed(object.records, reading),
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
    }

    /// One record from one line of NDJSON (or a whole single-record file).
    public static func decodeLine(_ data: Data) throws(SyntaxError) -> Result<
        TaskRecord, RecordProblems
    > {
        if let problem = encodingProblem(data) { throw problem }
        let data = withoutByteOrderMark(data)
        if let record = plainRecord(data), record.problems.isEmpty { return .success(record) }
        let value = try parse(data)
        guard case .object = value else { throw notAnObject(value) }
        return record(value)
    }

    /// One line of NDJSON: a record, or (the first line) the calendar's own data.
    public enum Line: Sendable {
        case record(Result<TaskRecord, RecordProblems>)
        case calendar(CalendarInfo)
        /// `{"calendar": …}` that is not calendar data, with its problems.
        case invalidCalendar(RecordProblems)
    }

    /// ``decodeNDJSONLine(_:reading:)-(Data,_)`` for a line's bytes in memory: a plain record
    /// (nearly every line) is read where the bytes are, without copying them into `Data`.
    public static func decodeNDJSONLine(_ bytes: UnsafeRawBufferPointer, reading: Reading = .whole)
        throws(SyntaxError) -> Line
    {
        let marked = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        let text = marked ? UnsafeRawBufferPointer(rebasing: bytes.dropFirst(3)) : bytes
        // A plain record read whole has checked its own bytes: its strings are valid UTF-8
        // and the rest is JSON's ASCII, so the line has no encoding problem, and checking it
        // first went over every byte twice. Any other line is checked before it is read.
        if reading == .whole, let record = plainRecord(text, reading: reading),
            record.problems.isEmpty
        {
            return .record(.success(record))
        }
        if let problem = encodingProblem(bytes) { throw problem }
        if reading != .whole, let record = plainRecord(text, reading: reading),
            record.problems.isEmpty
        {
            return .record(.success(record))
        }
        return try decodeLine(text: Data(text), reading: reading)
    }

    /// One line of NDJSON, which may be `{"calendar": {…}}`.
    public static func decodeNDJSONLine(_ data: Data, reading: Reading = .whole)
        throws(SyntaxError) -> Line
    {
        if let problem = encodingProblem(data) { throw problem }
        let data = withoutByteOrderMark(data)
        if let record = plainRecord(data, reading: reading), record.problems.isEmpty {
            return .record(.success(record))
        }
        return try decodeLine(text: data, reading: reading)
    }

    /// A line of NDJSON that is UTF-8 without a byte-order mark, read the general way.
    private static func decodeLine(text data: Data, reading: Reading) throws(SyntaxError) -> Line {
        let value = try parse(data, skipping: reading.skipping(recordDepth: .line))
        guard case .object = value else { throw notAnObject(value) }
        let object = FileObject(value)
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
        return .record(slimmed([record], reading)[0])
    }

    /// `records`, read times-only, as their skeletons: of the lines kept as written (read
    /// whole, some say when a record happens) those that do not are dropped.
    private static func slimmed(
        _ records: [Result<TaskRecord, RecordProblems>], _ reading: Reading
    ) -> [Result<TaskRecord, RecordProblems>] {
        guard reading == .timesOnly else { return records }
        return records.map { $0.map { $0.isTimeSkeleton ? $0 : $0.timeSkeleton } }
    }

    /// Why `data` is not UTF-8 JSON text as RFC 8259 requires, said so that the file can be
    /// fixed: UTF-16 or UTF-32 (by their byte-order marks or zero bytes), a NUL byte, or the
    /// first byte that is not UTF-8 (a Latin-1 `é`), with its line and column.
    static func encodingProblem(_ data: Data) -> SyntaxError? {
        data.withUnsafeBytes { encodingProblem($0) }
    }

    /// ``encodingProblem(_:)-(Data)`` for bytes in memory.
    static func encodingProblem(_ bytes: UnsafeRawBufferPointer) -> SyntaxError? {
        if let name = wideEncoding(bytes) {
            return SyntaxError(
                line: 1,
                message:
                    "the file is \(name), not UTF-8 as JSON must be; re-encode it, for example with iconv -f \(name) -t UTF-8"
            )
        }
        guard let bad = firstNonText(bytes) else { return nil }
        // Where it is: every byte before it is text, so a character is a byte that is no
        // UTF-8 continuation byte.
        var line = 1
        var column = 1
        for byte in bytes[..<bad] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        let byte = bytes[bad]
        if byte == 0 {
            return SyntaxError(
                line: line, message: "a NUL byte at column \(column); JSON text has none")
        }
        return SyntaxError(
            line: line,
            message:
                "byte 0x\(String(byte, radix: 16, uppercase: true)) at column \(column) is not UTF-8, which JSON must be; re-encode the file, for example with iconv -f LATIN1 -t UTF-8"
        )
    }

    /// The UTF-16 or UTF-32 encoding `bytes` are in, by their byte-order mark or the zero
    /// bytes of ASCII text, if they are.
    private static func wideEncoding(_ bytes: UnsafeRawBufferPointer) -> String? {
        // Text that starts with no zero byte and no 0xFE or 0xFF is neither (nearly every line).
        if bytes.count >= 2, bytes[0] != 0, bytes[0] < 0xFE, bytes[1] != 0 { return nil }
        let head = Array(bytes.prefix(4))
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32LE" }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32BE" }
        if head.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
        if head.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
        if head.count == 4, head[0] != 0, head[1] == 0, head[2] != 0, head[3] == 0 {
            return "UTF-16LE"
        }
        if head.count == 4, head[0] == 0, head[1] != 0, head[2] == 0, head[3] != 0 {
            return "UTF-16BE"
        }
        return nil
    }

    /// The offset of the first byte that is a NUL or not part of well-formed UTF-8, if any.
    /// ASCII without NULs, most of any file, is passed over eight bytes at a time; the two-
    /// and three-byte forms (Cyrillic, Greek, CJK …) are checked each with a test or two.
    static func firstNonText(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count {
                // A flag on each byte that is not ASCII or is zero; the lowest flag is exact
                // (a borrow only reaches the bytes above a zero), so the bytes before it are
                // ASCII text and are passed over at once.
                let word = UInt64(
                    littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let flags =
                    (word | ((word &- 0x0101_0101_0101_0101) & ~word)) & 0x8080_8080_8080_8080
                if flags == 0 {
                    index += 8
                    continue
                }
                index += flags.trailingZeroBitCount >> 3
            }
            var byte = bytes[index]
            if byte < 0x80 {
                if byte == 0 { return index }
                index += 1
                continue
            }
            // A run of characters that are not ASCII (a word in Cyrillic, say), one after the
            // other without going back to the eight-byte test, which would fail on each.
            repeat {
                // RFC 3629's table: the lead byte gives the length and the second byte's
                // range (narrower after E0, ED, F0 and F4: no overlong form, no surrogate,
                // nothing past U+10FFFF); the bytes after the second are continuation bytes.
                if byte >= 0xC2 && byte <= 0xDF {
                    guard index + 1 < count, bytes[index + 1] & 0xC0 == 0x80 else { return index }
                    index += 2
                } else {
                    let length: Int
                    var low: UInt8 = 0x80
                    var high: UInt8 = 0xBF
                    switch byte {
                    case 0xE0:
                        length = 3
                        low = 0xA0
                    case 0xED:
                        length = 3
                        high = 0x9F
                    case 0xE1...0xEF: length = 3
                    case 0xF0:
                        length = 4
                        low = 0x90
                    case 0xF4:
                        length = 4
                        high = 0x8F
                    case 0xF1...0xF3: length = 4
                    default: return index
                    }
                    guard index + length <= count else { return index }
                    let second = bytes[index + 1]
                    guard second >= low, second <= high, bytes[index + 2] & 0xC0 == 0x80,
                        length == 3 || bytes[index + 3] & 0xC0 == 0x80
                    else { return index }
                    index += length
                }
                guard index < count else { return nil }
                byte = bytes[index]
            } while byte >= 0x80
        }
        return nil
    }

    private static func withoutByteOrderMark(_ data: Data) -> Data {
        // Byte by byte: `starts(with: [0xEF, 0xBB, 0xBF])` made an array and walked Data's
        // generic iterator for every NDJSON line (0.6% of a conversion to .ics).
        let start = data.startIndex
        guard data.count >= 3, data[start] == 0xEF, data[start + 1] == 0xBB, data[start + 2] == 0xBF
        else { return data }
        return data.dropFirst(3)
    }

    /// `data` parsed, or the syntax error with its line and column (a column alone for text
    /// on one line, which the caller names by line: NDJSON, or a file on one line).
    private static func parse(_ data: Data, skipping: JSONValue.Skipping? = nil)
        throws(SyntaxError) -> JSONValue
    {
        do throws(JSONValue.SyntaxError) {
            return try JSONValue.parse(data, skipping: skipping)
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    private static func syntaxError(_ error: JSONValue.SyntaxError, in data: Data) -> SyntaxError {
        guard let offset = error.offset else {
            let lines = data.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 } - (data.last == 0x0A ? 1 : 0)
            return SyntaxError(
                line: lines,
                message:
                    "not valid JSON: the text ends before the JSON does (a ] or } missing, or the file cut short)"
            )
        }
        do {
            var line = 1
            var column = 1
            for byte in data.prefix(offset) {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            let place = data.contains(0x0A) ? "line \(line), column \(column)" : "column \(column)"
            return SyntaxError(line: line, message: "not valid JSON: \(error.reason) at \(place)")
        }
    }

    /// A line that is JSON but no object.
    private static func notAnObject(_ value: JSONValue) -> SyntaxError {
        let found: String
        switch value {
        case .array: found = "an array"
        case .string, .invalidString: found = "a string"
        case .null: found = "null"
        case .number, .bool: found = "a number or true/false"
        case .object: found = "an object"
        }
        return SyntaxError(
            line: nil, message: "expected a JSON object (a task record), found \(found)")
    }

    /// A record read with its problems caught instead of thrown.
    /// The records of `values`, each value released once its record is made: the parsed
    /// values of a file take several times the memory of its records, and this way the two
    /// are not held whole at once.
    private static func records(consuming values: inout [JSONValue]) -> [Result<
        TaskRecord, RecordProblems
    >] {
        var records: [Result<TaskRecord, RecordProblems>] = []
        records.reserveCapacity(values.count)
        for index in values.indices {
            records.append(record(values[index]))
            values[index] = .null
        }
        return records
    }

    static func record(_ value: JSONValue) -> Result<TaskRecord, RecordProblems> {
        do {
            let record = try TaskRecord(json: value)
            let problems = record.problems
            return problems.isEmpty ? .success(record) : .failure(RecordProblems(problems))
        } catch let problems as RecordProblems {
            return .failure(problems)
        } catch {
            return .failure(RecordProblems([Problem(field: "", "\(error)")]))
        }
    }

    /// A top-level object: the object form of a file (`calendar`, `records`), the calendar
    /// line of NDJSON, or one record.
    private struct FileObject {
        var calendar: CalendarInfo?
        var records: [Result<TaskRecord, RecordProblems>] = []
        var problems: RecordProblems?
        var isCalendarLine = false

        init(_ value: JSONValue) {
            guard case .object(let members) = value else {
                records = [TaskJSON.record(value)]
                return
            }
            // Almost every NDJSON line is a record: one pass, lengths compared first (a
            // String == that fails takes its slow Unicode path).
            var calendarMember: JSONValue.Member?
            var recordsMember: JSONValue.Member?
            for member in members {
                switch member.name.utf8.count {
                case 8 where calendarMember == nil && member.name == "calendar":
                    calendarMember = member
                case 7 where recordsMember == nil && member.name == "records":
                    recordsMember = member
                default: continue
                }
            }
            guard calendarMember != nil || recordsMember != nil else {
                records = [TaskJSON.record(value)]
                return
            }
            isCalendarLine = recordsMember == nil
            var found: [Problem] = []
            for key in Set(members.map(\.name)).sorted() where key != "calendar" && key != "records"
            {
                found.append(Problem(field: key, "unknown field; expected calendar and records"))
            }
            if let calendarMember {
                do {
                    calendar = try CalendarInfo(json: calendarMember.value)
                } catch let error as RecordProblems {
                    found += error.problems.map { $0.nested(in: "calendar") }
                } catch {
                    found.append(Problem(field: "calendar", "expected an object"))
                }
            }
            if let recordsMember {
                if case .array(let values) = recordsMember.value {
                    records = values.map(TaskJSON.record(_:))
                } else {
                    found.append(Problem(field: "records", "expected an array of task records"))
                }
            }
            if !found.isEmpty { problems = RecordProblems(found) }
        }
    }
}
