import Foundation
import ICalendar
import TaskModel

/// Events, to-dos and journal entries of an iCalendar file, one component at a time.
final class ICSRecordSource: RecordSource {
    private let path: String
    private let reader: ICalendarReader
    private let digest: ICSDigest
    private var order = FileOrder()

    var warnings: [Diagnostic] { digest.warnings }
    var calendar: CalendarInfo { digest.calendar }

    /// Standard input or a pipe, copied to a file so that it can be read twice (for
    /// ``Revisions``, and for the zones a component uses before they are defined).
    private let spooled: SpooledInput?

    init(path: String, options: ReadOptions) throws(Diagnostic) {
        self.path = path
        // Standard input read once (--revisions all) is not copied; a named pipe always is:
        // the zones' look-ahead would reopen it and take the reader's bytes.
        let copies = path == "-" ? !options.readsEveryRevision : SpooledInput.isReadOnce(path)
        spooled = copies ? try SpooledInput(copying: path) : nil
        let file = spooled?.path ?? path
        do {
            reader = try ICalendarReader(path: file)
        } catch {
            throw openFailure(path, error)
        }
        let revisions =
            options.readsEveryRevision || file == "-"
            ? Revisions() : ((try? LineSource(path: file)).map(Revisions.scan) ?? Revisions())
        digest = ICSDigest(
            path: path, reader: reader, options: options, revisions: revisions,
            lookahead: file == "-" ? nil : ICSLookahead.zones(in: file))
        ICSDigest.revisionWarnings(revisions, path: path).forEach(digest.warn)
    }

    init(bytes: [UInt8], name: String, options: ReadOptions) {
        path = name
        spooled = nil
        reader = ICalendarReader(bytes: bytes)
        digest = ICSDigest(
            path: name, reader: reader, options: options,
            revisions: options.readsEveryRevision
                ? Revisions() : Revisions.scan(LineSource(bytes: bytes)),
            lookahead: { ICSLookahead.zones(of: LineSource(bytes: bytes)) })
        ICSDigest.revisionWarnings(digest.revisions, path: name).forEach(digest.warn)
    }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            let item: ICalendarReader.Item?
            do {
                item = try reader.next()
            } catch {
                throw Diagnostic(
                    .error, Location(file: path, line: error.line), error.message,
                    code: error.kind.code)
            }
            digest.takeReaderNotes()
            guard let item else { return nil }
            if var result = digest.digest(item) {
                if case .record(var record, let location) = result {
                    if let warning = order.order(
                        &record, location: location, scheme: digest.events.uidScheme)
                    {
                        digest.warn(warning)
                    }
                    result = .record(record, location)
                }
                return result
            }
        }
    }
}

/// What one .ics input gives, turned into source items: each component through the
/// ``EventReader``, the calendar's own lines, the zones it keeps, the components the task
/// format has no records for, and every note as a warning (or, under `--strict`, an error).
///
/// Used by the one-thread reader and by each batch of the parallel one; ``order(_:line:ids:)``
/// runs in file order on one thread (fresh ids, duplicate UIDs).
final class ICSDigest {
    let path: String
    let reader: ICalendarReader
    let events: EventReader
    let zones: ZoneResolver
    private(set) var warnings: [Diagnostic] = []
    /// Components kept whole at the calendar level (`VFREEBUSY`, `X-…`).
    private(set) var keptComponents: [String] = []
    /// ``calendar`` as last made, and the sizes of what it was made from.
    private var cachedCalendar: (made: (Int, Int, Int), info: CalendarInfo)?
    private var seenWarnings = Set<String>()

    /// The revisions of the input: the superseded ones are kept whole with the calendar.
    let revisions: Revisions

    init(
        path: String, reader: ICalendarReader, options: ReadOptions, revisions: Revisions,
        lookahead: (@Sendable () -> [UInt8]?)?
    ) {
        self.path = path
        self.reader = reader
        self.revisions = revisions
        reader.keptWhole = revisions.superseded
        reader.interpretedProperties = RecordMapping.interpreted
        reader.strict = options.strict
        events = EventReader(uidScheme: options.uidScheme, extraction: options.extraction)
        events.keepsLeftOut = true
        events.keepsStampOf = Set(revisions.groups.map(\.chosen.line))
        events.strict = options.strict
        events.readsPlainEvents = options.readsPlainEvents
        zones = ZoneResolver(chosenZone: options.floatingZone, reader: reader, lookahead: lookahead)
    }

