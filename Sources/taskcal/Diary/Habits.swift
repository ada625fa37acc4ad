import ArgumentParser
import Diary
import Foundation
import Reports
import TaskConversion
import TaskModel

/// Habits as the tracker kept them: each occurrence is done or not, on its day.
///
/// A done occurrence is a changed occurrence (`RECURRENCE-ID`) of the habit with the same
/// times, marked done: a to-do's with `STATUS:COMPLETED` and `COMPLETED`, as Thunderbird and
/// jtx Board mark an occurrence of a repeating to-do; an event's with an
/// `X-TASKCAL-COMPLETED` line, since RFC 5545 has no done event. Both travel in .ics, through
/// `diary export`/`import` and CalDAV.
enum Habits {
    /// The days (in `time`) on which occurrences of entry `id` among `records` were done.
    static func doneDays(of id: Int64, in records: [TaskRecord], time: LocalTime) -> Set<
        LocalTime.Day
    > {
        Set(
            records.filter { $0.id == id && $0.done }.map {
                time.day(of: $0.recurrenceID ?? $0.dateStart)
            })
    }

    /// "done 1 day", "done 4 days".
    static func doneCount(_ days: Int) -> String {
        tr("done %@ day%@", days, days == 1 ? "" : "s")
    }

    /// Marks the day `text` (default: today) of habit `located` done or not, and says how
    /// many days it has been done.
    static func mark(_ located: Located, on text: String?, done: Bool, options: StoreOptions)
        throws
    {
        let (store, entry, _, _) = located.parts
        let time = options.time
        let today = time.day(of: Int64(Date().timeIntervalSince1970))
        let dayText = text ?? today.description
        if let day = dayWord(dayText, time: time), day > today {
            throw ValidationError(
                "--on \(dayText): that day has not come yet (today is \(today) in \(time.zone))")
        }
        var occurrence = try options.occurrence(dayText, of: entry, in: store, option: "--on")
        let instant = occurrence.recurrenceID ?? occurrence.dateStart
        let day = time.day(of: instant)
        guard occurrence.done != done else {
            if done {
                return Console.say("\(Todos.describe(entry)) was done on \(day) already")
            }
            Console.error("\(Todos.describe(entry)) is not done on \(day)")
            throw ExitCode(1)
        }
        Todos.mark(&occurrence, done: done, stamp: EventWriter.timestampFromEnvironment())
        if !done, let original = options.original(of: entry, in: instant..<instant + 1),
            isBare(occurrence, original: original)
        {
            // Nothing left to keep: the occurrence is the rule's again.
            // The entry's other records, under one UID: they go back in as one entry.
            let uid = entry.uid ?? store.uidScheme.uid(for: entry.id)
            let others = try options.run { () throws(DiaryError) in try store.allEntries() }
                .filter { $0.id == entry.id && $0.recurrenceID != occurrence.recurrenceID }
                .map { record in
                    var record = record
                    record.uid = record.uid ?? uid
                    return record
                }
            try options.run { () throws(DiaryError) in try store.replace(entry.id, with: others) }
        } else {
            try options.run { () throws(DiaryError) in try store.update(occurrence) }
        }
        let records = try options.run { () throws(DiaryError) in try store.allEntries() }
        let count = doneCount(doneDays(of: entry.id, in: records, time: time).count)
        Console.say(
            done
                ? "\(Todos.describe(entry)) is done on \(day) (\(count))"
                : "\(Todos.describe(entry)) is no longer done on \(day) (\(count))")
    }

    /// Marks entry `located` (no habit, no to-do) done once, or not.
    static func markOnce(_ located: Located, done: Bool, options: StoreOptions) throws {
        var record = located.record
        guard record.done != done else {
            return Console.say("\(Todos.describe(record)) was done already")
        }
        Todos.mark(&record, done: done, stamp: EventWriter.timestampFromEnvironment())
        try options.run { () throws(DiaryError) in try located.store.update(record) }
        Console.say(
            done
                ? "\(Todos.describe(record)) is done" : "\(Todos.describe(record)) is open again")
    }

    /// Refuses --on for what is done once.
    static func refuseDay(_ on: String?, for record: TaskRecord) throws {
        guard on != nil else { return }
        throw ValidationError(
            "--on: \(Todos.describe(record)) does not repeat; it is done once (leave out --on)")
    }

    /// Whether `change` says nothing its `original` occurrence does not, but that it was
    /// done: then undoing it leaves no change to keep.
    static func isBare(_ change: TaskRecord, original: TaskRecord) -> Bool {
        func plain(_ record: TaskRecord) -> String {
            var copy = record
            copy.recurrence = nil
            copy.recurrenceID = nil
            copy.done = false
            copy.status = copy.status == .needsAction ? nil : copy.status
            copy.icalExtra.removeAll {
                let upper = $0.uppercased()
                return upper.hasPrefix("COMPLETED") || upper.hasPrefix("X-TASKCAL-COMPLETED")
            }
            return copy.jsonLine
        }
        return plain(change) == plain(original)
    }
}

extension StoreOptions {
    /// The occurrence `text` (a day, YYYY-MM-DD in --tz, or a time) names among the records
    /// of habit `entry`: a change made before (by its original or its present time), else
    /// the one the rule gives, as a changed occurrence to be.
    func occurrence(
        _ text: String, of entry: TaskRecord, in store: any DiaryStore, option: String
    ) throws -> TaskRecord {
        let id = entry.id
        guard entry.recurrence != nil else {
            throw ValidationError("\(option): #\(id) \"\(entry.displayName)\" does not repeat")
        }
        let window: Range<Int64>
        if let day = dayWord(text, time: time) {
            let span = time.span(of: day)
            window = span.start..<span.finish
        } else {
            let instant = try parseTime(text, option: option)
            window = instant..<instant + 1
        }
        let changes = try run { () throws(DiaryError) in try store.allEntries() }
            .filter { $0.id == id && $0.recurrenceID != nil }
        if let changed = changes.first(where: { window.contains($0.recurrenceID ?? 0) })
            ?? changes.first(where: { window.contains($0.dateStart) })
        {
            return changed
        }
        guard var found = original(of: entry, in: window) else {
            throw ValidationError(
                "\(option) '\(text)': #\(id) \"\(entry.displayName)\" does not occur then")
        }
        found.recurrence = nil
        found.recurrenceID = found.dateStart
        return found
    }

    /// The occurrence the rule of `entry` gives in `window`, as the rule gives it.
    func original(of entry: TaskRecord, in window: Range<Int64>) -> TaskRecord? {
        ((try? Expansion(window: window).occurrences(of: entry).0) ?? [])
            .first { window.contains($0.dateStart) }
    }
}
