import Foundation
import ICalendar
import TaskModel

/// One JSCalendar `Event` or `Task` read into task-format fields, a part at a time: what it is,
/// when, how it stands, its links, people and alerts, its repeats, its relations. Each part
/// adds to ``task`` and says what it could not read in ``problems`` (the object is refused)
/// or ``warnings`` (it was left out, or read for its obvious intent).
struct ObjectFields {
    typealias Member = JSONValue.Member
    typealias Members = JSCalendar.Members
    typealias Placement = JSCalendar.Placement

    /// The object's members, in order, and by name.
    let list: [Member]
    let object: Members
    let context: JSCalendar.Context

    /// The fields read so far.
    var task = Members()
    /// Whether the record needs an id of its own (its UID is none of taskcal's).
    var needsID = false
    var problems: [Problem] = []
    var warnings: [String] = []
    /// The changed occurrences, patches to be read as records of their own.
    var overrides: [(key: String, patch: [Member])] = []

    /// A `Task` (a to-do), not an `Event`.
    private var isTask = false
    /// Where its local times are: in a zone, floating, all day, in UTC.
    private var placement: Placement = .utc
    private var startLocal: DateTimeValue?
    private var dueLocal: DateTimeValue?
    /// `ical_extra` lines: counters, then (after the kept fields) relations.
    private var extra: [JSONValue] = []
    private var relations: [JSONValue] = []

    init(_ list: [Member], context: JSCalendar.Context) {
        self.list = list
        self.object = Members(list: list)
        self.context = context
    }

    /// Reads every part in turn; false when the object is no Event or Task (``problems``
    /// says why, and nothing else is read).
    mutating func read() -> Bool {
        guard readKind() else { return false }
        readIdentity()
        readWhen()
        readStanding()
        readPlaces()
        readLinks()
        readPeople()
        readAlerts()
        readRepeats()
        readCounters()
        finish()
        return true
    }

    // MARK: - Values

    private mutating func warn(_ message: String) { warnings.append(message) }

    private mutating func problem(_ field: String, _ message: String) {
        problems.append(Problem(field: field, message))
    }

