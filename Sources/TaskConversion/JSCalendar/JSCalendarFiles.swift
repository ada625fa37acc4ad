import Foundation
import ICalendar
import TaskModel

/// JSCalendar out (`--to jscalendar`, `.jscal.json`): one `Group` (RFC 8984 §5.3) whose
/// `entries` are the records' `Event`s and `Task`s, one a line, written as they come; the
/// calendar's name (`title`) and data come after the entries, so nothing is held back.
final class JSCalendarRecordSink: RecordSink {
    private let output: OutputFile
    private var context: JSCalendar.Context
    private let name: String?
    /// `--uid-namespace`, when given; else each input file's own.
    private let namespace: String?
    private let namespaceOfFile: (String) -> String
    /// The UID namespace and attachment folder of the file records last came from.
    private var source: (file: String, namespace: String, base: URL?)?
    private var started = false
    private var count = 0
    private var writer = JSONWriter()
    var calendar = CalendarInfo()

    init(_ output: OutputFile, options: WriteOptions) {
        self.output = output
        var scheme = options.uidScheme
        scheme.namespace = options.uidNamespace
        context = JSCalendar.Context(
            uidScheme: scheme, zone: options.zone, floatingZone: "UTC",
            timestamp: options.timestamp)
        name = options.calendarName
        namespace = options.uidNamespace
        namespaceOfFile = options.namespaceOfFile
    }

    /// `{"@type": "Group", "uid": …, "updated": …, "entries": [`. The group's UID is
    /// derived from the namespace of its records, as theirs are; a group of no records has
    /// the one of standard input's, never one from the output's name, so that what goes to
    /// standard output is what goes to a file.
    private func begin() throws(Diagnostic) {
        started = true
        let tag = UIDScheme.hash(
            namespace ?? source?.namespace ?? UIDScheme.defaultNamespace(forFile: "-"))
        writer.reset()
        writer.value(
            .object([
                JSONValue.Member(name: "@type", value: .string("Group")),
                JSONValue.Member(
                    name: "uid", value: .string("taskcal-group-\(tag)@\(context.uidScheme.domain)")),
                JSONValue.Member(
                    name: "updated", value: .string(JSCalendar.utcText(context.timestamp))),
            ]))
        var opening = writer.text
        opening.removeLast()
        try output.write(opening + ", \"entries\": [")
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        if source?.file != location.file {
            source = (
                location.file, namespace ?? namespaceOfFile(location.file),
                location.file == "-"
                    ? nil : URL(fileURLWithPath: location.file).deletingLastPathComponent()
            )
        }
        context.uidScheme.namespace = source?.namespace
        if !started { try begin() }
        let objects: [JSONValue]
        do {
            objects = try JSCalendar.objects(
                for: record, context: context, attachmentBase: source?.base)
        } catch {
            throw Diagnostic(
                .error,
                Location(
                    file: location.file, line: location.line, index: location.index,
                    field: error.field), error.message)
        }
        for object in objects {
            writer.reset()
            writer.value(object)
            try output.write((count == 0 ? "\n  " : ",\n  ") + writer.text)
            count += 1
        }
    }

    func finish() throws(Diagnostic) {
        if !started { try begin() }
        try output.write(count == 0 ? "]" : "\n]")
        let info = named(calendar, name)
        var closing = JSCalendar.groupProperties(of: info)
        if info != JSCalendar.calendarInfo(fromGroup: closing) {
            writer.reset()
            info.write(to: &writer)
            closing.append(
                JSONValue.Member(
                    name: JSCalendar.calendarKey,
                    value: (try? JSONValue.parse(Data(writer.bytes))) ?? .object([])))
        }
        for member in closing {
            writer.reset()
            writer.value(member.value)
            try output.write(",\n\"\(member.name)\": " + writer.text)
        }
        try output.write("}\n")
        try output.commit()
    }

    func abandon() { output.abandon() }
}

/// JSCalendar in (`.jscal.json`, `--from jscalendar`): a `Group`, one `Event` or `Task`, or
/// an array of them, read whole (it is one JSON value). Each object becomes a record (and
/// one per changed occurrence in its `recurrenceOverrides`); places are given as the
/// object's path (`entries[3].start`).
final class JSCalendarRecordSource: RecordSource {
    private let name: String
    private var items: [SourceItem] = []
    private var index = 0
    private(set) var warnings: [Diagnostic] = []
    let calendar: CalendarInfo

