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
    /// The fields, kept behind one reference and copied only when a record that two values
    /// share is changed (copy on write). A record travels by value through every stage of a
    /// conversion (the source, a batch, the sink), and each copy of forty fields retained
    /// their two dozen references: a third of the reference counting of reading an .ics
    /// (issue 13).
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // Reached only through the record's own accessors, whose overlapping accesses the
        // compiler refuses on the record itself; checked again at run time, every field
        // read and written cost a look-up in the thread's set of accesses.
        @usableFromInline @exclusivity(unchecked) var fields: Fields

        @usableFromInline init(_ fields: Fields) { self.fields = fields }
    }

    /// The record's fields as stored.
    @usableFromInline
    struct Fields: Hashable {
        // No initializer of its own: the one Swift makes, given every field (an empty table
        // as `Dictionary()`: the literal `[:]` is built by a call). With one of its own, the
        // optimizer built the fields twice and copied them (a retain and a release of each
        // reference) for every record made.
        @usableFromInline var id: Int64
        @usableFromInline var dateStart: Int64
        @usableFromInline var dateFinish: Int64
        @usableFromInline var name: String
        @usableFromInline var description: String?
        @usableFromInline var uid: String?
        @usableFromInline var allDay: Bool
        @usableFromInline var status: Status?
        @usableFromInline var free: Bool
        @usableFromInline var attachments: [Attachment]
        @usableFromInline var alarms: [Alarm]
        @usableFromInline var kind: Kind
        @usableFromInline var unscheduled: Bool
        @usableFromInline var due: Int64?
        @usableFromInline var done: Bool
        @usableFromInline var subtasks: [TaskRecord]
        @usableFromInline var timeZone: String?
        @usableFromInline var floating: Bool
        @usableFromInline var location: String?
        @usableFromInline var categories: [String]
        @usableFromInline var color: String?
        @usableFromInline var classification: Classification?
        @usableFromInline var url: String?
        @usableFromInline var organizer: Person?
        @usableFromInline var attendees: [Person]
        @usableFromInline var recurrence: Recurrence?
        @usableFromInline var recurrenceID: Int64?
        @usableFromInline var thisAndFuture: Bool
        @usableFromInline var icalParameters: [String: String]
        @usableFromInline var icalExtra: [String]
        @usableFromInline var icalComponents: [String]
    }

    @usableFromInline var storage: Storage

    // Each field is read with `_read`, which lends the stored value: `record.name.isEmpty`
    // retains and releases nothing, where a getter would hand back a copy.

    /// The fields to change in place, copied first when another record shares them.
    @inlinable var fields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// The record's number; it maps to a stable iCalendar `UID` and back.
    public var id: Int64 {
        @inlinable _read { yield storage.fields.id }
        @inlinable _modify { yield &fields.id }
    }
    /// Start, Unix seconds.
    public var dateStart: Int64 {
        @inlinable _read { yield storage.fields.dateStart }
        @inlinable _modify { yield &fields.dateStart }
    }
    /// End, Unix seconds; never before ``dateStart``.
    public var dateFinish: Int64 {
        @inlinable _read { yield storage.fields.dateFinish }
        @inlinable _modify { yield &fields.dateFinish }
    }
    /// A short title; never empty.
    public var name: String {
        @inlinable _read { yield storage.fields.name }
        @inlinable _modify { yield &fields.name }
    }
    /// Free text, possibly several lines.
    public var description: String? {
        @inlinable _read { yield storage.fields.description }
        @inlinable _modify { yield &fields.description }
    }
    /// The iCalendar `UID` when it is not the one derived from ``id``.
    public var uid: String? {
        @inlinable _read { yield storage.fields.uid }
        @inlinable _modify { yield &fields.uid }
    }
    /// An all-day entry (`DTSTART;VALUE=DATE`): start and finish are UTC midnights and the
    /// finish is exclusive, as in iCalendar.
    public var allDay: Bool {
        @inlinable _read { yield storage.fields.allDay }
        @inlinable _modify { yield &fields.allDay }
    }
    /// `tentative`, `confirmed` or `cancelled` (iCalendar `STATUS`), when known.
    public var status: Status? {
        @inlinable _read { yield storage.fields.status }
        @inlinable _modify { yield &fields.status }
    }
    /// The entry shows as free time (iCalendar `TRANSP:TRANSPARENT`): it blocks nothing.
    public var free: Bool {
        @inlinable _read { yield storage.fields.free }
        @inlinable _modify { yield &fields.free }
    }
    /// Files attached to the entry.
    public var attachments: [Attachment] {
        @inlinable _read { yield storage.fields.attachments }
        @inlinable _modify { yield &fields.attachments }
    }
    /// Reminders.
    public var alarms: [Alarm] {
        @inlinable _read { yield storage.fields.alarms }
        @inlinable _modify { yield &fields.alarms }
    }
    /// An event (`VEVENT`, the default) or a to-do (`VTODO`).
    public var kind: Kind {
        @inlinable _read { yield storage.fields.kind }
        @inlinable _modify { yield &fields.kind }
    }
    /// A to-do with no start (`VTODO` without `DTSTART`): ``dateStart`` and ``dateFinish`` are
    /// zero and mean nothing, and JSON leaves them out.
    public var unscheduled: Bool {
        @inlinable _read { yield storage.fields.unscheduled }
        @inlinable _modify { yield &fields.unscheduled }
    }
    /// A to-do's deadline (`DUE`), Unix seconds.
    public var due: Int64? {
        @inlinable _read { yield storage.fields.due }
        @inlinable _modify { yield &fields.due }
    }
    /// A to-do that is finished (`STATUS:COMPLETED`).
    public var done: Bool {
        @inlinable _read { yield storage.fields.done }
        @inlinable _modify { yield &fields.done }
    }
    /// A to-do's own to-dos (children that name it in `RELATED-TO`).
    public var subtasks: [TaskRecord] {
        @inlinable _read { yield storage.fields.subtasks }
        @inlinable _modify { yield &fields.subtasks }
    }
    /// The zone the entry was planned in (`DTSTART;TZID=…`): an IANA name, or the `TZID` of
    /// a zone the calendar itself defines (``CalendarInfo/icalComponents``). Recurrences step
    /// in it; it is written back in it.
    public var timeZone: String? {
        @inlinable _read { yield storage.fields.timeZone }
        @inlinable _modify { yield &fields.timeZone }
    }
    /// Floating times (RFC 5545: "07:00 wherever I am"): the entry has no zone of its own.
    /// ``dateStart`` and ``dateFinish`` are the instants of its wall-clock times in
    /// ``timeZone``, the zone it was read in; it is written back without a zone, and reports
    /// place its wall-clock times in their own zone.
    public var floating: Bool {
        @inlinable _read { yield storage.fields.floating }
        @inlinable _modify { yield &fields.floating }
    }
    /// Where (`LOCATION`).
    public var location: String? {
        @inlinable _read { yield storage.fields.location }
        @inlinable _modify { yield &fields.location }
    }
    /// Tags (`CATEGORIES`).
    public var categories: [String] {
        @inlinable _read { yield storage.fields.categories }
        @inlinable _modify { yield &fields.categories }
    }
    /// A CSS colour name (RFC 7986 `COLOR`).
    public var color: String? {
        @inlinable _read { yield storage.fields.color }
        @inlinable _modify { yield &fields.color }
    }
    /// Who may see it (`CLASS`).
    public var classification: Classification? {
        @inlinable _read { yield storage.fields.classification }
        @inlinable _modify { yield &fields.classification }
    }
    /// A link to more about it (`URL`).
    public var url: String? {
        @inlinable _read { yield storage.fields.url }
        @inlinable _modify { yield &fields.url }
    }
    /// Who organises it (`ORGANIZER`).
    public var organizer: Person? {
        @inlinable _read { yield storage.fields.organizer }
        @inlinable _modify { yield &fields.organizer }
    }
    /// Who takes part (`ATTENDEE`).
    public var attendees: [Person] {
        @inlinable _read { yield storage.fields.attendees }
        @inlinable _modify { yield &fields.attendees }
    }
    /// How the entry repeats (`RRULE`, `EXDATE`, `RDATE`).
    public var recurrence: Recurrence? {
        @inlinable _read { yield storage.fields.recurrence }
        @inlinable _modify { yield &fields.recurrence }
    }
    /// For one changed occurrence of a repeating entry (`RECURRENCE-ID`): the start, Unix
    /// seconds, that the occurrence had before it was changed. It shares the series' `uid`.
    public var recurrenceID: Int64? {
        @inlinable _read { yield storage.fields.recurrenceID }
        @inlinable _modify { yield &fields.recurrenceID }
    }
    /// The changed occurrence changes every later one too (`RECURRENCE-ID;RANGE=THISANDFUTURE`).
    public var thisAndFuture: Bool {
        @inlinable _read { yield storage.fields.thisAndFuture }
        @inlinable _modify { yield &fields.thisAndFuture }
    }
    /// Parameters of properties the task format has fields for, as written, that no field
    /// holds: `["SUMMARY": "LANGUAGE=de", "DESCRIPTION": "ALTREP=\"cid:part1\""]`. They go
    /// back out on the same properties.
    public var icalParameters: [String: String] {
        @inlinable _read { yield storage.fields.icalParameters }
        @inlinable _modify { yield &fields.icalParameters }
    }
    /// iCalendar content lines the task format has no field for, kept verbatim so that
    /// .ics → JSON → .ics loses nothing (`X-GOOGLE-CONFERENCE:…`, `SEQUENCE:2`, …).
    public var icalExtra: [String] {
        @inlinable _read { yield storage.fields.icalExtra }
        @inlinable _modify { yield &fields.icalExtra }
    }
    /// Subcomponents the task format has no field for, kept whole as written, `BEGIN` to
    /// `END` with CRLF line ends (`VLOCATION`, an alarm with `ACTION:PROCEDURE`).
    public var icalComponents: [String] {
        @inlinable _read { yield storage.fields.icalComponents }
        @inlinable _modify { yield &fields.icalComponents }
    }

    /// Creates a record.
    public init(
        id: Int64, dateStart: Int64, dateFinish: Int64, name: String, description: String? = nil,
        uid: String? = nil, allDay: Bool = false, status: Status? = nil, free: Bool = false,
        attachments: [Attachment] = [],
        alarms: [Alarm] = []
    ) {
        storage = Storage(
            Fields(
                id: id, dateStart: dateStart, dateFinish: dateFinish, name: name,
                description: description, uid: uid, allDay: allDay, status: status, free: free,
                attachments: attachments, alarms: alarms, kind: .event, unscheduled: false,
                due: nil, done: false, subtasks: [], timeZone: nil, floating: false,
                location: nil, categories: [], color: nil, classification: nil, url: nil,
                organizer: nil, attendees: [], recurrence: nil, recurrenceID: nil,
                thisAndFuture: false, icalParameters: Dictionary(), icalExtra: [],
                icalComponents: []))
    }

    /// Whether two records hold the same fields (at once when they share them).
    public static func == (lhs: TaskRecord, rhs: TaskRecord) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
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
    public var content: Content {
        didSet { base64 = nil }
    }
    /// The `ATTACH` line's other parameters as written (`SIZE=1024;X-APPLE-FILENAME=a.pdf`).
    public var icalParameters: String?
    /// The base64 text the inline bytes were read from, when it is exactly the text
    /// `base64EncodedString()` makes of them: a writer hands it on instead of encoding the
    /// bytes again (a few KB each; issue 59). Not part of the value: two attachments of the
    /// same bytes are equal whether or not one was read from text.
    package private(set) var base64: String?

    /// Creates an attachment.
    public init(filename: String? = nil, mimeType: String? = nil, content: Content) {
        self.filename = filename
        self.mimeType = mimeType
        self.content = content
    }

    /// An inline attachment of `data`, decoded from `text`, which is kept for writing when it
    /// is the canonical encoding of `data` (see ``base64``).
    package init(filename: String?, mimeType: String?, data: Data, base64 text: String) {
        self.init(filename: filename, mimeType: mimeType, content: .inline(data))
        if Self.isCanonical(text, of: data) { base64 = text }
    }

    /// Whether `text`, which decodes to `data` (so it holds only the base64 alphabet and
    /// padding), is what encoding `data` gives: its length, its padding, and no bits set in
    /// the last character past the data's end.
    static func isCanonical(_ text: String, of data: Data) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == (data.count + 2) / 3 * 4 else { return false }
        let unusedBits: UInt8
        let last: UInt8
        switch data.count % 3 {
        case 0: return true
        case 1:
            unusedBits = 0x0F
            last = utf8[utf8.index(utf8.endIndex, offsetBy: -3)]
        default:
            unusedBits = 0x03
            last = utf8[utf8.index(utf8.endIndex, offsetBy: -2)]
        }
        let value: UInt8
        switch last {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = last - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): value = last - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = last - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): value = 62
        case UInt8(ascii: "/"): value = 63
        default: return false
        }
        return value & unusedBits == 0
    }

    public static func == (left: Attachment, right: Attachment) -> Bool {
        left.filename == right.filename && left.mimeType == right.mimeType
            && left.content == right.content && left.icalParameters == right.icalParameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(filename)
        hasher.combine(mimeType)
        hasher.combine(content)
        hasher.combine(icalParameters)
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
    public var icalExtra: [String]
    /// Parameters of the alarm's mapped properties that no field holds, as written
    /// (`["DESCRIPTION": "LANGUAGE=de"]`).
    public var icalParameters: [String: String]
}

