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
