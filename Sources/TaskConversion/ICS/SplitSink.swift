import Foundation
import ICalendar
import TaskModel

/// How large the parts of a split .ics output may be (`--split-size`, `--split-count`).
public struct SplitLimit: Sendable, Equatable {
    /// The most bytes a part may hold.
    public var bytes: Int?
    /// The most records (components written for records, subtasks included) a part may hold.
    public var records: Int?

    /// Creates a limit; at least one of the two should be given.
    public init(bytes: Int? = nil, records: Int? = nil) {
        self.bytes = bytes
        self.records = records
    }

    /// Bytes from a size as people write it: `1MB` (1,000,000), `512KB`, `1MiB` (1,048,576),
    /// `64KiB`, `2000000`, `1.5MB`; `nil` when it is none or not positive.
    public static func bytes(_ text: String) -> Int? {
        let units: [(String, Double)] = [
            ("KIB", 1024), ("MIB", 1024 * 1024), ("GIB", 1024 * 1024 * 1024), ("KB", 1000),
            ("MB", 1_000_000), ("GB", 1_000_000_000), ("K", 1000), ("M", 1_000_000), ("B", 1),
        ]
        let upper = text.trimmingCharacters(in: .whitespaces).uppercased()
        var number = upper
        var factor = 1.0
        for (unit, value) in units where upper.hasSuffix(unit) {
            number = String(upper.dropLast(unit.count)).trimmingCharacters(in: .whitespaces)
            factor = value
            break
        }
        guard let value = Double(number), value.isFinite, value > 0, value * factor < 1e15
        else { return nil }
        let bytes = Int((value * factor).rounded(.down))
        return bytes > 0 ? bytes : nil
    }

    /// The name of part `index` (0-based) of `path`: `out.ics` → `out-001.ics`, with as many
    /// digits as `count` needs (at least three).
    public static func partPath(_ path: String, index: Int, count: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let base = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
        let digits = max(3, String(count).count)
        let number = String(index + 1)
        let padded = String(repeating: "0", count: max(0, digits - number.count)) + number
        return base + "-" + padded + (ext.isEmpty ? "" : "." + ext)
    }
}

/// .ics in parts, each a complete calendar no larger than the limit: the calendar's lines in
/// every part, each part with the `VTIMEZONE`s its records use (covering their years), a
/// series and its changed occurrences (one UID) always in one part, the calendar's other
/// components in the first. The parts together hold exactly what one file would.
///
/// Records are measured as they come (serialized once, the bytes counted and dropped) and
/// held; the parts are planned and written at the end, under temporary names renamed only
/// when every part is written.
final class SplitICSSink: RecordSink {
    private let path: String
    private let options: WriteOptions
    private let limit: SplitLimit
    /// Serializes each record as a part would, to count its bytes.
    private let measure: ICSRecordSink
    private var held: [(record: TaskRecord, location: Location, bytes: Int, count: Int)] = []
    private var spansOf: [[(zone: String, span: ClosedRange<Int64>)]] = []
    /// Records by series (one UID), in order of their first record.
    private var groups: [[Int]] = []
    private var groupOf: [String: Int] = [:]
    private(set) var writtenFiles: [String] = []
    /// The parts' own warnings (over the size, a stale part beside them).
    private var partNotes: [Diagnostic] = []
    /// What writing the records left out, then the parts' own warnings.
    var notes: [Diagnostic] { measure.notes + partNotes }
    var changedPlaces: [Location] { measure.changedPlaces }
    var calendar = CalendarInfo() {
        didSet { measure.calendar = calendar }
    }

    init(_ path: String, options: WriteOptions, limit: SplitLimit, measure: ICSRecordSink) {
        self.path = path
        self.options = options
        self.limit = limit
        self.measure = measure
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        try measure.write(record, from: location)
        var count = 0
        func visit(_ record: TaskRecord) {
            count += 1
            record.subtasks.forEach(visit)
        }
        visit(record)
        let key = record.uid ?? "\(location.file)\u{0}\(record.id)"
        if let group = groupOf[key] {
            groups[group].append(held.count)
        } else {
            groupOf[key] = groups.count
            groups.append([held.count])
        }
        held.append((record, location, measure.lastWritten.bytes, count))
        spansOf.append(measure.lastWritten.spans)
    }

    func abandon() { measure.abandon() }

