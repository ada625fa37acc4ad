import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

extension Inbox {
    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: tr("Accept an invitation: into the diary, and a reply to send back."))
        @OptionGroup var options: Options
        @Argument(help: .tr("Invitation .ics files, or folders of them.")) var path: String
        @Argument(help: .tr("The invitation: its UID, or its number in the list.")) var invitation:
            String
        @Option(help: .tr("Your address among the attendees (default: the only one).")) var `as`:
            String?
        @Flag(help: .tr("Add it even if its slot is taken: as free time, blocking nothing."))
        var force =
            false
        @Option(name: .shortAndLong, help: .tr("The reply file (default: reply-UID.ics)."))
        var output: String?

        func run() throws {
            let message = try options.message(invitation, in: [path])
            let store = try options.store.open()
            let entries = try options.store.run { () throws(DiaryError) in try store.allEntries() }
            let existing = Options.entry(message.uid, in: entries, scheme: store.uidScheme)
            switch message.method {
            case "CANCEL":
                guard let existing else {
                    Console.error(
                        "\"\(message.main.name)\" (\(message.uid)) is not in the diary; nothing to cancel"
                    )
                    throw ExitCode(1)
                }
                try options.store.run { () throws(DiaryError) in try store.delete(existing.id) }
                options.log(
                    "cancelled \(message.uid) \"\(message.main.name)\": removed #\(existing.id)")
                Console.say(
                    "#\(existing.id) \"\(existing.displayName)\" removed: the organizer cancelled it"
                )
                return
            case "REQUEST": break
            default:
                throw ValidationError(
                    "\(message.uid) is METHOD:\(message.method), no invitation to accept")
            }
            let person = try Inbox.replier(`as`, message)
            var records = message.records
            let collisions = Options.collisions(
                of: message, in: entries, time: options.store.time)
            if !collisions.isEmpty && !force {
                let time = options.store.time
                let others = collisions.map {
                    "#\($0.id) \"\($0.displayName)\" (\(OverlapReport.date(time.day(of: $0.dateStart))) \(OverlapReport.range(time.occupied(by: $0), time)))"
                }.joined(separator: ", ")
                Console.error(
                    "\"\(message.main.name)\" collides with \(others); decline it, move the other entry, or give --force to add it as free time"
                )
                throw ExitCode(1)
            }
            if !collisions.isEmpty {
                for index in records.indices { records[index].free = true }
            }
            if let existing {
                // An update of an invitation taken before: the entry takes the new times.
                var updated = message.main
                updated.id = existing.id
                updated.free = records.first { $0.recurrenceID == nil }?.free ?? updated.free
                try options.store.run { () throws(DiaryError) in try store.update(updated) }
                Console.say("#\(existing.id) \"\(updated.name)\" updated")
            } else {
                let result = try options.store.run { () throws(DiaryError) in
                    try store.importRecords(
                        records.map { IncomingRecord($0, source: message.file) },
                        skipConflicts: false, newIDs: true)
                }
                let ids = Array(Set(result.imported)).sorted().map(String.init).joined(
                    separator: ", #")
                if force && !collisions.isEmpty {
                    let others = collisions.map { "#\($0.id) \"\($0.displayName)\"" }.joined(
                        separator: ", ")
                    Console.say(
                        "\"\(message.main.name)\" added as #\(ids) as free time: it overlaps \(others)"
                    )
                } else {
                    Console.say("\"\(message.main.name)\" added as #\(ids)")
                }
            }
            let file = Inbox.replyPath(output, message)
            try Inbox.reply(to: message, as: person, status: "ACCEPTED", path: file)
            options.log("accepted \(message.uid) \"\(message.main.name)\"; reply in \(file)")
            Console.say(
                "reply written to \(file); send it to \(message.main.organizer?.address ?? tr("the organizer"))"
            )
        }
    }
}
