// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Diary
import Foundation
import WebDAV
import SystemCrypto
import TaskConversion
import TaskModel

extension DiarySync {
    // MARK: - Reading the server

    /// The entries the server changed since the state's token (every entry when there is
    /// none): each with its records (`nil` when it is gone), and the token to keep.
    func remoteUnits(state: State) throws(CalDAVError) -> (
        touched: [String: Unit?], token: String?
    ) {
        // Where each known object is.
        var owner: [String: (unit: String, member: String)] = [:]
        for (unit, entry) in state.units {
            for (member, object) in entry.members { owner[object.href] = (unit, member) }
        }
        var listing: [RemoteObject]
        var removed: [String] = []
        var token: String?
        if let changes = try client.changes(in: calendar, since: state.token) {
            token = changes.token
            listing = changes.changed
            removed = changes.removed
            if changes.complete {
                let present = Set(listing.map(\.href))
                removed = owner.keys.filter { !present.contains($0) }
            }
        } else {
            listing = try client.objects(in: calendar)
            let present = Set(listing.map(\.href))
            removed = owner.keys.filter { !present.contains($0) }
        }
        // What changed: objects not known, or with another ETag than agreed.
        var touchedUnits: Set<String> = []
        var fetch: Set<String> = []
        for object in listing {
            if let (unit, member) = owner[object.href] {
                let agreed = state.units[unit]?.members[member]?.etag
                if agreed == nil || agreed != object.etag {
                    touchedUnits.insert(unit)
                    fetch.insert(object.href)
                }
            } else {
                fetch.insert(object.href)
            }
        }
        for href in removed { if let (unit, _) = owner[href] { touchedUnits.insert(unit) } }
        // A unit touched is read whole: all its objects that are still there.
        let gone = Set(removed)
        for unit in touchedUnits {
            for object in state.units[unit]?.members.values.map(\.href) ?? []
            where !gone.contains(object) {
                fetch.insert(object)
            }
        }
        var fetched = try client.fetch(fetch.sorted(), in: calendar)
        // A new subtask of an entry not read yet brings its entry along.
        let firstRead = try units(from: fetched)
        var more: Set<String> = []
        for unit in firstRead.values {
            for parent in unit.records.flatMap(Self.parentUIDs) {
                if let entry = state.units[parent], firstRead[parent] == nil {
                    touchedUnits.insert(parent)
                    more.formUnion(
                        entry.members.values.map(\.href).filter {
                            !fetch.contains($0) && !gone.contains($0)
                        })
                }
            }
        }
        if !more.isEmpty { fetched += try client.fetch(more.sorted(), in: calendar) }
        let read = more.isEmpty ? firstRead : try units(from: fetched)
        var touched: [String: Unit?] = [:]
        for (key, unit) in read { touched[key] = unit }
        for unit in touchedUnits where touched[unit] == nil {
            // Every object of it is gone.
            touched[unit] = .some(nil)
        }
        return (touched, token)
    }

    /// The parents a record's leftover `RELATED-TO` lines name (a subtask whose to-do was not
    /// read with it).
    static func parentUIDs(_ record: TaskRecord) -> [String] {
        record.icalExtra.compactMap { line in
            guard line.uppercased().hasPrefix("RELATED-TO"), let colon = line.lastIndex(of: ":")
            else { return nil }
            return String(line[line.index(after: colon)...])
        }
    }

    /// Objects read into entries, each with its objects' addresses and ETags.
    func units(from objects: [RemoteObject]) throws(CalDAVError) -> [String: Unit] {
        var memberOf: [String: State.Member] = [:]
        var datas: [[UInt8]] = []
        for object in objects {
            guard let data = object.data else { continue }
            guard let uid = try? CalendarObjects.split(data, name: object.href).first?.uid else {
                continue
            }
            memberOf[uid] = State.Member(href: object.href, etag: object.etag)
            datas.append(data)
        }
        let groups = try read(CalendarObjects.joined(datas))
        var units: [String: Unit] = [:]
        for (_, records) in groups {
            let sorted = records.sorted {
                ($0.recurrenceID ?? Int64.min) < ($1.recurrenceID ?? Int64.min)
            }
            guard let first = sorted.first else { continue }
            var unit = Unit(uid: uid(first), id: first.id, records: sorted, digest: digest(sorted))
            for member in memberUIDs(first) { unit.members[member] = memberOf[member] }
            units[unit.uid] = unit
        }
        return units
    }
}

#endif
