import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension Inbox {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: tr("List the invitations and what each would collide with."))
        @OptionGroup var options: Options
        @Argument(help: .tr("Invitation .ics files, or folders of them.")) var paths: [String]
        @OptionGroup var printed: FormatOption

        func run() throws {
            let time = options.store.time
            let messages = try options.messages(paths)
            let store = try options.store.open()
            let entries = try options.store.run { () throws(DiaryError) in try store.allEntries() }
            if printed.format == .json {
                var writer = JSONWriter()
                writer.raw("[")
                for (index, message) in messages.enumerated() {
                    writer.raw(index == 0 ? "\n" : ",\n")
                    writer.begin()
                    writer.field("number", number: Int64(index + 1))
                    writer.field("uid", string: message.uid)
                    writer.field("method", string: message.method)
                    writer.field("file", string: message.file)
                    writer.key("record")
                    message.main.write(to: &writer)
                    if let existing = Options.entry(
                        message.uid, in: entries, scheme: store.uidScheme)
                    {
                        writer.field("in_diary", number: existing.id)
                    }
                    writer.key("collides_with")
                    writer.array(Options.collisions(of: message, in: entries, time: time)) {
                        writer, other in writer.value(.number(String(other.id)))
                    }
                    writer.end()
                }
                writer.raw(messages.isEmpty ? "]\n" : "\n]\n")
                print(writer.text, terminator: "")
                return
            }
            if messages.isEmpty { print(tr("No invitations.")) }
            for (index, message) in messages.enumerated() {
                let main = message.main
                let when =
                    "\(OverlapReport.date(time.day(of: main.dateStart))) "
                    + OverlapReport.range(time.occupied(by: main), time)
                let from =
                    main.organizer.map {
                        " "
                            + tr(
                                "from %@",
                                $0.name ?? String($0.address.drop { $0 != ":" }.dropFirst()))
                    } ?? ""
                let existing = Options.entry(message.uid, in: entries, scheme: store.uidScheme)
                switch message.method {
                case "REQUEST":
                    print("\(index + 1)  \(message.uid)  \"\(main.name)\"  \(when)\(from)")
                    if let existing {
                        Console.say(
                            "     already in the diary as #\(existing.id); accept takes the update")
                    }
                    for other in Options.collisions(of: message, in: entries, time: time) {
                        Console.say(
                            "     collides with #\(other.id) \"\(other.displayName)\" (\(OverlapReport.date(time.day(of: other.dateStart))) \(OverlapReport.range(time.occupied(by: other), time)))"
                        )
                    }
                case "CANCEL":
                    Console.say(
                        "\(index + 1)  \(message.uid)  cancelled: \"\(main.name)\"  \(when)\(from)")
                    Console.say(
                        existing.map { "     accept removes #\($0.id) from the diary" }
                            ?? "     not in the diary")
                default:
                    Console.say(
                        "\(index + 1)  \(message.uid)  \"\(main.name)\": METHOD:\(message.method), no invitation"
                    )
                }
            }
        }
    }
}
