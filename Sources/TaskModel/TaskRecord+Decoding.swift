import Foundation

/// A JSON object key of any name: lets decoding see unknown fields instead of ignoring them.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Collects every problem of one JSON object while its fields are decoded, instead of
/// stopping at the first.
struct FieldReader {
    let fields: Fields
    var problems: [Problem] = []

    init(_ decoder: any Decoder, known: Set<String>, what: String) throws {
        let container: KeyedDecodingContainer<FieldKey>
        do {
            container = try decoder.container(keyedBy: FieldKey.self)
        } catch {
            throw RecordProblems([Problem(field: "", "expected a JSON object (\(what))")])
        }
        fields = Fields(container: container)
        let keys = container.allKeys
        if !keys.allSatisfy({ known.contains($0.stringValue) }) {
            let expected = known.sorted().joined(separator: ", ")
            for key in keys.map(\.stringValue).sorted() where !known.contains(key) {
                problems.append(Problem(field: key, "unknown field; expected one of \(expected)"))
            }
        }
    }

    func has(_ name: String) -> Bool { fields.has(name) }

    mutating func required<T>(_ name: String, _ read: (Fields, String) throws -> T?) -> T? {
        guard fields.container.contains(FieldKey(name)) else {
            problems.append(Problem(field: name, "missing; this field is required"))
            return nil
        }
        // `null` is no value: reading it as absent would leave a required field unset.
        guard has(name) else {
            problems.append(Problem(field: name, "is null; this field is required"))
            return nil
        }
        return optional(name, read)
    }

    mutating func optional<T>(_ name: String, _ read: (Fields, String) throws -> T?) -> T? {
        guard has(name) else { return nil }
        do {
            return try read(fields, name)
        } catch let error as RecordProblems {
            problems += error.problems.map { $0.nested(in: name) }
        } catch let error as Problem {
            problems.append(error.nested(in: name))
        } catch {
            problems.append(Problem(field: name, Self.describe(error)))
        }
        return nil
    }

    func finish() throws {
        if !problems.isEmpty { throw RecordProblems(problems) }
    }

    static func describe(_ error: any Error) -> String {
        if let problems = error as? RecordProblems { return problems.description }
        if let problem = error as? Problem { return problem.message }
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }
}

/// Typed reads of one JSON object's fields; each throws a ``Problem`` saying what was expected.
struct Fields {
    let container: KeyedDecodingContainer<FieldKey>

    func has(_ name: String) -> Bool {
        guard container.contains(FieldKey(name)) else { return false }
        return (try? container.decodeNil(forKey: FieldKey(name))) == false
    }

    func string(_ name: String) throws -> String {
        do {
            return try container.decode(String.self, forKey: FieldKey(name))
        } catch {
            let key = FieldKey(name)
            let other =
                (try? container.decode(Double.self, forKey: key)) != nil
                || (try? container.decode(Bool.self, forKey: key)) != nil
                || (try? container.nestedUnkeyedContainer(forKey: key)) != nil
                || (try? container.nestedContainer(keyedBy: FieldKey.self, forKey: key)) != nil
            throw Problem(
                field: "",
                other
                    ? "expected a string"
                    : "is not valid text (a \\u escape of half a UTF-16 pair, such as \\uD800, is no character); expected a string"
            )
        }
    }

    func bool(_ name: String) throws -> Bool {
        do {
            return try container.decode(Bool.self, forKey: FieldKey(name))
        } catch {
            throw Problem(field: "", "expected true or false")
        }
    }

    func integer(_ name: String) throws -> Int64 {
        do {
            return try container.decode(Int64.self, forKey: FieldKey(name))
        } catch {
            // A number past 2^63 (or with a fraction) decodes as a Double but not an Int64.
            if let number = try? container.decode(Double.self, forKey: FieldKey(name)),
                number.rounded() == number
            {
                throw Problem(
                    field: "",
                    "\(number < 0 ? "-" : "")\(number.magnitude >= 1e19 ? "a number of \(Int(log10(number.magnitude)) + 1) digits" : "the number") is out of range; expected a whole number from -9223372036854775808 to 9223372036854775807"
                )
            }
            throw Problem(field: "", "expected a whole number")
        }
    }

