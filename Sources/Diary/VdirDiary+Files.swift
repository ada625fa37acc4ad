import Foundation
import ICalendar
import TaskConversion
import TaskModel

extension VdirDiary {
    // MARK: - Files

    func fileName(for record: TaskRecord) -> String {
        let uid = record.uid ?? uidScheme.uid(for: record.id)
        let safe = uid.map { $0.isLetter || $0.isNumber || "-_.@".contains($0) ? String($0) : "_" }
            .joined()
        return safe + ".ics"
    }

    /// A file of the folder that could not be read whole.
    struct Unreadable {
        var file: String
        /// What the reader said, naming the file (and the line).
        var problem: String
        /// Whether it may hold an entry (a calendar component with times) that was left out.
        var mayHoldEntry: Bool
    }

    /// The entries for a read: files that cannot be read are left out, each with a warning.
    func readable() throws(DiaryError) -> [(record: TaskRecord, file: String)] {
        let (entries, unreadable) = try load()
        for file in unreadable {
            warn("\(file.problem) (its entries are left out)")
        }
        return entries
    }

    /// The entries for a write, under the lock: refused while a file that cannot be read may
    /// hold an entry, since the write could then overlap an entry nobody sees.
    func writable() throws(DiaryError) -> [(record: TaskRecord, file: String)] {
        let (entries, unreadable) = try load()
        if let blocking = unreadable.first(where: \.mayHoldEntry) {
            throw .storage(
                "nothing was written: \(blocking.file) may hold an entry this change would overlap, and it cannot be read (\(blocking.problem)); fix or remove it (taskcal diary check --store vdir:\(directory.path) lists every file it cannot read)"
            )
        }
        for file in unreadable { warn("\(file.problem) (it holds no entry; ignored)") }
        return entries
    }

    /// Whether the file at `path` has a component that could be an entry.
    static func mayHoldEntry(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return true }
        let text = String(decoding: data, as: UTF8.self).uppercased()
        return ["BEGIN:VEVENT", "BEGIN:VTODO", "BEGIN:VJOURNAL"].contains { text.contains($0) }
    }

    /// Every entry with its file, sorted by file name (so fresh ids of foreign UIDs are
    /// stable), and the files that could not be read whole.
    func load() throws(DiaryError) -> (
        entries: [(record: TaskRecord, file: String)], unreadable: [Unreadable]
    ) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".ics") && !$0.hasPrefix(".") }.sorted()
        } catch {
            throw .storage(
                "cannot read the diary folder \(directory.path): \(error.localizedDescription)")
        }
        var result: [(TaskRecord, String)] = []
        var unreadable: [Unreadable] = []
        let paths = names.map { directory.appendingPathComponent($0).path }
        var options = ReadOptions(format: .ics, uidScheme: uidScheme, floatingZone: "UTC")
        options.namespaceOfFile = { [uidScheme] _ in uidScheme.namespace ?? "" }
        var unadopted: [Int] = []
        for (index, path) in paths.enumerated() {
            let report = Converter.read(inputs: [path], options: options) { record, _ in
                var record = record
                if let line = record.icalExtra.firstIndex(where: {
                    $0.hasPrefix(Self.idProperty + ":")
                }) {
                    record.id =
                        Int64(record.icalExtra[line].dropFirst(Self.idProperty.count + 1))
                        ?? record.id
                    record.icalExtra.remove(at: line)
                } else if uidScheme.parse(record.uid ?? "")?.isDerived != true, record.uid != nil,
                    uidScheme.parse(record.uid!) == nil
                {
                    unadopted.append(result.count)
                }
                result.append((record, names[index]))
            }
            let skipped = report.warnings.filter { $0.code == .componentSkipped }
            if let problem = report.errors.first ?? skipped.first {
                unreadable.append(
                    Unreadable(
                        file: names[index], problem: "\(problem.location): \(problem.message)",
                        mayHoldEntry: report.errors.isEmpty || Self.mayHoldEntry(path)))
            }
        }
        // Files another program put here: ids above every id given, in file-name order (the
        // next writer writes them into the files).
        if !unadopted.isEmpty {
            var next = (try Self.readState(directory)?.highestID ?? 0)
            next = max(next, result.map(\.0.id).max() ?? 0)
            var byUID: [String: Int64] = [:]
            for index in unadopted {
                let uid = result[index].0.uid ?? ""
                if let known = byUID[uid] {
                    result[index].0.id = known
                } else {
                    next += 1
                    byUID[uid] = next
                    result[index].0.id = next
                }
            }
        }
        return (result, unreadable)
    }

    /// Writes the records of one entry (the entry, then its changed occurrences) to one file.
    func write(_ group: [TaskRecord], to name: String) throws(DiaryError) {
        let path = directory.appendingPathComponent(name).path
        let records = group.map { member in
            var record = member
            if let uid = record.uid, uidScheme.parse(uid)?.id != record.id {
                record.icalExtra.append("\(Self.idProperty):\(record.id)")
            }
            return record
        }
        var options = WriteOptions(format: .ics, uidScheme: uidScheme, timestamp: 0)
        options.uidNamespace = uidScheme.namespace
        options.fileMode = 0o600
        let report = Converter.write(records, to: path, options: options)
        if !report.succeeded {
            throw .storage(report.errors.map(\.description).joined(separator: "\n"))
        }
    }
}
