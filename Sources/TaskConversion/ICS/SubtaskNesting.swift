import ICalendar
import TaskModel

/// Puts each to-do that names a parent in `RELATED-TO` into that parent's `subtasks`, when
/// the parent is in the same file.
///
/// Events stream through untouched. From the first to-do on, records are held until the file
/// ends (a child may come before its parent), then given out in file order with the children
/// inside their parents. A `RELATED-TO` whose parent is not in the file stays in `ical_extra`.
final class SubtaskNestingSource: RecordSource {
    private let inner: any RecordSource
    private let uidScheme: UIDScheme
    private var held: [SourceItem] = []
    private var holding = false
    private var flushed: [SourceItem] = []
    private var flushIndex = 0
    private var finished = false

    init(_ inner: any RecordSource, uidScheme: UIDScheme) {
        self.inner = inner
        self.uidScheme = uidScheme
    }

    var warnings: [Diagnostic] { inner.warnings }
    var calendar: CalendarInfo { inner.calendar }

    func next() throws(Diagnostic) -> SourceItem? {
        while true {
            if flushIndex < flushed.count {
                defer { flushIndex += 1 }
                return flushed[flushIndex]
            }
            if finished { return nil }
            guard let item = try inner.next() else {
                finished = true
                flushed = nest(held)
                held = []
                continue
            }
            if case .record(let record, _) = item, record.kind == .todo { holding = true }
            if !holding { return item }
            held.append(item)
        }
    }

    /// The parent UID a `RELATED-TO` line names, when it names a parent (RELTYPE absent or
    /// PARENT).
    static func parentUID(in line: String) -> String? {
        guard line.uppercased().hasPrefix("RELATED-TO"),
            let property = try? ContentLine(parsing: line), property.name == "RELATED-TO"
        else { return nil }
        let relation = property.parameter("RELTYPE")?.uppercased() ?? "PARENT"
        return relation == "PARENT" ? property.value : nil
    }

    private func nest(_ items: [SourceItem]) -> [SourceItem] {
        struct Entry {
            var record: TaskRecord
            var location: Location
            var parent: Int?
            var children: [Int] = []
        }
        var entries: [Entry] = []
        var slots: [Int?] = []  // per item: its entry, or nil for a failure
        var byUID: [String: Int] = [:]
        for item in items {
            if case .record(let record, let location) = item {
                byUID[record.uid ?? uidScheme.uid(for: record.id), default: entries.count] =
                    entries.count
                slots.append(entries.count)
                entries.append(Entry(record: record, location: location))
            } else {
                slots.append(nil)
            }
        }
        // Link each to-do to its parent unless that would make a cycle.
        for index in entries.indices where entries[index].record.kind == .todo {
            for (lineIndex, line) in entries[index].record.icalExtra.enumerated() {
                guard let uid = Self.parentUID(in: line), let parent = byUID[uid],
                    parent != index, entries[parent].record.kind == .todo
                else { continue }
                var ancestor: Int? = parent
                var cycle = false
                while let current = ancestor {
                    if current == index {
                        cycle = true
                        break
                    }
                    ancestor = entries[current].parent
                }
                if cycle { continue }
                entries[index].parent = parent
                entries[index].record.icalExtra.remove(at: lineIndex)
                entries[parent].children.append(index)
                break
            }
        }
        func built(_ index: Int) -> TaskRecord {
            var record = entries[index].record
            record.subtasks += entries[index].children.map(built)
            return record
        }
        var result: [SourceItem] = []
        for (item, slot) in zip(items, slots) {
            guard let slot else {
                result.append(item)
                continue
            }
            if entries[slot].parent == nil {
                result.append(.record(built(slot), entries[slot].location))
            }
        }
        return result
    }
}