    /// The calendar data read so far: calendar-level lines (but those taskcal writes),
    /// the zones kept, and the components kept.
    var calendar: CalendarInfo {
        // Asked for every record; what it is made of only grows, so it is made again only
        // when one of the three has (lexing the calendar's lines per record cost 1.5%).
        let made = (reader.calendarLines.count, zones.keptDefinitions.count, keptComponents.count)
        if let cachedCalendar, cachedCalendar.made == made { return cachedCalendar.info }
        var info = CalendarInfo()
        defer { cachedCalendar = (made, info) }
        for raw in reader.calendarLines {
            let text = raw.text
            guard let name = try? raw.lexed().name,
                !EventWriter.ownCalendarProperties.contains(name), !info.icalExtra.contains(text)
            else { continue }
            info.icalExtra.append(text)
        }
        info.icalComponents =
            zones.keptDefinitions.keys.sorted().compactMap {
                zones.keptDefinitions[$0]
            } + keptComponents
        return info
    }

    /// The reader's notes (empty values left out, values repaired) as warnings.
    func takeReaderNotes() {
        for note in reader.takeNotes() {
            let code: DiagnosticCode =
                switch note.kind {
                case .emptyValue: .emptyValue
                case .repairedValue: .repairedValue
                case .leftOut: .leftOut
                case .structure: .structure
                }
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: note.line), note.message, code: code))
        }
    }

    func warn(_ diagnostic: Diagnostic) {
        // The same warning for every component of a file says nothing new: once per line.
        if seenWarnings.insert(diagnostic.description).inserted { warnings.append(diagnostic) }
    }

    /// The source item for one item of the reader, or `nil` when it gives none.
    func digest(_ item: ICalendarReader.Item) -> SourceItem? {
        if zones.calendarZone == nil, let text = reader.calendarProperties["X-WR-TIMEZONE"] {
            zones.calendarZone = TimeZones.ianaName(forTZID: text)
        }
        switch item {
        case .verbatim(let raw):
            keptComponents.append(writable(raw))
            // A superseded revision: said once for its UID (``revisionWarnings``).
            guard !revisions.superseded.contains(raw.line) else { return nil }
            warnKept(raw.name, line: raw.line)
            return nil
        case .failed(let kind, let line, let errors):
            if kind == .timeZone {
                return .failed(
                    errors.map {
                        Diagnostic(
                            .error, Location(file: path, line: $0.line ?? line), $0.message,
                            code: .zoneRefused)
                    })
            }
            return .failed(
                errors.map {
                    Diagnostic(
                        .error, Location(file: path, line: $0.line ?? line), $0.message,
                        code: $0.kind.code)
                })
        case .component(let component):
            return digest(component)
        }
    }

    /// Says that the component `name` of `line` is kept with the calendar, not a record.
    private func warnKept(_ name: String, line: Int?) {
        warn(
            Diagnostic(
                .warning, Location(file: path, line: line),
                "\(name) has no place among the records; kept with the calendar",
                code: .notConverted))
    }

    /// The source item for an event, to-do or journal entry; other components are kept with
    /// the calendar.
    private func digest(_ component: Component) -> SourceItem? {
        guard [.event, .todo, .journal].contains(component.kind) else {
            if let text = try? Component.verbatim(component.serialized()) {
                keptComponents.append(text.serialized())
            }
            warnKept("\(component.kind)", line: component.lineNumber)
            return nil
        }
        let outcome = events.read(component, zones: zones)
        for note in outcome.notes {
            warn(
                Diagnostic(
                    .warning, Location(file: path, line: note.line ?? component.lineNumber),
                    note.message, code: note.code))
        }
        if !outcome.errors.isEmpty {
            return .failed(
                outcome.errors.map {
                    Diagnostic(
                        .error, Location(file: path, line: $0.line ?? component.lineNumber),
                        $0.message, code: $0.code)
                })
        }
        guard let record = outcome.record else {
            keepAsWritten(component)
            return nil
        }
        // The rules do not look at ids; a placeholder stands in for one given later (in a
        // copy: setting the id of a record the outcome still shares copies its fields).
        let problems: [Problem]
        if record.id == IDAllocator.unassigned {
            var placeholder = record
            placeholder.id = 1
            problems = placeholder.problems
        } else {
            problems = record.problems
        }
        guard problems.isEmpty else {
            // A component whose reading breaks the task format's rules cannot become a
            // record: left out (refused under --strict), the rest of the file converts.
            let diagnostics = problems.map {
                Diagnostic(
                    events.strict ? .error : .warning,
                    Location(file: path, line: component.lineNumber, field: $0.field),
                    events.strict
                        ? $0.message
                        : "the \(component.kind) of line \(component.lineNumber ?? 0) cannot become a record; kept with the calendar as written: \($0.message)",
                    code: .componentSkipped)
            }
            if events.strict { return .failed(diagnostics) }
            diagnostics.forEach(warn)
            keepAsWritten(component)
            return nil
        }
        return .record(record, Location(file: path, line: component.lineNumber))

    }

    /// Keeps a component that cannot become a record with the calendar, as the file had it,
    /// so that the calendar written back still has it.
    private func keepAsWritten(_ component: Component) {
        if let raw = component.asWritten, (try? Component.verbatim(raw.text)) != nil {
            keptComponents.append(raw.text)
        } else if let raw = component.asWritten {
            // A line as written that cannot be written back (a parameter value with a bare
            // `;`): libical's reading of the lines is written instead.
            let libicals = component.serialized()
            guard (try? Component.verbatim(libicals)) != nil else {
                keptComponents.append(writable(raw))
                return
            }
            for line in raw.lines {
                do throws(ICalendarError) {
                    _ = try line.lexed()
                } catch {
                    warn(
                        Diagnostic(
                            .warning, Location(file: path, line: line.line),
                            "this line of the \(raw.name) kept with the calendar cannot be written back as it is (\(error.message)); written as libical reads it",
                            code: .malformedLine))
                }
            }
            keptComponents.append(libicals)
        } else {
            keptComponents.append(component.serialized())
        }
    }

    /// The text of `raw`, without the lines that cannot be written back as they are (each
    /// said in a warning): the calendar written from it must not fail on them.
    private func writable(_ raw: RawComponent) -> String {
        guard (try? Component.verbatim(raw.text)) == nil else { return raw.text }
        var kept = raw
        kept.lines = raw.lines.filter { line in
            do throws(ICalendarError) {
                _ = try line.lexed()
                return true
            } catch {
                warn(
                    Diagnostic(
                        .warning, Location(file: path, line: line.line),
                        "this line of the \(raw.name) kept with the calendar cannot be written back as it is (\(error.message)); left out",
                        code: .malformedLine))
                return false
            }
        }
        return kept.text
    }

    /// One warning for each UID with several revisions: which is the event, which are kept.
    static func revisionWarnings(_ revisions: Revisions, path: String) -> [Diagnostic] {
        revisions.groups.map { group in
            let which = group.recurrenceID.map { "\(group.uid), RECURRENCE-ID\($0)" } ?? group.uid
            let lines = group.superseded.map { String($0.line) }.joined(separator: ", ")
            let chosen =
                "SEQUENCE \(group.chosen.sequence)"
                + (group.chosen.stamp.isEmpty ? "" : ", DTSTAMP \(group.chosen.stamp)")
            return Diagnostic(
                .warning, Location(file: path, line: group.chosen.line),
                "UID \(which) has \(group.superseded.count + 1) revisions: this one (\(chosen)) is the event, as the highest SEQUENCE, then the latest DTSTAMP, is (RFC 5546 §2.1.5); the rest (line \(lines)) are kept with the calendar as written (--revisions all reads each as an event)",
                code: .revisions)
        }
    }

    /// Adds warnings found elsewhere (a parallel batch), once each.
    func absorb(_ diagnostics: [Diagnostic]) {
        diagnostics.forEach(warn)
    }
}

/// Reading a file's `VTIMEZONE`s ahead, for a `TZID` used before its definition.
enum ICSLookahead {
    /// A closure that scans the file at `path` once for its `VTIMEZONE` blocks.
    static func zones(in path: String) -> @Sendable () -> [UInt8]? {
        {
            guard let lines = try? LineSource(path: path) else { return nil }
            return zones(of: lines)
        }
    }

    /// The `VTIMEZONE` blocks of the lines of `lines`.
    static func zones(of lines: LineSource) -> [UInt8]? {
        do {  // a line past the limit ends the look ahead; the reader reports it in turn
            var result: [UInt8] = []
            var inside = false
            var number = 0
            while let line = try? lines.nextLine(
                limit: ReadingLimits.lineLength, lineNumber: number + 1)
            {
                number += 1
                let upper = String(decoding: line.prefix(20), as: UTF8.self).uppercased()
                if upper.hasPrefix("BEGIN:VTIMEZONE") { inside = true }
                if inside {
                    result += line
                    result += [0x0D, 0x0A]
                }
                if upper.hasPrefix("END:VTIMEZONE") { inside = false }
            }
            return result
        }
    }
}
