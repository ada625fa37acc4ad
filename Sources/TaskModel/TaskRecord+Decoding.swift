import Foundation

extension Problem: Error {}

/// Unix-seconds parsing shared by JSON and the command line.
public enum Timestamp {
    /// The smallest and largest instants iCalendar can write: years 0001 to 9999 (UTC).
    public static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// `text` as Unix seconds: an optional `-` and decimal digits, nothing else.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            let negative = bytes.first == UInt8(ascii: "-")
            let digits = negative ? bytes.count - 1 : bytes.count
            // Eighteen digits cannot overflow.
            guard digits > 0, digits <= 18 else { return nil }
            var value: Int64 = 0
            for byte in bytes[(negative ? 1 : 0)...] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return negative ? -value : value
        }
    }
}

extension TaskRecord: Decodable {
    /// Decodes a record through any `Decoder`, reporting every problem of the record at once
    /// (as ``RecordProblems``). taskcal itself reads records with ``init(json:)``.
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    static let fields: FieldNames = [
        "id", "date_start", "date_finish", "name", "kind", "description", "uid", "recurrence_id",
        "all_day", "time_zone", "due", "done", "status", "free", "location", "categories",
        "color", "class", "url", "organizer", "attendees", "recurrence", "attachments", "alarms",
        "subtasks", "ical_extra", "floating", "this_and_future", "ical_parameters",
        "ical_components", "private",
    ]

    /// Reads a record from a JSON value, reporting every problem of the record at once (as
    /// ``RecordProblems``), including unknown fields, which are never silently dropped.
    public init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a task record")
        let kind =
            reader.optional("kind") { fields, name -> Kind? in
                try fields.choice(name, Kind.self, what: "a kind")
            } ?? .event
        let id = reader.required("id") { try $0.integer($1) }
        // A to-do or a journal entry need not be scheduled: it may leave out both times.
        let unscheduled =
            kind != .event && !reader.has("date_start") && !reader.has("date_finish")
        let start = unscheduled ? 0 : reader.required("date_start") { try $0.timestamp($1) }
        let finish = unscheduled ? 0 : reader.required("date_finish") { try $0.timestamp($1) }
        let name = reader.required("name") { try $0.string($1) }
        let description = reader.optional("description") { try $0.string($1) }
        let uid = reader.optional("uid") { try $0.string($1) }
        let recurrenceID = reader.optional("recurrence_id") { try $0.timestamp($1) }
        let allDay = reader.optional("all_day") { try $0.bool($1) }
        let timeZone = reader.optional("time_zone") { try $0.string($1) }
        let due = reader.optional("due") { try $0.timestamp($1) }
        let done = reader.optional("done") { try $0.bool($1) }
        let status = reader.optional("status") { fields, name -> Status? in
            try fields.choice(name, Status.self, what: "a status")
        }
        let free = reader.optional("free") { try $0.bool($1) }
        let location = reader.optional("location") { try $0.string($1) }
        let categories = reader.optional("categories") { try $0.strings($1) }
        let color = reader.optional("color") { try $0.string($1) }
        var classification = reader.optional("class") { fields, name -> Classification? in
            try fields.choice(name, Classification.self, what: "a class")
        }
        // `"private": true` is the short way to say `"class": "confidential"`: a protected
        // entry. It may stand beside a class that agrees with it, never one that does not.
        if let protected = reader.optional("private", { try $0.bool($1) }) {
            let protectedClass = classification == .private || classification == .confidential
            if classification == nil {
                classification = protected ? .confidential : nil
            } else if protected != protectedClass {
                reader.problems.append(
                    Problem(
                        field: "private",
                        "\(protected) contradicts \"class\": \"\(classification!.rawValue)\"; give one of them"
                    ))
            }
        }
        let url = reader.optional("url") { try $0.string($1) }
        let organizer = reader.optional("organizer") { try $0.object($1, Person.init(json:)) }
        let attendees = reader.optional("attendees") { try $0.array($1, Person.init(json:)) }
        let recurrence = reader.optional("recurrence") {
            try $0.object($1, Recurrence.init(json:))
        }
        let attachments = reader.optional("attachments") {
            try $0.array($1, Attachment.init(json:))
        }
        let alarms = reader.optional("alarms") { try $0.array($1, Alarm.init(json:)) }
        let subtasks = reader.optional("subtasks") { try $0.array($1, TaskRecord.init(json:)) }
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let floating = reader.optional("floating") { try $0.bool($1) }
        let thisAndFuture = reader.optional("this_and_future") { try $0.bool($1) }
        let parameters = reader.optional("ical_parameters") { try $0.stringObject($1) }
        let components = reader.optional("ical_components") { try $0.strings($1) }
        try reader.finish()
        guard let id, let start, let finish, let name else {
            // Unreachable while `required` reports every field it leaves unset; never a crash.
            throw RecordProblems([Problem(field: "", "a required field has no value")])
        }
        self.init(
            id: id, dateStart: start, dateFinish: finish, name: name, description: description,
            uid: uid, allDay: allDay ?? false, status: status, free: free ?? false,
            attachments: attachments ?? [], alarms: alarms ?? [])
        self.kind = kind
        self.unscheduled = unscheduled
        self.recurrenceID = recurrenceID
        self.timeZone = timeZone
        self.due = due
        self.done = done ?? false
        self.location = location
        self.categories = categories ?? []
        self.color = color
        self.classification = classification
        self.url = url
        self.organizer = organizer
        self.attendees = attendees ?? []
        self.recurrence = recurrence
        self.subtasks = subtasks ?? []
        self.icalExtra = extra ?? []
        self.floating = floating ?? false
        self.thisAndFuture = thisAndFuture ?? false
        self.icalParameters = parameters ?? [:]
        self.icalComponents = components ?? []
    }
}