    /// Unix seconds as a decimal string (`"147600000"`) or a JSON number.
    func timestamp(_ name: String) throws -> Int64 {
        if let text = try? container.decode(String.self, forKey: FieldKey(name)) {
            guard let value = Timestamp.parse(text) else {
                throw Problem(
                    field: "",
                    "'\(text.prefix(40))' is not a timestamp; expected Unix seconds such as \"147600000\""
                )
            }
            return value
        }
        if let value = try? container.decode(Int64.self, forKey: FieldKey(name)) {
            return value
        }
        if let value = try? container.decode(Double.self, forKey: FieldKey(name)) {
            throw Problem(
                field: "",
                "\(value) is not whole seconds; expected Unix seconds such as \"147600000\"")
        }
        throw Problem(
            field: "", "expected Unix seconds as a string such as \"147600000\" or a number")
    }

    func array<T>(_ name: String, _ element: @escaping (any Decoder) throws -> T) throws -> [T] {
        var nested: UnkeyedDecodingContainer
        do {
            nested = try container.nestedUnkeyedContainer(forKey: FieldKey(name))
        } catch {
            throw Problem(field: "", "expected an array")
        }
        var result: [T] = []
        var problems: [Problem] = []
        var index = 0
        while !nested.isAtEnd {
            do {
                let decoded = try nested.decode(Element<T>.self, configuration: element)
                if let value = decoded.value { result.append(value) }
                problems += decoded.problems.map {
                    Problem(
                        field: "[\(index)]" + ($0.field.isEmpty ? "" : ".\($0.field)"), $0.message)
                }
            } catch {
                problems.append(Problem(field: "[\(index)]", FieldReader.describe(error)))
                break
            }
            index += 1
        }
        if !problems.isEmpty { throw RecordProblems(problems) }
        return result
    }

    /// One of an enumeration's raw values, case-insensitive.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type, what: String)
        throws -> T where T.RawValue == String
    {
        let text = try string(name)
        guard let value = T(rawValue: text.lowercased()) else {
            let expected = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw Problem(field: "", "'\(text)' is not \(what); expected one of \(expected)")
        }
        return value
    }

    /// A nested object, its problems reported under this field.
    func object<T>(_ name: String, _ read: @escaping (any Decoder) throws -> T) throws -> T {
        let decoded = try container.decode(
            Element<T>.self, forKey: FieldKey(name), configuration: read)
        if !decoded.problems.isEmpty { throw RecordProblems(decoded.problems) }
        return decoded.value!
    }

    /// An array of Unix-seconds timestamps (strings or numbers).
    func timestamps(_ name: String) throws -> [Int64] {
        var nested: UnkeyedDecodingContainer
        do {
            nested = try container.nestedUnkeyedContainer(forKey: FieldKey(name))
        } catch {
            throw Problem(field: "", "expected an array of Unix seconds")
        }
        var result: [Int64] = []
        var problems: [Problem] = []
        while !nested.isAtEnd {
            let index = nested.currentIndex
            var value: Int64?
            if let text = try? nested.decode(String.self) {
                value = Timestamp.parse(text)
            } else if let number = try? nested.decode(Int64.self) {
                value = number
            } else if (try? nested.decode(EmptyValue.self)) == nil {
                break
            }
            if let value {
                result.append(value)
            } else {
                problems.append(
                    Problem(field: "[\(index)]", "expected Unix seconds such as \"147600000\""))
            }
        }
        if !problems.isEmpty { throw RecordProblems(problems) }
        return result
    }

    /// An object of string values (`{"SUMMARY": "LANGUAGE=de"}`).
    func stringObject(_ name: String) throws -> [String: String] {
        do {
            return try container.decode([String: String].self, forKey: FieldKey(name))
        } catch {
            throw Problem(field: "", "expected an object of property names and parameter text")
        }
    }

    func strings(_ name: String) throws -> [String] {
        do {
            return try container.decode([String].self, forKey: FieldKey(name))
        } catch {
            throw Problem(field: "", "expected an array of strings")
        }
    }
}

/// Skips one value of any shape.
private struct EmptyValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// One array element decoded with problems collected rather than thrown.
private struct Element<T>: DecodableWithConfiguration {
    var value: T?
    var problems: [Problem] = []

    init(from decoder: any Decoder, configuration: (any Decoder) throws -> T) throws {
        do {
            value = try configuration(decoder)
        } catch let error as RecordProblems {
            problems = error.problems
        } catch let error as Problem {
            problems = [error]
        }
    }
}

