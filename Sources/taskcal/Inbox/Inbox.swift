import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// Invitations (iTIP, RFC 5546) against the diary: requests to accept or decline, and
/// cancellations of entries taken before.
struct Inbox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: tr("Invitations (.ics with METHOD:REQUEST or CANCEL): list, accept, decline."),
        discussion: tr(
            """
            Reads invitations as mail programs save them (.ics files, or folders of them) and \
            shows, for each, the entries of the diary it would collide with. accept adds it to the \
            diary (refused, naming the collision, if its slot is taken; --force adds it as free \
            time) and writes the METHOD:REPLY with PARTSTAT=ACCEPTED to send back; decline writes \
            the DECLINED reply and logs it. A cancellation (METHOD:CANCEL) accepted removes the \
            entry it names. An invitation is named by its UID (or by its number in the list). \
            Decisions are logged beside the diary (DIARY.inbox.log).

            Examples:
              taskcal inbox ~/Downloads/invite.ics
              taskcal inbox accept invites/ 1 --as mailto:me@example.com
              taskcal inbox decline invite.ics team-sync@example.com -o decline.ics
            """),
        subcommands: [List.self, Accept.self, Decline.self],
        defaultSubcommand: List.self)

    /// One invitation: the records of one UID in one file, and what the file asks.
    struct Message {
        var file: String
        var uid: String
        var method: String
        var records: [TaskRecord]
        /// The series (or the one event) the message is about.
        var main: TaskRecord { records.first { $0.recurrenceID == nil } ?? records[0] }
    }

    /// What every inbox verb reads.
    struct Options: ParsableArguments {
        @OptionGroup var store: StoreOptions

        /// The invitations of `paths` (files, or folders searched for .ics), in order.
        func messages(_ paths: [String]) throws -> [Message] {
            var files: [String] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw ValidationError("'\(path)': no such file or folder")
                }
                if isDirectory.boolValue {
                    let found = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                    files += found.filter { $0.lowercased().hasSuffix(".ics") }.sorted().map {
                        (path as NSString).appendingPathComponent($0)
                    }
                } else {
                    files.append(path)
                }
            }
            var messages: [Message] = []
            for file in files {
                var options = ReadOptions(format: .ics, floatingZone: store.tz)
                options.uidScheme = UIDScheme(namespace: "inbox")
                let source: any RecordSource
                do {
                    source = try openRecordSource(file, options: options)
                } catch {
                    Console.error(error.description)
                    continue
                }
                var records: [TaskRecord] = []
                do {
                    while let item = try source.next() {
                        switch item {
                        case .record(var record, _):
                            if record.uid == nil {
                                record.uid = options.uidScheme.uid(for: record.id)
                            }
                            records.append(record)
                        case .failed(let problems):
                            problems.forEach { Console.error($0.description) }
                        }
                    }
                } catch {
                    Console.error(error.description)
                    continue
                }
                let method =
                    source.calendar.icalExtra.first { $0.uppercased().hasPrefix("METHOD:") }
                    .map { String($0.dropFirst(7)).uppercased() } ?? "PUBLISH"
                var order: [String] = []
                var byUID: [String: [TaskRecord]] = [:]
                for record in records where record.kind == .event {
                    let uid = record.uid ?? ""
                    if byUID[uid] == nil { order.append(uid) }
                    byUID[uid, default: []].append(record)
                }
                for uid in order {
                    messages.append(
                        Message(file: file, uid: uid, method: method, records: byUID[uid] ?? []))
                }
            }
            return messages
        }

        /// The message `name` names: a UID, or a number in the list from 1.
        func message(_ name: String, in paths: [String]) throws -> Message {
            let all = try messages(paths)
            if let found = all.first(where: { $0.uid == name }) { return found }
            if let number = Int(name), (1...max(1, all.count)).contains(number), !all.isEmpty {
                return all[number - 1]
            }
            throw ValidationError(
                "no invitation '\(name)' in \(paths.joined(separator: ", ")); `taskcal inbox \(paths.joined(separator: " "))` lists them"
            )
        }

        /// The diary's entries that `message`'s occurrences would collide with (in the year
        /// from its start), each named once.
        static func collisions(of message: Message, in entries: [TaskRecord], time: LocalTime)
            -> [TaskRecord]
        {
            let start = message.records.map(\.dateStart).min() ?? 0
            let window = start..<(start + 366 * 86_400)
            let mine = Expansion(window: window).expand(message.records).records.filter(
                \.occupiesTime)
            let others = Expansion(window: window).expand(
                entries.filter { $0.uid != message.uid }
            ).records.filter(\.occupiesTime)
            var found: [TaskRecord] = []
            for other in others {
                let span = time.occupied(by: other)
                if mine.contains(where: { time.occupied(by: $0).overlaps(span) }),
                    !found.contains(where: { $0.id == other.id })
                {
                    found.append(other)
                }
            }
            return found
        }

        /// The entry of the diary that has `uid`, if any.
        static func entry(_ uid: String, in entries: [TaskRecord], scheme: UIDScheme) -> TaskRecord?
        {
            entries.first { ($0.uid ?? scheme.uid(for: $0.id)) == uid && $0.recurrenceID == nil }
        }

        /// Notes a decision in the log beside the diary.
        func log(_ line: String) {
            guard let path = try? store.companionFile("inbox.log") else { return }
            let stamp = DateTimeValue(utcEpoch: Int64(Date().timeIntervalSince1970)).compactUTC
            let text = "\(stamp) \(line)\n"
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                try? handle.close()
            } else {
                _ = FileManager.default.createFile(
                    atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            }
        }
    }

    /// The address that answers: `--as`, else the invitation's only attendee.
    static func replier(_ address: String?, _ message: Message) throws -> Person {
        let attendees = message.main.attendees
        if let address {
            let wanted = address.lowercased().hasPrefix("mailto:") ? address : "mailto:" + address
            return attendees.first { $0.address.lowercased() == wanted.lowercased() }
                ?? Person(address: wanted)
        }
        guard attendees.count == 1 else {
            throw ValidationError(
                "the invitation has \(attendees.count) attendees; say which is you with --as mailto:ADDRESS"
            )
        }
        return attendees[0]
    }

    /// Writes the `METHOD:REPLY` for `message` with `status` for `person` to `path`.
    static func reply(
        to message: Message, as person: Person, status: String, path: String
    ) throws {
        let main = message.main
        var record = TaskRecord(
            id: 1, dateStart: main.dateStart, dateFinish: main.dateFinish, name: main.name,
            uid: message.uid, allDay: main.allDay)
        record.timeZone = main.timeZone
        record.floating = main.floating
        record.organizer = main.organizer
        var replier = person
        replier.parameters.removeAll { ["PARTSTAT", "RSVP"].contains($0.name) }
        replier.parameters.append((name: "PARTSTAT", value: status))
        replier.parameters.sort { $0.name < $1.name }
        record.attendees = [replier]
        record.icalExtra = main.icalExtra.filter { $0.uppercased().hasPrefix("SEQUENCE:") }
        do {
            let sink = try openRecordSink(path, options: WriteOptions(format: .ics))
            sink.calendar = CalendarInfo(icalExtra: ["METHOD:REPLY"])
            try sink.write(record, from: Location(file: message.file))
            try sink.finish()
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
        }
    }

    /// A reply's default file: `reply-UID.ics`, the UID made safe.
    static func replyPath(_ given: String?, _ message: Message) -> String {
        given
            ?? "reply-"
            + String(
                message.uid.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.prefix(60))
            + ".ics"
    }

}
