import Foundation
import ICalendar
import TaskModel

extension CalendarDiff {
    /// The report for people, one line per difference and the counts last:
    ///
    /// ```
    /// missing standup@example.org "Standup" (old.ics:12)
    /// extra lunch@example.org "Lunch" (new.ics:30)
    /// changed review@example.org "Review": SUMMARY "Review" → "Design review"
    /// changed review@example.org "Review": DTSTART 2026-11-27 09:00 → 10:00 (Europe/Berlin)
    /// 1 missing, 1 extra, 1 changed, 14 the same
    /// ```
    ///
    /// Times are shown in the record's zone, else in `zone` (an IANA name).
    public func text(zone: String) -> String {
        var lines: [String] = []
        /// The UID (and the occurrence's original start) of `item`.
        func subject(_ item: Item) -> String {
            var text = item.uid ?? "(calendar)"
            if let recurrence = item.recurrenceID {
                text += " (" + Self.local(recurrence, date: false, zone: item.zone ?? zone) + ")"
            }
            return text
        }
        for item in missing {
            lines.append("missing \(subject(item)) \(Self.quoted(item.name)) (\(item.source))")
        }
        for item in extra {
            lines.append("extra \(subject(item)) \(Self.quoted(item.name)) (\(item.source))")
        }
        for item in changed {
            for change in item.changes {
                let said = Self.describe(change, zone: item.zone ?? zone)
                lines.append("changed \(subject(item)) \(Self.quoted(item.name)): \(said)")
            }
        }
        lines.append(
            "\(missing.count) missing, \(extra.count) extra, \(changed.count) changed, \(same) the same"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    /// `NAME old → new`: texts quoted, absent as `—`, times in `zone` (the end's date left
    /// out when it is the start's), lists as what was taken out (`-`) and put in (`+`).
    static func describe(_ change: Change, zone: String) -> String {
        let name = change.name
        if let old = change.old?.instant, let new = change.new?.instant {
            let date = change.old?.isDate == true && change.new?.isDate == true
            let before = local(old, date: date, zone: zone)
            var after = local(new, date: date, zone: zone)
            guard !date else { return "\(name) \(before) → \(after)" }
            if before.prefix(10) == after.prefix(10) { after = String(after.dropFirst(11)) }
            return "\(name) \(before) → \(after) (\(zone))"
        }
        let old = change.old?.items ?? []
        let new = change.new?.items ?? []
        if old.count <= 1 && new.count <= 1 {
            return "\(name) \(old.first.map(quoted) ?? "—") → \(new.first.map(quoted) ?? "—")"
        }
        var remaining = new
        var removed: [String] = []
        for item in old {
            if let index = remaining.firstIndex(of: item) {
                remaining.remove(at: index)
            } else {
                removed.append(item)
            }
        }
        return name + " "
            + (removed.map { "-" + quoted($0) } + remaining.map { "+" + quoted($0) })
            .joined(separator: " ")
    }

    /// `2026-11-27 09:00` (seconds when there are some) in `zone`, or `2026-11-27`; a
    /// floating time (``ComparedRecord/floating``) is its wall clock already.
    static func local(_ epoch: Int64, date: Bool, zone: String) -> String {
        let fields =
            date || zone == ComparedRecord.floating
            ? DateTimeValue(utcEpoch: epoch)
            : ((try? DateTimeValue(epoch: epoch, inZone: zone)) ?? DateTimeValue(utcEpoch: epoch))
        var text = String(format: "%04d-%02d-%02d", fields.year, fields.month, fields.day)
        guard !date else { return text }
        text += String(format: " %02d:%02d", fields.hour, fields.minute)
        if fields.second != 0 { text += String(format: ":%02d", fields.second) }
        return text
    }

    /// `"text"`, at most 200 characters, with `"` and line breaks escaped.
    static func quoted(_ text: String) -> String {
        let short = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return "\""
            + short.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(
                of: "\n", with: "\\n")
            + "\""
    }

    /// `{"missing": [ITEM…], "extra": [ITEM…], "changed": [ITEM…], "same": N}`: an ITEM is
    /// `uid` (null for the calendar's own data), `recurrence_id` (ISO 8601 UTC, or null),
    /// `name`, `source` (file and line or index); a changed one also `new_source` and
    /// `fields`, `[{"name": "SUMMARY", "old": …, "new": …}]`, each value a string, a list of
    /// strings (`CATEGORIES`, `ATTENDEE`, …) or null when absent, times as ISO 8601 UTC.
    public var json: String {
        var writer = JSONWriter()
        writer.begin()
        writer.key("missing")
        Self.write(missing, to: &writer)
        writer.key("extra")
        Self.write(extra, to: &writer)
        writer.key("changed")
        Self.write(changed, to: &writer)
        writer.field("same", number: Int64(same))
        writer.end()
        return writer.text + "\n"
    }

    /// `[ITEM, …]`, each item on a line of its own.
    private static func write(_ items: [Item], to writer: inout JSONWriter) {
        writer.array(items) { writer, item in
            writer.raw("\n")
            writer.begin()
            writer.key("uid")
            writer.value(item.uid.map(JSONValue.string) ?? .null)
            writer.key("recurrence_id")
            writer.value(
                item.recurrenceID.map {
                    JSONValue.string(
                        FieldValue.utc(
                            $0, date: false, floating: item.zone == ComparedRecord.floating))
                } ?? .null
            )
            writer.field("name", string: item.name)
            writer.field("source", string: item.source.description)
            if let newSource = item.newSource {
                writer.field("new_source", string: newSource.description)
            }
            if !item.changes.isEmpty {
                writer.key("fields")
                writer.array(item.changes) { writer, change in
                    writer.begin()
                    writer.field("name", string: change.name)
                    writer.key("old")
                    writer.value(jsonValue(change.old))
                    writer.key("new")
                    writer.value(jsonValue(change.new))
                    writer.end()
                }
            }
            writer.end()
        }
    }

    /// A value as JSON: null when absent, an array for a list, else a string.
    private static func jsonValue(_ value: FieldValue?) -> JSONValue {
        guard let value else { return .null }
        guard value.isList else { return .string(value.items.first ?? "") }
        return .array(value.items.map(JSONValue.string))
    }
}
