import Foundation

extension TaskRecord {
    /// The record as one line of JSON in the task format, keys in the spec's order,
    /// timestamps as strings, optional fields only when present. Identical records give
    /// identical bytes.
    public var jsonLine: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the record as ``jsonLine`` does, into `writer`'s buffer.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("id", number: id)
        if !unscheduled {
            writer.field("date_start", numberString: dateStart)
            writer.field("date_finish", numberString: dateFinish)
        }
        writer.field("name", string: name)
        if kind != .event { writer.field("kind", string: kind.rawValue) }
        if let description { writer.field("description", string: description) }
        if let uid { writer.field("uid", string: uid) }
        if let recurrenceID { writer.field("recurrence_id", numberString: recurrenceID) }
        if thisAndFuture { writer.field("this_and_future", bool: true) }
        if allDay { writer.field("all_day", bool: true) }
        if let timeZone { writer.field("time_zone", string: timeZone) }
        if floating { writer.field("floating", bool: true) }
        if let due { writer.field("due", numberString: due) }
        if done { writer.field("done", bool: true) }
        if let status { writer.field("status", string: status.rawValue) }
        if free { writer.field("free", bool: true) }
        if let location { writer.field("location", string: location) }
        writer.field("categories", strings: categories)
        if let color { writer.field("color", string: color) }
        if let classification { writer.field("class", string: classification.rawValue) }
        if let url { writer.field("url", string: url) }
        if let organizer {
            writer.key("organizer")
            organizer.write(to: &writer)
        }
        if !attendees.isEmpty {
            writer.key("attendees")
            writer.array(attendees) { writer, person in person.write(to: &writer) }
        }
        if let recurrence {
            writer.key("recurrence")
            recurrence.write(to: &writer)
        }
        if !attachments.isEmpty {
            writer.key("attachments")
            writer.array(attachments) { writer, attachment in attachment.write(to: &writer) }
        }
        if !alarms.isEmpty {
            writer.key("alarms")
            writer.array(alarms) { writer, alarm in alarm.write(to: &writer) }
        }
        if !subtasks.isEmpty {
            writer.key("subtasks")
            writer.array(subtasks) { writer, subtask in subtask.write(to: &writer) }
        }
        if !icalParameters.isEmpty {
            writer.key("ical_parameters")
            writer.object(icalParameters)
        }
        writer.field("ical_extra", strings: icalExtra)
        writer.field("ical_components", strings: icalComponents)
        writer.end()
    }
}

extension CalendarInfo {
    /// The `calendar` member's value.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("ical_extra", strings: icalExtra)
        writer.field("ical_components", strings: icalComponents)
        writer.end()
    }

    /// `{"calendar": {…}}`: the first line of NDJSON.
    public var jsonLine: String {
        var writer = JSONWriter()
        writer.begin()
        writer.key("calendar")
        write(to: &writer)
        writer.end()
        return writer.text
    }
}

extension Person {
    /// Writes it as the task format does, into `writer`'s buffer.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("address", string: address)
        if let name { writer.field("name", string: name) }
        if !parameters.isEmpty {
            writer.key("parameters")
            writer.begin()
            for parameter in parameters {
                writer.field(named: parameter.name, string: parameter.value)
            }
            writer.end()
        }
        writer.end()
    }
}

extension Recurrence {
    /// Writes it as the task format does, into `writer`'s buffer.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        if let rule { writer.field("rule", string: rule) }
        if !exdates.isEmpty {
            writer.key("exdates")
            writer.array(exdates) { writer, time in writer.numberString(time) }
        }
        if !rdates.isEmpty {
            writer.key("rdates")
            writer.array(rdates) { writer, time in writer.numberString(time) }
        }
        writer.end()
    }
}

extension Attachment {
    /// Writes it as the task format does, into `writer`'s buffer.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        if let filename { writer.field("filename", string: filename) }
        if let mimeType { writer.field("mime_type", string: mimeType) }
        switch content {
        case .inline(let data):
            // The text it was read from when that is what encoding would give (issue 59).
            writer.field("data", string: base64 ?? data.base64EncodedString())
        case .url(let url): writer.field("url", string: url)
        case .path(let path): writer.field("path", string: path)
        }
        if let icalParameters { writer.field("ical_parameters", string: icalParameters) }
        writer.end()
    }
}

