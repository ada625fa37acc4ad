// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import WebDAV
import SystemCrypto
import TaskConversion
import TaskModel

/// A push of calendar objects that can be run again: only what is new or different is sent.
///
/// What the server holds is found out first: the ETag of every object (a `PROPFIND`), and for
/// an object whose ETag is not the one taskcal recorded when it last pushed there, its data
/// (`calendar-multiget`), compared with what would be sent as records (the server may rewrite
/// an object's lines; the records it reads as are what counts, and `DTSTAMP` is no change).
/// An object the same is not sent. One changed on the server since taskcal last pushed it is
/// not overwritten without `force`, and said. A record of what was sent (each object's
/// ETag and a digest of its content) is kept in a state file, saved as the push goes, so a
/// push cut short and run again sends only what is missing.
public struct CalendarPush {
    /// What became of one object.
    public enum Fate: String, Sendable {
        case new, updated, unchanged
        /// Not written: changed on the server since the last push, or refused by it.
        case notWritten = "not-written"
    }

    /// The push's outcome, object by object, in the order given.
    public struct Report: Sendable {
        public var fates: [(uid: String, fate: Fate, reason: String?)] = []
        /// PUT requests sent.
        public var sent = 0

        public func count(_ fate: Fate) -> Int { fates.count { $0.fate == fate } }
    }

    let client: CalDAVClient
    let calendar: CalDAVAddress
    let stateFile: String

    public init(client: CalDAVClient, calendar: CalDAVAddress, stateFile: String) {
        self.client = client
        self.calendar = calendar.asCollection
        self.stateFile = stateFile
    }

    /// Where the record of pushes to `calendar` is kept: `$XDG_STATE_HOME/taskcal` (else
    /// `~/.local/state/taskcal`), under a name made of the calendar's address.
    public static func stateFile(for calendar: CalDAVAddress) -> String {
        let environment = ProcessInfo.processInfo.environment
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        let name = hex(sha256(Array(calendar.asCollection.description.utf8))).prefix(16)
        return state + "/taskcal/caldav-push-\(name).json"
    }

    // MARK: - State

    struct State: Codable {
        var url: String
        /// By object path: what was sent and the ETag the server gave it.
        var objects: [String: Sent] = [:]
    }

    struct Sent: Codable {
        var etag: String?
        /// The object's bytes, `DTSTAMP` aside.
        var digest: String
        /// The records it reads as: what the server's copy is compared with.
        var records: String
    }

    static func sent(_ object: CalendarObject, etag: String?) -> Sent {
        Sent(
            etag: etag, digest: digest(object.bytes),
            records: hex(sha256(Array((records(object.bytes) ?? []).joined(separator: "\n").utf8))))
    }

    func loadState() -> State {
        guard let data = FileManager.default.contents(atPath: stateFile),
            let state = try? JSONDecoder().decode(State.self, from: data),
            state.url == calendar.description
        else { return State(url: calendar.description) }
        return state
    }

    func saveState(_ state: State) throws(CalDAVError) {
        try StateFile.save(state, to: stateFile)
    }

    // MARK: - Comparing