    convenience init(path: String, options: ReadOptions) throws(Diagnostic) {
        try self.init(
            bytes: [UInt8](try JSONRecordSource.contents(of: path)), name: path, options: options)
    }

    init(bytes: [UInt8], name: String, options: ReadOptions) throws(Diagnostic) {
        self.name = name
        let document = try JSONRecordSource.document(bytes, name: name)
        let (objects, info, groupWarnings) = try Self.objects(of: document, name: name)
        calendar = info
        // Floating times are read as in .ics: in --tz, else the calendar's X-WR-TIMEZONE,
        // else the local zone.
        let calendarZone = info.icalExtra.lazy.compactMap { line -> String? in
            guard line.uppercased().hasPrefix("X-WR-TIMEZONE:") else { return nil }
            let zone = String(line.dropFirst(14))
            return CalendarZone.system(zone) != nil ? zone : nil
        }.first
        let context = JSCalendar.Context(
            uidScheme: options.uidScheme, zone: nil,
            floatingZone: options.floatingZone ?? calendarZone ?? TimeZones.localName,
            timestamp: 0)
        var reader = EntryReader(context: context)
        let entries = Self.entries(of: objects, reader: &reader)
        warnings =
            groupWarnings
            + reader.warnings.map {
                Diagnostic(
                    .warning, Location(file: name, field: $0.path.isEmpty ? nil : $0.path),
                    $0.message,
                    code: .leftOut)
            }
        items = Self.items(of: entries, name: name)
    }

    /// The objects of a document, each with its path, and the calendar's own data: an array
    /// of objects, a `Group` (its `entries`, its title and other calendar fields), or one.
    private static func objects(of document: JSONValue, name: String) throws(Diagnostic) -> (
        objects: [(value: JSONValue, path: String)], info: CalendarInfo, warnings: [Diagnostic]
    ) {
        switch document {
        case .array(let list):
            return (list.enumerated().map { ($1, "[\($0)]") }, CalendarInfo(), [])
        case .object where document["@type"] == .string("Group"):
            guard case .array(let entries)? = document["entries"] else {
                throw Diagnostic(
                    .error, Location(file: name, field: "entries"),
                    "a Group has its entries in an array", code: .invalidJSON)
            }
            let objects = entries.enumerated().map { ($1, "entries[\($0)]") }
            let group = JSCalendar.members(document) ?? []
            var info: CalendarInfo
            if let kept = JSCalendar.members(document[JSCalendar.calendarKey]) {
                info = calendarInfo(kept)
                if case .string(let title)? = document["title"], title != info.name {
                    info.setName(title)
                }
            } else {
                info = JSCalendar.calendarInfo(fromGroup: group)
            }
            let known: Set = [
                "@type", "uid", "updated", "entries", "prodId", "title", "description", "color",
                "source", JSCalendar.calendarKey,
            ]
            let leftOut = group.map(\.name).filter { !known.contains($0) }
            guard !leftOut.isEmpty else { return (objects, info, []) }
            let warning = Diagnostic(
                .warning, Location(file: name),
                "Group properties with no calendar field were left out: \(leftOut.joined(separator: ", "))",
                code: .leftOut)
            return (objects, info, [warning])
        case .object:
            return ([(document, "")], CalendarInfo(), [])
        default:
            throw Diagnostic(
                .error, Location(file: name),
                "expected JSCalendar: a Group, an Event or a Task object, or an array of them",
                code: .invalidJSON)
        }
    }

    /// The entries `objects` hold (a Group inside the Group is refused).
    private static func entries(
        of objects: [(value: JSONValue, path: String)], reader: inout EntryReader
    ) -> [JSCalendar.Entry] {
        var entries: [JSCalendar.Entry] = []
        for (value, path) in objects {
            if case .object = value, value["@type"] == .string("Group") {
                entries.append(
                    JSCalendar.Entry(
                        task: [], needsID: false, path: path,
                        problems: [
                            Problem(
                                field: "@type",
                                "a Group inside a Group is not read; put its entries in the outer one"
                            )
                        ]))
                continue
            }
            entries += reader.read(value, path: path)
        }
        return entries
    }

