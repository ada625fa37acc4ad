import Foundation

/// One entry of a diary or task list: the record of taskcal's JSON task format.
///
/// ```json
/// {"id": 1, "date_start": "147600000", "date_finish": "147610000",
///  "name": "My task", "description": "Описание моего дела"}
/// ```
///
/// Times are Unix seconds. The interval is half-open: an entry from 14:00 to 15:00 and one
/// from 15:00 to 16:00 do not overlap. Optional fields are written only when present.
public struct TaskRecord: Sendable, Hashable {
    /// The record's number; it maps to a stable iCalendar `UID` and back.
    public var id: Int64
    /// Start, Unix seconds.
    public var dateStart: Int64
    /// End, Unix seconds; never before ``dateStart``.
    public var dateFinish: Int64
    /// A short title; never empty.
    public var name: String
    /// Free text, possibly several lines.
    public var description: String?
    /// The iCalendar `UID` when it is not the one derived from ``id``.
    public var uid: String?
    /// An all-day entry (`DTSTART;VALUE=DATE`): start and finish are UTC midnights and the
    /// finish is exclusive, as in iCalendar.
    public var allDay: Bool
    /// `tentative`, `confirmed` or `cancelled` (iCalendar `STATUS`), when known.
    public var status: Status?
    /// The entry shows as free time (iCalendar `TRANSP:TRANSPARENT`): it blocks nothing.
    public var free: Bool
    /// Files attached to the entry.
    public var attachments: [Attachment]
    /// Reminders.
    public var alarms: [Alarm]

    /// An event (`VEVENT`, the default) or a to-do (`VTODO`).
    public var kind: Kind = .event
    /// A to-do with no start (`VTODO` without `DTSTART`): ``dateStart`` and ``dateFinish`` are
    /// zero and mean nothing, and JSON leaves them out.
    public var unscheduled = false
    /// A to-do's deadline (`DUE`), Unix seconds.
    public var due: Int64?
    /// A to-do that is finished (`STATUS:COMPLETED`).
    public var done = false
    /// A to-do's own to-dos (children that name it in `RELATED-TO`).
    public var subtasks: [TaskRecord] = []
    /// The zone the entry was planned in (`DTSTART;TZID=…`): an IANA name, or the `TZID` of
    /// a zone the calendar itself defines (``CalendarInfo/icalComponents``). Recurrences step
    /// in it; it is written back in it.
    public var timeZone: String?
    /// Floating times (RFC 5545: "07:00 wherever I am"): the entry has no zone of its own.
    /// ``dateStart`` and ``dateFinish`` are the instants of its wall-clock times in
    /// ``timeZone``, the zone it was read in; it is written back without a zone, and reports
    /// place its wall-clock times in their own zone.
    public var floating = false
    /// Where (`LOCATION`).
    public var location: String?
    /// Tags (`CATEGORIES`).
    public var categories: [String] = []
    /// A CSS colour name (RFC 7986 `COLOR`).
    public var color: String?
    /// Who may see it (`CLASS`).
    public var classification: Classification?
    /// A link to more about it (`URL`).
    public var url: String?
    /// Who organises it (`ORGANIZER`).
    public var organizer: Person?
    /// Who takes part (`ATTENDEE`).
    public var attendees: [Person] = []
    /// How the entry repeats (`RRULE`, `EXDATE`, `RDATE`).
    public var recurrence: Recurrence?
    /// For one changed occurrence of a repeating entry (`RECURRENCE-ID`): the start, Unix
    /// seconds, that the occurrence had before it was changed. It shares the series' `uid`.
    public var recurrenceID: Int64?
    /// The changed occurrence changes every later one too (`RECURRENCE-ID;RANGE=THISANDFUTURE`).
    public var thisAndFuture = false
    /// Parameters of properties the task format has fields for, as written, that no field
    /// holds: `["SUMMARY": "LANGUAGE=de", "DESCRIPTION": "ALTREP=\"cid:part1\""]`. They go
    /// back out on the same properties.
    public var icalParameters: [String: String] = [:]
    /// iCalendar content lines the task format has no field for, kept verbatim so that
    /// .ics → JSON → .ics loses nothing (`X-GOOGLE-CONFERENCE:…`, `SEQUENCE:2`, …).
    public var icalExtra: [String] = []
    /// Subcomponents the task format has no field for, kept whole as written, `BEGIN` to
    /// `END` with CRLF line ends (`VLOCATION`, an alarm with `ACTION:PROCEDURE`).
    public var icalComponents: [String] = []

