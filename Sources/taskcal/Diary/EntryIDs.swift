import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

#if PostgreSQL
import PostgresDiary
#endif

/// Tab completion of an entry's id: the ids (subtasks' too) of the diary the command line
/// names (`--store`, else `$TASKCAL_STORE` or the default) when it is a file or a folder on
/// this machine and exists; a diary on a server is not asked, a Tab must not wait on a network.
enum EntryIDs {
    static let completion = CompletionKind.custom { words, _, prefix in
        candidates(words, prefix: prefix)
    }

    static func candidates(_ words: [String], prefix: String) -> [String] {
        var store: String?
        if let index = words.firstIndex(of: "--store"), index + 1 < words.count {
            store = words[index + 1]
        } else if let word = words.first(where: { $0.hasPrefix("--store=") }) {
            store = String(word.dropFirst("--store=".count))
        }
        guard let location = try? StoreLocation.resolve(store) else { return [] }
        switch location {
        case .sqlite(let path), .vdir(let path):
            guard FileManager.default.fileExists(atPath: path) else { return [] }
        case .postgres: return []
        }
        guard let entries = try? location.open().allEntries() else { return [] }
        var ids: Set<Int64> = []
        func collect(_ record: TaskRecord) {
            ids.insert(record.id)
            record.subtasks.forEach(collect)
        }
        entries.forEach(collect)
        return ids.sorted().map(String.init).filter { $0.hasPrefix(prefix) }
    }
}
