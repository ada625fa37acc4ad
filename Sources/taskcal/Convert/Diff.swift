import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

#if CalDAV
import CalDAV
#endif

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: tr("Say what differs between two calendars or task files, by meaning."),
        discussion: tr(
            """
            OLD and NEW are anything taskcal reads, in any two formats: .ics, JSON, NDJSON, jCal, \
            JSCalendar, - (with --input-format), a folder of .ics files (a vdir), a calendar's \
            address on a CalDAV server (https://…, in a build with CalDAV), or with --store a diary \
            as NEW. Records are matched by UID and RECURRENCE-ID (an instant), a UID taskcal gave \
            a duplicate (UID-LINE) to the one it came from, a component without a UID by its start \
            and name; then compared by meaning: a time written in another zone or in UTC is the \
            same time, DTEND or DURATION the same end, and folding, the order of properties, \
            parameters and list items, quoting and the case of names are no difference; DTSTAMP \
            and X-LIC-ERROR are never compared, nor the zones a calendar defines (the times that \
            use them are). --strict shows the zone a time is written in too.

            One line per difference: missing UID "name" (OLD:LINE), extra UID "name" (NEW:LINE), \
            changed UID "name": PROPERTY old → new; the last line counts them. --format json \
            prints {"missing": [ITEM…], "extra": [ITEM…], "changed": [ITEM…], "same": N}, an ITEM \
            with uid, recurrence_id (or null), name and source; a changed one also new_source and \
            fields: [{"name": "SUMMARY", "old": …, "new": …}]. --expand FROM..TO compares the \
            occurrences in the window as calendar apps show them instead (their times, name and \
            status): a series whose rule changed but whose occurrences did not is the same.

            Exit codes: 0 the two are the same, 1 they differ, 2 a side cannot be read.

            Examples:
              taskcal diff export.ics back.ics
              taskcal diff tasks.json tasks.ics --format json
              taskcal diff backup.json --store -
              taskcal diff cal.ics https://dav.example.org/cal/work/ \\
                  --expand 2026-01-01..2027-01-01
            """)
    )

    @Argument(
        help: ArgumentHelp(
            tr("OLD then NEW (NEW is the diary with --store)."), valueName: "old-and-new"))
    var sides: [String] = []

    @Option(
        help: .tr(
            "Report on a diary (a SQLite file, vdir:DIR, postgres://…; - for the default one) as NEW."
        ))
    var store: String?

    @Option(
        name: [.customLong("input-format"), .customLong("from")],
        help: .tr("Format of standard input (-) or of a file whose name does not tell it."))
    var from: Format?

    @OptionGroup var zone: ZoneOption<DiffZone>
    var tz: String? { zone.tz }

    @Option(
        help: ArgumentHelp(
            tr("What derived UIDs are unique to, on both sides (as convert --uid-namespace)."),
            valueName: "text"))
    var uidNamespace: String?

    @Option(
        help: ArgumentHelp(
            tr("Compare the occurrences in this window as calendar apps show them."),
            discussion: tr(
                "FROM..TO as convert --expand takes it. Each occurrence is matched by its UID and original start and compared by its times, name and status: occurrences missing, extra or moved."
            ),
            valueName: "from..to"))
    var expand: String?

    @Option(
        help: ArgumentHelp(
            tr("With --expand: the most occurrences read on each side, all together."),
            valueName: "n"))
    var maxOccurrences: Int = Expansion.defaultLimit

    @Flag(help: .tr("Show what only changes the form too (the zone a time is written in)."))
    var strict = false

    @OptionGroup var printed: FormatOption

    @Flag(name: .shortAndLong, help: .tr("Print no warnings of reading."))
    var quiet = false

    #if CalDAV
    @OptionGroup var server: ServerOptions
    #endif

    func validate() throws {
        try Zone.validate(tz)
        if store != nil && sides.count != 1 {
            throw ValidationError("with --store give one file, OLD; the diary is NEW")
        }
        if store == nil && sides.count != 2 {
            throw ValidationError("give two sides to compare, OLD and NEW (or OLD and --store)")
        }
        if sides.contains("-") && from == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
        if sides.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input can be one side only")
        }
        if expand != nil && window == nil {
            throw ValidationError(
                "--expand '\(expand ?? "")' is not a window FROM..TO such as 2026-12-01..2027-01-01 (FROM before TO; Unix seconds or ISO 8601)"
            )
        }
        if maxOccurrences < 1 { throw ValidationError("--max-occurrences must be at least 1") }
    }

    /// The `--expand` window.
    var window: Range<Int64>? {
        guard let expand else { return nil }
        let parts = expand.components(separatedBy: "..")
        let time = Zone.time(tz)
        guard parts.count == 2, let from = time.parse(parts[0]), let to = time.parse(parts[1]),
            from < to
        else { return nil }
        return from..<to
    }

    var readOptions: ReadOptions {
        var options = ReadOptions(format: from, floatingZone: tz)
        options.uidScheme = UIDScheme(namespace: uidNamespace)
        // A large .ics is read on every core; what is read is the same.
        options.parallelism = ProcessInfo.processInfo.activeProcessorCount
        if let window { options.expansion = Expansion(window: window, limit: maxOccurrences) }
        return options
    }

    func run() throws {
        let old = try read(sides[0])
        let new = try store.map(readDiary) ?? read(sides[1])
        var unreadable = false
        for side in [old, new] {
            for error in side.report.errors { Console.error(error.description) }
            if side.report.suppressedErrors > 0 {
                Console.error("… and \(side.report.suppressedErrors) more errors")
            }
            unreadable = unreadable || !side.report.succeeded
            if !quiet {
                for warning in side.report.warnings { Console.note(warning.description) }
            }
        }
        if unreadable {
            Console.error("no comparison: a side cannot be read (the error(s) above)")
            throw ExitCode(2)
        }
        let difference = CalendarDiff(
            old, new, strict: strict, only: window == nil ? nil : CalendarDiff.occurrenceFields)
        switch printed.format {
        case .json: print(difference.json, terminator: "")
        case .text:
            // Each line in the reader's language (the JSON never changes with it).
            for line in difference.text(zone: tz ?? TimeZones.localName).split(separator: "\n") {
                print(Localization.message(String(line)))
            }
        }
        if !difference.isEmpty { throw ExitCode(1) }
    }

    /// A side named on the command line: a file, `-`, a vdir folder or a CalDAV address.
    func read(_ side: String) throws -> CalendarDiff.Side {
        let lower = side.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            var options = readOptions
            // --input-format is for standard input and names that do not tell the format.
            if side != "-" && Format(path: side) != nil { options.format = nil }
            return CalendarDiff.read([side], name: side, options: options)
        }
        #if CalDAV
        let address = try server.address(side)
        let client = server.client()
        let objects = try server.run { () throws(CalDAVError) in
            try client.query(address, range: window)
        }
        var options = readOptions
        options.format = .ics
        let bytes = CalendarObjects.joined(objects.compactMap(\.data))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-diff-\(getpid())-\(UUID().uuidString).ics"
        ).path
        defer { unlink(path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            Console.error("cannot hold the calendar of \(address) in \(path)")
            throw ExitCode(2)
        }
        var result = CalendarDiff.read([path], name: address.description, options: options)
        result.relabel(path, as: address.description)
        return result
        #else
        try MissingTrait.calDAV.refuse()
        #endif
    }

    /// The diary (`--store`), its records as `diary export` writes them, their occurrences
    /// in the window with `--expand`.
    func readDiary(_ store: String) throws -> CalendarDiff.Side {
        let location: StoreLocation
        do {
            location = try StoreLocation.resolve(store == "-" ? nil : store)
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
        }
        let diary: ProtectedDiary
        let entries: [TaskRecord]
        do {
            diary = try openDiary(location, reveal: false)
            entries = try diary.allEntries()
        } catch {
            Console.error("\(location): \(error)")
            throw ExitCode(2)
        }
        var side = CalendarDiff.Side(name: location.description)
        let scheme = diary.uidScheme
        var records = entries.map { ($0, Location(file: location.description, field: "#\($0.id)")) }
        if let window {
            let (occurrences, warnings) = Expansion(window: window, limit: maxOccurrences).expand(
                records)
            if !quiet { warnings.forEach { Console.note("warning: " + $0) } }
            records = occurrences
        }
        for (record, place) in records { side.add(record, at: place, scheme: scheme) }
        return side
    }
}

extension CalendarDiff.Side {
    /// Names the records read from `path` as `name` (a CalDAV calendar read from a
    /// temporary file is its address).
    mutating func relabel(_ path: String, as name: String) {
        for index in records.indices where records[index].source.file == path {
            records[index].source.file = name
        }
        for index in report.warnings.indices where report.warnings[index].location.file == path {
            report.warnings[index].location.file = name
        }
        for index in report.errors.indices where report.errors[index].location.file == path {
            report.errors[index].location.file = name
        }
    }
}
