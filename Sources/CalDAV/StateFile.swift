// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import TaskConversion
import WebDAV

/// A file of taskcal's own about a calendar (what a sync agreed, what a push sent): JSON with
/// sorted keys, mode 0600, in a folder made if missing, written whole (OutputFile.writeWhole:
/// a temporary file, synced, then a rename) so that a process killed mid-write leaves the
/// previous state.
enum StateFile {
    static func save<Value: Encodable>(_ value: Value, to path: String) throws(CalDAVError) {
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else {
            throw .local("cannot write \(path): the state cannot be written as JSON")
        }
        do {
            try OutputFile.writeWhole(Array(data), to: path, mode: 0o600)
        } catch {
            throw .local(error.description)
        }
    }
}

#endif
