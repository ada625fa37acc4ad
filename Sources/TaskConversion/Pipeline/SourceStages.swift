import ICalendar
import TaskModel

/// Checks of JSON records that need libical: zone names (the system's, or the calendar's
/// own), recurrence rules, lines and parameters kept verbatim.
final class CalendarCheckSource: RecordSource {
    private let inner: any RecordSource
    private var catalog: (info: CalendarInfo, zones: ZoneCatalog)?

    init(_ inner: any RecordSource) { self.inner = inner }

    var warnings: [Diagnostic] { inner.warnings }
    var calendar: CalendarInfo { inner.calendar }

    func next() throws(Diagnostic) -> SourceItem? {
        guard let item = try inner.next() else { return nil }
        let info = inner.calendar
        if catalog?.info != info {
            do {
                catalog = (info, try ZoneCatalog(calendar: info))
            } catch {
                catalog = (info, ZoneCatalog())
                return .failed([
                    Diagnostic(
                        .error, Location(file: "-", field: "calendar.ical_components"),
                        error.message)
                ])
            }
        }
        // The record is taken out of the item and put back, not copied.
        switch consume item {
        case .record(let record, let location):
            let problems = CalendarChecks.problems(
                of: record, zones: catalog?.zones ?? ZoneCatalog())
            if problems.isEmpty { return .record(record, location) }
            return .failed(
                problems.map {
                    Diagnostic(
                        .error,
                        Location(
                            file: location.file, line: location.line, index: location.index,
                            field: $0.field), $0.message)
                })
        case let other:
            return other
        }
    }
}

/// The checks of a record that need libical, shared by JSON input and the diary.
public enum CalendarChecks {
    /// The problems libical finds in `record` and its subtasks: unknown zones, rules it
    /// cannot expand, verbatim lines, parameters and components it cannot write back.
    public static func problems(of record: TaskRecord, zones: ZoneCatalog = ZoneCatalog())
        -> [Problem]
    {
        var found: [Problem] = []
        if let zone = record.timeZone, zones.zone(named: zone) == nil {
            found.append(
                Problem(
                    field: "time_zone",
                    "unknown time zone '\(zone)': expected an IANA name such as Europe/Berlin, or a VTIMEZONE the calendar defines"
                ))
        }
        if let rule = record.recurrence?.rule, let problem = RecurrenceRule.problem(rule) {
            found.append(Problem(field: "recurrence.rule", problem))
        }
        // Most records have none of what follows: asked without making a collection.
        if !record.icalExtra.isEmpty { found += ExtraLines.problems(of: record) }
        if !record.icalParameters.isEmpty {
            found += ExtraLines.parameterProblems(record.icalParameters)
        }
        for (index, text) in record.icalComponents.enumerated() {
            do {
                _ = try Component.verbatim(text)
            } catch {
                found.append(Problem(field: "ical_components[\(index)]", error.message))
            }
        }
        for (index, attachment) in record.attachments.enumerated() {
            if let text = attachment.icalParameters, ParameterText.parse(text) == nil {
                found.append(
                    Problem(
                        field: "attachments[\(index)].ical_parameters",
                        "'\(text.prefix(60))' is not parameter text such as SIZE=1024"))
            }
        }
        for (index, alarm) in record.alarms.enumerated() {
            found += ExtraLines.problems(alarm.icalExtra).map {
                $0.nested(in: "alarms[\(index)]")
            }
            found += ExtraLines.parameterProblems(alarm.icalParameters).map {
                $0.nested(in: "alarms[\(index)]")
            }
        }
        for (index, subtask) in record.subtasks.enumerated() {
            found += problems(of: subtask, zones: zones).map {
                $0.nested(in: "subtasks[\(index)]")
            }
        }
        return found
    }
}

/// `ical_extra` lines and `ical_parameters` as libical will write them.
enum ExtraLines {
    /// A problem (field `ical_extra[i]`) for each line of `record` that cannot be written
    /// back, or that would repeat or contradict one of its fields as the writer refuses it
    /// (``RecordMapping/field(governing:in:)``).
    static func problems(of record: TaskRecord) -> [Problem] {
        record.icalExtra.enumerated().compactMap { index, text in
            switch Property.verbatimLine(text) {
            case .success(let line):
                RecordMapping.governedLineProblem(line, at: index, in: record)
            case .failure(let problem):
                Problem(field: "ical_extra[\(index)]", problem.message)
            }
        }
    }

