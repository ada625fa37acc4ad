import Foundation
import ICalendar
import TaskModel

/// What differs between two calendars or task files, by meaning: `taskcal diff OLD NEW` and
/// `convert --verify`.
///
/// Records are matched by UID and recurrence id (an instant, whatever form it was written
/// in); a UID taskcal gave a duplicate (`UID-LINE`) matches the UID it came from; a
/// component that had no UID matches by its start and name. Matched records are compared
/// property by property as ``ComparedRecord`` normalizes them: a time in another zone or in
/// UTC is the same time, `DTEND` or `DURATION` the same end, and folding, the order of
/// properties, parameters and list items, quoting and the case of names are no difference;
/// `DTSTAMP` and `X-LIC-ERROR` are never compared. `strict` compares the form too (the zone a
/// time is written in).
public struct CalendarDiff: Sendable {
    /// A record one side has and the other lacks, or one both have that differs.
    public struct Item: Sendable {
        /// Its UID (`nil` for the calendar's own properties).
        public var uid: String?
        /// Its recurrence id, Unix seconds.
        public var recurrenceID: Int64?
        /// Its name.
        public var name: String
        /// Where it is: in OLD for missing and changed items, in NEW for extra ones.
        public var source: Location
        /// Where the changed record is in NEW.
        public var newSource: Location?
        /// The zone its times are shown in.
        public var zone: String?
        /// What changed (empty for missing and extra items).
        public var changes: [Change] = []
    }

    /// One property that differs.
    public struct Change: Sendable {
        /// The iCalendar property name (`SUMMARY`, `DTSTART`, `X-GOOGLE-CONFERENCE`).
        public var name: String
        /// Its value in OLD (`nil`: absent).
        public var old: FieldValue?
        /// Its value in NEW (`nil`: absent).
        public var new: FieldValue?
    }

    /// In OLD, not in NEW.
    public var missing: [Item] = []
    /// In NEW, not in OLD.
    public var extra: [Item] = []
    /// In both, differing.
    public var changed: [Item] = []
    /// How many records are the same on both sides.
    public var same = 0

    /// True when nothing differs.
    public var isEmpty: Bool { missing.isEmpty && extra.isEmpty && changed.isEmpty }

    /// Compares `old` with `new`; `only` limits the comparison to those properties
    /// (`--expand` compares occurrences by their times, name and status).
    public init(
        old: [ComparedRecord], new: [ComparedRecord], strict: Bool = false,
        only: Set<String>? = nil
    ) {
        var partner = [Int?](repeating: nil, count: old.count)
        var taken = [Bool](repeating: false, count: new.count)
        var byKey: [ComparedRecord.Key: [Int]] = [:]
        for (index, record) in new.enumerated() where record.hasUID {
            byKey[record.key, default: []].append(index)
        }
        /// The first of `candidates` not matched yet.
        func take(_ candidates: [Int]?) -> Int? {
            guard let found = candidates?.first(where: { !taken[$0] }) else { return nil }
            taken[found] = true
            return found
        }
        // By UID and recurrence id.
        for (index, record) in old.enumerated() where record.hasUID {
            partner[index] = take(byKey[record.key])
        }
        // A duplicate taskcal renamed (`UID-LINE`) against the UID it came from, either way.
        var unmatchedOld: [ComparedRecord.Key: [Int]] = [:]
        for (index, record) in old.enumerated() where partner[index] == nil && record.hasUID {
            unmatchedOld[record.key, default: []].append(index)
        }
        for (index, record) in new.enumerated() where !taken[index] && record.hasUID {
            guard let base = Self.renamedFrom(record.uid),
                let match = unmatchedOld[
                    ComparedRecord.Key(uid: base, recurrenceID: record.recurrenceID)]?.first(
                        where: { partner[$0] == nil })
            else { continue }
            partner[match] = index
            taken[index] = true
        }
        var unmatchedNew: [ComparedRecord.Key: [Int]] = [:]
        for (index, record) in new.enumerated() where !taken[index] && record.hasUID {
            unmatchedNew[record.key, default: []].append(index)
        }
        for (index, record) in old.enumerated() where partner[index] == nil && record.hasUID {
            guard let base = Self.renamedFrom(record.uid) else { continue }
            partner[index] = take(
                unmatchedNew[ComparedRecord.Key(uid: base, recurrenceID: record.recurrenceID)])
        }
        // Two duplicates taskcal renamed, each after its own line (`UID-17`, `UID-19`: the
        // lines moved), by the UID they came from, in order.
        var renamedNew: [ComparedRecord.Key: [Int]] = [:]
        for (index, record) in new.enumerated() where !taken[index] && record.hasUID {
            guard let base = Self.renamedFrom(record.uid) else { continue }
            renamedNew[
                ComparedRecord.Key(uid: base, recurrenceID: record.recurrenceID), default: []
            ]
            .append(index)
        }
        for (index, record) in old.enumerated() where partner[index] == nil && record.hasUID {
            guard let base = Self.renamedFrom(record.uid) else { continue }
            partner[index] = take(
                renamedNew[ComparedRecord.Key(uid: base, recurrenceID: record.recurrenceID)])
        }
        // Components without a UID, by start and name, against whatever is left.
        struct Loose: Hashable {
            var start: Int64
            var name: String
        }
        var loose: [Loose: [Int]] = [:]
        for (index, record) in new.enumerated() where !taken[index] {
            loose[Loose(start: record.start, name: record.name), default: []].append(index)
        }
        for (index, record) in old.enumerated() where partner[index] == nil && !record.hasUID {
            partner[index] = take(loose[Loose(start: record.start, name: record.name)])
        }
        var looseOld: [Loose: [Int]] = [:]
        for (index, record) in old.enumerated() where partner[index] == nil {
            looseOld[Loose(start: record.start, name: record.name), default: []].append(index)
        }
        for (index, record) in new.enumerated() where !taken[index] && !record.hasUID {
            guard
                let match = looseOld[Loose(start: record.start, name: record.name)]?.first(
                    where: { partner[$0] == nil })
            else { continue }
            partner[match] = index
            taken[index] = true
        }

        for (index, record) in old.enumerated() {
            guard let other = partner[index] else {
                missing.append(Self.item(record))
                continue
            }
            let changes = Self.changes(record, new[other], strict: strict, only: only)
            if changes.isEmpty {
                same += 1
            } else {
                var item = Self.item(record)
                item.newSource = new[other].source
                item.zone = new[other].zone ?? record.zone
                item.changes = changes
                changed.append(item)
            }
        }
        for (index, record) in new.enumerated() where !taken[index] {
            extra.append(Self.item(record))
        }
    }

