// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Diary
import Foundation
import WebDAV
import SystemCrypto
import TaskConversion
import TaskModel

/// What decides a conflict (an entry changed on both sides since the last sync).
public enum SyncPreference: String, Sendable, CaseIterable {
    /// The diary's version goes to the server.
    case local
    /// The server's version comes into the diary.
    case remote
}

/// One thing a sync did, or would do, or could not do.
public struct SyncChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Sent to the server: new there, or changed here.
        case pushed
        /// Deleted on the server, since it was deleted here.
        case deletedThere = "deleted-there"
        /// Taken from the server: new there, or changed there.
        case pulled
        /// Deleted here, since it was deleted on the server.
        case deletedHere = "deleted-here"
        /// Changed on both sides since the last sync, left as it is on each.
        case conflict
        /// Not done: the server's entry would overlap one in the diary, or the server
        /// refused the write.
        case refused
    }

    public var kind: Kind
    /// The entry's UID.
    public var uid: String
    /// The diary's id of the entry, when it has one.
    public var id: Int64?
    /// The entry's name as it is after the change (a pulled entry's, the server's).
    public var name: String
    /// Its name before, when the change renamed it.
    public var previousName: String?
    /// Why, or what more there is to say.
    public var detail: String

    public init(
        kind: Kind, uid: String, id: Int64?, name: String, previousName: String? = nil,
        detail: String
    ) {
        self.kind = kind
        self.uid = uid
        self.id = id
        self.name = name
        self.previousName = previousName
        self.detail = detail
    }
}

/// What a sync did.
public struct SyncReport: Sendable {
    public var changes: [SyncChange] = []
    /// What stopped it before the end (the server went away): what was done is kept, and
    /// the next sync goes on from there.
    public var stopped: CalDAVError?
    /// Entries the same on both sides, untouched.
    public var unchanged = 0
}

/// Two-way sync of a diary with a CalDAV calendar.
///
/// The unit is a diary entry: its records (a repeating entry with its changed occurrences)
/// and its subtasks, which the server keeps as objects of their own (one UID each). What was
/// agreed at the last sync is kept in a state file beside the diary (per calendar): for each
/// entry, a digest of its records and the address and ETag of each of its objects, and the
/// calendar's RFC 6578 sync token.
///
/// A sync reads first (the server's changes since the token, or every ETag when the server
/// has no `sync-collection`; the objects that changed), then writes: the server's changes
/// into the diary, each an atomic write that the diary checks like any other (an entry that
/// would overlap is reported, never merged over the one in the way), then the diary's changes
/// to the server, each conditional on the ETag last seen. After each step the state is saved,
/// so a sync cut short (the server gone) loses nothing, and the next one finishes. An entry
/// changed on both sides is a conflict: kept as it is on each side and reported, unless a
/// ``SyncPreference`` decides. A server that cannot be reached changes nothing.
public final class DiarySync {
    let diary: any DiaryStore
    let client: CalDAVClient
    let calendar: CalDAVAddress
    let stateFile: String

    public init(
        diary: any DiaryStore, client: CalDAVClient, calendar: CalDAVAddress, stateFile: String
    ) {
        self.diary = diary
        self.client = client
        self.calendar = calendar.asCollection
        self.stateFile = stateFile
    }

    // MARK: - State

    struct State: Codable {
        var url: String
        var token: String?
        var units: [String: Unit] = [:]

        struct Unit: Codable, Equatable {
            /// The digest of the entry's records as both sides had them.
            var digest: String
            /// Its objects on the server, by UID.
            var members: [String: Member]
        }

        struct Member: Codable, Equatable {
            var href: String
            var etag: String?
        }

        enum CodingKeys: String, CodingKey {
            case url, token, units
        }
    }

    func loadState() throws(CalDAVError) -> State {
        guard let data = FileManager.default.contents(atPath: stateFile) else {
            return State(url: calendar.description)
        }
        guard let state = try? JSONDecoder().decode(State.self, from: data) else {
            throw .local(
                "\(stateFile), what the last sync agreed, is damaged; move it away to start over (the next sync then compares every entry)"
            )
        }
        return state
    }

    func saveState(_ state: State) throws(CalDAVError) {
        try StateFile.save(state, to: stateFile)
    }

    // MARK: - The two sides

    /// An entry as one side has it: its records, their digest, its objects by UID.
    struct Unit {
        var uid: String
        /// The diary's id (the local side), or the id the records were read with.
        var id: Int64
        var records: [TaskRecord]
        var digest: String
        var objects: [String: [UInt8]] = [:]
        /// On the server: each object's address and ETag.
        var members: [String: State.Member] = [:]

