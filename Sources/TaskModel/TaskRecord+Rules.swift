/// The rules every record must follow beyond its JSON shape, as data: each rule names the
/// field it checks and says what is expected.
extension TaskRecord {
    /// Whether `scalar` is one of Unicode's `White_Space` characters or near one: false for
    /// every scalar outside the ranges that hold them, without a look-up in Unicode's tables.
    static func mayBeWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x3000: true
        default: false
        }
    }

    /// Every rule this record breaks; empty when it is valid.
    public var problems: [Problem] {
        var found: [Problem] = []
        // A Character is whitespace by its first scalar: a name that starts with anything
        // else (nearly every name) is not blank, found without breaking it into Characters.
        if name.unicodeScalars.first.map(Self.mayBeWhitespace) ?? true,
            name.allSatisfy(\.isWhitespace)
        {
            found.append(Problem(field: "name", "is empty; every record needs a name"))
        }
        // Two tests, not a loop over a literal: an array of pairs made for every record.
        if !Timestamp.range.contains(dateStart) {
            found.append(
                Problem(field: "date_start", "\(dateStart) is outside the years 0001–9999"))
        }
        if !Timestamp.range.contains(dateFinish) {
            found.append(
                Problem(field: "date_finish", "\(dateFinish) is outside the years 0001–9999"))
        }
        if dateFinish < dateStart {
            found.append(
                Problem(
                    field: "date_finish",
                    "\(dateFinish) is before date_start \(dateStart); the end must not precede the start"
                ))
        }
        if allDay && unscheduled {
            if let due, due % 86_400 != 0 {
                found.append(
                    Problem(
                        field: "due",
                        "an all-day to-do is due at midnight UTC (a multiple of 86400)"))
            }
        } else if allDay {
            if dateStart % 86_400 != 0 || dateFinish % 86_400 != 0 {
                found.append(
                    Problem(
                        field: "all_day",
                        "an all-day record starts and ends at midnight UTC (multiples of 86400)"))
            } else if dateFinish == dateStart && kind == .event {
                found.append(
                    Problem(
                        field: "date_finish",
                        "an all-day record lasts at least one day (the end date is exclusive)"))
            }
        }
        found.add(Self.textProblems(name, field: "name"))
        if let description { found.add(Self.textProblems(description, field: "description")) }
        if let uid {
            if uid.isEmpty {
                found.append(Problem(field: "uid", "is empty; omit it to derive the UID from id"))
            }
            found.add(Self.textProblems(uid, field: "uid", allowLineBreaks: false))
        }
        for (index, attachment) in attachments.enumerated() {
            found.add(attachment.problems.map { $0.nested(in: "attachments[\(index)]") })
        }
        for (index, alarm) in alarms.enumerated() {
            found.add(alarm.problems.map { $0.nested(in: "alarms[\(index)]") })
        }
        found.add(calendarProblems)
        return found
    }

    /// The rules of the fields that calendar apps add: kinds, to-dos, people, recurrence.
    private var calendarProblems: [Problem] {
        var found = kindProblems
        if let timeZone,
            timeZone.isEmpty || timeZone.contains(where: { $0.isWhitespace && $0 != " " })
        {
            found.append(
                Problem(
                    field: "time_zone", "'\(timeZone)' is not a zone name such as Europe/Berlin"))
        }
        if let location { found.add(Self.textProblems(location, field: "location")) }
        for (index, category) in categories.enumerated() {
            if category.isEmpty {
                found.append(Problem(field: "categories[\(index)]", "is empty"))
            }
            if category.first?.isWhitespace == true || category.last?.isWhitespace == true {
                found.append(
                    Problem(
                        field: "categories[\(index)]",
                        "starts or ends with whitespace, which iCalendar lists do not keep"))
            }
            found.add(
                Self.textProblems(
                    category, field: "categories[\(index)]", allowLineBreaks: false))
        }
        if let color,
            color.isEmpty
                || !color.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "#") })
        {
            found.append(
                Problem(field: "color", "'\(color)' is not a CSS colour name such as turquoise"))
        }
        if let url, !TaskRecord.canBeURI(url) {
            found.append(Problem(field: "url", "'\(url.prefix(60))' is not a URI"))
        }
        if let organizer { found.add(organizer.problems.map { $0.nested(in: "organizer") }) }
        for (index, attendee) in attendees.enumerated() {
            found.add(attendee.problems.map { $0.nested(in: "attendees[\(index)]") })
        }
        if let recurrence {
            if recurrence.rule == nil && recurrence.rdates.isEmpty {
                found.append(Problem(field: "recurrence", "needs a rule or rdates"))
            }
            if let rule = recurrence.rule, !rule.uppercased().contains("FREQ=") {
                found.append(
                    Problem(
                        field: "recurrence.rule",
                        "'\(rule.prefix(60))' is not an RFC 5545 rule such as FREQ=WEEKLY;BYDAY=MO,WE"
                    ))
            }
            for (field, times) in [("exdates", recurrence.exdates), ("rdates", recurrence.rdates)] {
                for (index, time) in times.enumerated() where !Timestamp.range.contains(time) {
                    found.append(
                        Problem(
                            field: "recurrence.\(field)[\(index)]",
                            "\(time) is outside the years 0001–9999"))
                }
            }
        }
        if let recurrenceID, !Timestamp.range.contains(recurrenceID) {
            found.append(
                Problem(field: "recurrence_id", "\(recurrenceID) is outside the years 0001–9999"))
        }
        if thisAndFuture && recurrenceID == nil {
            found.append(
                Problem(
                    field: "this_and_future",
                    "applies to a changed occurrence (a record with recurrence_id)"))
        }
        if floating && allDay {
            found.append(
                Problem(field: "floating", "an all-day record has no zone to float from anyway"))
        }
        if floating && timeZone == nil {
            found.append(
                Problem(
                    field: "floating",
                    "a floating record needs time_zone: the zone its date_start and date_finish were read in"
                ))
        }
        found.add(Self.extraProblems(icalExtra))
        found.add(Self.parameterProblems(icalParameters))
        found.add(Self.componentProblems(icalComponents, field: "ical_components"))
        return found
    }

    /// The rules of what a record's kind allows: an event's, a journal entry's, a to-do's.
    private var kindProblems: [Problem] {
        var found: [Problem] = []
        switch kind {
        case .event:
            // An event is done as an occurrence of a habit is (X-TASKCAL-COMPLETED in .ics).
            if due != nil { found.append(Problem(field: "due", "only a to-do has a due time")) }
            if !subtasks.isEmpty {
                found.append(Problem(field: "subtasks", "only a to-do has subtasks"))
            }
            if let status, ![.tentative, .confirmed, .cancelled].contains(status) {
                found.append(
                    Problem(
                        field: "status",
                        "'\(status.rawValue)' is no event status; an event is tentative, confirmed or cancelled"
                    ))
            }
        case .journal:
            if due != nil { found.append(Problem(field: "due", "only a to-do has a due time")) }
            if done { found.append(Problem(field: "done", "a journal entry is not done")) }
            if !subtasks.isEmpty {
                found.append(Problem(field: "subtasks", "only a to-do has subtasks"))
            }
            if free {
                found.append(Problem(field: "free", "a journal entry blocks no time anyway"))
            }
            if let status, ![.draft, .final, .cancelled].contains(status) {
                found.append(
                    Problem(
                        field: "status",
                        "'\(status.rawValue)' is no journal status; a journal entry is draft, final or cancelled"
                    ))
            }
            if unscheduled && (recurrence != nil || recurrenceID != nil) {
                found.append(
                    Problem(field: "recurrence", "a journal entry without date_start cannot repeat")
                )
            }
        case .todo:
            if let status, ![.needsAction, .inProcess, .cancelled].contains(status) {
                found.append(
                    Problem(
                        field: "status",
                        "'\(status.rawValue)' is no to-do status; a to-do is needs-action, in-process or cancelled (or done)"
                    ))
            }
            if done, let status {
                // iCalendar has one STATUS: a done to-do's is COMPLETED, and the writer kept
                // the status, so the to-do came back not done.
                found.append(
                    Problem(
                        field: "status",
                        "'\(status.rawValue)' says the to-do is not done, and done says it is: iCalendar keeps one status; leave out one of the two"
                    ))
            }
            if free { found.append(Problem(field: "free", "a to-do blocks no time anyway")) }
            if let due, !Timestamp.range.contains(due) {
                found.append(Problem(field: "due", "\(due) is outside the years 0001–9999"))
            }
            if let due, !unscheduled, dateFinish != dateStart, dateFinish != due {
                // RFC 5545 §3.6.2: a VTODO has DUE or DURATION, not both.
                found.append(
                    Problem(
                        field: "date_finish",
                        "a to-do with a due time ends at its start or at its due time; iCalendar cannot carry a third time"
                    ))
            }
            if let due, !unscheduled, due < dateStart {
                found.append(Problem(field: "due", "\(due) is before date_start \(dateStart)"))
            }
            if unscheduled && (recurrence != nil || recurrenceID != nil) {
                found.append(
                    Problem(field: "recurrence", "a to-do without date_start cannot repeat"))
            }
            for (index, subtask) in subtasks.enumerated() {
                let nested = subtask.problems.map { $0.nested(in: "subtasks[\(index)]") }
                found.add(nested)
                if subtask.kind != .todo {
                    found.append(
                        Problem(field: "subtasks[\(index)].kind", "a subtask is a to-do"))
                }
            }
        }
        return found
    }

    /// The problems of whole components kept as text: `BEGIN:NAME` … `END:NAME`.
    static func componentProblems(_ components: [String], field: String) -> [Problem] {
        var found: [Problem] = []
        for (index, text) in components.enumerated() {
            let lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
            let first = lines.first.map { $0.uppercased() } ?? ""
            let last = lines.last.map { $0.uppercased() } ?? ""
            guard first.hasPrefix("BEGIN:"), last == "END:" + first.dropFirst(6) else {
                found.append(
                    Problem(
                        field: "\(field)[\(index)]",
                        "expected a whole component, BEGIN:NAME … END:NAME with CRLF line ends"))
                continue
            }
        }
        return found
    }

    /// The problems of `ical_parameters`: property names as keys, parameter text as values.
    static func parameterProblems(_ parameters: [String: String]) -> [Problem] {
        var found: [Problem] = []
        for (name, text) in parameters.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty
                || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            {
                found.append(
                    Problem(field: "ical_parameters", "'\(name)' is not a property name"))
            }
            if text.isEmpty || !text.contains("=") {
                found.append(
                    Problem(
                        field: "ical_parameters.\(name)",
                        "'\(text.prefix(60))' is not parameter text such as LANGUAGE=de"))
            }
            found.add(textProblems(text, field: "ical_parameters.\(name)", allowLineBreaks: false))
        }
        return found
    }

    /// The problems of `ical_extra` lines: each must look like one content line.
    static func extraProblems(_ lines: [String]) -> [Problem] {
        var found: [Problem] = []
        for (index, line) in lines.enumerated() {
            if !line.contains(":") || line.hasPrefix("BEGIN:") || line.hasPrefix("END:") {
                found.append(
                    Problem(
                        field: "ical_extra[\(index)]",
                        "'\(line.prefix(60))' is not an iCalendar content line such as X-NAME:value"
                    ))
            }
            found.add(textProblems(line, field: "ical_extra[\(index)]", allowLineBreaks: false))
        }
        return found
    }

    /// Whether `text` can stand as a URI value. Calendar apps write addresses without a
    /// scheme (`ATTENDEE:ann`) and links with spaces; those are kept as they are. What cannot
    /// be kept: nothing at all, line breaks and control characters, and edge whitespace
    /// (libical trims it).
    static func canBeURI(_ text: String) -> Bool {
        !text.isEmpty && text.first?.isWhitespace == false && text.last?.isWhitespace == false
            && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Whether `value` is a parameter's several values, each quoted, as .ics input gives them
    /// (`DELEGATED-FROM="mailto:a@example.org","mailto:b@example.org"`).
    static func isQuotedList(_ value: String) -> Bool {
        guard value.count >= 5, value.hasPrefix("\""), value.hasSuffix("\"") else { return false }
        let items = value.dropFirst().dropLast().components(separatedBy: "\",\"")
        return items.count >= 2 && items.allSatisfy { !$0.contains("\"") }
    }

    /// Control characters iCalendar text cannot carry. Tabs and line feeds are fine; a
    /// carriage return would be lost (libical writes `\r\n` as `\n`), so it is refused too.
    static func textProblems(_ text: String, field: String, allowLineBreaks: Bool = true)
        -> [Problem]
    {
        // Control characters are ASCII, so the UTF-8 bytes are searched; the character's
        // place is counted only when there is one.
        func refused(_ byte: UInt8) -> Bool {
            (byte < 0x20 || byte == 0x7F) && byte != 0x09 && !(allowLineBreaks && byte == 0x0A)
        }
        var text = text
        let position = text.withUTF8 { utf8 -> Int? in
            let bytes = UnsafeRawBufferPointer(utf8)
            var offset = 0
            // Tabs and allowed line breaks are control characters too: look on past them.
            while let found = ByteScan.firstControl(
                in: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            {
                if refused(bytes[offset + found]) { return offset + found }
                offset += found + 1
            }
            return nil
        }.map { text.utf8.index(text.startIndex, offsetBy: $0) }
        guard let position else { return [] }
        let value = text.utf8[position]
        let offset = text.unicodeScalars.distance(from: text.startIndex, to: position)
        let code = String(value, radix: 16, uppercase: true)
        let hint = value == 0x0D ? "; write line breaks as \\n alone" : ""
        return [
            Problem(
                field: field,
                "contains the control character U+\(String(repeating: "0", count: 4 - code.count))\(code) at character \(offset), which iCalendar cannot carry\(hint)"
            )
        ]
    }
}

extension Person {
    var problems: [Problem] {
        var found: [Problem] = []
        if !TaskRecord.canBeURI(address) {
            found.append(
                Problem(
                    field: "address",
                    "'\(address.prefix(60))' is not a URI; write mailto:\(address.prefix(60))"))
        }
        if let name {
            found.add(TaskRecord.textProblems(name, field: "name", allowLineBreaks: false))
            if name.hasSuffix("\\") {
                // As with FILENAME: libical reads `CN=a\:mailto:…` as an escaped colon.
                found.append(
                    Problem(
                        field: "name",
                        "ends with a backslash, which an iCalendar parameter cannot end with"))
            }
        }
        for parameter in parameters {
            if parameter.name.isEmpty
                || !parameter.name.allSatisfy({
                    $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")
                })
            {
                found.append(
                    Problem(field: "parameters", "'\(parameter.name)' is not a parameter name"))
            }
            if parameter.value.hasSuffix("\\") {
                found.append(
                    Problem(
                        field: "parameters.\(parameter.name)",
                        "ends with a backslash, which an iCalendar parameter cannot end with"))
            }
            if parameter.value.contains("\""), !TaskRecord.isQuotedList(parameter.value) {
                found.append(
                    Problem(
                        field: "parameters.\(parameter.name)",
                        "a parameter value cannot contain a double quote (several values are written \"a\",\"b\")"
                    ))
            }
            found.add(
                TaskRecord.textProblems(
                    parameter.value, field: "parameters.\(parameter.name)", allowLineBreaks: false))
        }
        return found
    }
}

extension Attachment {
    var problems: [Problem] {
        var found: [Problem] = []
        if let mimeType,
            !mimeType.utf8.contains(UInt8(ascii: "/"))
                || mimeType.contains(where: { $0 == " " || $0 == ";" || $0 == "\"" })
        {
            found.append(
                Problem(field: "mime_type", "'\(mimeType)' is not a media type such as image/jpeg"))
        }
        if let filename {
            if filename.isEmpty { found.append(Problem(field: "filename", "is empty")) }
            if filename.first?.isWhitespace == true || filename.last?.isWhitespace == true {
                found.append(
                    Problem(
                        field: "filename",
                        "starts or ends with whitespace, which iCalendar parameters do not keep"))
            }
            if filename.hasSuffix("\\") {
                // libical reads `FILENAME=a\:` as an escaped colon and loses the value.
                found.append(
                    Problem(
                        field: "filename",
                        "ends with a backslash, which an iCalendar parameter cannot end with"))
            }
            found.add(TaskRecord.textProblems(filename, field: "filename", allowLineBreaks: false))
        }
        switch content {
        case .url(let url):
            if !TaskRecord.canBeURI(url) {
                found.append(
                    Problem(
                        field: "url",
                        "'\(url.prefix(60))' is not a URI such as https://example.com/file.pdf"))
            }
        case .path(let path):
            if path.isEmpty { found.append(Problem(field: "path", "is empty")) }
        case .inline:
            break
        }
        return found
    }
}

extension Alarm {
    var problems: [Problem] {
        var found: [Problem] = []
        if action == .email && attendees.isEmpty {
            found.append(
                Problem(
                    field: "attendees", "an email alarm needs at least one recipient (mailto:…)"))
        }
        for (index, attendee) in attendees.enumerated() where !TaskRecord.canBeURI(attendee) {
            found.append(
                Problem(
                    field: "attendees[\(index)]",
                    "'\(attendee)' is not a URI; write mailto:\(attendee)"))
        }
        if case .absolute(let time) = trigger, !Timestamp.range.contains(time) {
            found.append(Problem(field: "trigger_at", "\(time) is outside the years 0001–9999"))
        }
        if (repeatCount == nil) != (repeatInterval == nil) {
            found.append(
                Problem(field: "repeat", "repeat and repeat_interval go together (RFC 5545 §3.6.6)")
            )
        }
        if let repeatCount, repeatCount < 0 || repeatCount > 1000 {
            found.append(Problem(field: "repeat", "\(repeatCount) is outside 0–1000"))
        }
        if let description { found.add(TaskRecord.textProblems(description, field: "description")) }
        if let summary { found.add(TaskRecord.textProblems(summary, field: "summary")) }
        found.add(TaskRecord.extraProblems(icalExtra))
        found.add(TaskRecord.parameterProblems(icalParameters))
        if let sound, !TaskRecord.canBeURI(sound) {
            found.append(Problem(field: "sound", "'\(sound)' is not a URI"))
        }
        return found
    }
}

extension Array where Element == Problem {
    /// Appends `more`, when there is any: nearly every check finds nothing, and the generic
    /// append of an empty array was a hundred instructions a call, a dozen calls a record.
    mutating func add(_ more: [Problem]) {
        if !more.isEmpty { append(contentsOf: more) }
    }
}
