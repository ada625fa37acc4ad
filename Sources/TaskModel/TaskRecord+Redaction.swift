/// What a calendar shared without its contents shows of its entries.
public enum Redaction: String, Sendable, CaseIterable {
    /// Private and confidential records (`"class": "private"` or `"confidential"`,
    /// `CLASS:PRIVATE` or `CLASS:CONFIDENTIAL` in .ics) become "Busy"; the others stay whole.
    case confidential
    /// Every record becomes "Busy": a free/busy view of the whole calendar.
    case all

    /// `record` as this redaction shows it; `confidentialUIDs` are the UIDs of the entries
    /// that are confidential as a whole (see ``confidentialUIDs(of:)``).
    public func apply(to record: TaskRecord, confidentialUIDs: Set<String> = []) -> TaskRecord {
        switch self {
        case .all: return record.redacted()
        case .confidential:
            let hidden = record.isConfidential || record.uid.map(confidentialUIDs.contains) == true
            return hidden ? record.redacted() : record
        }
    }

    /// The UIDs of `records` any record of which is private or confidential: a private series
    /// hides its changed occurrences too, though a calendar app may not repeat `CLASS` on them.
    public static func confidentialUIDs(of records: some Sequence<TaskRecord>) -> Set<String> {
        Set(records.lazy.filter(\.isConfidential).compactMap(\.uid))
    }
}

extension TaskRecord {
    /// What a redacted record is called.
    public static let busyName = "Busy"

    /// Whether the record asks not to be shown: `private` or `confidential`.
    public var isConfidential: Bool {
        classification == .private || classification == .confidential
    }

    /// The record with its time and nothing else: named "Busy", with its id and UID (so
    /// that a calendar app replaces it on the next export instead of doubling it), its start
    /// and finish, all-day, zone, repetition, changed occurrence, status and free-or-busy;
    /// no description, place, people, categories, links, attachments, alarms, subtasks
    /// (which have names of their own) or verbatim lines. The .ics parameters of the times
    /// are kept, the others dropped.
    public func redacted() -> TaskRecord {
        var busy = TaskRecord(
            id: id, dateStart: dateStart, dateFinish: dateFinish, name: Self.busyName, uid: uid,
            allDay: allDay, status: status, free: free)
        busy.kind = kind
        busy.unscheduled = unscheduled
        busy.due = due
        busy.timeZone = timeZone
        busy.floating = floating
        busy.recurrence = recurrence
        busy.recurrenceID = recurrenceID
        busy.thisAndFuture = thisAndFuture
        busy.icalParameters = icalParameters.filter { Self.timeProperties.contains($0.key) }
        return busy
    }
}
