import Foundation
import ICalendar
import TaskModel

extension CalendarDiff {
    /// One side of a comparison as read: its records in comparable form, the calendar's own
    /// data, and what reading said.
    public struct Side: Sendable {
        /// The records (subtasks each a record of their own, `RELATED-TO` their parent).
        public var records: [ComparedRecord] = []
        /// The calendar's own data, all inputs together.
        public var calendar = CalendarInfo()
        /// Problems and warnings of reading.
        public var report = ConversionReport()
        /// The side as named, for the calendar's own item.
        public var place: Location

        /// An empty side named `name`.
        public init(name: String) { place = Location(file: name) }

        /// Adds `record` read at `location`, its subtasks after it. `scheme` derives the UID of
        /// a record that has none (the namespace of its file); `hasUID` is false for a
        /// component that had no UID.
        public mutating func add(
            _ record: TaskRecord, at location: Location, scheme: UIDScheme, hasUID: Bool = true,
            parent: String? = nil
        ) {
            let compared = ComparedRecord(
                record, source: location, scheme: scheme, hasUID: hasUID, parent: parent)
            records.append(compared)
            for subtask in record.subtasks {
                add(subtask, at: location, scheme: scheme, parent: compared.uid)
            }
        }
    }

    /// Compares two sides read: their records, then their calendars' own data.
    public init(_ old: Side, _ new: Side, strict: Bool = false, only: Set<String>? = nil) {
        self.init(old: old.records, new: new.records, strict: strict, only: only)
        if only == nil {
            compareCalendars(old.calendar, at: old.place, new.calendar, at: new.place)
        }
    }

    /// The properties `--expand` compares: what a calendar app shows of an occurrence.
    public static let occurrenceFields: Set<String> = ["DTSTART", "DTEND", "SUMMARY", "STATUS"]
}
