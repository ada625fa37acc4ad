import Foundation
import ICalendar
import TaskConversion
import TaskModel

/// Why a diary refused a write.
public enum DiaryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The entry's time is taken: the entries it collides with, earliest first.
    case conflict(TaskRecord, with: [TaskRecord])
    /// No entry has this id.
    case notFound(Int64)
    /// The entry breaks the task format's rules.
    case invalid([Problem])
    /// An import was refused whole: every problem, each with the record it concerns.
    case importRefused([ImportProblem])
    /// The store itself cannot be opened, read or written.
    case storage(String)
    /// A protected entry's text cannot be shown or written: no key, the wrong key, or a
    /// sealed text that fails authentication.
    case locked(String)

    public var description: String {
        switch self {
        case .conflict(let record, let others):
            let names = others.map { Self.describe($0) }.joined(separator: "; ")
            return
                "\(Self.describe(record)) overlaps \(names); pick another time or delete the other entry"
        case .notFound(let id): return "no entry #\(id) in the diary"
        case .invalid(let problems): return problems.map(\.description).joined(separator: "; ")
        case .importRefused(let problems):
            return "import refused, nothing was written:\n"
                + problems.map { "  " + $0.description }.joined(separator: "\n")
        case .storage(let message), .locked(let message): return message
        }
    }

    /// `#3 "Call with Bob" (2026-11-27T09:00Z–10:00Z)`.
    public static func describe(_ record: TaskRecord) -> String {
        "#\(record.id) \"\(record.name)\" (\(utc(record.dateStart))–\(utc(record.dateFinish)))"
    }

    static func utc(_ epoch: Int64) -> String {
        let value = DateTimeValue(utcEpoch: epoch)
        return String(
            format: "%04d-%02d-%02dT%02d:%02dZ", value.year, value.month, value.day, value.hour,
            value.minute)
    }
}

/// One problem of an import: where the record came from and what is wrong.
public struct ImportProblem: Sendable, Equatable, CustomStringConvertible {
    /// `FILE: [INDEX]` or `FILE:LINE`, as the reader gave it.
    public var source: String
    public var message: String

    public init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    public var description: String { "\(source): \(message)" }
}

/// What an import did.
public struct ImportResult: Sendable, Equatable {
    /// The ids of the entries written, in input order.
    public var imported: [Int64] = []
    /// Records left out with `skipConflicts`, and why.
    public var skipped: [ImportProblem] = []
    /// What is worth knowing about what was imported (private entries kept in the clear by
    /// a diary that has no key yet).
    public var notes: [String] = []

    public init(imported: [Int64] = [], skipped: [ImportProblem] = []) {
        self.imported = imported
        self.skipped = skipped
    }
}

/// An entry to import and where it came from (for messages).
public struct IncomingRecord: Sendable {
    public var record: TaskRecord
    public var source: String

    public init(_ record: TaskRecord, source: String) {
        self.record = record
        self.source = source
    }
}

