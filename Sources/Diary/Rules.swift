import Foundation
import ICalendar
import TaskConversion
import TaskModel

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
