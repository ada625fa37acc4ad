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
