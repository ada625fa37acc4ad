import Foundation
import ICalendar
import TaskModel

/// jCal, iCalendar as JSON (RFC 7265): a component is `[name, [properties], [components]]`,
/// a property `[name, {parameters}, type, value…]`.
///
/// The conversion goes content line by content line, both ways, over the lines libical
/// writes and reads: writing, taskcal's .ics output is turned into jCal; reading, jCal is
/// turned into .ics lines that libical then reads like any file. Only the value forms differ
/// between the two (RFC 7265 §3.5): dates and times gain their `-` and `:`, a recurrence
/// rule becomes an object, numbers and booleans become JSON's own, TEXT is unescaped, lists
/// become several values. A value that does not have its type's form travels as type
/// `unknown`, as written, so that nothing is lost either way.
public enum JCal {
    /// The value type of each property when no `VALUE` parameter names one (RFC 5545 §3.8,
    /// RFC 7986, RFC 9074); any other property is `unknown` (RFC 7265 §5).
    static let defaultTypes: [String: String] = {
        var types: [String: String] = [:]
        let groups: [(String, [String])] = [
            (
                "date-time",
                [
                    "DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE", "COMPLETED",
                    "CREATED", "DTSTAMP", "LAST-MODIFIED", "ACKNOWLEDGED",
                ]
            ),
            ("duration", ["DURATION", "TRIGGER", "REFRESH-INTERVAL"]),
            ("recur", ["RRULE", "EXRULE"]),
            ("integer", ["PERCENT-COMPLETE", "PRIORITY", "REPEAT", "SEQUENCE"]),
            ("utc-offset", ["TZOFFSETFROM", "TZOFFSETTO"]),
            // RFC 7986's CONFERENCE and IMAGE always name their VALUE: no default.
            ("uri", ["ATTACH", "TZURL", "URL", "SOURCE"]),
            ("cal-address", ["ATTENDEE", "ORGANIZER"]),
            ("float", ["GEO"]),
            ("period", ["FREEBUSY"]),
            (
                "text",
                [
                    "ACTION", "CALSCALE", "CATEGORIES", "CLASS", "COLOR", "COMMENT", "CONTACT",
                    "DESCRIPTION", "LOCATION", "METHOD", "NAME", "PRODID", "RELATED-TO",
                    "REQUEST-STATUS", "RESOURCES", "STATUS", "SUMMARY", "TRANSP", "TZID",
                    "TZNAME", "UID", "VERSION",
                ]
            ),
        ]
        for (type, names) in groups {
            for name in names { types[name] = type }
        }
        return types
    }()

    /// TEXT properties whose value is a comma-separated list.
    static let textLists: Set<String> = ["CATEGORIES", "RESOURCES"]
    /// The parts of a recurrence rule whose values are integers.
    static let numericRuleParts: Set<String> = [
        "count", "interval", "bysecond", "byminute", "byhour", "bymonthday", "byyearday",
        "byweekno", "bymonth", "bysetpos",
    ]

    // MARK: iCalendar → jCal

    /// One content line as a jCal property.
    public static func property(_ line: ContentLine) -> JSONValue {
        let declared = line.parameter("VALUE")?.lowercased()
        var type = declared ?? defaultTypes[line.name] ?? "unknown"
        var values = jsonValues(line.value, type: type, name: line.name)
        if values == nil {
            // Not in its type's form: kept as written. Its VALUE is not kept: jCal readers
            // read the value by it, and fail.
            type = "unknown"
            values = [.string(line.value)]
        }
        var parameters: [JSONValue.Member] = []
        for parameter in line.parameters where parameter.name != "VALUE" {
            let value: JSONValue =
                ContentLine.isValueList(parameter.value, named: parameter.name)
                ? .array(quotedList(parameter.value).map(JSONValue.string))
                : .string(parameter.value)
            parameters.append(JSONValue.Member(name: parameter.name.lowercased(), value: value))
        }
        return .array(
            [.string(line.name.lowercased()), .object(parameters), .string(type)] + (values ?? []))
    }

    /// `"a","b"` (a parameter with several values, as ``ContentLine`` keeps it) as `a`, `b`.
    private static func quotedList(_ value: String) -> [String] {
        value.dropFirst().dropLast().components(separatedBy: "\",\"")
    }