    /// The records (or their problems) of `entries`: new ids after those the file uses, no
    /// duplicates, and each series' patched occurrences the rule does not give added to it.
    private static func items(of entries: [JSCalendar.Entry], name: String) -> [SourceItem] {
        var ids = IDAllocator()
        for entry in entries where !entry.needsID && entry.problems.isEmpty {
            if case .number(let text)? = JSCalendar.Members(list: entry.task)["id"],
                let id = Int64(text)
            {
                ids.saw(id)
            }
        }
        var items: [SourceItem] = []
        var duplicates = DuplicateRecords()
        var series: Int?  // the item of the last series read, for its patches
        var patched: [Int: [Int64]] = [:]  // by series item: the starts its patches change
        for entry in entries {
            func located(_ problem: Problem) -> Diagnostic {
                let field = [entry.path, problem.field].filter { !$0.isEmpty }.joined(
                    separator: ".")
                return Diagnostic(.error, Location(file: name, field: field), problem.message)
            }
            guard entry.problems.isEmpty else {
                items.append(.failed(entry.problems.map(located)))
                continue
            }
            do {
                var record = try TaskRecord(json: .object(entry.task))
                let broken = record.problems
                guard broken.isEmpty else { throw RecordProblems(broken) }
                if entry.needsID { ids.assign(to: &record) }
                let location = Location(file: name, field: entry.path.isEmpty ? nil : entry.path)
                if let duplicate = duplicates.check(record, at: location) {
                    items.append(.failed([duplicate]))
                    continue
                }
                if entry.isPatch, let series, let recurrenceID = record.recurrenceID {
                    patched[series, default: []].append(recurrenceID)
                } else if !entry.isPatch {
                    series = record.recurrence != nil ? items.count : nil
                }
                items.append(.record(record, location))
            } catch let problems as RecordProblems {
                items.append(
                    .failed(
                        problems.problems.map {
                            located(Problem(field: jscalendarName(of: $0.field), $0.message))
                        }))
            } catch {
                items.append(.failed([located(Problem(field: "", "\(error)"))]))
            }
        }
        for (series, starts) in patched { include(starts, inSeriesAt: series, of: &items) }
        return items
    }

    /// Patched occurrences their series' rule does not give (RFC 8984 §4.3.5: they are extra
    /// ones) are added to the series as `RDATE`s, so that iCalendar has them too. One
    /// expansion over the patched starts tells which the rule gives; past where it stops
    /// (``Expansion/defaultLimit`` occurrences), nothing is added.
    private static func include(
        _ starts: [Int64], inSeriesAt index: Int, of items: inout [SourceItem]
    ) {
        guard case .record(var master, let location) = items[index],
            var recurrence = master.recurrence, let first = starts.min(), let last = starts.max()
        else { return }
        var given = Set(recurrence.rdates)
        var known = Int64.max
        if recurrence.rule != nil {
            let expansion = Expansion(window: first..<last + 1)
            guard let (found, truncated) = try? expansion.occurrences(of: master) else { return }
            given.formUnion(found.map(\.dateStart))
            if truncated { known = found.last?.dateStart ?? Int64.min }
        }
        let extra = Set(starts.filter { !given.contains($0) && $0 <= known }).sorted()
        guard !extra.isEmpty else { return }
        recurrence.rdates += extra
        master.recurrence = recurrence
        items[index] = .record(master, location)
    }

    func next() throws(Diagnostic) -> SourceItem? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }

    /// The calendar data a Group keeps in `taskcal.invalid:calendar`.
    private static func calendarInfo(_ members: [JSONValue.Member]) -> CalendarInfo {
        func lines(_ name: String) -> [String] {
            guard case .array(let list)? = JSCalendar.Members(list: members)[name] else {
                return []
            }
            return list.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        return CalendarInfo(
            icalExtra: lines("ical_extra"), icalComponents: lines("ical_components"))
    }

    /// The JSCalendar property a task-format field is read from, for messages.
    static func jscalendarName(of field: String) -> String {
        let names = [
            "name": "title", "date_start": "start", "date_finish": "duration",
            "time_zone": "timeZone", "categories": "keywords", "class": "privacy",
            "location": "locations", "attachments": "links", "url": "links",
            "alarms": "alerts", "organizer": "participants", "attendees": "participants",
            "recurrence": "recurrenceRules", "recurrence_id": "recurrenceId", "done": "progress",
        ]
        let head = field.prefix { $0 != "." && $0 != "[" }
        guard let name = names[String(head)] else { return field }
        return name + field.dropFirst(head.count)
    }
}
