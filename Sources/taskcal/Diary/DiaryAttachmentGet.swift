import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct AttachmentGet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attachment",
            abstract: tr("Save an entry's attachment to a folder, or open it."),
            discussion: tr(
                """
                The file is named ID-N-NAME, made safe (no folders, no ..); it never lands outside \
                DIR. --open saves it to a temporary folder (or takes the link) and opens it with \
                xdg-open.

                Examples:
                  taskcal diary attachment 5 1 --extract ~/Downloads
                  taskcal diary attachment 5 2 --open
                """))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id (a subtask's too)."), completion: EntryIDs.completion)
        var id: Int64
        @Argument(help: .tr("The attachment's number, from 1 (diary attachments ID lists them)."))
        var number: Int
        @Option(help: .tr("Save it into this folder (made if missing).")) var extract: String?
        @Flag(help: .tr("Open it with xdg-open.")) var open = false

        func validate() throws {
            if (extract == nil) == !open {
                throw ValidationError("give either --extract DIR or --open")
            }
        }

        func run() throws {
            let record = try options.locate(id).record
            guard number >= 1 && number <= record.attachments.count else {
                throw ValidationError(
                    "\(Todos.describe(record)) has \(record.attachments.count) attachment\(record.attachments.count == 1 ? "" : "s"); there is no \(number)"
                )
            }
            let attachment = record.attachments[number - 1]
            var target: String
            switch attachment.content {
            case .url(let url):
                guard open else {
                    Console.error("attachment \(number) is a link, nothing to save: \(url)")
                    throw ExitCode(1)
                }
                target = url
            case .inline, .path:
                let data: Data
                switch attachment.content {
                case .inline(let bytes): data = bytes
                case .path(let file):
                    guard let bytes = FileManager.default.contents(atPath: file) else {
                        Console.error(
                            "attachment \(number) was kept by its path, which cannot be read: \(file)"
                        )
                        throw ExitCode(1)
                    }
                    data = bytes
                case .url: data = Data()
                }
                let folder =
                    extract.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
                    ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                        "taskcal-\(getpid())")
                let extraction = AttachmentExtraction(directory: folder, relativeTo: nil)
                let name = AttachmentExtraction.safeName(
                    attachment.filename, id: record.id, index: number)
                let file = extraction.directory.appendingPathComponent(name)
                do {
                    try FileManager.default.createDirectory(
                        at: extraction.directory, withIntermediateDirectories: true)
                    try data.write(to: file, options: .atomic)
                } catch {
                    Console.error("cannot write \(file.path): \(error.localizedDescription)")
                    throw ExitCode(2)
                }
                target = file.path
                // Said as the user named the folder.
                if !open, let extract { print((extract as NSString).appendingPathComponent(name)) }
            }
            if open {
                let status = try? Subprocess.run("/usr/bin/env", ["xdg-open", target])
                guard status == 0 else {
                    Console.error("xdg-open could not open \(target)")
                    throw ExitCode(2)
                }
            }
        }
    }
}