extension CalendarInfo: Decodable {
    static let fields: FieldNames = ["ical_extra", "ical_components", "name"]

    /// Decodes the `calendar` member through any `Decoder`, reporting every problem at once.
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    /// Reads the `calendar` member from a JSON value, reporting every problem at once.
    public init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "calendar data")
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let components = reader.optional("ical_components") { try $0.strings($1) }
        let name = reader.optional("name") { try $0.string($1) }
        try reader.finish()
        self.init(icalExtra: extra ?? [], icalComponents: components ?? [])
        if let name { setName(name) }
    }
}

extension Person {
    static let fields: FieldNames = ["address", "name", "parameters"]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a person")
        let address = reader.required("address") { try $0.string($1) }
        let name = reader.optional("name") { try $0.string($1) }
        let parameters = reader.optional("parameters") { fields, name -> [String: String]? in
            guard let parameters = fields.stringDictionary(name) else {
                throw Problem(field: "", "expected an object of parameter names and string values")
            }
            return parameters
        }
        try reader.finish()
        guard let address else {
            throw RecordProblems([Problem(field: "address", "has no value")])
        }
        self.init(
            address: address, name: name,
            parameters: (parameters ?? [:]).map { ($0.key, $0.value) })
    }
}

extension Recurrence {
    static let fields: FieldNames = ["rule", "exdates", "rdates"]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "a recurrence")
        let rule = reader.optional("rule") { try $0.string($1) }
        let exdates = reader.optional("exdates") { try $0.timestamps($1) }
        let rdates = reader.optional("rdates") { try $0.timestamps($1) }
        try reader.finish()
        self.init(rule: rule, exdates: exdates ?? [], rdates: rdates ?? [])
    }
}

