import Foundation

extension TaskRecord {
    /// The record as one line of JSON in the task format, keys in the spec's order,
    /// timestamps as strings, optional fields only when present. Identical records give
    /// identical bytes.
    public var jsonLine: String {
        var writer = JSONWriter()
        writer.begin()
        writer.field("id", number: id)
        writer.field("date_start", string: String(dateStart))
        writer.field("date_finish", string: String(dateFinish))
        writer.field("name", string: name)
        if let description { writer.field("description", string: description) }
        if let uid { writer.field("uid", string: uid) }
        if allDay { writer.field("all_day", bool: true) }
        if let status { writer.field("status", string: status.rawValue) }
        if free { writer.field("free", bool: true) }
        if !attachments.isEmpty {
            writer.key("attachments")
            writer.array(attachments) { writer, attachment in attachment.write(to: &writer) }
        }
        if !alarms.isEmpty {
            writer.key("alarms")
            writer.array(alarms) { writer, alarm in alarm.write(to: &writer) }
        }
        writer.end()
        return writer.text
    }
}

extension Attachment {
    func write(to writer: inout JSONWriter) {
        writer.begin()
        if let filename { writer.field("filename", string: filename) }
        if let mimeType { writer.field("mime_type", string: mimeType) }
        switch content {
        case .inline(let data): writer.field("data", string: data.base64EncodedString())
        case .url(let url): writer.field("url", string: url)
        case .path(let path): writer.field("path", string: path)
        }
        writer.end()
    }
}

extension Alarm {
    func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("action", string: action.rawValue)
        switch trigger {
        case .relative(let duration, let fromEnd):
            writer.field("trigger", string: duration)
            if fromEnd { writer.field("related", string: "end") }
        case .absolute(let time):
            writer.field("trigger_at", string: String(time))
        }
        if let description { writer.field("description", string: description) }
        if let summary { writer.field("summary", string: summary) }
        if !attendees.isEmpty {
            writer.key("attendees")
            writer.array(attendees) { writer, attendee in writer.string(attendee) }
        }
        if let sound { writer.field("sound", string: sound) }
        if let repeatCount { writer.field("repeat", number: Int64(repeatCount)) }
        if let repeatInterval { writer.field("repeat_interval", string: repeatInterval) }
        if !enabled { writer.field("enabled", bool: false) }
        writer.end()
    }
}

/// A small JSON writer for the task format: fixed key order and spacing, UTF-8 as is,
/// control characters escaped. Deterministic by construction.
public struct JSONWriter {
    /// The JSON written so far.
    public private(set) var text = ""
    private var needsComma = false

    /// Creates an empty writer.
    public init() {}

    /// Opens an object.
    public mutating func begin() {
        text += "{"
        needsComma = false
    }

    /// Closes an object.
    public mutating func end() {
        text += "}"
        needsComma = true
    }

    /// Writes a key and its colon.
    public mutating func key(_ name: String) {
        if needsComma { text += ", " }
        string(name)
        text += ": "
        needsComma = false
    }

    /// Writes `"name": "value"`.
    public mutating func field(_ name: String, string value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name": 42`.
    public mutating func field(_ name: String, number value: Int64) {
        key(name)
        text += String(value)
        needsComma = true
    }

    /// Writes `"name": true`.
    public mutating func field(_ name: String, bool value: Bool) {
        key(name)
        text += value ? "true" : "false"
        needsComma = true
    }

    /// Writes an array, each item by `write`.
    public mutating func array<T>(_ items: [T], _ write: (inout JSONWriter, T) -> Void) {
        text += "["
        for (index, item) in items.enumerated() {
            if index > 0 { text += ", " }
            needsComma = false
            write(&self, item)
        }
        text += "]"
        needsComma = true
    }

    /// Writes `value` as a JSON string.
    public mutating func string(_ value: String) {
        text += "\""
        var plainStart = value.utf8.startIndex
        let utf8 = value.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 {
                text += String(value[plainStart..<index])
                switch byte {
                case 0x22: text += "\\\""
                case 0x5C: text += "\\\\"
                case 0x0A: text += "\\n"
                case 0x0D: text += "\\r"
                case 0x09: text += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        text += String(value[plainStart...])
        text += "\""
        needsComma = true
    }
}
