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

    func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("id", number: id)
        if !unscheduled {
            writer.field("date_start", string: String(dateStart))
            writer.field("date_finish", string: String(dateFinish))
        }
        writer.field("name", string: name)
        if kind != .event { writer.field("kind", string: kind.rawValue) }
        if let description { writer.field("description", string: description) }
        if let uid { writer.field("uid", string: uid) }
        if let recurrenceID { writer.field("recurrence_id", string: String(recurrenceID)) }
        if thisAndFuture { writer.field("this_and_future", bool: true) }
        if allDay { writer.field("all_day", bool: true) }
        if let timeZone { writer.field("time_zone", string: timeZone) }
        if floating { writer.field("floating", bool: true) }
        if let due { writer.field("due", string: String(due)) }
        if done { writer.field("done", bool: true) }
        if let status { writer.field("status", string: status.rawValue) }
        if free { writer.field("free", bool: true) }
        if let location { writer.field("location", string: location) }
        if !categories.isEmpty {
            writer.key("categories")
            writer.array(categories) { writer, category in writer.string(category) }
        }
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
        if !icalExtra.isEmpty {
            writer.key("ical_extra")
            writer.array(icalExtra) { writer, line in writer.string(line) }
        }
        if !icalComponents.isEmpty {
            writer.key("ical_components")
            writer.array(icalComponents) { writer, text in writer.string(text) }
        }
        writer.end()
    }
}

extension CalendarInfo {
    /// The `calendar` member's value.
    public func write(to writer: inout JSONWriter) {
        writer.begin()
        if !icalExtra.isEmpty {
            writer.key("ical_extra")
            writer.array(icalExtra) { writer, line in writer.string(line) }
        }
        if !icalComponents.isEmpty {
            writer.key("ical_components")
            writer.array(icalComponents) { writer, text in writer.string(text) }
        }
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
    func write(to writer: inout JSONWriter) {
        writer.begin()
        writer.field("address", string: address)
        if let name { writer.field("name", string: name) }
        if !parameters.isEmpty {
            writer.key("parameters")
            writer.begin()
            for parameter in parameters { writer.field(parameter.name, string: parameter.value) }
            writer.end()
        }
        writer.end()
    }
}

extension Recurrence {
    func write(to writer: inout JSONWriter) {
        writer.begin()
        if let rule { writer.field("rule", string: rule) }
        if !exdates.isEmpty {
            writer.key("exdates")
            writer.array(exdates) { writer, time in writer.string(String(time)) }
        }
        if !rdates.isEmpty {
            writer.key("rdates")
            writer.array(rdates) { writer, time in writer.string(String(time)) }
        }
        writer.end()
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
        if let icalParameters { writer.field("ical_parameters", string: icalParameters) }
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
        if !icalParameters.isEmpty {
            writer.key("ical_parameters")
            writer.object(icalParameters)
        }
        if !icalExtra.isEmpty {
            writer.key("ical_extra")
            writer.array(icalExtra) { writer, line in writer.string(line) }
        }
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

    /// Writes an object of string values, keys sorted.
    public mutating func object(_ values: [String: String]) {
        begin()
        for key in values.keys.sorted() { field(key, string: values[key]!) }
        end()
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
