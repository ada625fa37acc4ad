import Foundation
import ICalendar
import TaskModel

/// jCal out (`--to jcal`, `.jcal`): the records are written as .ics exactly as `--to ics`
/// would write them (zones, UIDs, alarms and all), staged in a temporary file, then turned
/// into jCal line by line (``JCal``). One component is in memory at a time.
final class JCalRecordSink: RecordSink {
    private let output: OutputFile
    private let staging: String
    private let ics: ICSRecordSink

    init(_ output: OutputFile, options: WriteOptions) throws(Diagnostic) {
        self.output = output
        staging =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "taskcal-jcal-\(getpid())-\(UUID().uuidString).ics"
            ).path
        let stage = try OutputFile(path: staging)
        // The .ics staged is about as large as the jCal made of it: held to the same limit.
        stage.limit = options.outputLimit
        ics = ICSRecordSink(stage, options: options)
    }

    deinit { unlink(staging) }

    var calendar: CalendarInfo {
        get { ics.calendar }
        set { ics.calendar = newValue }
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        try ics.write(record, from: location)
    }

    /// What the staged .ics left out: jCal carries what it carries.
    var notes: [Diagnostic] { ics.notes }
    var changedPlaces: [Location] { ics.changedPlaces }

    func finish() throws(Diagnostic) {
        try ics.finish()
        do {
            try convert()
        } catch let error as ICalendarError {
            output.abandon()
            throw Diagnostic(.error, Location(file: output.displayPath), error.message)
        } catch let diagnostic as Diagnostic {
            output.abandon()
            throw diagnostic
        } catch {
            output.abandon()
            throw Diagnostic(.error, Location(file: output.displayPath), "\(error)")
        }
        try output.commit()
    }

    func abandon() {
        ics.abandon()
        output.abandon()
    }

    /// The staged .ics as jCal: `["vcalendar", [properties], [components]]`, each of the
    /// calendar's components on a line of its own.
    private func convert() throws {
        let lines = try LineSource(path: staging)
        var writer = JSONWriter()
        // The components open at this point, innermost last.
        var open: [(name: String, properties: [JSONValue], components: [JSONValue])] = []
        var wroteCalendarOpening = false
        var children = 0
        var number = 0
        var pending: [UInt8]? = nil
        func flush(_ bytes: [UInt8]) throws {
            let line = try ContentLine.lex(bytes)
            if line.name == "BEGIN" {
                if open.count == 1, !wroteCalendarOpening {
                    try writeOpening(open[0].properties)
                    wroteCalendarOpening = true
                }
                open.append((line.value.lowercased(), [], []))
            } else if line.name == "END" {
                guard let done = open.popLast() else { return }
                let component = JSONValue.array([
                    .string(done.name), .array(done.properties), .array(done.components),
                ])
                if open.count == 1 {
                    writer.reset()
                    writer.value(component)
                    try output.write((children == 0 ? "\n  " : ",\n  ") + writer.text)
                    children += 1
                } else if open.isEmpty {
                    if !wroteCalendarOpening { try writeOpening(done.properties) }
                    try output.write(children == 0 ? "]]\n" : "\n]]\n")
                } else {
                    open[open.count - 1].components.append(component)
                }
            } else if !open.isEmpty {
                guard open.count > 1 || !wroteCalendarOpening else {
                    throw ICalendarError(
                        .unbalancedComponents, "a calendar property after its first component")
                }
                open[open.count - 1].properties.append(JCal.property(line))
            }
        }
        func writeOpening(_ properties: [JSONValue]) throws {
            writer.reset()
            writer.value(.array(properties))
            try output.write("[\"vcalendar\", " + writer.text + ", [")
        }
        while let physical = try lines.nextLine(limit: Int.max, lineNumber: number + 1) {
            number += 1
            if let first = physical.first, first == 0x20 || first == 0x09 {
                pending?.append(contentsOf: physical.dropFirst())
                continue
            }
            if let complete = pending { try flush(complete) }
            pending = physical
        }
        if let complete = pending { try flush(complete) }
    }
}

/// jCal in (`.jcal`, `--from jcal`): the document is read whole (it is one JSON value),
/// turned into .ics lines (``JCal``) and read by libical like any .ics file. Places are
/// given as the jCal component (`components[3]`) a record or a warning comes from.
final class JCalRecordSource: RecordSource {
    private let inner: any RecordSource
    private let name: String
    /// The first .ics line of each of the calendar's components, and its jCal path.
    private let places: [(line: Int, path: String)]

