import ICalendar
import TaskModel

/// RFC 5545 `RRULE` values and RFC 8984 `RecurrenceRule` objects, one into the other.
extension JSCalendar {
    static let frequencies = [
        "yearly", "monthly", "weekly", "daily", "hourly", "minutely", "secondly",
    ]
    static let weekdays = ["mo", "tu", "we", "th", "fr", "sa", "su"]

    /// The rule parts holding lists of whole numbers: iCalendar name, JSCalendar name, in
    /// the order RFC 8984 lists them.
    static let numberLists: [(ical: String, js: String)] = [
        ("BYMONTHDAY", "byMonthDay"), ("BYYEARDAY", "byYearDay"), ("BYWEEKNO", "byWeekNo"),
        ("BYHOUR", "byHour"), ("BYMINUTE", "byMinute"), ("BYSECOND", "bySecond"),
        ("BYSETPOS", "bySetPosition"),
    ]

    /// The `RecurrenceRule` of an `RRULE` value, or `nil` when the value has a part RFC 8984
    /// has no property for (then the rule is kept in `taskcal.invalid:fields`).
    static func ruleObject(_ rule: String, placement: Placement) -> JSONValue? {
        var parts: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, parts[pieces[0].uppercased()] == nil else { return nil }
            parts[pieces[0].uppercased()] = String(pieces[1])
        }
        var object = Members()
        guard let frequency = parts.removeValue(forKey: "FREQ")?.lowercased(),
            frequencies.contains(frequency)
        else { return nil }
        object.set("frequency", .string(frequency))
        if let interval = parts.removeValue(forKey: "INTERVAL") {
            guard let value = Int64(interval), value > 0 else { return nil }
            object.set("interval", number(value))
        }
        if let rscale = parts.removeValue(forKey: "RSCALE") {
            object.set("rscale", .string(rscale.lowercased()))
        }
        if let skip = parts.removeValue(forKey: "SKIP") {
            object.set("skip", .string(skip.lowercased()))
        }
        if let start = parts.removeValue(forKey: "WKST") {
            guard weekdays.contains(start.lowercased()) else { return nil }
            object.set("firstDayOfWeek", .string(start.lowercased()))
        }
        if let days = parts.removeValue(forKey: "BYDAY") {
            var list: [JSONValue] = []
            for item in days.split(separator: ",") {
                let day = item.suffix(2).lowercased()
                guard weekdays.contains(day) else { return nil }
                var members = [JSONValue.Member(name: "day", value: .string(day))]
                let nth = item.dropLast(2)
                if !nth.isEmpty {
                    guard let value = Int64(nth.hasPrefix("+") ? nth.dropFirst() : nth),
                        value != 0
                    else { return nil }
                    members.append(JSONValue.Member(name: "nthOfPeriod", value: number(value)))
                }
                list.append(typed("NDay", members))
            }
            object.set("byDay", .array(list))
        }
        func numbers(_ name: String) -> JSONValue?? {
            guard let text = parts.removeValue(forKey: name) else { return .some(nil) }
            var list: [JSONValue] = []
            for item in text.split(separator: ",") {
                guard let value = Int64(item.hasPrefix("+") ? item.dropFirst() : item) else {
                    return nil
                }
                list.append(number(value))
            }
            return .some(.array(list))
        }
        guard let byMonthDay = numbers("BYMONTHDAY") else { return nil }
        object.set("byMonthDay", byMonthDay)
        if let months = parts.removeValue(forKey: "BYMONTH") {
            object.set(
                "byMonth", .array(months.split(separator: ",").map { .string(String($0)) }))
        }
        for (ical, js) in numberLists.dropFirst() {
            guard let list = numbers(ical) else { return nil }
            object.set(js, list)
        }
        if let count = parts.removeValue(forKey: "COUNT") {
            guard let value = Int64(count), value > 0 else { return nil }
            object.set("count", number(value))
        }
        if let until = parts.removeValue(forKey: "UNTIL") {
            guard let local = untilLocal(until, placement: placement) else { return nil }
            object.set("until", .string(localText(local)))
        }
        guard parts.isEmpty else { return nil }
        return typed("RecurrenceRule", object.list)
    }

    /// The `RRULE` value of a `RecurrenceRule` object.
    static func ruleText(_ value: JSONValue, placement: Placement) throws(Problem) -> String {
        guard let members = members(value) else {
            throw Problem(field: "", "expected a RecurrenceRule object")
        }
        let rule = RuleReading(members)
        if let type = rule.object["@type"], type != .string("RecurrenceRule") {
            throw Problem(field: "@type", "expected \"RecurrenceRule\"")
        }
        var parts = try rule.frequencyAndEnd(placement: placement)
        if let interval = try rule.interval() { parts.append(interval) }
        for (ical, js) in [
            ("BYSECOND", "bySecond"), ("BYMINUTE", "byMinute"), ("BYHOUR", "byHour"),
        ] {
            if let list = try rule.integers(js) {
                parts.append(ical + "=" + list.map(String.init).joined(separator: ","))
            }
        }
        if let days = try rule.byDay() { parts.append(days) }
        for (ical, js) in numberLists.prefix(3) {
            if let list = try rule.integers(js) {
                parts.append(ical + "=" + list.map(String.init).joined(separator: ","))
            }
        }
        if let months = try rule.byMonth() { parts.append(months) }
        parts += try rule.closingParts()
        return parts.joined(separator: ";")
    }

    /// A `RecurrenceRule` object's members read as `RRULE` parts; each read says which
    /// member is wrong (``Problem``) when it is not what RFC 8984 §4.3.3 has.
    private struct RuleReading {
        let members: [JSONValue.Member]
        let object: Members

        init(_ members: [JSONValue.Member]) {
            self.members = members
            object = Members(list: members)
        }

        func string(_ name: String) throws(Problem) -> String? {
            guard let value = object[name] else { return nil }
            guard case .string(let text) = value else {
                throw Problem(field: name, "expected a string")
            }
            return text
        }

        func integer(_ value: JSONValue?, _ name: String) throws(Problem) -> Int64? {
            guard let value else { return nil }
            guard case .number(let text) = value, let number = Int64(text) else {
                throw Problem(field: name, "expected a whole number")
            }
            return number
        }

        func integers(_ name: String) throws(Problem) -> [Int64]? {
            guard let value = object[name] else { return nil }
            guard case .array(let items) = value else {
                throw Problem(field: name, "expected an array of whole numbers")
            }
            var result: [Int64] = []
            for (index, item) in items.enumerated() {
                guard let number = try integer(item, "\(name)[\(index)]") else { continue }
                result.append(number)
            }
            return result
        }

        /// `FREQ`, then `COUNT` or `UNTIL` (in the rule's placement).
        func frequencyAndEnd(placement: Placement) throws(Problem) -> [String] {
            guard let frequency = try string("frequency")?.lowercased(),
                JSCalendar.frequencies.contains(frequency)
            else {
                throw Problem(
                    field: "frequency",
                    "expected one of \(JSCalendar.frequencies.joined(separator: ", "))")
            }
            var parts = ["FREQ=" + frequency.uppercased()]
            if let count = try integer(object["count"], "count") {
                guard count > 0 else { throw Problem(field: "count", "expected a positive number") }
                parts.append("COUNT=\(count)")
            } else if let until = try string("until") {
                guard let local = JSCalendar.dateTime(until) else {
                    throw Problem(
                        field: "until",
                        "'\(until.prefix(40))' is no LocalDateTime such as 2026-12-31T23:59:59")
                }
                parts.append("UNTIL=" + JSCalendar.untilText(local, placement: placement))
            }
            return parts
        }

        /// `INTERVAL`, when it is not 1 or is written.
        func interval() throws(Problem) -> String? {
            guard let interval = try integer(object["interval"], "interval") else { return nil }
            guard interval > 0 else {
                throw Problem(field: "interval", "expected a positive number")
            }
            return interval != 1 || members.contains(where: { $0.name == "interval" })
                ? "INTERVAL=\(interval)" : nil
        }

        /// `BYDAY` from `byDay`'s NDay objects.
        func byDay() throws(Problem) -> String? {
            guard let days = object["byDay"] else { return nil }
            guard case .array(let items) = days else {
                throw Problem(field: "byDay", "expected an array of NDay objects")
            }
            var list: [String] = []
            for (index, item) in items.enumerated() {
                let day = Members(list: JSCalendar.members(item) ?? [])
                guard case .string(let name)? = day["day"],
                    JSCalendar.weekdays.contains(name.lowercased())
                else {
                    throw Problem(
                        field: "byDay[\(index)].day",
                        "expected one of \(JSCalendar.weekdays.joined(separator: ", "))")
                }
                let nth = try integer(day["nthOfPeriod"], "byDay[\(index)].nthOfPeriod")
                list.append((nth.map(String.init) ?? "") + name.uppercased())
            }
            return "BYDAY=" + list.joined(separator: ",")
        }

        /// `BYMONTH` from `byMonth`'s month strings (`"5L"`, a leap month, kept as written).
        func byMonth() throws(Problem) -> String? {
            guard let months = object["byMonth"] else { return nil }
            guard case .array(let items) = months else {
                throw Problem(
                    field: "byMonth", "expected an array of month strings (\"1\" … \"12\", \"5L\")")
            }
            var list: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let month) = item, !month.isEmpty,
                    month.allSatisfy({ $0.isNumber || $0 == "L" })
                else {
                    throw Problem(
                        field: "byMonth[\(index)]",
                        "expected a month string such as \"3\" or \"5L\"")
                }
                list.append(month)
            }
            return "BYMONTH=" + list.joined(separator: ",")
        }

        /// `BYSETPOS`, `WKST`, and `RSCALE` and `SKIP` when they are not the defaults.
        func closingParts() throws(Problem) -> [String] {
            var parts: [String] = []
            if let positions = try integers("bySetPosition") {
                parts.append("BYSETPOS=" + positions.map(String.init).joined(separator: ","))
            }
            if let start = try string("firstDayOfWeek") {
                guard JSCalendar.weekdays.contains(start.lowercased()) else {
                    throw Problem(
                        field: "firstDayOfWeek",
                        "expected one of \(JSCalendar.weekdays.joined(separator: ", "))")
                }
                parts.append("WKST=" + start.uppercased())
            }
            if let rscale = try string("rscale"), rscale.lowercased() != "gregorian" {
                parts.append("RSCALE=" + rscale.uppercased())
            }
            if let skip = try string("skip"), skip.lowercased() != "omit" {
                parts.append("SKIP=" + skip.uppercased())
            }
            return parts
        }
    }
}