/// A diary where no two entries occupy the same time.
///
/// Every write is validated (the task format's rules, then no overlap with any other entry
/// that occupies time) and happens whole or not at all, with the check and the write in one
/// transaction so that two processes can never both win a slot. Intervals are half-open.
/// Cancelled entries, entries that show as free and entries of no length block nothing.
public protocol DiaryStore: Sendable {
    /// How the diary's entries get UIDs: a namespace that is the diary's own identity (a
    /// random UUID made with the store), so two diaries never give two entries one UID.
    var uidScheme: UIDScheme { get }
    /// Adds `record`; an `id` of 0 or below asks the store for a fresh one. Returns the entry
    /// as stored.
    func add(_ record: TaskRecord) throws(DiaryError) -> TaskRecord
    /// The entry `id`.
    func entry(_ id: Int64) throws(DiaryError) -> TaskRecord
    /// Entries that touch `[from, to)` (all when nil), whose name or description contains
    /// `search` (case-insensitive) when given, sorted by start.
    func entries(from: Int64?, to: Int64?, search: String?) throws(DiaryError) -> [TaskRecord]
    /// Replaces entry `record.id`; it may overlap only its own old slot.
    func update(_ record: TaskRecord) throws(DiaryError)
    /// Deletes entry `id`.
    func delete(_ id: Int64) throws(DiaryError)
    /// Imports all of `records` or none; with `skipConflicts`, imports what it can and
    /// lists what it skipped. Records keep their ids unless `newIDs`.
    func importRecords(_ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool)
        throws(DiaryError) -> ImportResult
    /// Replaces every record of entry `id` by `records` (which carry that id), checked as an
    /// import is against the rest of the diary, all at once or not at all: a calendar
    /// server's new version of an entry comes in this way.
    func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError)
    /// Problems with the store's integrity (empty when sound).
    func check() throws(DiaryError) -> [String]
    /// A setting the diary keeps about itself (its protection: ``DiaryProtection``), `nil`
    /// when unset.
    func setting(_ name: String) throws(DiaryError) -> String?
    /// Replaces the stored records of existing entries by `records` (matched by id and
    /// changed occurrence, their times unchanged, so no slot moves) and sets `settings` (a
    /// `nil` value removes one), in one write that happens whole or not at all: a new key
    /// re-seals every protected entry this way.
    func rewrite(_ records: [TaskRecord], settings: [String: String?]) throws(DiaryError)
}

extension DiaryStore {
    /// Every entry, sorted by start.
    public func allEntries() throws(DiaryError) -> [TaskRecord] {
        try entries(from: nil, to: nil, search: nil)
    }
}

/// Where the diary is: `PATH` (SQLite), `vdir:DIR` or `postgres://USER@HOST/DB` (a
/// PostgreSQL server, opened by the PostgresDiary module).
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(String)
    case vdir(String)
    /// The URL as given (`postgres://` or `postgresql://`).
    case postgres(String)

    /// `--store`, else `$TASKCAL_STORE`, else `$XDG_DATA_HOME/taskcal/diary.sqlite`
    /// (`~/.local/share/taskcal/diary.sqlite`).
    ///
    /// - Throws: ``DiaryError/storage(_:)`` for a URL of a scheme taskcal does not know
    ///   (`mysql://…`), which would otherwise become a file of that odd name, and for a
    ///   PostgreSQL URL with a password in it, which every user of the machine could read.
    public static func resolve(_ option: String?) throws(DiaryError) -> StoreLocation {
        let environment = ProcessInfo.processInfo.environment
        let text = option ?? environment["TASKCAL_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        if let text {
            func expand(_ path: String) -> String {
                path.hasPrefix("~/")
                    ? (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst(1) : path
            }
            if text.hasPrefix("vdir:") { return .vdir(expand(String(text.dropFirst(5)))) }
            if let scheme = scheme(of: text) {
                guard ["postgres", "postgresql"].contains(scheme.lowercased()) else {
                    throw .storage(
                        "\(redacted(text)): taskcal knows no diary at \(scheme):// addresses; a diary is a SQLite file (PATH), a folder of .ics files (vdir:DIR) or a PostgreSQL database (postgres://USER@HOST/DB)"
                    )
                }
                if redacted(text) != text {
                    throw .storage(
                        "\(redacted(text)): the store address holds a password, which any user of this machine can see in the process list and which stays in the shell's history; give it in ~/.pgpass or PGPASSWORD instead"
                    )
                }
                return .postgres(text)
            }
            return .sqlite(expand(text))
        }
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return .sqlite(data + "/taskcal/diary.sqlite")
    }

    /// Opens the store, creating it (and its folders) when missing. `warn` hears what a
    /// read went past (a vdir file that cannot be read).
    public func open(warn: @escaping @Sendable (String) -> Void = { _ in }) throws(DiaryError)
        -> any DiaryStore
    {
        switch self {
        case .sqlite(let path): return try SQLiteDiary(path: path)
        case .vdir(let path): return try VdirDiary(directory: path, warn: warn)
        case .postgres:
            throw .storage(
                "\(self): a PostgreSQL diary is opened by the PostgresDiary module (PostgresDiary(url:))"
            )
        }
    }

    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .vdir(let path): "vdir:\(path)"
        case .postgres(let url): Self.redacted(url)
        }
    }

    /// Where taskcal keeps a file of its own about this diary (`reminded`, `inbox.log`): beside
    /// a SQLite file (`diary.sqlite.reminded`), hidden in a vdir (`.taskcal-reminded`), and for a
    /// diary on a server, in `$XDG_STATE_HOME/taskcal` (`~/.local/state/taskcal`) under a name
    /// made of the server, database and diary, since such a file is this user's, not the team's.
    public func companionFile(_ name: String) -> String {
        switch self {
        case .sqlite(let path): return path + "." + name
        case .vdir(let directory):
            return (directory as NSString).appendingPathComponent(".taskcal-" + name)
        case .postgres:
            let environment = ProcessInfo.processInfo.environment
            let state =
                environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
            let safe = String(
                description.dropFirst(description.hasPrefix("postgresql://") ? 13 : 11).map {
                    $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_"
                })
            return state + "/taskcal/postgres-" + safe + "." + name
        }
    }

    /// The scheme of `text` when it is a URL (`SCHEME://…`), else nil.
    static func scheme(of text: String) -> String? {
        guard let colon = text.range(of: "://") else { return nil }
        let scheme = text[..<colon.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return nil }
        return String(scheme)
    }

    /// `text` without a password: the user part's (`postgres://me:secret@db` →
    /// `postgres://me@db`) and a `password=` parameter's (its value becomes `…`).
    package static func redacted(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var text = text
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(
                separator: "&", omittingEmptySubsequences: false
            ).map { $0.lowercased().hasPrefix("password=") ? "password=…" : String($0) }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        guard let colon = text.range(of: "://") else { return text }
        let rest = text[colon.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"),
            let separator = authority[..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<separator]) + String(text[at...])
    }
}

