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

    /// Reads `inputs` as one side, as `convert` reads them with `options` (`--expand` gives
    /// the occurrences); a folder is a vdir: its `.ics` files in name order. The UID of a
    /// record without one is derived in its file's namespace (`options.uidScheme`'s when
    /// set), as `convert` derives it.
    public static func read(_ inputs: [String], name: String, options: ReadOptions) -> Side {
        var side = Side(name: name)
        for input in inputs.flatMap(Self.files) {
            var scheme = options.uidScheme
            if scheme.namespace == nil { scheme.namespace = options.namespaceOfFile(input) }
            var read: [(TaskRecord, Location)] = []
            var report = ConversionReport()
            Converter.drain(input, options: options, into: &report) {
                record, location, _ throws(Diagnostic) in
                read.append((record, location))
            } done: { info in
                side.calendar.merge(info)
            }
            // A component without a UID was given a fresh id, which means nothing on the
            // other side: it is matched by its start and name.
            let withoutUID = Set(
                report.warnings.filter { $0.code == .noUID }.map {
                    Location(file: $0.location.file, line: $0.location.line)
                })
            for (record, location) in read {
                let place = Location(file: location.file, line: location.line)
                side.add(
                    record, at: location, scheme: scheme,
                    hasUID: record.uid != nil || !withoutUID.contains(place))
            }
            side.report.records += report.records
            side.report.errors += report.errors
            side.report.warnings += report.warnings
            side.report.suppressedErrors += report.suppressedErrors
            side.report.unreadableInputs += report.unreadableInputs
        }
        return side
    }

    /// `path`, or the `.ics` files of a folder (a vdir), in name order.
    static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
            isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return [path] }
        return names.filter { $0.lowercased().hasSuffix(".ics") && !$0.hasPrefix(".") }.sorted()
            .map { (path as NSString).appendingPathComponent($0) }
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