    private mutating func string(_ name: String) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard case .string(let text) = value else {
            problem(name, "expected a string")
            return nil
        }
        return text
    }

    private mutating func integer(_ name: String) -> Int64? {
        guard let value = object[name], value != .null else { return nil }
        guard case .number(let text) = value, let number = Int64(text) else {
            problem(name, "expected a whole number")
            return nil
        }
        return number
    }

    private mutating func localTime(_ name: String) -> DateTimeValue? {
        guard let text = string(name) else { return nil }
        guard let value = JSCalendar.dateTime(text) else {
            problem(
                name,
                "'\(text.prefix(40))' is no LocalDateTime; expected one such as 2026-01-15T13:00:00"
            )
            return nil
        }
        return value
    }

    // MARK: - What it is

    /// `@type`: an Event, or a Task (a to-do); anything else is no record.
    private mutating func readKind() -> Bool {
        let type = object["@type"]
        guard type == .string("Event") || type == .string("Task") else {
            if case .string(let other)? = type {
                problem(
                    "@type",
                    "'\(other.prefix(40))' cannot be read as a record; expected \"Event\" or \"Task\""
                )
            } else {
                problem("@type", "missing; expected \"Event\" or \"Task\"")
            }
            return false
        }
        isTask = type == .string("Task")
        if isTask { task.set("kind", .string("todo")) }
        return true
    }

    /// The UID (the id it derives from, when it is taskcal's), title, description, locale.
    private mutating func readIdentity() {
        if let uid = string("uid"), !uid.isEmpty {
            if let parsed = context.uidScheme.parse(uid) {
                task.set("id", JSCalendar.number(parsed.id))
                if !parsed.isDerived { task.set("uid", .string(uid)) }
            } else {
                task.set("id", JSCalendar.number(0))
                task.set("uid", .string(uid))
                needsID = true
            }
        } else if object["uid"] == nil || object["uid"] == .string("") {
            problem("uid", "missing; every JSCalendar object has a uid")
        }
        if let title = string("title"), !title.isEmpty {
            task.set("name", .string(title))
        } else if problems.allSatisfy({ $0.field != "title" }) {
            task.set("name", .string("(untitled)"))
            warn("has no title; it was named (untitled)")
        }
        if let description = string("description") {
            task.set("description", .string(description))
            if let type = string("descriptionContentType"),
                !type.lowercased().hasPrefix("text/plain")
            {
                warn("its description is \(type); it was kept as plain text")
            }
        }
        if let locale = string("locale"), !locale.isEmpty {
            task.set(
                "ical_parameters",
                .object([Member(name: "SUMMARY", value: .string("LANGUAGE=" + locale))]))
        }
    }

    // MARK: - When

    /// Start, due, duration and zone: the record's times and where they are.
    private mutating func readWhen() {
        startLocal = localTime("start")
        dueLocal = localTime("due")
        var zoneName: String?
        switch object["timeZone"] {
        case nil, .null?: break
        case .string(let name)?: zoneName = name
        default: problem("timeZone", "expected an IANA time zone name or null")
        }
        let durationField = isTask ? "estimatedDuration" : "duration"
        var duration: JSCalendar.Duration?
        if let text = string(durationField) {
            duration = JSCalendar.Duration(text, signed: false)
            if duration == nil {
                problem(
                    durationField,
                    "'\(text.prefix(40))' is no duration; expected one such as PT1H30M or P1D")
            }
        }
        placement = readPlacement(zoneName, duration: duration)
        readSpan(duration: duration, durationField: durationField)
        if let dueLocal {
            if isTask {
                task.set("due", .string(String(placement.epoch(dueLocal))))
            } else {
                warn("an Event has no due time; its 'due' was left out")
            }
        }
        if isTask && startLocal == nil && duration != nil {
            warn("an estimatedDuration without a start has no iCalendar form; it was left out")
        }
        switch placement {
        case _ where startLocal == nil && dueLocal == nil: break
        case .allDay: task.set("all_day", .bool(true))
        case .zone(let zone): task.set("time_zone", .string(zone))
        case .floating(let zone):
            if let zone { task.set("time_zone", .string(zone)) }
            task.set("floating", .bool(true))
        case .utc: break
        }
        readRecurrenceID()
    }

    /// All day (`showWithoutTime` at midnights, no time in the duration), in a zone, in UTC,
    /// or floating (no zone, or one nobody knows, with a warning).
    private mutating func readPlacement(_ zoneName: String?, duration: JSCalendar.Duration?)
        -> Placement
    {
        func atMidnight(_ value: DateTimeValue?) -> Bool {
            value.map { $0.hour == 0 && $0.minute == 0 && $0.second == 0 } ?? true
        }
        if object["showWithoutTime"] == .bool(true), startLocal != nil || dueLocal != nil,
            atMidnight(startLocal), atMidnight(dueLocal), (duration?.seconds ?? 0) == 0
        {
            return .allDay
        }
        guard let zoneName else { return .floating(context.floatingZone) }
        if JSCalendar.isUTC(zoneName) { return .utc }
        if CalendarZone.system(zoneName) != nil { return .zone(zoneName) }
        if let known = TimeZones.ianaName(forTZID: zoneName), CalendarZone.system(known) != nil {
            return .zone(known)
        }
        warn(
            "unknown time zone '\(zoneName.prefix(60))': its times were read as floating, in \(context.floatingZone)"
        )
        return .floating(context.floatingZone)
    }

    /// `date_start` and `date_finish`: the start, and its end after the duration (a day at
    /// least for an all-day event).
    private mutating func readSpan(duration: JSCalendar.Duration?, durationField: String) {
        guard let startLocal else {
            if !isTask && problems.allSatisfy({ $0.field != "start" }) {
                problem("start", "missing; an Event has a start")
            }
            return
        }
        let start = placement.epoch(startLocal)
        var finish = start
        if placement == .allDay {
            let days = isTask ? (duration?.days ?? 0) : max(1, duration?.days ?? 1)
            finish = start + days * 86_400
            if !isTask && duration?.days == 0 {
                warn("an all-day event of no length was read as one day")
            }
        } else if let duration {
            if let end = duration.end(after: start, in: placement) {
                finish = end
            } else {
                problem(durationField, "ends outside the years 0001–9999")
            }
        }
        task.set("date_start", .string(String(start)))
        task.set("date_finish", .string(String(finish)))
    }

    /// `recurrenceId`, in its own zone when it names one.
    private mutating func readRecurrenceID() {
        guard let recurrenceLocal = localTime("recurrenceId") else { return }
        var at = placement
        if let zone = string("recurrenceIdTimeZone"), CalendarZone.system(zone) != nil,
            placement != .allDay
        {
            at = JSCalendar.isUTC(zone) ? .utc : .zone(zone)
        }
        task.set("recurrence_id", .string(String(at.epoch(recurrenceLocal))))
    }

    // MARK: - How it stands

    /// Progress or status, free or busy, privacy, keywords, colour.
    private mutating func readStanding() {
        if isTask {
            switch string("progress")?.lowercased() {
            case nil: break
            case "completed"?: task.set("done", .bool(true))
            case let progress? where ["needs-action", "in-process", "cancelled"].contains(progress):
                task.set("status", .string(progress))
            case let progress?:
                warn("progress '\(progress.prefix(40))' has no iCalendar status; it was left out")
            }
        } else {
            switch string("status")?.lowercased() {
            case nil: break
            case let status? where ["confirmed", "tentative", "cancelled"].contains(status):
                task.set("status", .string(status))
            case let status?:
                warn("status '\(status.prefix(40))' is no event status; it was left out")
            }
        }
        switch string("freeBusyStatus")?.lowercased() {
        case "free"?: task.set("free", .bool(true))
        case nil, "busy"?: break
        case let other?: warn("freeBusyStatus '\(other.prefix(40))' was read as busy")
        }
        switch string("privacy")?.lowercased() {
        case nil: break
        case "public"?: task.set("class", .string("public"))
        case "private"?: task.set("class", .string("private"))
        case "secret"?: task.set("class", .string("confidential"))
        case let other?: warn("privacy '\(other.prefix(40))' is unknown; it was left out")
        }
        if let keywords = object["keywords"], keywords != .null {
            if let members = JSCalendar.members(keywords) {
                let names = members.filter { $0.value == .bool(true) }.map {
                    JSONValue.string($0.name)
                }
                if !names.isEmpty { task.set("categories", .array(names)) }
            } else {
                problem("keywords", "expected an object of keywords set to true")
            }
        }
        if let color = string("color") { task.set("color", .string(color)) }
    }

    /// The first of its locations (iCalendar keeps one).
    private mutating func readPlaces() {
        guard let locations = object["locations"], let members = JSCalendar.members(locations)
        else { return }
        let names = members.compactMap { member -> String? in
            if case .string(let name)? = JSCalendar.members(member.value).flatMap({
                Members(list: $0)["name"]
            }) {
                return name
            }
            return nil
        }
        if let first = names.first { task.set("location", .string(first)) }
        if names.count > 1 {
            warn("it has \(names.count) locations; the first was kept, the others left out")
        }
    }

    // MARK: - Links, people, alerts

    /// Links: the first `describedby` one is the record's URL, the others attachments.
    private mutating func readLinks() {
        var attachments: [JSONValue] = []
        if let links = object["links"], let members = JSCalendar.members(links) {
            for member in members {
                let link = JSCalendar.members(member.value) ?? []
                let href = Members(list: link)["href"]
                if Members(list: link)["rel"] == .string("describedby"), task["url"] == nil,
                    case .string(let url)? = href, !url.lowercased().hasPrefix("data:")
                {
                    task.set("url", .string(url))
                    continue
                }
                do {
                    attachments.append(.object(try EntryReader.attachment(link)))
                } catch {
                    warn("links.\(member.name) was left out: \(error.message)")
                }
            }
        }
        if !attachments.isEmpty { task.set("attachments", .array(attachments)) }
    }

    /// Participants: the owner is the organizer (else `replyTo`), the others attendees.
    private mutating func readPeople() {
        var attendees: [JSONValue] = []
        if let participants = object["participants"], let members = JSCalendar.members(participants)
        {
            for member in members {
                let participant = JSCalendar.members(member.value) ?? []
                let roles = JSCalendar.members(Members(list: participant)["roles"]) ?? []
                let names = Set(roles.filter { $0.value == .bool(true) }.map(\.name))
                do {
                    let person = try EntryReader.person(participant)
                    if names.contains("owner") && task["organizer"] == nil {
                        task.set(
                            "organizer", .object(try EntryReader.person(participant, owner: true)))
                    }
                    if !names.contains("owner") || names.count > 1 {
                        attendees.append(.object(person))
                    }
                } catch {
                    warn("participants.\(member.name) was left out: \(error.message)")
                }
            }
        }
        if task["organizer"] == nil, let reply = JSCalendar.members(object["replyTo"]),
            case .string(let address)? = Members(list: reply)["imip"] ?? reply.first?.value
        {
            task.set("organizer", .object([Member(name: "address", value: .string(address))]))
        }
        if !attendees.isEmpty { task.set("attendees", .array(attendees)) }
    }

    /// Alerts, as alarms.
    private mutating func readAlerts() {
        guard let alerts = object["alerts"], let members = JSCalendar.members(alerts) else {
            return
        }
        var alarms: [JSONValue] = []
        for member in members {
            do {
                alarms.append(
                    .object(try EntryReader.alarm(JSCalendar.members(member.value) ?? [])))
            } catch {
                warn("alerts.\(member.name) was left out: \(error.message)")
            }
        }
        if !alarms.isEmpty { task.set("alarms", .array(alarms)) }
    }

    // MARK: - Repeats

    /// The first recurrence rule; overrides as exceptions, extra dates, or changed occurrences.
    private mutating func readRepeats() {
        var recurrence = Members()
        if let rules = object["recurrenceRules"], rules != .null {
            if case .array(let list) = rules, let first = list.first {
                do {
                    recurrence.set(
                        "rule", .string(try JSCalendar.ruleText(first, placement: placement)))
                } catch {
                    problems.append(error.nested(in: "recurrenceRules[0]"))
                }
                if list.count > 1 {
                    warn(
                        "it has \(list.count) recurrence rules; iCalendar keeps one, the others were left out"
                    )
                }
            } else if case .array = rules {
            } else {
                problem("recurrenceRules", "expected an array of RecurrenceRule objects")
            }
        }
        let (exdates, rdates) = readOverrides()
        if !exdates.isEmpty { recurrence.set("exdates", .array(exdates)) }
        if !rdates.isEmpty { recurrence.set("rdates", .array(rdates)) }
        if !recurrence.list.isEmpty { task.set("recurrence", .object(recurrence.list)) }
        if object["excludedRecurrenceRules"] != nil {
            warn(
                "iCalendar has no excluded recurrence rules (EXRULE is deprecated); they were left out"
            )
        }
    }

    /// `recurrenceOverrides`: an excluded one is an exception date, an empty one an extra
    /// date, any other a changed occurrence (kept in ``overrides``).
    private mutating func readOverrides() -> (exdates: [JSONValue], rdates: [JSONValue]) {
        var exdates: [JSONValue] = []
        var rdates: [JSONValue] = []
        guard let changes = object["recurrenceOverrides"], let members = JSCalendar.members(changes)
        else { return ([], []) }
        for member in members {
            guard let local = JSCalendar.dateTime(member.name) else {
                problem(
                    "recurrenceOverrides.\(member.name.prefix(40))",
                    "the key is no LocalDateTime such as 2026-01-15T13:00:00")
                continue
            }
            let time = JSONValue.string(String(placement.epoch(local)))
            let patch = JSCalendar.members(member.value) ?? []
            if patch.contains(where: { $0.name == "excluded" && $0.value == .bool(true) }) {
                exdates.append(time)
            } else if patch.allSatisfy({ $0.name == "@type" }) {
                rdates.append(time)
            } else {
                overrides.append((member.name, patch))
            }
        }
        return (exdates, rdates)
    }

    // MARK: - Relations and counters, as iCalendar lines

    /// `relatedTo` as `RELATED-TO` lines; `sequence`, `priority`, `created` as theirs.
    private mutating func readCounters() {
        if let related = JSCalendar.members(object["relatedTo"]) {
            for member in related {
                let relation = JSCalendar.members(
                    JSCalendar.members(member.value).flatMap { Members(list: $0)["relation"] })
                let kinds = (relation ?? []).filter { $0.value == .bool(true) }.map(\.name)
                let uid = ContentLine.escapedText(member.name)
                if kinds.isEmpty || kinds.contains("parent") {
                    relations.append(.string("RELATED-TO:" + uid))
                } else {
                    for kind in kinds {
                        relations.append(.string("RELATED-TO;RELTYPE=\(kind.uppercased()):" + uid))
                    }
                }
            }
        }
        if let sequence = integer("sequence"), sequence > 0 {
            extra.append(.string("SEQUENCE:\(sequence)"))
        }
        if let priority = integer("priority"), priority > 0 {
            extra.append(.string("PRIORITY:\(priority)"))
        }
        if let created = string("created") {
            if let value = JSCalendar.dateTime(created, utc: true) {
                extra.append(.string("CREATED:" + value.compactUTCFromFields))
            } else {
                warn("created '\(created.prefix(40))' is no UTCDateTime; it was left out")
            }
        }
        if !extra.isEmpty { task.set("ical_extra", .array(extra)) }
    }

    /// What was left out, then the fields kept from an earlier conversion on top, then the
    /// relations (a subtask's parent is said by `relatedTo` alone).
    private mutating func finish() {
        let leftOut = list.map(\.name).filter {
            !EntryReader.mapped.contains($0) && !EntryReader.ignored.contains($0)
                && $0 != "descriptionContentType"
        }
        if !leftOut.isEmpty {
            warn(
                "JSCalendar properties with no task-format field were left out: \(leftOut.joined(separator: ", "))"
            )
        }
        if let kept = JSCalendar.members(object[JSCalendar.fieldsKey]) {
            task = Members(list: JSCalendar.overlaid(task.list, with: kept))
            if kept.contains(where: { $0.name == "id" }) { needsID = false }
        }
        guard !relations.isEmpty else { return }
        if case .array(let lines)? = task["ical_extra"] {
            task.set("ical_extra", .array(lines + relations))
        } else {
            task.set("ical_extra", .array(relations))
        }
    }
}

extension DateTimeValue {
    /// `20260115T100000Z` of these fields, read as UTC.
    fileprivate var compactUTCFromFields: String {
        var value = self
        value.zone = .utc
        return value.compactUTC
    }
}