extension Alarm {
    /// Creates an alarm.
    public init(
        action: Action, trigger: Trigger, description: String? = nil, summary: String? = nil,
        attendees: [String] = [], sound: String? = nil, repeatCount: Int? = nil,
        repeatInterval: String? = nil, enabled: Bool = true
    ) {
        // Here, not in the type, where it would take the place of the initializer Swift
        // makes: an initializer of the type's own had the optimizer build the alarm twice and
        // copy it (a retain and a release of each reference), for every alarm read.
        self.init(
            action: action, trigger: trigger, description: description, summary: summary,
            attendees: attendees, sound: sound, repeatCount: repeatCount,
            repeatInterval: repeatInterval, enabled: enabled, icalExtra: [],
            icalParameters: Dictionary())
    }
}

extension TaskRecord {
    /// The name as a message quotes it: at most ``nameInMessagesLength`` characters, then
    /// `…`. A name may be as long as its file (a 60 KB `SUMMARY` is valid iCalendar), and a
    /// warning that quotes it whole is unreadable and as long as the file again.
    public var nameInMessages: String {
        name.count <= Self.nameInMessagesLength
            ? name : String(name.prefix(Self.nameInMessagesLength)) + "…"
    }

    /// The most characters of a name a message quotes: 80.
    public static let nameInMessagesLength = 80
}