extension Alarm {
    /// Writes it as the task format does, into `writer`'s buffer.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("action", string: action.rawValue)
        switch trigger {
        case .relative(let duration, let fromEnd):
            writer.field("trigger", string: duration)
            if fromEnd { writer.field("related", string: "end") }
        case .absolute(let time):
            writer.field("trigger_at", numberString: time)
        }
        if let description { writer.field("description", string: description) }
        if let summary { writer.field("summary", string: summary) }
        writer.field("attendees", strings: attendees)
        if let sound { writer.field("sound", string: sound) }
        if let repeatCount { writer.field("repeat", number: Int64(repeatCount)) }
        if let repeatInterval { writer.field("repeat_interval", string: repeatInterval) }
        if !enabled { writer.field("enabled", bool: false) }
        if !icalParameters.isEmpty {
            writer.key("ical_parameters")
            writer.object(icalParameters)
        }
        writer.field("ical_extra", strings: icalExtra)
        writer.end()
    }
}

/// A small JSON writer for the task format: fixed key order and spacing, UTF-8 as is,
/// control characters escaped. Deterministic by construction.
///
/// It writes bytes into one buffer, never through intermediate Strings: a sink keeps one
/// writer and calls ``reset()`` between records, so the buffer is allocated once per file.
public struct JSONWriter {
    /// The UTF-8 bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// Creates an empty writer.
    public init() {}