    convenience init(path: String, options: ReadOptions) throws(Diagnostic) {
        try self.init(
            bytes: [UInt8](try JSONRecordSource.contents(of: path)), name: path, options: options)
    }

    init(bytes: [UInt8], name: String, options: ReadOptions) throws(Diagnostic) {
        self.name = name
        let document = try JSONRecordSource.document(bytes, name: name)
        var text = ""
        var places: [(line: Int, path: String)] = []
        do {
            try Self.icalendar(document, into: &text, places: &places)
        } catch {
            throw Diagnostic(
                .error, Location(file: name, field: error.path), error.message,
                code: .invalidJSON)
        }
        self.places = places
        inner = SubtaskNestingSource(
            ICSRecordSource(bytes: Array(text.utf8), name: name, options: options),
            uidScheme: options.uidScheme)
    }

    var calendar: CalendarInfo { inner.calendar }
    var warnings: [Diagnostic] { inner.warnings.map(placed) }

    func next() throws(Diagnostic) -> SourceItem? {
        do {
            switch try inner.next() {
            case nil: return nil
            case .record(let record, let location): return .record(record, placed(location))
            case .failed(let problems): return .failed(problems.map(placed))
            }
        } catch {
            throw placed(error)
        }
    }

    private func placed(_ diagnostic: Diagnostic) -> Diagnostic {
        var moved = diagnostic
        moved.location = placed(diagnostic.location)
        // "the VEVENT of line 12" names a line of the converted text: name the component.
        var message = diagnostic.message
        while let range = message.range(of: #"line [0-9]+"#, options: .regularExpression),
            let line = Int(message[range].dropFirst(5))
        {
            message.replaceSubrange(range, with: path(of: line))
        }
        moved.message = message
        return moved
    }

    /// The jCal component an .ics line of the converted text came from.
    private func path(of line: Int) -> String {
        // The last component starting at or before `line` (places are in line order; a
        // binary search, since a hostile file may have a warning for each of 100,000).
        var low = 0
        var high = places.count
        while low < high {
            let middle = (low + high) / 2
            if places[middle].line <= line { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? places[low - 1].path : "properties"
    }

    /// An .ics line of the converted text as the jCal component it came from.
    private func placed(_ location: Location) -> Location {
        guard location.file == name, let line = location.line else { return location }
        let path = path(of: line)
        return Location(
            file: name, index: location.index,
            field: location.field.map { "\(path).\($0)" } ?? path)
    }

    /// A jCal document (one `vcalendar`, or an array of them) as .ics text.
    static func icalendar(
        _ document: JSONValue, into text: inout String, places: inout [(line: Int, path: String)]
    ) throws(JCalError) {
        var line = 1
        func emit(_ content: String) {
            text += content + "\r\n"
            line += 1
        }
        func component(_ value: JSONValue, path: String, depth: Int) throws(JCalError) {
            guard case .array(let parts) = value, parts.count == 3,
                case .string(let name) = parts[0], case .array(let properties) = parts[1],
                case .array(let components) = parts[2]
            else {
                throw JCalError(
                    path.isEmpty ? "document" : path,
                    "a component is [name, [properties], [components]]")
            }
            guard JCal.isWritableName(name) else {
                throw JCalError(path, "'\(name)' is not a component name")
            }
            if depth == 1 { places.append((line, path)) }
            emit("BEGIN:" + name.uppercased())
            for (index, property) in properties.enumerated() {
                let at = (path.isEmpty ? "" : path + ".") + "properties[\(index)]"
                emit(try JCal.contentLine(property, at: at).text)
            }
            for (index, child) in components.enumerated() {
                let at = (path.isEmpty ? "" : path + ".") + "components[\(index)]"
                try component(child, path: at, depth: depth + 1)
            }
            emit("END:" + name.uppercased())
        }
        if case .array(let items) = document, case .array = items.first {
            for (index, calendar) in items.enumerated() {
                try component(calendar, path: "[\(index)]", depth: 0)
            }
        } else {
            try component(document, path: "", depth: 0)
        }
    }
}
