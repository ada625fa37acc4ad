import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import TaskConversion
import TaskModel

extension DiaryCommand {
    struct AttachmentList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attachments", abstract: tr("List an entry's attachments."))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id (a subtask's too)."), completion: EntryIDs.completion)
        var id: Int64
        @OptionGroup var printed: FormatOption

        func run() throws {
            let record = try options.locate(id).record
            switch printed.format {
            case .json:
                var writer = JSONWriter()
                writer.raw("[")
                for (index, attachment) in record.attachments.enumerated() {
                    writer.raw(index == 0 ? "\n" : ",\n")
                    attachment.write(to: &writer)
                }
                writer.raw(record.attachments.isEmpty ? "]\n" : "\n]\n")
                print(writer.text, terminator: "")
            case .text:
                if record.attachments.isEmpty {
                    Console.say("\(Todos.describe(record)) has no attachments.")
                }
                for (index, attachment) in record.attachments.enumerated() {
                    print(
                        "\(index + 1)  \(attachment.filename ?? tr("(no name)"))  \(attachment.mimeType ?? "")  \(Localization.message(Attachments.describe(attachment)))"
                    )
                }
            }
        }
    }
}