    /// The jCal values of an iCalendar value of `type`, or `nil` when it does not have the
    /// type's form.
    static func jsonValues(_ value: String, type: String, name: String) -> [JSONValue]? {
        func each(_ convert: (String) -> JSONValue?) -> [JSONValue]? {
            var values: [JSONValue] = []
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                guard let converted = convert(String(part)) else { return nil }
                values.append(converted)
            }
            return values
        }
        switch type {
        case "text":
            if name == "REQUEST-STATUS" {
                return [
                    .array(
                        ContentLine.parts(of: value, separatedBy: ";").map {
                            .string(ContentLine.unescapedText($0))
                        })
                ]
            }
            if textLists.contains(name) { return ContentLine.textList(value).map(JSONValue.string) }
            return [.string(ContentLine.unescapedText(value))]
        case "date-time", "date", "time", "utc-offset":
            return each { extended($0, type: type).map(JSONValue.string) }
        case "period":
            return each { part in
                let ends = part.split(separator: "/", maxSplits: 1).map(String.init)
                guard ends.count == 2, let start = extended(ends[0], type: "date-time") else {
                    return nil
                }
                let isDuration =
                    ends[1].hasPrefix("P") || ends[1].hasPrefix("+P") || ends[1].hasPrefix("-P")
                guard let end = isDuration ? ends[1] : extended(ends[1], type: "date-time") else {
                    return nil
                }
                return .array([.string(start), .string(end)])
            }
        case "integer":
            return each { Int($0.trimmingCharacters(in: .whitespaces)).map { .number(String($0)) } }
        case "float":
            if name == "GEO" {
                let parts = value.split(separator: ";", omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                let numbers = parts.compactMap { jsonNumber(String($0)) }
                return numbers.count == 2 ? [.array(numbers)] : nil
            }
            return each(jsonNumber)
        case "boolean":
            return each {
                switch $0.uppercased() {
                case "TRUE": .bool(true)
                case "FALSE": .bool(false)
                default: nil
                }
            }
        case "recur":
            return recurrence(value).map { [$0] }
        default:
            // BINARY, DURATION, URI, CAL-ADDRESS and types jCal does not name: as written.
            return [.string(value)]
        }
    }

    /// `text` as a JSON number when it is one (`37.5`, `-122`), else `nil`.
    private static func jsonNumber(_ text: String) -> JSONValue? {
        guard let number = Double(text), number.isFinite else { return nil }
        let trimmed = text.hasPrefix("+") ? String(text.dropFirst()) : text
        // JSON has no leading zeros, no `.5`, no `5.`: those are written as Swift prints them.
        let plain =
            trimmed.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"#, options: .regularExpression)
            != nil
        return .number(plain ? trimmed : "\(number)")
    }

    /// A basic-format date, date-time, time or UTC offset in the extended format jCal uses:
    /// `20261203T160000Z` → `2026-12-03T16:00:00Z`, `+0100` → `+01:00`.
    static func extended(_ text: String, type: String) -> String? {
        let characters = Array(text)
        func digits(_ range: Range<Int>) -> String? {
            guard range.upperBound <= characters.count,
                characters[range].allSatisfy({ $0.isASCII && $0.isNumber })
            else { return nil }
            return String(characters[range])
        }
        switch type {
        case "date":
            // Year 0000 has the form, but no jCal reader takes it (Python's dates start at 1).
            guard characters.count == 8, let year = digits(0..<4), year != "0000",
                let month = digits(4..<6), let day = digits(6..<8)
            else { return nil }
            return "\(year)-\(month)-\(day)"
        case "date-time":
            guard characters.count == 15 || (characters.count == 16 && characters[15] == "Z"),
                characters[8] == "T", let date = extended(String(characters[0..<8]), type: "date"),
                let time = extended(String(characters[9...]), type: "time")
            else { return nil }
            return "\(date)T\(time)"
        case "time":
            guard characters.count == 6 || (characters.count == 7 && characters[6] == "Z"),
                let hour = digits(0..<2), let minute = digits(2..<4), let second = digits(4..<6)
            else { return nil }
            return "\(hour):\(minute):\(second)" + (characters.count == 7 ? "Z" : "")
        case "utc-offset":
            guard characters.count == 5 || characters.count == 7,
                characters[0] == "+" || characters[0] == "-", let hours = digits(1..<3),
                let minutes = digits(3..<5)
            else { return nil }
            var offset = "\(characters[0])\(hours):\(minutes)"
            if characters.count == 7 {
                guard let seconds = digits(5..<7) else { return nil }
                offset += ":\(seconds)"
            }
            return offset
        default:
            return nil
        }
    }

