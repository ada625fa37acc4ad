import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

/// Files attached to the diary's entries.
enum Attachments {
    /// Files up to this size are kept inside the diary; larger ones by their path.
    static let inlineLimit = 1 << 20

    /// Media types by file extension, for what people attach most.
    static let types: [String: String] = [
        "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown",
        "html": "text/html", "csv": "text/csv", "json": "application/json",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "heic": "image/heic",
        "mp3": "audio/mpeg", "ogg": "audio/ogg", "oga": "audio/ogg", "wav": "audio/wav",
        "mp4": "video/mp4", "zip": "application/zip", "ics": "text/calendar",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "odt": "application/vnd.oasis.opendocument.text",
    ]

    /// An attachment for `--attach`: a link for a URL, the bytes of a file up to
    /// ``inlineLimit``, else the file's absolute path (said on standard error).
    static func attachment(_ text: String) throws -> TaskModel.Attachment {
        if let scheme = text.range(
            of: #"^[A-Za-z][A-Za-z0-9+.-]*://"#, options: .regularExpression),
            !text[scheme].lowercased().hasPrefix("file:")
        {
            var link = TaskModel.Attachment(content: .url(text))
            link.filename = URL(string: text)?.lastPathComponent.nilIfEmpty
            return link
        }
        let url = URL(fileURLWithPath: text).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
            !isDirectory.boolValue
        else {
            throw ValidationError("--attach '\(text)': no such file (or a folder)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        var attachment: TaskModel.Attachment
        if size <= inlineLimit {
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw ValidationError("--attach '\(text)': cannot read the file")
            }
            attachment = TaskModel.Attachment(content: .inline(data))
        } else {
            Console.note(
                "warning: \(url.lastPathComponent) is \(size / 1024) KB, over the \(inlineLimit / 1024) KB kept inside the diary: kept by its path, \(url.path)"
            )
            attachment = TaskModel.Attachment(content: .path(url.path))
        }
        attachment.filename = url.lastPathComponent
        attachment.mimeType = types[url.pathExtension.lowercased()]
        return attachment
    }

    /// How big an attachment is and where, for people.
    static func describe(_ attachment: TaskModel.Attachment) -> String {
        switch attachment.content {
        case .inline(let data):
            return data.count < 1024 ? "\(data.count) bytes" : "\(data.count / 1024) KB"
        case .url(let url): return url
        case .path(let path): return path
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty || self == "/" ? nil : self }
}

/// The tracker's marks, kept as iCalendar lines of taskcal's own (`X-TASKCAL-EMOJI`,
/// `X-TASKCAL-PINNED`) that travel in `ical_extra` and .ics, and that other apps skip.
enum Marks {
    static let emoji = "X-TASKCAL-EMOJI:"
    static let pinned = "X-TASKCAL-PINNED:TRUE"

    static func emoji(of record: TaskRecord) -> String? {
        record.icalExtra.first { $0.uppercased().hasPrefix(emoji) }.map {
            ContentLine.unescapedText(String($0.dropFirst(emoji.count)))
        }
    }

    static func isPinned(_ record: TaskRecord) -> Bool {
        record.icalExtra.contains { $0.uppercased() == pinned }
    }

    static func setEmoji(_ text: String?, on record: inout TaskRecord) {
        record.icalExtra.removeAll { $0.uppercased().hasPrefix(emoji) }
        if let text, !text.isEmpty {
            record.icalExtra.append(emoji + ContentLine.escapedText(text))
        }
    }

    static func setPinned(_ on: Bool, on record: inout TaskRecord) {
        record.icalExtra.removeAll { $0.uppercased() == pinned }
        if on { record.icalExtra.append(pinned) }
    }

    /// The name as lists show it: the emoji before it.
    static func title(_ record: TaskRecord) -> String {
        emoji(of: record).map { "\($0) \(record.displayName)" } ?? record.displayName
    }
}