    /// Creates a record.
    public init(
        id: Int64, dateStart: Int64, dateFinish: Int64, name: String, description: String? = nil,
        uid: String? = nil, allDay: Bool = false, status: Status? = nil, free: Bool = false,
        attachments: [Attachment] = [],
        alarms: [Alarm] = []
    ) {
        self.id = id
        self.dateStart = dateStart
        self.dateFinish = dateFinish
        self.name = name
        self.description = description
        self.uid = uid
        self.allDay = allDay
        self.status = status
        self.free = free
        self.attachments = attachments
        self.alarms = alarms
    }
}

extension TaskRecord {
    /// Whether an entry happens as planned (iCalendar `STATUS`): `tentative` and `confirmed`
    /// for events, `needs-action` and `in-process` for to-dos (a finished to-do is `done`),
    /// `cancelled` for both.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case tentative, confirmed, cancelled
        case needsAction = "needs-action"
        case inProcess = "in-process"
        /// A journal entry still being written (`VJOURNAL` `STATUS:DRAFT`).
        case draft
        /// A finished journal entry (`STATUS:FINAL`).
        case final
    }

    /// Whether the entry takes up its time: an event, not cancelled, not free, not
    /// zero-length. To-dos are things to do, not slots in the diary, and block nothing.
    public var occupiesTime: Bool {
        kind == .event && status != .cancelled && !free && dateFinish > dateStart
    }
}

/// A file attached to a record: inline bytes, a link, or a file on disk.
public struct Attachment: Sendable, Hashable {
    /// Where the attachment's bytes are.
    public enum Content: Sendable, Hashable {
        /// The bytes themselves (`"data"`: base64 in JSON, `ENCODING=BASE64` in iCalendar).
        case inline(Data)
        /// A link (`"url"`; `ATTACH:https://…`).
        case url(String)
        /// A file written by `--extract-attachments` (`"path"`); it becomes inline data again
        /// when converted to iCalendar.
        case path(String)
    }

    /// The file name to show and to save as.
    public var filename: String?
    /// The media type (`FMTTYPE`), e.g. `image/jpeg`.
    public var mimeType: String?
    /// The bytes or where they are.
    public var content: Content
    /// The `ATTACH` line's other parameters as written (`SIZE=1024;X-APPLE-FILENAME=a.pdf`).
    public var icalParameters: String?

    /// Creates an attachment.
    public init(filename: String? = nil, mimeType: String? = nil, content: Content) {
        self.filename = filename
        self.mimeType = mimeType
        self.content = content
    }
}

/// A reminder (`VALARM`).
public struct Alarm: Sendable, Hashable {
    /// What the alarm does (RFC 5545 `ACTION`).
    public enum Action: String, Sendable, Hashable, CaseIterable {
        case display, audio, email
    }

    /// When the alarm fires.
    public enum Trigger: Sendable, Hashable {
        /// An RFC 5545 duration (`-PT15M`) from the start, or from the end when `fromEnd`.
        case relative(String, fromEnd: Bool)
        /// An absolute time, Unix seconds.
        case absolute(Int64)
    }

    public var action: Action
    public var trigger: Trigger
    /// The text to show (display) or the message body (email).
    public var description: String?
    /// The subject of an email alarm.
    public var summary: String?
    /// Recipients of an email alarm (`mailto:` addresses).
    public var attendees: [String]
    /// The sound of an audio alarm (a URI).
    public var sound: String?
    /// How many more times the alarm repeats after the first.
    public var repeatCount: Int?
    /// The pause between repeats (an RFC 5545 duration).
    public var repeatInterval: String?
    /// `false` keeps an alarm that must not fire (RFC 9074 `ACTION:NONE`).
    public var enabled: Bool
    /// The alarm's content lines the format has no field for, verbatim (Apple's
    /// `X-WR-ALARMUID`, `ACKNOWLEDGED`, …).
    public var icalExtra: [String] = []
    /// Parameters of the alarm's mapped properties that no field holds, as written
    /// (`["DESCRIPTION": "LANGUAGE=de"]`).
    public var icalParameters: [String: String] = [:]

    /// Creates an alarm.
    public init(
        action: Action, trigger: Trigger, description: String? = nil, summary: String? = nil,
        attendees: [String] = [], sound: String? = nil, repeatCount: Int? = nil,
        repeatInterval: String? = nil, enabled: Bool = true
    ) {
        self.action = action
        self.trigger = trigger
        self.description = description
        self.summary = summary
        self.attendees = attendees
        self.sound = sound
        self.repeatCount = repeatCount
        self.repeatInterval = repeatInterval
        self.enabled = enabled
    }
}