    static func item(_ record: ComparedRecord) -> Item {
        Item(
            uid: record.hasUID ? record.uid : nil, recurrenceID: record.recurrenceID,
            name: record.name, source: record.source, zone: record.zone)
    }

    /// The UID `uid` was renamed from when taskcal kept a duplicate (`UID-LINE`).
    static func renamedFrom(_ uid: String) -> String? {
        guard let dash = uid.lastIndex(of: "-"), dash > uid.startIndex else { return nil }
        let number = uid[uid.index(after: dash)...]
        guard !number.isEmpty, number.count <= 9, number.allSatisfy(\.isASCII),
            number.allSatisfy(\.isNumber)
        else { return nil }
        return String(uid[..<dash])
    }

    /// The order differences are listed in: what a record is, its name and times first, the
    /// rest by name.
    static func propertyOrder(_ a: String, _ b: String) -> Bool {
        let first = ["COMPONENT", "SUMMARY", "DTSTART", "DTEND", "DUE", "RRULE", "RDATE", "EXDATE"]
        let rank = { (name: String) in first.firstIndex(of: name) ?? first.count }
        return (rank(a), a) < (rank(b), b)
    }

    /// The properties that differ between `old` and `new`, in ``propertyOrder(_:_:)``.
    static func changes(
        _ old: ComparedRecord, _ new: ComparedRecord, strict: Bool, only: Set<String>?
    ) -> [Change] {
        if old.isIdentical(to: new) { return [] }
        var changes: [Change] = []
        func compare(_ left: [String: FieldValue], _ right: [String: FieldValue]) {
            for name in Set(left.keys).union(right.keys).sorted(by: Self.propertyOrder) {
                if let only, !only.contains(name) { continue }
                let a = left[name]
                let b = right[name]
                if a?.items != b?.items || a?.isDate != b?.isDate {
                    changes.append(Change(name: name, old: a, new: b))
                }
            }
        }
        compare(old.fields, new.fields)
        if strict { compare(old.form, new.form) }
        return changes
    }
}

// MARK: - The calendar's own data