        var name: String { records.first?.name ?? uid }
    }

    /// The UID of `record` (its own, or the one the diary derives from its id).
    func uid(_ record: TaskRecord) -> String {
        record.uid ?? diary.uidScheme.uid(for: record.id)
    }

    /// The UIDs of `record` and its subtasks: the objects the server keeps of it.
    func memberUIDs(_ record: TaskRecord) -> [String] {
        [uid(record)] + record.subtasks.flatMap(memberUIDs)
    }

    /// The records as the other side compares them: read from their calendar data with the
    /// diary's UIDs, without ids, each with its UID, the entry first.
    func digest(_ records: [TaskRecord]) -> String {
        func normal(_ record: TaskRecord) -> TaskRecord {
            var record = record
            record.uid = uid(record)
            record.id = 0
            record.subtasks = record.subtasks.map(normal)
            return record
        }
        let text = records.map(normal).sorted {
            ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
        }.map(\.jsonLine).joined(separator: "\n")
        return sha256(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads calendar data into entries (records grouped by UID, subtasks nested), as this
    /// diary reads them.
    func read(_ bytes: [UInt8]) throws(CalDAVError) -> [String: [TaskRecord]] {
        var options = ReadOptions(format: .ics, uidScheme: diary.uidScheme, floatingZone: "UTC")
        options.namespaceOfFile = { [scheme = diary.uidScheme] _ in scheme.namespace ?? "" }
        var groups: [String: [TaskRecord]] = [:]
        let report = Converter.read(
            bytes: bytes, name: calendar.description, format: .ics, options: options
        ) { record, _ in groups[uid(record), default: []].append(record) }
        if let error = report.errors.first {
            throw .protocolError("the calendar data cannot be read: \(error)")
        }
        return groups
    }

    /// The diary's entries as units: rendered as the server would keep them, read back for
    /// their digests.
    func localUnits() throws(CalDAVError) -> [String: Unit] {
        let entries: [TaskRecord]
        do { entries = try diary.allEntries() } catch { throw .local(error.description) }
        var groups: [Int64: [TaskRecord]] = [:]
        var order: [Int64] = []
        for record in entries {
            if groups[record.id] == nil { order.append(record.id) }
            var record = record
            if record.uid == nil { record.uid = uid(record) }
            groups[record.id, default: []].append(record)
        }
        let all = order.flatMap { groups[$0]! }
        let bytes = try render(all)
        let objects: [CalendarObject]
        do {
            objects = try CalendarObjects.split(bytes, name: "the diary")
        } catch { throw .local(error.description) }
        let byUID = Dictionary(objects.map { ($0.uid, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        let readBack = try read(bytes)
        var units: [String: Unit] = [:]
        for id in order {
            let records = groups[id]!.sorted {
                ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
            }
            guard let first = records.first else { continue }
            var unit = Unit(
                uid: uid(first), id: id, records: records,
                digest: digest(readBack[uid(first)] ?? records))
            for member in memberUIDs(first) { unit.objects[member] = byUID[member] }
            units[unit.uid] = unit
        }
        return units
    }

    /// `records` as .ics bytes, through the converter (a private temporary file).
    func render(_ records: [TaskRecord]) throws(CalDAVError) -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-sync-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch { throw .local("cannot make a temporary folder: \(error.localizedDescription)") }
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("entries.ics").path
        var options = WriteOptions(format: .ics, uidScheme: diary.uidScheme)
        options.uidNamespace = diary.uidScheme.namespace
        options.disabledAlarmsAsActionNone = true
        let report = Converter.write(records, to: path, options: options)
        if let error = report.errors.first {
            throw .local("the diary cannot be written as .ics: \(error)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .local("the diary cannot be written as .ics")
        }
        return Array(data)
    }

    // MARK: - Sync

    /// Syncs once; with `dryRun`, says what it would do and does nothing.
    ///
    /// - Throws: ``CalDAVError`` when nothing could be done (the server cannot be reached,
    ///   the state is damaged); a sync that stops midway returns its report with
    ///   ``SyncReport/stopped`` set.
    public func run(prefer: SyncPreference? = nil, dryRun: Bool = false) throws(CalDAVError)
        -> SyncReport
    {
        var state = try loadState()
        var report = SyncReport()
        // Read the server first: when it cannot be reached, nothing has changed.
        let remote = try remoteUnits(state: state)
        let local = try localUnits()
        var newToken = remote.token

        // In the order of the entries' starts (to-dos without one first), then of UIDs.
        func start(_ key: String) -> Int64 {
            (local[key] ?? remote.touched[key] ?? nil)?.records.first?.dateStart ?? Int64.min
        }
        let keys = Set(local.keys).union(state.units.keys).union(remote.touched.keys).sorted {
            (start($0), $0) < (start($1), $1)
        }
        entries: for key in keys {
            let mine = local[key]
            let known = state.units[key]
            let theirs = remote.touched[key]  // nil: untouched; .some(nil): deleted there
            let localChanged = known == nil ? mine != nil : mine?.digest != known?.digest
            let remoteChanged: Bool
            switch theirs {
            case nil: remoteChanged = false
            case .some(nil): remoteChanged = known != nil
            case .some(let unit?): remoteChanged = unit.digest != known?.digest
            }
            var action: Action
            switch (localChanged, remoteChanged) {
            case (false, false):
                action = .none
            case (true, false):
                action = .push
            case (false, true):
                action = .pull
            case (true, true):
                // The same on both sides (both deleted, too): nothing to do but remember it.
                if mine?.digest == theirs??.digest {
                    action = .agree
                } else {
                    switch prefer {
                    case .local: action = .push
                    case .remote: action = .pull
                    case nil: action = .conflict
                    }
                }
            }
            if case .some(nil) = theirs, mine == nil, known == nil { action = .none }
            let name = mine?.name ?? theirs??.name ?? key
            do {
                try apply(
                    action, key: key, mine: mine, known: known, theirs: theirs ?? nil,
                    remoteKnown: theirs != nil, name: name, state: &state, report: &report,
                    dryRun: dryRun)
            } catch {
                report.stopped = error
                newToken = nil
                break entries
            }
            if !dryRun { try saveState(state) }
        }
        // What is left unsettled (a conflict, a refusal) must be seen again next time: the
        // token moves on only when everything the server said was settled.
        let unsettled = report.changes.contains { $0.kind == .conflict || $0.kind == .refused }
        if report.stopped == nil && !dryRun {
            if let newToken, !unsettled { state.token = newToken }
            state.url = calendar.description
            try saveState(state)
        }
        return report
    }

    enum Action { case none, push, pull, agree, conflict }

    /// What a push or a pull did, for the report.
    struct Outcome {
        var kind: SyncChange.Kind
        var detail: String
        /// The entry's id, when it got one here.
        var id: Int64?

        init(_ kind: SyncChange.Kind, _ detail: String, _ id: Int64? = nil) {
            self.kind = kind
            self.detail = detail
            self.id = id
        }
    }

    func apply(
        _ action: Action, key: String, mine: Unit?, known: State.Unit?, theirs: Unit?,
        remoteKnown: Bool, name: String, state: inout State, report: inout SyncReport,
        dryRun: Bool
    ) throws(CalDAVError) {
        func change(_ kind: SyncChange.Kind, _ detail: String, _ id: Int64? = nil) {
            // A pulled entry is now the server's: named as it is, and as it was if renamed.
            var now = name
            var before: String?
            if kind == .pulled, let theirs {
                now = theirs.name
                if let mine, mine.name != theirs.name { before = mine.name }
            }
            report.changes.append(
                SyncChange(
                    kind: kind, uid: key, id: id ?? mine?.id, name: now, previousName: before,
                    detail: detail))
        }
        switch action {
        case .none:
            // The same content; the server may have given it a new ETag.
            if var known, let theirs {
                known.members = theirs.members
                state.units[key] = known
            }
            if mine != nil || theirs != nil { report.unchanged += 1 }
        case .agree:
            if let mine, let theirs {
                state.units[key] = State.Unit(digest: mine.digest, members: theirs.members)
            } else {
                state.units[key] = nil
            }
            report.unchanged += 1
        case .conflict:
            let what =
                mine == nil
                ? "deleted here and changed on the server"
                : theirs == nil && remoteKnown
                    ? "changed here and deleted on the server"
                    : known == nil
                        ? "different here and on the server"
                        : "changed here and on the server"
            change(
                .conflict,
                "\(what) since the last sync; both kept as they are (--prefer local or --prefer remote decides)"
            )
        case .push, .pull:
            let outcome =
                action == .push
                ? try push(
                    key: key, mine: mine, known: known, theirs: theirs, remoteKnown: remoteKnown,
                    state: &state, dryRun: dryRun)
                : try pull(
                    key: key, mine: mine, known: known, theirs: theirs, state: &state,
                    dryRun: dryRun)
            if let outcome { change(outcome.kind, outcome.detail, outcome.id) }
        }
    }

    /// Sends the diary's version of an entry (or its deletion) to the server.
    func push(
        key: String, mine: Unit?, known: State.Unit?, theirs: Unit?, remoteKnown: Bool,
        state: inout State, dryRun: Bool
    ) throws(CalDAVError) -> Outcome? {
        // What the server has of it: as just read (nothing when it is gone there), else as
        // last agreed.
        let current = remoteKnown ? theirs?.members ?? [:] : known?.members ?? [:]
        guard let mine else {
            if dryRun { return Outcome(.deletedThere, "deleted here") }
            var left = current
            for (member, object) in current.sorted(by: { $0.key < $1.key }) {
                switch try client.delete(object.href, in: calendar, etag: object.etag) {
                case .written: left[member] = nil
                case .changedMeanwhile:
                    state.units[key]?.members = left
                    return Outcome(
                        .refused, "changed on the server while it was deleted here; kept there")
                }
            }
            state.units[key] = nil
            return Outcome(.deletedThere, "deleted here")
        }
        if dryRun { return Outcome(.pushed, known == nil ? "new here" : "changed here") }
        var members: [String: State.Member] = [:]
        for (member, bytes) in mine.objects.sorted(by: { $0.key < $1.key }) {
            let href = current[member]?.href ?? calendar.member(member + ".ics").path
            let etag = current[member].map { $0.etag ?? "*" }
            switch try client.put(bytes, at: href, in: calendar, replacing: etag) {
            case .written(let new):
                members[member] = State.Member(href: href, etag: new)
            case .changedMeanwhile:
                return Outcome(
                    .refused,
                    "changed on the server while it was sent; not overwritten (the next sync compares again)"
                )
            }
        }
        // Subtasks deleted here go there too.
        for (member, object) in current where mine.objects[member] == nil {
            if case .changedMeanwhile = try client.delete(
                object.href, in: calendar, etag: object.etag)
            {
                members[member] = object
            }
        }
        state.units[key] = State.Unit(digest: mine.digest, members: members)
        return Outcome(.pushed, known == nil ? "new here" : "changed here")
    }

    /// Takes the server's version of an entry (or its deletion) into the diary.
    func pull(
        key: String, mine: Unit?, known: State.Unit?, theirs: Unit?, state: inout State,
        dryRun: Bool
    ) throws(CalDAVError) -> Outcome? {
        guard let theirs else {
            guard let mine else {
                state.units[key] = nil
                return nil
            }
            if dryRun { return Outcome(.deletedHere, "deleted on the server") }
            do {
                try diary.delete(mine.id)
            } catch {
                return Outcome(.refused, "deleted on the server, but not here: \(error)")
            }
            state.units[key] = nil
            return Outcome(.deletedHere, "deleted on the server")
        }
        if dryRun {
            return Outcome(.pulled, mine == nil ? "new on the server" : "changed on the server")
        }
        // Each record keeps its UID whatever id it gets; subtasks keep the ids they have
        // here, and new ones get fresh ids from the diary.
        var localIDs: [String: Int64] = [:]
        func collect(_ record: TaskRecord) {
            localIDs[uid(record)] = record.id
            record.subtasks.forEach(collect)
        }
        mine?.records.forEach(collect)
        func prepared(_ record: TaskRecord, id: Int64?) -> TaskRecord {
            var record = record
            record.uid = uid(record)
            record.id = id ?? localIDs[record.uid!] ?? 0
            record.subtasks = record.subtasks.map { prepared($0, id: nil) }
            return record
        }
        var id = mine?.id
        do {
            if let mine {
                try diary.replace(mine.id, with: theirs.records.map { prepared($0, id: mine.id) })
            } else {
                id = try diary.importRecords(
                    theirs.records.map {
                        IncomingRecord(prepared($0, id: $0.id), source: calendar.description)
                    }, skipConflicts: false, newIDs: true
                ).imported.first
            }
        } catch {
            return Outcome(.refused, "from the server, not taken: \(Self.reason(error))")
        }
        state.units[key] = State.Unit(digest: theirs.digest, members: theirs.members)
        return Outcome(.pulled, mine == nil ? "new on the server" : "changed on the server", id)
    }

    /// A diary's refusal in one line.
    static func reason(_ error: DiaryError) -> String {
        switch error {
        case .importRefused(let problems):
            problems.map(\.message).joined(separator: "; ")
        case .conflict(_, let others):
            "it would overlap \(others.map { DiaryError.describe($0) }.joined(separator: " and "))"
        default: error.description
        }
    }

}

#endif
