/// The rules every record must follow beyond its JSON shape, as data: each rule names the
/// field it checks and says what is expected.
extension TaskRecord {
    /// Every rule this record breaks; empty when it is valid.
    public var problems: [Problem] {
        var found: [Problem] = []
        if name.allSatisfy(\.isWhitespace) {
            found.append(Problem(field: "name", "is empty; every record needs a name"))
        }
        for (field, value) in [("date_start", dateStart), ("date_finish", dateFinish)]
        where !Timestamp.range.contains(value) {
            found.append(Problem(field: field, "\(value) is outside the years 0001–9999"))
        }
        if dateFinish < dateStart {
            found.append(
                Problem(
                    field: "date_finish",
                    "\(dateFinish) is before date_start \(dateStart); the end must not precede the start"
                ))
        }
        if allDay {
            if dateStart % 86_400 != 0 || dateFinish % 86_400 != 0 {
                found.append(
                    Problem(
                        field: "all_day",
                        "an all-day record starts and ends at midnight UTC (multiples of 86400)"))
            } else if dateFinish == dateStart {
                found.append(
                    Problem(
                        field: "date_finish",
                        "an all-day record lasts at least one day (the end date is exclusive)"))
            }
        }
        found += Self.textProblems(name, field: "name")
        if let description { found += Self.textProblems(description, field: "description") }
        if let uid {
            if uid.isEmpty {
                found.append(Problem(field: "uid", "is empty; omit it to derive the UID from id"))
            }
            found += Self.textProblems(uid, field: "uid", allowLineBreaks: false)
        }
        for (index, attachment) in attachments.enumerated() {
            found += attachment.problems.map { $0.nested(in: "attachments[\(index)]") }
        }
        for (index, alarm) in alarms.enumerated() {
            found += alarm.problems.map { $0.nested(in: "alarms[\(index)]") }
        }
        return found
    }

    /// Control characters iCalendar text cannot carry. Tabs and line feeds are fine; a
    /// carriage return would be lost (libical writes `\r\n` as `\n`), so it is refused too.
    static func textProblems(_ text: String, field: String, allowLineBreaks: Bool = true)
        -> [Problem]
    {
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            let isControl = value < 0x20 || value == 0x7F
            if isControl && scalar != "\t" && !(allowLineBreaks && scalar == "\n") {
                let code = String(value, radix: 16, uppercase: true)
                let hint = scalar == "\r" ? "; write line breaks as \\n alone" : ""
                return [
                    Problem(
                        field: field,
                        "contains the control character U+\(String(repeating: "0", count: 4 - code.count))\(code) at character \(offset), which iCalendar cannot carry\(hint)"
                    )
                ]
            }
        }
        return []
    }
}

extension Attachment {
    var problems: [Problem] {
        var found: [Problem] = []
        if let mimeType,
            !mimeType.contains("/")
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
            found += TaskRecord.textProblems(filename, field: "filename", allowLineBreaks: false)
        }
        switch content {
        case .url(let url):
            if !url.contains(":") || url.contains(where: { $0.isWhitespace }) {
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
        for (index, attendee) in attendees.enumerated() where !attendee.contains(":") {
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
        if let description { found += TaskRecord.textProblems(description, field: "description") }
        if let summary { found += TaskRecord.textProblems(summary, field: "summary") }
        if let sound, !sound.contains(":") {
            found.append(Problem(field: "sound", "'\(sound)' is not a URI"))
        }
        return found
    }
}