extension Attachment {
    static let fields: FieldNames = [
        "filename", "mime_type", "data", "url", "path", "ical_parameters",
    ]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "an attachment")
        let filename = reader.optional("filename") { try $0.string($1) }
        let mimeType = reader.optional("mime_type") { try $0.string($1) }
        var contents: [Content] = []
        var base64: String?
        if let data = reader.optional("data", { try $0.string($1) }) {
            if let bytes = Data(base64Encoded: data) {
                contents.append(.inline(bytes))
                base64 = data
            } else {
                reader.problems.append(
                    Problem(field: "data", "invalid base64 (RFC 4648, no line breaks)"))
            }
        }
        if let url = reader.optional("url", { try $0.string($1) }) { contents.append(.url(url)) }
        if let path = reader.optional("path", { try $0.string($1) }) {
            contents.append(.path(path))
        }
        let parameters = reader.optional("ical_parameters") { try $0.string($1) }
        if contents.count != 1 && reader.problems.isEmpty {
            reader.problems.append(Problem(field: "", "needs exactly one of data, url or path"))
        }
        try reader.finish()
        if case .inline(let data) = contents[0], let base64 {
            self.init(filename: filename, mimeType: mimeType, data: data, base64: base64)
        } else {
            self.init(filename: filename, mimeType: mimeType, content: contents[0])
        }
        icalParameters = parameters
    }
}

extension Alarm {
    static let fields: FieldNames = [
        "action", "trigger", "related", "trigger_at", "description", "summary", "attendees",
        "sound",
        "repeat", "repeat_interval", "enabled", "ical_extra", "ical_parameters",
    ]

    init(json: JSONValue) throws {
        var reader = try FieldReader(json, known: Self.fields, what: "an alarm")
        let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
        let action = reader.required("action") { fields, name -> Action? in
            let text = try fields.string(name)
            guard let action = Action(rawValue: text.lowercased()) else {
                throw Problem(
                    field: "", "'\(text)' is not an alarm action; expected one of \(actions)")
            }
            return action
        }
        let relative = reader.optional("trigger") { fields, name -> String? in
            let text = try fields.string(name)
            guard ISODuration.seconds(text) != nil else {
                throw Problem(
                    field: "", "'\(text)' is not an RFC 5545 duration such as -PT15M or P1D")
            }
            return text
        }
        let related = reader.optional("related") { fields, name -> Bool? in
            switch try fields.string(name).lowercased() {
            case "start": return false
            case "end": return true
            default: throw Problem(field: "", "expected \"start\" or \"end\"")
            }
        }
        let absolute = reader.optional("trigger_at") { try $0.timestamp($1) }
        let description = reader.optional("description") { try $0.string($1) }
        let summary = reader.optional("summary") { try $0.string($1) }
        let attendees = reader.optional("attendees") { try $0.strings($1) }
        let sound = reader.optional("sound") { try $0.string($1) }
        let repeatCount = reader.optional("repeat") { Int(try $0.integer($1)) }
        let repeatInterval = reader.optional("repeat_interval") { fields, name -> String? in
            let text = try fields.string(name)
            guard ISODuration.seconds(text) != nil else {
                throw Problem(field: "", "'\(text)' is not an RFC 5545 duration such as PT5M")
            }
            return text
        }
        let enabled = reader.optional("enabled") { try $0.bool($1) }
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let parameters = reader.optional("ical_parameters") { try $0.stringObject($1) }
        var trigger: Trigger?
        switch (relative, absolute) {
        case (let relative?, nil): trigger = .relative(relative, fromEnd: related ?? false)
        case (nil, let absolute?):
            trigger = .absolute(absolute)
            if related != nil {
                reader.problems.append(
                    Problem(field: "related", "applies only to a relative trigger"))
            }
        case (nil, nil):
            if !reader.has("trigger") && !reader.has("trigger_at") {
                reader.problems.append(
                    Problem(field: "trigger", "missing; give trigger (a duration) or trigger_at"))
            }
        case (_?, _?):
            reader.problems.append(
                Problem(field: "trigger_at", "give either trigger or trigger_at, not both"))
        }
        try reader.finish()
        guard let action, let trigger else {
            throw RecordProblems([Problem(field: "trigger", "has no value")])
        }
        self.init(
            action: action, trigger: trigger, description: description, summary: summary,
            attendees: attendees ?? [], sound: sound, repeatCount: repeatCount,
            repeatInterval: repeatInterval,
            enabled: enabled ?? true)
        icalExtra = extra ?? []
        icalParameters = parameters ?? [:]
    }
}