    /// The JSON written so far, as a String.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Empties the writer, keeping its buffer for the next record.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// Appends `text` as it is: the punctuation between values, which the caller owns.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { text in write(upTo: text.count) { $0.append(copying: text) } }
    }

    /// Appends what `body` puts into room for `maximum` more bytes. The buffer's room and
    /// ownership are checked once for a run of small appends (a key is its comma, quotes,
    /// name and colon), where `append` checks them for each byte or piece.
    @inline(__always)
    private mutating func write(upTo maximum: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        bytes.append(addingCapacity: maximum, initializingWith: body)
    }

    /// Opens an object.
    public mutating func begin() {
        bytes.append(JSONByte.beginObject)
        needsComma = false
    }

    /// Closes an object.
    public mutating func end() {
        bytes.append(JSONByte.endObject)
        needsComma = true
    }

    /// Writes a key and its colon.
    ///
    /// Punctuation is appended from static text: an array literal such as `[",", " "]`
    /// was an array made for every key of every record written.
    public mutating func key(_ name: StaticString) {
        let comma = needsComma
        name.withUTF8Buffer { name in
            write(upTo: name.count + 6) { out in
                if comma { out.appendSeparator() }
                out.append(0x22)
                out.append(copying: name)
                out.append(0x22)
                out.append(0x3A)
                out.append(0x20)
            }
        }
        needsComma = false
    }

    /// Writes a key that is not known in advance (a parameter's name), escaped as any string.
    public mutating func key(named name: String) {
        if needsComma { separator() }
        string(name)
        raw(": ")
        needsComma = false
    }

    private mutating func separator() {
        raw(", ")
    }

    /// Writes `"name": "value"`.
    public mutating func field(_ name: StaticString, string value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name": "value"` for a key that is not known in advance.
    public mutating func field(named name: String, string value: String) {
        key(named: name)
        string(value)
    }

    /// Writes `"name": "TEXT:LINE"`: a place in a file, without making its text first.
    public mutating func field(_ name: StaticString, string value: String, line: Int) {
        key(name)
        string(value)
        bytes.removeLast()  // the closing quote, which comes after the line
        bytes.append(UInt8(ascii: ":"))
        digits(Int64(line))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Makes room for `count` more bytes, for a writer about to write that many.
    public mutating func reserveCapacity(_ count: Int) {
        bytes.reserveCapacity(bytes.count + count)
    }

    /// Writes `"name": "123"`: a number as a string, as the task format writes timestamps.
    public mutating func field(_ name: StaticString, numberString value: Int64) {
        key(name)
        Self.withDigits(value) { digits in
            write(upTo: digits.count + 2) { out in
                out.append(0x22)
                out.append(copying: digits)
                out.append(0x22)
            }
        }
        needsComma = true
    }

    /// Writes `"123"`: a number as a string (an array item).
    public mutating func numberString(_ value: Int64) {
        bytes.append(UInt8(ascii: "\""))
        digits(value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes `"name": 42`.
    public mutating func field(_ name: StaticString, number value: Int64) {
        key(name)
        digits(value)
        needsComma = true
    }

    /// Writes `"name": 42` for a key that is not known in advance (a date).
    public mutating func field(named name: String, number value: Int64) {
        key(named: name)
        digits(value)
        needsComma = true
    }

    /// Writes `"name": 0.57`: a decimal with `places` digits after the point.
    public mutating func field(_ name: StaticString, decimal value: Double, places: Int) {
        key(name)
        bytes.append(contentsOf: Array(String(format: "%.*f", places, value).utf8))
        needsComma = true
    }

    /// Writes `"name": true`.
    public mutating func field(_ name: StaticString, bool value: Bool) {
        key(name)
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])  // true
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])  // false
        }
        needsComma = true
    }

    /// The decimal digits of `value`, written in place.
    private mutating func digits(_ value: Int64) {
        Self.withDigits(value) { digits in
            write(upTo: digits.count) { $0.append(copying: digits) }
        }
    }

    /// Hands `body` the decimal digits of `value` (with `-` before them if it is negative),
    /// made from the end of a buffer on the stack. Static: as an instance method called from
    /// a mutating one, a build without optimization passed it a copy of the writer, and
    /// `bytes` shared with that copy was copied whole by every number `body` appended, so a
    /// debug binary took minutes for an overlap report of 44,850 pairs (the release build
    /// 0.1 s).
    @inline(__always)
    private static func withDigits(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            body(UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Writes `"name": ["…", …]` when `strings` holds any (a field the task format leaves out
    /// when it is empty).
    public mutating func field(_ name: StaticString, strings: [String]) {
        guard !strings.isEmpty else { return }
        key(name)
        array(strings) { writer, text in writer.string(text) }
    }

    /// Writes an array, each item by `write`.
    public mutating func array<T>(_ items: [T], _ write: (inout JSONWriter, T) -> Void) {
        bytes.append(JSONByte.beginArray)
        for (index, item) in items.enumerated() {
            if index > 0 { separator() }
            needsComma = false
            write(&self, item)
        }
        bytes.append(JSONByte.endArray)
        needsComma = true
    }

    /// Writes an object of string values, keys sorted.
    public mutating func object(_ values: [String: String]) {
        begin()
        for key in values.keys.sorted() { field(named: key, string: values[key]!) }
        end()
    }

    /// Writes any JSON value, compactly (`", "` and `": "` between items); numbers as
    /// they were written.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null, .invalidString: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .number(let digits): bytes.append(contentsOf: digits.utf8)
        case .string(let text): string(text)
        case .array(let items): array(items) { $0.value($1) }
        case .object(let members):
            begin()
            for member in members {
                key(named: member.name)
                self.value(member.value)
            }
            end()
        }
        needsComma = true
    }

    /// Writes the escape of `byte`: a quote, a backslash or a control character.
    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { hex in
                bytes.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                    hex[Int(byte & 0xF)],
                ])
            }
        }
    }

    /// Writes `value` as a JSON string.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // The plain runs between bytes to escape are found eight bytes at a time (inline
            // attachments and long descriptions are most of the bytes written).
            let raw = UnsafeRawBufferPointer(utf8)
            var stop = ByteScan.stringStop(in: raw, from: 0)
            // Nothing to escape (nearly every string): quotes and text in one step.
            guard stop < utf8.count else {
                write(upTo: utf8.count + 2) { out in
                    out.append(0x22)
                    out.append(copying: utf8)
                    out.append(0x22)
                }
                return
            }
            bytes.append(UInt8(ascii: "\""))
            var plainStart = 0
            while true {
                let run = UnsafeBufferPointer(rebasing: utf8[plainStart..<stop])
                write(upTo: run.count) { $0.append(copying: run) }
                guard stop < utf8.count else { break }
                escape(utf8[stop])
                plainStart = stop + 1
                stop = ByteScan.stringStop(in: raw, from: plainStart)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        needsComma = true
    }
}

extension OutputSpan<UInt8> {
    /// Appends the bytes of `piece`, which must fit.
    @inline(__always)
    mutating func append(copying piece: UnsafeBufferPointer<UInt8>) {
        guard let source = piece.baseAddress else { return }
        withUnsafeMutableBufferPointer { room, count in
            precondition(piece.count <= room.count - count, "no room for the bytes")
            (room.baseAddress! + count).initialize(from: source, count: piece.count)
            count += piece.count
        }
    }

    /// Appends `, `, the separator between values.
    @inline(__always)
    mutating func appendSeparator() {
        append(0x2C)
        append(0x20)
    }
}