/// The shared validation of every write.
///
/// An entry is a group of records that share its id (and UID): the entry itself, and the
/// changed occurrences of a repeating entry (records with `recurrence_id`, as calendar apps
/// export a moved or renamed meeting), kept together as RFC 4791 keeps them in one resource.
/// For the overlap checks a changed occurrence is a single record of its own, and the
/// occurrence it replaces leaves the series (``units(_:)``); records of one entry are never
/// checked against each other.
package enum Rules {
    /// The highest id in `record` and its subtasks: every one is given, none reused.
    package static func highestID(in record: TaskRecord) -> Int64 {
        record.subtasks.map(highestID).reduce(record.id, max)
    }

    /// Whether some subtask of `record` has no id yet.
    package static func needsIDs(_ record: TaskRecord) -> Bool {
        record.subtasks.contains { $0.id <= 0 || needsIDs($0) }
    }

    /// Gives the subtasks of `record` that have no id yet (0 or below) fresh ones, `next` on.
    package static func giveIDs(to record: inout TaskRecord, from next: inout Int64) {
        for index in record.subtasks.indices {
            if record.subtasks[index].id <= 0 {
                record.subtasks[index].id = next
                next += 1
            }
            giveIDs(to: &record.subtasks[index], from: &next)
        }
    }

    /// Gives every subtask of `record` (at any depth) a fresh id, `next` on.
    package static func renumberSubtasks(of record: inout TaskRecord, from next: inout Int64) {
        for index in record.subtasks.indices {
            record.subtasks[index].id = next
            next += 1
            renumberSubtasks(of: &record.subtasks[index], from: &next)
        }
    }

    /// Whether `record` matches a search: `text` in its name, description or categories,
    /// whatever the case and accents (Cyrillic too: "ёлка" finds "Ёлка" and "елка").
    package static func matches(_ record: TaskRecord, search text: String) -> Bool {
        let needle = folded(text)
        guard !needle.isEmpty else { return true }
        return ([record.name, record.description ?? ""] + record.categories).contains {
            folded($0).contains(needle)
        }
    }

    /// Text as searches compare it: without case and accents.
    package static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Checks that `record` may replace `old` through ``DiaryStore/rewrite(_:settings:)``:
    /// valid, and in the same slot (its times, repetition and whether it occupies them).
    package static func validateRewrite(_ record: TaskRecord, replacing old: TaskRecord)
        throws(DiaryError)
    {
        try validate(record)
        guard
            record.dateStart == old.dateStart && record.dateFinish == old.dateFinish
                && record.recurrence == old.recurrence && record.occupiesTime == old.occupiesTime
                && record.allDay == old.allDay
        else {
            throw .storage(
                "entry #\(record.id) cannot be rewritten in another slot; edit its times instead")
        }
    }

    package static func validate(_ record: TaskRecord) throws(DiaryError) {
        var problems = record.problems
        problems += CalendarChecks.problems(of: record)
        if !problems.contains(where: { $0.field == "recurrence.rule" }),
            let rule = record.recurrence?.rule?.uppercased(),
            rule.contains("FREQ=SECONDLY") || rule.contains("FREQ=MINUTELY")
        {
            // Each occurrence is checked; one a minute would be half a million a year.
            problems.append(
                Problem(
                    field: "recurrence.rule",
                    "a diary habit repeats hourly at most often; this one repeats every second or minute"
                ))
        }
        if !problems.isEmpty { throw .invalid(problems) }
    }

    /// `records` as the overlap checks see them: each repeating record without the
    /// occurrences that changed occurrences of its entry replace (their original starts
    /// join its `exdates`); every other record as it is.
    package static func units(_ records: [TaskRecord]) -> [TaskRecord] {
        var changed: [Int64: [Int64]] = [:]
        for record in records {
            if let original = record.recurrenceID {
                changed[record.id, default: []].append(original)
            }
        }
        guard !changed.isEmpty else { return records }
        return records.map { record in
            guard record.recurrenceID == nil, var recurrence = record.recurrence,
                let originals = changed[record.id]
            else { return record }
            recurrence.exdates = Array(Set(recurrence.exdates + originals)).sorted()
            var unit = record
            unit.recurrence = recurrence
            return unit
        }
    }

    /// A repeating entry without the occurrences its changed occurrences replace.
    package static func unit(_ record: TaskRecord, changed: [Int64: [Int64]]) -> TaskRecord {
        guard record.recurrenceID == nil, let originals = changed[record.id] else { return record }
        return units(
            [record]
                + originals.map { original in
                    var change = record
                    change.recurrence = nil
                    change.recurrenceID = original
                    return change
                })[0]
    }

    /// A repeating entry moved to another start (`old` → `new`), and its changed occurrences
    /// with it, as calendar apps do (Thunderbird shifts exceptions and EXDATEs by the same
    /// offset): each change's `recurrence_id` and its own times move by the wall-clock
    /// distance the series moved in its zone, so an occurrence moved two hours later stays two
    /// hours after its new slot, and a skipped one stays skipped. `exdates` and `rdates` move
    /// too unless `new` changed them itself. Anything else comes back as it is.
    package static func moving(
        from old: TaskRecord, to new: TaskRecord, changes: [TaskRecord]
    ) -> (series: TaskRecord, changes: [TaskRecord]) {
        guard old.recurrenceID == nil, new.recurrenceID == nil, let before = old.recurrence,
            new.recurrence != nil, old.dateStart != new.dateStart
        else { return (new, changes) }
        let zone = (try? LocalTime(zone: new.timeZone ?? "UTC")) ?? (try? LocalTime(zone: "UTC"))
        func wall(_ instant: Int64) -> Int64 { instant + Int64(zone?.utcOffset(at: instant) ?? 0) }
        let distance = wall(new.dateStart) - wall(old.dateStart)
        func shift(_ instant: Int64) -> Int64 {
            let target = wall(instant) + distance
            // The instant whose wall clock reads `target` (two steps settle the offset).
            var moved = target - Int64(zone?.utcOffset(at: instant + distance) ?? 0)
            moved = target - Int64(zone?.utcOffset(at: moved) ?? 0)
            return moved
        }
        var series = new
        if new.recurrence?.exdates == before.exdates {
            series.recurrence?.exdates = before.exdates.map(shift)
        }
        if new.recurrence?.rdates == before.rdates {
            series.recurrence?.rdates = before.rdates.map(shift)
        }
        let moved = changes.map { change in
            var change = change
            change.recurrenceID = change.recurrenceID.map(shift)
            if !change.unscheduled {
                change.dateStart = shift(change.dateStart)
                change.dateFinish = max(change.dateStart, shift(change.dateFinish))
            }
            return change
        }
        return (series, moved)
    }

    /// The records of the entry `record` belongs to once `record` replaces the one with its
    /// `recurrence_id` (or joins them): the entry first, then its changes by original start.
    package static func group(_ members: [TaskRecord], with record: TaskRecord) -> [TaskRecord] {
        (members.filter { $0.recurrenceID != record.recurrenceID } + [record]).sorted {
            ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
        }
    }

    /// Overlaps that involve a repeating entry, for `check`: every series is expanded up to
    /// its end (or past the last single entry, at least ``Expansion/habitHorizon``) and swept
    /// with the single entries in one pass.
    package static func habitProblems(series: [TaskRecord], singles: [TaskRecord]) -> [String] {
        guard !series.isEmpty else { return [] }
        let lastSingle = singles.map(\.dateFinish).max() ?? Int64.min
        var entries: [TaskRecord] = singles.filter(\.occupiesTime)
        let singleCount = entries.count
        var unchecked: [String] = []
        var pairwise: [String] = []
        for record in series {
            let end =
                Expansion.lastFinish(of: record)
                ?? max(lastSingle, record.dateStart + Expansion.habitHorizon)
            do {
                entries += try Expansion.occupying(
                    record, in: record.dateStart..<max(end, record.dateStart + 1))
            } catch let error where error.cut == .limit || error.cut == .work {
                // Too many occurrences to list: each single entry against the habit's
                // occurrences around it, as `add` does.
                for single in singles
                where single.occupiesTime && single.dateFinish > record.dateStart {
                    do {
                        if try !Expansion.collisions(record, single, limit: 1).isEmpty {
                            let ids = [record.id, single.id].sorted()
                            pairwise.append("entries #\(ids[0]) and #\(ids[1]) overlap")
                        }
                    } catch {
                        unchecked.append("\(DiaryError.describe(record)) \(error.message)")
                        break
                    }
                }
            } catch {
                unchecked.append("\(DiaryError.describe(record)) \(error.message)")
            }
        }
        let (pairs, complete) = OverlapSweep.ownerOverlaps(
            entries.map { TimeSpan(start: $0.dateStart, finish: $0.dateFinish) },
            owners: entries.map(\.id), watched: entries.indices.map { $0 >= singleCount },
            limit: problemLimit)
        var problems = pairs.map { overlap in
            let ids = [entries[overlap.first].id, entries[overlap.second].id].sorted()
            return "entries #\(ids[0]) and #\(ids[1]) overlap"
        }
        if !complete {
            problems.append(
                "more repeating entries overlap; the first \(problemLimit) pairs are listed")
        }
        return problems + pairwise.prefix(problemLimit) + unchecked
    }

    /// The refusal of `record` when the occurrences its overlap check needs cannot be
    /// computed (its own, or those of the repeating entry it is compared with): an entry is
    /// never let in unchecked.
    package static func refusal(of record: TaskRecord, _ unchecked: Expansion.Unchecked)
        -> DiaryError
    {
        if unchecked.record.id == record.id && unchecked.record.uid == record.uid {
            return .invalid([Problem(field: "recurrence.rule", unchecked.message)])
        }
        return .invalid([
            Problem(
                field: "date_start",
                "cannot be checked against the repeating entry \(DiaryError.describe(unchecked.record)): its occurrences up to \(unchecked.untilDate) cannot be computed (\(unchecked.reason))"
            )
        ])
    }

    /// How many overlapping pairs `check` lists of each kind before it says there are more.
    package static let problemLimit = 1_000

    /// Overlaps among entries that do not repeat, for `check`: one sweep in order of start,
    /// each entry compared with the one running that finishes last (what the store's own
    /// overlap check relies on), so a hand-edited store of many entries in one slot costs one
    /// line per entry, not one per pair.
    package static func singleProblems(_ spans: [(id: Int64, start: Int64, finish: Int64)])
        -> [String]
    {
        var problems: [String] = []
        var previous: (id: Int64, finish: Int64)?
        for span in spans.sorted(by: { ($0.start, $0.finish, $0.id) < ($1.start, $1.finish, $1.id) }
        )
        where span.start < span.finish {
            if let previous, previous.finish > span.start, previous.id != span.id {
                guard problems.count < problemLimit else {
                    problems.append(
                        "more entries overlap; the first \(problemLimit) pairs are listed")
                    break
                }
                problems.append("entries #\(previous.id) and #\(span.id) overlap")
            }
            if previous == nil || span.finish > previous!.finish {
                previous = (span.id, span.finish)
            }
        }
        return problems
    }

    /// The entries of `existing` that `record` collides with (excluding itself), earliest
    /// first, each paired with the occurrence of `record` it meets; repeating entries are
    /// compared occurrence by occurrence.
    ///
    /// - Throws: ``DiaryError/invalid(_:)`` when the occurrences to compare cannot be computed.
    package static func collisions(of record: TaskRecord, in existing: [TaskRecord])
        throws(DiaryError)
        -> [(mine: TaskRecord, other: TaskRecord)]
    {
        guard record.occupiesTime else { return [] }
        var found: [(mine: TaskRecord, other: TaskRecord)] = []
        for other in existing where other.id != record.id && other.occupiesTime {
            do {
                if let pair = try Expansion.collisions(record, other, limit: 1).first {
                    found.append(pair)
                }
            } catch {
                throw refusal(of: record, error)
            }
        }
        return found.sorted {
            ($0.other.dateStart, $0.other.id) < ($1.other.dateStart, $1.other.id)
        }
    }
}

