import ICalendar
import TaskModel

/// Which iCalendar properties each field of a task record comes from, in one place.
///
/// The reader (``EventReader``) and the writer (``EventWriter``) are built as the same steps,
/// one per concern, each owning the properties listed here; a new field touches one step on
/// each side and this table.
///
/// | step | properties | record fields |
/// |---|---|---|
/// | identity | `UID` | `id`, `uid`, `kind` |
/// | times | `DTSTART` `DTEND` `DURATION` `DUE` `RECURRENCE-ID` | `date_start` `date_finish` `due` `all_day` `time_zone` `floating` `recurrence_id` `this_and_future` |
/// | text | `SUMMARY` `DESCRIPTION` `LOCATION` `STATUS` `TRANSP` `CATEGORIES` `COLOR` `CLASS` `URL` | `name` `description` `location` `status` `done` `free` `categories` `color` `class` `url` |
/// | people | `ORGANIZER` `ATTENDEE` | `organizer` `attendees` |
/// | attachments | `ATTACH` | `attachments` |
/// | alarms | `VALARM` (`ACTION` `TRIGGER` `DESCRIPTION` `SUMMARY` `ATTENDEE` `ATTACH` `REPEAT` `DURATION`) | `alarms` |
/// | recurrence | `RRULE` `EXDATE` `RDATE` | `recurrence` |
/// | verbatim | everything else (`DTSTAMP` is written anew) | `ical_extra`, `ical_parameters`, `ical_components` |
///
/// Everything not listed never reaches libical on the way in: it is kept as written.
enum RecordMapping {
    static let identity: Set<String> = ["UID"]
    static let times: Set<String> = ["DTSTART", "DTEND", "DURATION", "DUE", "RECURRENCE-ID"]
    static let text: Set<String> = [
        "SUMMARY", "DESCRIPTION", "LOCATION", "STATUS", "TRANSP", "CATEGORIES", "COLOR", "CLASS",
        "URL",
    ]
    static let people: Set<String> = ["ORGANIZER", "ATTENDEE"]
    static let attachments: Set<String> = ["ATTACH"]
    static let recurrence: Set<String> = ["RRULE", "EXDATE", "RDATE"]
    static let alarm: Set<String> = [
        "ACTION", "TRIGGER", "DESCRIPTION", "SUMMARY", "ATTENDEE", "ATTACH", "REPEAT", "DURATION",
        EventWriter.disabledActionProperty,
    ]
    /// When an event was done (an occurrence of a habit): taskcal's own line, as RFC 5545's
    /// `STATUS:COMPLETED` and `COMPLETED` belong to to-dos. Kept verbatim; it sets `done`.
    static let eventCompleted = "X-TASKCAL-COMPLETED"
    static let eventCompletedName = PropertyName(eventCompleted)
    /// Written anew on every conversion, so not kept.
    static let writtenAnew: Set<String> = ["DTSTAMP"]

    /// What libical reads; the reader keeps the rest as written.
    static let interpreted: Set<String> =
        identity.union(times).union(text).union(people).union(attachments).union(recurrence)
        .union(alarm)

    /// Properties whose loss makes a component no record: its identity and times.
    static let essential: Set<String> = identity.union(times)

    /// The steps that read a component's own properties (alarms read theirs apart).
    enum Step {
        case identity, times, text, people, attachments, recurrence
    }

    /// The step that reads each property name, looked up once per property.
    static let step: NameTable<Step> = {
        var steps = NameTable<Step>()
        let table: [(Set<String>, Step)] = [
            (identity, .identity), (times, .times), (text, .text), (people, .people),
            (attachments, .attachments), (recurrence, .recurrence),
        ]
        for (names, step) in table {
            for name in names { steps[name] = step }
        }
        return steps
    }()

    /// Properties RFC 5545 allows once per component; a second is left out (it would make
    /// the output invalid). A journal may have several `DESCRIPTION`s.
    static func isSingle(_ name: String, in kind: TaskRecord.Kind) -> Bool {
        if kind == .journal && name == "DESCRIPTION" { return false }
        return single.contains(name)
    }

    private static let single: Set<String> = [
        "UID", "DTSTART", "DTEND", "SUMMARY", "DESCRIPTION", "STATUS", "TRANSP", "DURATION",
        "DUE", "LOCATION", "COLOR", "CLASS", "URL", "ORGANIZER", "RECURRENCE-ID",
    ]

    /// The field of `record` the verbatim `line` in its `ical_extra` would repeat or
    /// contradict, or `nil` when the line may stand. One rule for the writer, which refuses
    /// the line rather than write twice a property RFC 5545 allows once, and for the checks
    /// of JSON input and of the diary (``CalendarChecks``): `validate` and `diary import`
    /// refuse what `convert` would.
    ///
    /// A name is governed when the writer writes it from the fields (`UID` and `SUMMARY`
    /// always, `DESCRIPTION` when there is one …), and a time also when the reader reads a
    /// field from it, so that the line read back would change the field: `DTSTART`, an
    /// event's `DTEND`. What the reader itself keeps verbatim stays free: a to-do's `DTEND`
    /// (and `DURATION` beside a due or without a start), its `DUE` before its start, an
    /// event's negative `DURATION` (read as no time) and its `DUE`, a journal's `DTEND`,
    /// `DURATION`, `DUE` and further `DESCRIPTION`s, values a field does not take (`TRANSP`
    /// on a to-do). A line beside an empty field may fill it when read back: nothing is lost.
    static func field(governing line: ContentLine, in record: TaskRecord) -> String? {
        switch line.name {
        case "UID": "uid"
        case "SUMMARY": "name"
        case "DTSTART": "date_start"
        case "RECURRENCE-ID": "recurrence_id"
        case "DTEND": record.kind == .event ? "date_finish" : nil
        case "DURATION":
            switch record.kind {
            case .event:
                record.dateFinish > record.dateStart || !line.value.hasPrefix("-")
                    ? "date_finish" : nil
            case .todo: record.unscheduled || record.due != nil ? nil : "date_finish"
            case .journal: nil
            }
        case "DUE": record.kind == .todo && record.due != nil ? "due" : nil
        case "DESCRIPTION":
            record.kind != .journal && !(record.description ?? "").isEmpty ? "description" : nil
        case "STATUS":
            record.status != nil ? "status" : record.done && record.kind == .todo ? "done" : nil
        case "TRANSP": record.free ? "free" : nil
        case "LOCATION": (record.location ?? "").isEmpty ? nil : "location"
        case "COLOR": record.color == nil ? nil : "color"
        case "CLASS": record.classification == nil ? nil : "class"
        case "URL": record.url == nil ? nil : "url"
        case "ORGANIZER": record.organizer == nil ? nil : "organizer"
        default: nil
        }
    }

    /// The problem of `record`'s `ical_extra` `line` at `index` that
    /// ``field(governing:in:)`` refuses, or `nil`.
    static func governedLineProblem(_ line: ContentLine, at index: Int, in record: TaskRecord)
        -> Problem?
    {
        field(governing: line, in: record).map {
            Problem(
                field: "ical_extra[\(index)]",
                "\(line.name) comes from the field \($0); a line here would repeat or contradict it (RFC 5545 allows one)"
            )
        }
    }

    /// Parameters each property's step reproduces itself; the others are kept as written.
    static func reproducedParameters(of property: String) -> Set<String> {
        switch property {
        case "DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE": ["VALUE", "TZID"]
        case "ATTACH": ["VALUE", "ENCODING", "FMTTYPE", "FILENAME"]
        case "TRIGGER": ["VALUE", "RELATED"]
        default: []
        }
    }
}
