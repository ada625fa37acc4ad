import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension Inbox {
    struct Decline: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decline",
            abstract: tr("Decline an invitation: a reply to send back, and a line in the log."))
        @OptionGroup var options: Options
        @Argument(help: .tr("Invitation .ics files, or folders of them.")) var path: String
        @Argument(help: .tr("The invitation: its UID, or its number in the list.")) var invitation:
            String
        @Option(help: .tr("Your address among the attendees (default: the only one).")) var `as`:
            String?
        @Option(name: .shortAndLong, help: .tr("The reply file (default: reply-UID.ics)."))
        var output: String?

        func run() throws {
            let message = try options.message(invitation, in: [path])
            guard message.method == "REQUEST" else {
                throw ValidationError(
                    "\(message.uid) is METHOD:\(message.method), no invitation to decline")
            }
            let person = try Inbox.replier(`as`, message)
            let file = Inbox.replyPath(output, message)
            try Inbox.reply(to: message, as: person, status: "DECLINED", path: file)
            // Declined after all: an entry taken before leaves the diary.
            let store = try options.store.open()
            let entries = try options.store.run { () throws(DiaryError) in try store.allEntries() }
            if let existing = Options.entry(message.uid, in: entries, scheme: store.uidScheme) {
                try options.store.run { () throws(DiaryError) in try store.delete(existing.id) }
                Console.say("#\(existing.id) \"\(existing.displayName)\" removed from the diary")
            }
            options.log("declined \(message.uid) \"\(message.main.name)\"; reply in \(file)")
            Console.say(
                "declined \"\(message.main.name)\"; reply written to \(file); send it to \(message.main.organizer?.address ?? tr("the organizer"))"
            )
        }
    }
}