    /// A digest of an object taskcal wrote, its `DTSTAMP` aside (written anew each time).
    static func digest(_ bytes: [UInt8]) -> String {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        where !line.starts(with: Array("DTSTAMP:".utf8)) {
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        return hex(sha256(kept))
    }

    /// Calendar data as the records taskcal reads from it, one JSON line each, sorted (and the
    /// lines each keeps as written, sorted): two objects that read as the same records are the
    /// same, however their lines are written and ordered.
    static func records(_ bytes: [UInt8]) -> [String]? {
        var options = ReadOptions(format: .ics, floatingZone: "UTC")
        options.namespaceOfFile = { _ in "" }
        var lines: [String] = []
        let report = Converter.read(bytes: bytes, name: "object", format: .ics, options: options) {
            record, _ in
            // A server may write the lines it does not know in another order.
            var record = record
            record.icalExtra.sort()
            record.icalComponents.sort()
            for index in record.alarms.indices { record.alarms[index].icalExtra.sort() }
            lines.append(record.jsonLine)
        }
        return report.errors.isEmpty ? lines.sorted() : nil
    }

    // MARK: - Pushing

    /// What to do with one object, once the server's side is known.
    enum Step { case create, update(etag: String?), keep(etag: String?), hold(String) }

    /// Pushes `objects`; with `force`, every one is sent as it is (still only over the ETag
    /// just listed); with `dryRun`, nothing is sent and the report says what would be.
    public func run(_ objects: [CalendarObject], force: Bool, dryRun: Bool)
        throws(CalDAVError) -> Report
    {
        var state = loadState()
        let listed = Dictionary(
            try client.objects(in: calendar).map { ($0.href, $0.etag) },
            uniquingKeysWith: { first, _ in first })
        let steps = try plan(objects, listed: listed, state: state, force: force)
        var report = Report()
        var unsaved = 0
        for (object, step) in zip(objects, steps) {
            let href = path(of: object)
            switch step {
            case .keep(let etag):
                report.fates.append((object.uid, .unchanged, nil))
                if !dryRun && state.objects[href]?.etag != etag {
                    state.objects[href] = Self.sent(object, etag: etag)
                }
            case .hold(let reason):
                report.fates.append((object.uid, .notWritten, reason))
            case .create, .update:
                let known: String??
                if case .update(let etag) = step { known = .some(etag) } else { known = .none }
                let fate: Fate = known == nil ? .new : .updated
                if dryRun {
                    report.fates.append((object.uid, fate, nil))
                    continue
                }
                report.sent += 1
                let result: RemoteWrite
                do throws(CalDAVError) {
                    result = try client.put(
                        object.bytes, at: href, in: calendar,
                        replacing: known.map { $0 ?? "*" })
                } catch {
                    try saveState(state)
                    guard case .http = error else { throw error }
                    report.fates.append((object.uid, .notWritten, error.description))
                    continue
                }
                switch result {
                case .written(let etag):
                    report.fates.append((object.uid, fate, nil))
                    state.objects[href] = Self.sent(object, etag: etag)
                case .changedMeanwhile:
                    report.fates.append(
                        (
                            object.uid, .notWritten,
                            known == nil
                                ? "appeared on the server since it was listed; not overwritten (push again to replace it)"
                                : "changed on the server since it was listed; not overwritten (push again to replace it)"
                        ))
                }
            }
            unsaved += 1
            // Saved as it goes: a push cut short keeps what it learnt.
            if !dryRun && unsaved >= 50 {
                try saveState(state)
                unsaved = 0
            }
        }
        if !dryRun { try saveState(state) }
        return report
    }

    /// The object's path in the calendar.
    func path(of object: CalendarObject) -> String {
        calendar.member(object.uid + ".ics").path
    }

    /// For each object, what to do: what the server holds is compared where the state does
    /// not already say it is what taskcal sent.
    func plan(
        _ objects: [CalendarObject], listed: [String: String?], state: State, force: Bool
    ) throws(CalDAVError) -> [Step] {
        var unknown: [String] = []
        for object in objects where !force {
            let href = path(of: object)
            if let etag = listed[href], !(etag != nil && state.objects[href]?.etag == etag) {
                unknown.append(href)
            }
        }
        let fetched = Dictionary(
            try client.fetch(unknown, in: calendar).map { ($0.href, $0.data) },
            uniquingKeysWith: { first, _ in first })
        return objects.map { object -> Step in
            let href = path(of: object)
            guard let etag = listed[href] else { return .create }
            if force { return .update(etag: etag) }
            let digest = Self.digest(object.bytes)
            if let sent = state.objects[href], etag != nil, sent.etag == etag {
                // As taskcal left it: sent again only if it changed here.
                return sent.digest == digest ? .keep(etag: etag) : .update(etag: etag)
            }
            let theirs = (fetched[href] ?? nil).flatMap(Self.records)
            if let theirs, theirs == Self.records(object.bytes) { return .keep(etag: etag) }
            // Different: taskcal's own last push, changed here since, is replaced; one changed
            // on the server since (or unreadable) is not.
            if let sent = state.objects[href] {
                let unchangedThere =
                    theirs.map { hex(sha256(Array($0.joined(separator: "\n").utf8))) }
                    == sent.records
                return unchangedThere
                    ? .update(etag: etag)
                    : .hold(
                        "changed on the server since the last push; not overwritten (--force replaces it)"
                    )
            }
            return .update(etag: etag)
        }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

#endif