/// The entries of a store, indexed for the collision checks of an import: single entries in a
/// ``SpanIndex``, repeating ones compared occurrence by occurrence.
struct StoreIndex {
    private let singles: [TaskRecord]
    private let series: [TaskRecord]
    private var index: SpanIndex
    /// The latest finish of a single entry that takes up time.
    let lastFinish: Int64?

    init(_ stored: [TaskRecord]) {
        let existing = Rules.units(stored)
        singles = existing.filter { $0.occupiesTime && $0.recurrence == nil }
        series = existing.filter { $0.occupiesTime && $0.recurrence != nil }
        index = SpanIndex(
            singles.enumerated().map { (TimeSpan(start: $1.dateStart, finish: $1.dateFinish), $0) })
        for position in singles.indices { index.activate(position) }
        lastFinish = singles.map(\.dateFinish).max()
    }

    /// The entries `record` (with these occurrences) collides with, at most ten.
    ///
    /// - Throws: ``DiaryError/invalid(_:)`` when a repeating entry's occurrences cannot be
    ///   computed as far as the comparison needs.
    func collisions(of record: TaskRecord, occurrences: [TaskRecord]) throws(DiaryError)
        -> [TaskRecord]
    {
        var found: [TaskRecord] = []
        for occurrence in occurrences {
            let span = TimeSpan(start: occurrence.dateStart, finish: occurrence.dateFinish)
            if let (other, _) = index.firstOverlap(with: span), singles[other].id != record.id {
                found.append(singles[other])
                if found.count >= 10 { break }
            }
        }
        for other in series where other.id != record.id {
            do {
                if try !Expansion.collisions(record, other, limit: 1).isEmpty {
                    found.append(other)
                }
            } catch {
                throw Rules.refusal(of: record, error)
            }
        }
        return found
    }
}

/// A diary's identity: a random UUID, made once when the store is created.
package enum DiaryIdentity {
    package static func make() -> String { "diary-" + UUID().uuidString.lowercased() }
}
