import Foundation
import ICalendar
import TaskModel

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
        safeName(filename, key: String(id), index: index)
    }

    /// What names `record`'s files: its id, or for an event whose id is not given yet (a
    /// foreign UID, read before ids are handed out) a digest of its UID and the start of the
    /// occurrence it changes, so that two events' `notes.txt` never share a file.
    static func key(for record: TaskRecord) -> String {
        guard record.id == IDAllocator.unassigned else { return String(record.id) }
        var key = "u" + UIDScheme.hash(record.uid ?? record.name)
        if let recurrenceID = record.recurrenceID { key += "-\(recurrenceID)" }
        return key
    }

    /// ``safeName(_:id:index:)`` for a record known by `key` (its id, or for an event with no
    /// id of ours, a digest of its UID).
    static func safeName(_ filename: String?, key: String, index: Int) -> String {
        let base =
            (filename ?? "attachment").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(
                String.init) ?? "attachment"
        var cleaned = String(
            base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ":" }.map(
                Character.init))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.isEmpty { cleaned = "attachment" }
        while cleaned.utf8.count > 120 { cleaned.removeFirst() }
        return "\(key)-\(index)-\(cleaned)"
    }

    func write(_ data: Data, filename: String?, id: Int64, index: Int, line: Int?)
        throws(ICalendarError) -> String
    {
        try write(data, filename: filename, key: String(id), index: index, line: line)
    }

    func write(_ data: Data, filename: String?, key: String, index: Int, line: Int?)
        throws(ICalendarError) -> String
    {
        let name = Self.safeName(filename, key: key, index: index)
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

/// Inline attachments turned into links, for apps that keep only links (Google Calendar):
/// each is written to a file in a folder the user publishes at `baseURL`.
public struct AttachmentLinks: Sendable {
    /// Where the files go, with names made safe.
    public var extraction: AttachmentExtraction
    /// The URL the folder is published at (`https://files.example.org/calendar`).
    public var baseURL: String

    /// Creates links into `directory`, published at `baseURL`.
    public init(directory: URL, baseURL: String) {
        extraction = AttachmentExtraction(directory: directory, relativeTo: nil)
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// The link to `attachment`'s bytes, written to a file (a file already in the folder is
    /// linked as it is). `base` is the folder a relative `path` is read from.
    func link(_ attachment: TaskModel.Attachment, of record: TaskRecord, index: Int, base: URL?)
        throws(ICalendarError) -> String
    {
        let key = AttachmentExtraction.key(for: record)
        let name: String
        switch attachment.content {
        case .url(let url):
            return url
        case .inline(let data):
            name =
                URL(
                    fileURLWithPath: try extraction.write(
                        data, filename: attachment.filename, key: key, index: index, line: nil)
                ).lastPathComponent
        case .path(let path):
            let file = URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL
            if file.deletingLastPathComponent().path == extraction.directory.path {
                name = file.lastPathComponent
            } else {
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    throw ICalendarError(.io, "cannot read the file '\(file.path)'")
                }
                name =
                    URL(
                        fileURLWithPath: try extraction.write(
                            data, filename: attachment.filename ?? file.lastPathComponent, key: key,
                            index: index, line: nil)
                    ).lastPathComponent
            }
        }
        let escaped =
            name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"]))
            ?? name
        return baseURL + "/" + escaped
    }
}