    func finish() throws(Diagnostic) {
        measure.abandon()
        let parts = try plan()
        let info = calendar
        // Later parts keep the calendar's lines and zones; its other components go once.
        var zonesOnly = info
        zonesOnly.icalComponents = info.icalComponents.filter(ZoneCatalog.isTimeZone)
        var staged: [(temporary: String, final: String)] = []
        func removeStaged() {
            for file in staged { unlink(file.temporary) }
        }
        for (index, part) in parts.enumerated() {
            let final = SplitLimit.partPath(path, index: index, count: parts.count)
            let url = URL(fileURLWithPath: final)
            let temporary =
                url.deletingLastPathComponent().appendingPathComponent(
                    ".\(url.lastPathComponent).taskcal-part"
                ).path
            var partOptions = options
            partOptions.split = nil
            partOptions.format = .ics
            do {
                let sink = ICSRecordSink(
                    try OutputFile(path: temporary, mode: options.fileMode), options: partOptions)
                sink.calendar = index == 0 ? info : zonesOnly
                for group in part {
                    for position in groups[group] {
                        try sink.write(held[position].record, from: held[position].location)
                    }
                }
                try sink.finish()
            } catch {
                unlink(temporary)
                removeStaged()
                if error.location.file == temporary {
                    throw Diagnostic(
                        error.severity, Location(file: final), error.message, code: error.code)
                }
                throw Diagnostic(
                    error.severity, error.location, "writing \(final): \(error.message)",
                    code: error.code)
            }
            staged.append((temporary, final))
        }
        for (index, file) in staged.enumerated() where rename(file.temporary, file.final) != 0 {
            let reason = String(cString: strerror(errno))
            for later in staged[index...] { unlink(later.temporary) }
            throw Diagnostic(
                .error, Location(file: file.final),
                "cannot write: \(reason); parts before it are written, this and later ones are not",
                code: .io)
        }
        // Each part was written whole and synced (OutputFile); the renames that show them
        // reach the disk too, as every output's does.
        OutputFile.syncFolder(of: path)
        writtenFiles = staged.map(\.final)
        for file in writtenFiles {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            if let most = limit.bytes, size > most {
                partNotes.append(
                    Diagnostic(
                        .warning, Location(file: file),
                        "\(size) bytes, over --split-size (\(most)): it holds one series (or record) that is larger alone"
                    ))
            }
        }
        let next = SplitLimit.partPath(path, index: parts.count, count: parts.count)
        if FileManager.default.fileExists(atPath: next) {
            partNotes.append(
                Diagnostic(
                    .warning, Location(file: next),
                    "exists from an earlier run and is not part of this output (\(parts.count) part\(parts.count == 1 ? "" : "s")); remove it before importing the parts"
                ))
        }
    }

    // MARK: - Planning

    /// What one part holds so far.
    private struct Part {
        var groups: [Int] = []
        var bytes = 0
        var records = 0
        var spans: [String: ClosedRange<Int64>] = [:]
    }

    /// Groups in order, each part filled while it stays within the limit; a group larger
    /// than the limit alone gets a part of its own.
    private func plan() throws(Diagnostic) -> [[Int]] {
        var sizes = PartSizes(options: options, calendar: calendar)
        var parts: [[Int]] = []
        var current = Part()
        func adding(_ group: Int, to part: Part) -> Part {
            var part = part
            part.groups.append(group)
            for position in groups[group] {
                part.bytes += held[position].bytes
                part.records += held[position].count
                for (zone, span) in spansOf[position] {
                    part.spans[zone] =
                        part.spans[zone].map {
                            min(
                                $0.lowerBound, span.lowerBound)...max(
                                    $0.upperBound, span.upperBound)
                        } ?? span
                }
            }
            return part
        }
        func fits(_ part: Part, first: Bool) throws(Diagnostic) -> Bool {
            if let most = limit.records, part.records > most { return false }
            if let most = limit.bytes, try sizes.size(of: part, first: first) > most {
                return false
            }
            return true
        }
        for group in groups.indices {
            let grown = adding(group, to: current)
            var fitting = current.groups.isEmpty
            if !fitting { fitting = try fits(grown, first: parts.isEmpty) }
            if fitting {
                current = grown
            } else {
                parts.append(current.groups)
                current = adding(group, to: Part())
            }
        }
        parts.append(current.groups)
        return parts
    }

    /// The bytes of a part's opening, zones and closing, cached by what they depend on.
    private struct PartSizes {
        let options: WriteOptions
        let calendar: CalendarInfo
        var writer: EventWriter
        var openings: [String: Int] = [:]
        var zones: [String: Int] = [:]
        let trailer: Int

        init(options: WriteOptions, calendar: CalendarInfo) {
            self.options = options
            self.calendar = calendar
            writer = EventWriter(
                uidScheme: options.uidScheme, timestamp: options.timestamp, zone: options.zone)
            writer.zones = (try? ZoneCatalog(calendar: calendar)) ?? ZoneCatalog()
            trailer =
                ((try? writer.calendarTrailer(calendar)) ?? []).map {
                    $0.serialized().utf8.count
                }.reduce(0, +)
        }

        static func key(_ zone: String, _ span: ClosedRange<Int64>?) -> String {
            let (lower, upper) = SystemZone.coverage(of: span)
            return "\(zone)\u{0}\(lower)\u{0}\(upper)"
        }

        mutating func size(of part: Part, first: Bool) throws(Diagnostic) -> Int {
            var total = part.bytes + (first ? trailer : 0)
            // The opening, with the --tz zone covering the part's times in it; its
            // serialization ends in END:VCALENDAR, which closes the part.
            let headerSpan =
                options.zone.flatMap { part.spans[$0] } ?? options.timestamp...options.timestamp
            let headerKey = Self.key(options.zone ?? "", headerSpan)
            if let known = openings[headerKey] {
                total += known
            } else {
                do {
                    let bytes = try writer.calendarHeader(
                        named(calendar), zoneSpan: headerSpan
                    ).serialized().utf8.count
                    openings[headerKey] = bytes
                    total += bytes
                } catch {
                    throw Diagnostic(.error, Location(file: "calendar"), error.message)
                }
            }
            for (zone, span) in part.spans where zone != options.zone {
                let key = Self.key(zone, span)
                if let known = zones[key] {
                    total += known
                } else {
                    let bytes =
                        (try? TimeZones.vtimezone(named: zone, covering: span))?.serialized().utf8
                        .count ?? 0
                    zones[key] = bytes
                    total += bytes
                }
            }
            return total
        }

        private func named(_ calendar: CalendarInfo) -> CalendarInfo {
            guard let name = options.calendarName else { return calendar }
            var named = calendar
            named.setName(name)
            return named
        }
    }
}
