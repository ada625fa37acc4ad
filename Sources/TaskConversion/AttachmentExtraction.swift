import Foundation
import ICalendar

/// Writes inline attachments to files in one folder, with names that cannot escape it.
public struct AttachmentExtraction: Sendable {
    /// The folder the files go to.
    public var directory: URL
    /// The folder that recorded paths are relative to (the output file's), when known.
    public var relativeTo: URL?

    /// Creates an extraction into `directory`.
    public init(directory: URL, relativeTo: URL?) {
        self.directory = directory.standardizedFileURL
        self.relativeTo = relativeTo?.standardizedFileURL
    }

    /// A file name made safe: no folders, no `..`, no control characters, not hidden, at most
    /// 120 bytes; prefixed with the record id and index so two records cannot collide.
    public static func safeName(_ filename: String?, id: Int64, index: Int) -> String {
        let base =
            (filename ?? "attachment").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(
                String.init) ?? "attachment"
        var cleaned = String(
            base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ":" }.map(
                Character.init))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.isEmpty { cleaned = "attachment" }
        while cleaned.utf8.count > 120 { cleaned.removeFirst() }
        return "\(id)-\(index)-\(cleaned)"
    }

    func write(_ data: Data, filename: String?, id: Int64, index: Int, line: Int?)
        throws(ICalendarError) -> String
    {
        let name = Self.safeName(filename, id: id, index: index)
        let target = directory.appendingPathComponent(name).standardizedFileURL
        guard target.deletingLastPathComponent().path == directory.path else {
            throw ICalendarError(
                .invalidValue, line: line,
                "ATTACH: the file name '\(filename ?? "")' would leave the folder")
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
            try data.write(to: target, options: .atomic)
        } catch {
            throw ICalendarError(
                .io, line: line,
                "cannot write the attachment \(target.path): \(error.localizedDescription)")
        }
        if let relativeTo, target.path.hasPrefix(relativeTo.path + "/") {
            return String(target.path.dropFirst(relativeTo.path.count + 1))
        }
        return target.path
    }
}