extension CalendarDiff {
    /// Adds what differs in the calendars' own data: their properties (a name, `METHOD`,
    /// `X-WR-TIMEZONE`; not `VERSION`, `PRODID`, `CALSCALE`, which every writer writes its
    /// own) as one changed item without a UID, and the components each kept as written but
    /// zones (an event without `DTSTART`, a superseded revision) as missing or extra items.
    /// Zones are form: the times that use them are compared.
    public mutating func compareCalendars(
        _ old: CalendarInfo, at oldPlace: Location, _ new: CalendarInfo, at newPlace: Location
    ) {
        func properties(_ calendar: CalendarInfo) -> [String: FieldValue] {
            var lines: [String: [String]] = [:]
            for line in calendar.icalExtra {
                guard let lexed = try? ContentLine(parsing: line),
                    !["VERSION", "PRODID", "CALSCALE"].contains(lexed.name),
                    !ComparedRecord.ignoredLines.contains(lexed.name)
                else { continue }
                lines[lexed.name, default: []].append(ComparedRecord.normalized(lexed))
            }
            return lines.mapValues { FieldValue(unordered: $0) }
        }
        let oldProperties = properties(old)
        let newProperties = properties(new)
        var changes: [Change] = []
        for name in Set(oldProperties.keys).union(newProperties.keys).sorted()
        where oldProperties[name]?.items != newProperties[name]?.items {
            changes.append(Change(name: name, old: oldProperties[name], new: newProperties[name]))
        }
        if !changes.isEmpty {
            changed.append(
                Item(
                    uid: nil, recurrenceID: nil, name: new.name ?? old.name ?? "(the calendar)",
                    source: oldPlace, newSource: newPlace, zone: nil, changes: changes))
        }
        // Components kept as written, matched by UID and RECURRENCE-ID as written, in order,
        // and compared line by line; zones are left out.
        let before = Self.kept(old, at: oldPlace)
        let after = Self.kept(new, at: newPlace)
        var unmatched: [String: [Int]] = [:]
        for (index, component) in after.enumerated() {
            unmatched[component.uid, default: []].append(index)
        }
        var matched = Set<Int>()
        for component in before {
            guard let index = unmatched[component.uid]?.first(where: { !matched.contains($0) })
            else {
                missing.append(component.item)
                continue
            }
            matched.insert(index)
            let changes = Self.changes(
                component.record, after[index].record, strict: false, only: nil)
            if changes.isEmpty {
                same += 1
            } else {
                var item = component.item
                item.newSource = after[index].item.source
                item.changes = changes
                changed.append(item)
            }
        }
        for (index, component) in after.enumerated() where !matched.contains(index) {
            extra.append(component.item)
        }
    }

    /// The components of `calendar` kept as written but zones, each as a record of its
    /// property lines (normalized, by name; a subcomponent as its normalized text).
    static func kept(_ calendar: CalendarInfo, at place: Location)
        -> [(uid: String, item: Item, record: ComparedRecord)]
    {
        calendar.icalComponents.compactMap { raw in
            guard ComparedRecord.normalizedComponent(raw).name != "VTIMEZONE" else { return nil }
            let item = keptItem(raw, at: place)
            var fields: [String: [String]] = [:]
            var depth = 0
            var inner: [String] = []
            let unfolded = raw.replacingOccurrences(of: "\r\n ", with: "")
                .replacingOccurrences(of: "\r\n\t", with: "")
            for text in unfolded.split(whereSeparator: \.isNewline) {
                guard let line = try? ContentLine(parsing: String(text)) else { continue }
                if line.name == "BEGIN" { depth += 1 }
                if depth >= 2 { inner.append(String(text)) }
                if line.name == "END" {
                    depth -= 1
                    if depth == 1, !inner.isEmpty {
                        let (name, normalized) = ComparedRecord.normalizedComponent(
                            inner.joined(separator: "\r\n"))
                        fields[name, default: []].append(normalized)
                        inner.removeAll()
                    }
                    continue
                }
                guard depth == 1, line.name != "BEGIN",
                    !ComparedRecord.ignoredLines.contains(line.name)
                else { continue }
                fields[line.name, default: []].append(ComparedRecord.normalized(line))
            }
            var record = ComparedRecord(
                TaskRecord(id: 0, dateStart: 0, dateFinish: 0, name: item.name),
                source: place, scheme: UIDScheme())
            record.fields = fields.mapValues { FieldValue(unordered: $0) }
            record.form = [:]
            let recurrence = fields["RECURRENCE-ID"]?.first ?? ""
            return ((item.uid ?? "") + "\u{0}" + recurrence, item, record)
        }
    }

    /// A component kept as written, as an item: its UID and `SUMMARY` read from its lines.
    static func keptItem(_ raw: String, at place: Location) -> Item {
        var uid: String?
        var name = "(kept as written)"
        for line in raw.replacingOccurrences(of: "\r\n ", with: "").split(separator: "\r\n") {
            if uid == nil, line.uppercased().hasPrefix("UID:") { uid = String(line.dropFirst(4)) }
            if line.uppercased().hasPrefix("SUMMARY"), let colon = line.firstIndex(of: ":") {
                name = ContentLine.unescapedText(String(line[line.index(after: colon)...]))
            }
        }
        return Item(uid: uid, recurrenceID: nil, name: name, source: place, zone: nil)
    }
}