    /// A problem (field `ical_extra[i]`) for each line that cannot be written back.
    static func problems(_ lines: [String]) -> [Problem] {
        lines.enumerated().compactMap { index, line in
            Property.verbatimProblem(line).map { Problem(field: "ical_extra[\(index)]", $0) }
        }
    }

    /// A problem for each `ical_parameters` entry that is no parameter text.
    static func parameterProblems(_ parameters: [String: String]) -> [Problem] {
        parameters.sorted { $0.key < $1.key }.compactMap { name, text in
            ParameterText.parse(text) == nil
                ? Problem(
                    field: "ical_parameters.\(name)",
                    "'\(text.prefix(60))' is not parameter text such as LANGUAGE=de")
                : nil
        }
    }
}

/// `--expand`, `--drop-extra` and `--redact`: the records of a file as occurrences in a
/// window, without their verbatim lines, or as "Busy". Expanding reads the whole file first (a
/// changed occurrence may come before its series); the others stream.
final class ReshapingSource: RecordSource {
    private let inner: any RecordSource
    private let expansion: Expansion?
    private let dropExtra: Bool
    private let redaction: Redaction?
    private var pending: [SourceItem] = []
    private var pendingIndex = 0
    private var expanded = false
    private var notes: [Diagnostic] = []
    private var confidentialUIDs: Set<String> = []

    init(_ inner: any RecordSource, options: ReadOptions) {
        self.inner = inner
        expansion = options.expansion
        dropExtra = options.dropExtra
        redaction = options.redaction
    }

    var warnings: [Diagnostic] { inner.warnings + notes }
    var calendar: CalendarInfo {
        guard dropExtra || redaction != nil else { return inner.calendar }
        // Without the verbatim lines, only the zones records name are kept. A redacted
        // calendar keeps no component but its zones (a VFREEBUSY or VAVAILABILITY tells
        // more than "Busy"), and shown all as busy time, of its own lines only those that
        // place its times (X-WR-TIMEZONE, for floating ones) or say how to import it (METHOD).
        var info = inner.calendar
        if dropExtra {
            info.icalExtra = []
        } else if redaction == .all {
            info.icalExtra = info.icalExtra.filter { line in
                let name = line.prefix { $0 != ":" && $0 != ";" }.uppercased()
                return name == "X-WR-TIMEZONE" || name == "METHOD"
            }
        }
        info.icalComponents = info.icalComponents.filter(ZoneCatalog.isTimeZone)
        return info
    }

    func next() throws(Diagnostic) -> SourceItem? {
        // Expanding needs the whole file, and so does hiding a private series' changed
        // occurrences, which may come before it.
        guard expansion != nil || redaction == .confidential else {
            return try inner.next().map(reshaped)
        }
        if !expanded {
            expanded = true
            var items: [SourceItem] = []
            var records: [(TaskRecord, Location)] = []
            while let item = try inner.next() {
                if case .record(let record, let location) = item {
                    records.append((record, location))
                } else {
                    items.append(item)
                }
            }
            confidentialUIDs = Redaction.confidentialUIDs(of: records.lazy.map(\.0))
            var occurrences = records
            if var expansion {
                expansion.zones = (try? ZoneCatalog(calendar: inner.calendar)) ?? ZoneCatalog()
                let warnings: [String]
                (occurrences, warnings) = expansion.expand(records)
                let file = records.first?.1.file ?? "-"
                notes += warnings.map { Diagnostic(.warning, Location(file: file), $0) }
            }
            for (record, location) in occurrences {
                items.append(reshaped(.record(record, location)))
            }
            pending = items
        }
        guard pendingIndex < pending.count else { return nil }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private func reshaped(_ item: SourceItem) -> SourceItem {
        guard dropExtra || redaction != nil, case .record(var record, let location) = item else {
            return item
        }
        if dropExtra { record.dropExtra() }
        if let redaction {
            record = redaction.apply(to: record, confidentialUIDs: confidentialUIDs)
        }
        return .record(record, location)
    }
}

extension TaskRecord {
    /// Removes the verbatim lines of the record and its subtasks.
    mutating func dropExtra() {
        icalExtra = []
        icalComponents = []
        for index in alarms.indices { alarms[index].icalExtra = [] }
        for index in subtasks.indices { subtasks[index].dropExtra() }
    }
}