    /// A recurrence rule as jCal's object (RFC 7265 §3.6.10): parts lower-cased, integers as
    /// numbers, `UNTIL` in the extended format, several values as an array.
    static func recurrence(_ rule: String) -> JSONValue? {
        let weekdays: Set<String> = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
        let frequencies: Set<String> = [
            "SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY",
        ]
        /// Whether `item` is a BYDAY value: an optional signed ordinal, then a weekday.
        func isWeekday(_ item: String) -> Bool {
            guard item.count >= 2, weekdays.contains(String(item.suffix(2))) else { return false }
            let ordinal = item.dropLast(2)
            let digits =
                ordinal.hasPrefix("+") || ordinal.hasPrefix("-") ? ordinal.dropFirst() : ordinal
            return digits.count <= 2 && digits.allSatisfy { $0.isASCII && $0.isNumber }
                && (digits.isEmpty == ordinal.isEmpty)
        }
        var members: [JSONValue.Member] = []
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, !pair[0].isEmpty else { return nil }
            let key = pair[0].lowercased()
            var values: [JSONValue] = []
            for item in pair[1].split(separator: ",", omittingEmptySubsequences: false) {
                let item = String(item)
                if key == "until" {
                    guard
                        let until = extended(item, type: "date-time")
                            ?? extended(item, type: "date")
                    else { return nil }
                    values.append(.string(until))
                } else if numericRuleParts.contains(key) {
                    guard let number = Int(item) else { return nil }
                    values.append(.number(String(number)))
                } else if key == "freq" && !frequencies.contains(item)
                    || key == "wkst" && !weekdays.contains(item)
                    || key == "byday" && !isWeekday(item)
                {
                    // Not a rule jCal readers take: the whole value is kept as written.
                    return nil
                } else {
                    values.append(.string(item))
                }
            }
            members.append(
                JSONValue.Member(name: key, value: values.count == 1 ? values[0] : .array(values)))
        }
        return members.isEmpty ? nil : .object(members)
    }

    // MARK: jCal → iCalendar

    /// A jCal property as a content line; `path` names it in errors.
    public static func contentLine(_ property: JSONValue, at path: String) throws(JCalError)
        -> ContentLine
    {
        guard case .array(let items) = property, items.count >= 4,
            case .string(let name) = items[0], case .object(let parameterMembers) = items[1],
            case .string(let rawType) = items[2]
        else {
            throw JCalError(path, "a property is [name, {parameters}, type, value…]")
        }
        let upperName = name.uppercased()
        // A name iCalendar does not allow (`x-bad_underscore`) is passed on for the .ics
        // reader to judge, as it judges such a line in a file; one that would end or split
        // the line is refused.
        guard isWritableName(upperName) else {
            throw JCalError(
                path, "'\(name)' is not a property name (letters, digits and '-' only)")
        }
        let type = rawType.lowercased()
        var parameters: [Parameter] = []
        for member in parameterMembers {
            let parameterName = member.name.uppercased()
            guard isWritableName(parameterName) else {
                throw JCalError(path, "'\(member.name)' is not a parameter name")
            }
            let values: [String]
            switch member.value {
            case .string(let text): values = [text]
            case .array(let list):
                values = try list.map { (item) throws(JCalError) -> String in
                    guard case .string(let text) = item else {
                        throw JCalError(path, "the values of parameter \(member.name) are strings")
                    }
                    return text
                }
            default:
                throw JCalError(
                    path, "the value of parameter \(member.name) is a string or strings")
            }
            // RFC 6868: a line break, a double quote and the caret itself as ^n, ^' and ^^.
            let encoded = values.map { ContentLine.encodeCaret($0) }
            for value in encoded where hasControl(value) {
                throw JCalError(
                    path,
                    "the value of parameter \(member.name) holds a control character, which iCalendar cannot carry"
                )
            }
            parameters.append(
                Parameter(
                    parameterName,
                    encoded.count == 1
                        ? encoded[0] : encoded.map { "\"\($0)\"" }.joined(separator: ",")))
        }
        if type != "unknown", type != defaultTypes[upperName],
            !parameters.contains(where: { $0.name == "VALUE" })
        {
            // First, where calendar apps write it.
            parameters.insert(Parameter("VALUE", type.uppercased()), at: 0)
        }
        let value = try icalValue(Array(items[3...]), type: type, name: upperName, at: path)
        guard !hasControl(value) else {
            throw JCalError(
                path, "the value holds a control character (a line break in an \(type) value)")
        }
        return ContentLine(name: upperName, parameters: parameters, value: value)
    }

    /// Whether `name` can stand as a name in a content line without changing its structure.
    static func isWritableName(_ name: String) -> Bool {
        !name.isEmpty
            && !name.utf8.contains {
                $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";")
                    || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "=")
                    || $0 == UInt8(ascii: "\"")
            }
    }

    private static func hasControl(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    /// The iCalendar text of jCal values of `type`.
    static func icalValue(_ values: [JSONValue], type: String, name: String, at path: String)
        throws(JCalError) -> String
    {
        func text(_ value: JSONValue) throws(JCalError) -> String {
            switch value {
            case .string(let text): return text
            case .number(let digits): return digits
            case .bool(let flag): return flag ? "TRUE" : "FALSE"
            default: throw JCalError(path, "expected a \(type) value, found \(describe(value))")
            }
        }
        // 2026-12-03T16:00:00Z → 20261203T160000Z; +01:00 → +0100.
        func basic(_ value: JSONValue) throws(JCalError) -> String {
            let written = try text(value)
            if type == "utc-offset" { return written.filter { $0 != ":" } }
            return written.filter { $0 != "-" && $0 != ":" }
        }
        func joined() throws(JCalError) -> String {
            var items: [String] = []
            for value in values { items.append(try text(value)) }
            return items.joined(separator: ",")
        }
        switch type {
        case "text":
            if name == "REQUEST-STATUS", values.count == 1, case .array(let parts) = values[0] {
                var escaped: [String] = []
                for part in parts { escaped.append(ContentLine.escapedText(try text(part))) }
                return escaped.joined(separator: ";")
            }
            var items: [String] = []
            for value in values { items.append(try text(value)) }
            return items.count == 1 && !textLists.contains(name)
                ? ContentLine.escapedText(items[0]) : ContentLine.escapedTextList(items)
        case "date-time", "date", "time", "utc-offset":
            var items: [String] = []
            for value in values { items.append(try basic(value)) }
            return items.joined(separator: ",")
        case "period":
            var items: [String] = []
            for value in values {
                guard case .array(let ends) = value, ends.count == 2 else {
                    items.append(try text(value))
                    continue
                }
                let end = try text(ends[1])
                let isDuration = end.hasPrefix("P") || end.hasPrefix("+P") || end.hasPrefix("-P")
                items.append(try basic(ends[0]) + "/" + (isDuration ? end : try basic(ends[1])))
            }
            return items.joined(separator: ",")
        case "float" where name == "GEO":
            guard values.count == 1, case .array(let pair) = values[0], pair.count == 2 else {
                return try joined()
            }
            return try text(pair[0]) + ";" + text(pair[1])
        case "recur":
            guard values.count == 1, case .object(let members) = values[0] else {
                return try joined()
            }
            do {
                var parts: [String] = []
                for member in members {
                    let items: [JSONValue]
                    if case .array(let list) = member.value {
                        items = list
                    } else {
                        items = [member.value]
                    }
                    var written: [String] = []
                    for item in items {
                        written.append(
                            member.name.lowercased() == "until" ? try basic(item) : try text(item))
                    }
                    parts.append(member.name.uppercased() + "=" + written.joined(separator: ","))
                }
                // In the object's order (RFC 7529's RSCALE comes before FREQ).
                return parts.joined(separator: ";")
            }
        default:
            return try joined()
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string, .invalidString: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A jCal document that is not jCal: where (`components[2].properties[0]`) and what is
/// expected.
public struct JCalError: Error, Sendable {
    public var path: String
    public var message: String

    init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }
}