extension Problem: Error {}

/// Unix-seconds parsing shared by JSON and the command line.
public enum Timestamp {
    /// The smallest and largest instants iCalendar can write: years 0001 to 9999 (UTC).
    public static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// `text` as Unix seconds: an optional `-` and decimal digits, nothing else.
    public static func parse(_ text: String) -> Int64? {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) })
        else {
            return nil
        }
        return Int64(text)
    }
}

extension TaskRecord: Decodable {
    static let fields: Set<String> = [
        "id", "date_start", "date_finish", "name", "kind", "description", "uid", "recurrence_id",
        "all_day", "time_zone", "due", "done", "status", "free", "location", "categories",
        "color", "class", "url", "organizer", "attendees", "recurrence", "attachments", "alarms",
        "subtasks", "ical_extra", "floating", "this_and_future", "ical_parameters",
        "ical_components",
    ]

    /// Decodes a record, reporting every problem of the record at once (as
    /// ``RecordProblems``), including unknown fields, which are never silently dropped.
    public init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "a task record")
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
        let classification = reader.optional("class") { fields, name -> Classification? in
            try fields.choice(name, Classification.self, what: "a class")
        }
        let url = reader.optional("url") { try $0.string($1) }
        let organizer = reader.optional("organizer") { try $0.object($1, Person.init(from:)) }
        let attendees = reader.optional("attendees") { try $0.array($1, Person.init(from:)) }
        let recurrence = reader.optional("recurrence") {
            try $0.object($1, Recurrence.init(from:))
        }
        let attachments = reader.optional("attachments") {
            try $0.array($1, Attachment.init(from:))
        }
        let alarms = reader.optional("alarms") { try $0.array($1, Alarm.init(from:)) }
        let subtasks = reader.optional("subtasks") { try $0.array($1, TaskRecord.init(from:)) }
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
    static let fields: Set<String> = ["ical_extra", "ical_components", "name"]

    /// Decodes the `calendar` member, reporting every problem at once.
    public init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "calendar data")
        let extra = reader.optional("ical_extra") { try $0.strings($1) }
        let components = reader.optional("ical_components") { try $0.strings($1) }
        let name = reader.optional("name") { try $0.string($1) }
        try reader.finish()
        self.init(icalExtra: extra ?? [], icalComponents: components ?? [])
        if let name { setName(name) }
    }
}

extension Person {
    static let fields: Set<String> = ["address", "name", "parameters"]

    init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "a person")
        let address = reader.required("address") { try $0.string($1) }
        let name = reader.optional("name") { try $0.string($1) }
        let parameters = reader.optional("parameters") { fields, name -> [String: String]? in
            do {
                return try fields.container.decode([String: String].self, forKey: FieldKey(name))
            } catch {
                throw Problem(field: "", "expected an object of parameter names and string values")
            }
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
    static let fields: Set<String> = ["rule", "exdates", "rdates"]

    init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "a recurrence")
        let rule = reader.optional("rule") { try $0.string($1) }
        let exdates = reader.optional("exdates") { try $0.timestamps($1) }
        let rdates = reader.optional("rdates") { try $0.timestamps($1) }
        try reader.finish()
        self.init(rule: rule, exdates: exdates ?? [], rdates: rdates ?? [])
    }
}

extension Attachment {
    static let fields: Set<String> = [
        "filename", "mime_type", "data", "url", "path", "ical_parameters",
    ]

    init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "an attachment")
        let filename = reader.optional("filename") { try $0.string($1) }
        let mimeType = reader.optional("mime_type") { try $0.string($1) }
        var contents: [Content] = []
        if let data = reader.optional("data", { try $0.string($1) }) {
            if let bytes = Data(base64Encoded: data) {
                contents.append(.inline(bytes))
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
        self.init(filename: filename, mimeType: mimeType, content: contents[0])
        icalParameters = parameters
    }
}

extension Alarm {
    static let fields: Set<String> = [
        "action", "trigger", "related", "trigger_at", "description", "summary", "attendees",
        "sound",
        "repeat", "repeat_interval", "enabled", "ical_extra", "ical_parameters",
    ]

    init(from decoder: any Decoder) throws {
        var reader = try FieldReader(decoder, known: Self.fields, what: "an alarm")
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
