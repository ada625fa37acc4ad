// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation
import WebDAV

/// A file of taskcal's own about a calendar (what a sync agreed, what a push sent): JSON with
/// sorted keys, mode 0600, in a folder made if missing, written whole (a temporary file, then
/// a rename) so that a process killed mid-write leaves the previous state.
enum StateFile {
    static func save<Value: Encodable>(_ value: Value, to path: String) throws(CalDAVError) {
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = path + ".\(getpid()).tmp"
        guard let data = try? encoder.encode(value),
            FileManager.default.createFile(
                atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw .local("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

#endif
