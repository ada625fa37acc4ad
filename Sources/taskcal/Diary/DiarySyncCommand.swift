// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Diary
import Foundation
import Localization
import TaskModel

extension SyncPreference: ExpressibleByArgument {}

extension DiaryCommand {
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: tr("Sync the diary with a CalDAV calendar, both ways."),
            discussion: tr(
                """
                New, changed and deleted entries go both ways. What the last sync agreed is kept \
                beside the diary (DIARY.caldav-HASH, per calendar), so each sync moves only what \
                changed since: the server's changes (RFC 6578 sync-collection, or every ETag where \
                the server has none) into the diary, then the diary's to the server, each write \
                conditional on the ETag last seen.

                An entry changed on both sides since the last sync is a conflict: by default both \
                versions stay as they are and it is reported (exit 1) until --prefer local or \
                --prefer remote decides. An entry from the server that would overlap one in the \
                diary is reported and not taken (exit 1), never merged over it. A server that \
                cannot be reached changes nothing (exit 2); one that goes away midway leaves what \
                was done done, and the next sync finishes.

                Private entries go to the server sealed: their times, "(private)" and the \
                encrypted text; no key is needed to sync them.

                Examples:
                  taskcal diary sync \\
                      https://anna@cloud.example.org/remote.php/dav/calendars/anna/personal/
                  taskcal diary sync https://…/personal/ --dry-run
                  taskcal diary sync https://…/personal/ --prefer remote
                """))
        @OptionGroup var options: StoreOptions
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("The calendar's address.")) var url: String
        @Option(help: .tr("Decide conflicts: local (the diary's version wins) or remote."))
        var prefer: SyncPreference?
        @Flag(help: .tr("Say what would be done, and do nothing.")) var dryRun = false
        @OptionGroup var printed: FormatOption

        func run() throws {
            let address = try server.address(url)
            let store = try options.open(reveal: false)
            let tag = address.asCollection.description.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) {
                ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3
            }
            let stateFile = try options.companionFile("caldav-" + String(tag, radix: 16))
            let sync = DiarySync(
                diary: store, client: server.client(), calendar: address, stateFile: stateFile)
            let report: SyncReport
            do {
                report = try sync.run(prefer: prefer, dryRun: dryRun)
            } catch {
                Console.error("\(error.description); nothing was changed")
                throw ExitCode(2)
            }
            switch printed.format {
            case .json:
                let items = report.changes.map { change -> [String: Any] in
                    var item: [String: Any] = [
                        "kind": change.kind.rawValue, "uid": change.uid, "name": change.name,
                        "detail": change.detail,
                    ]
                    if let id = change.id { item["id"] = id }
                    if let before = change.previousName { item["previous_name"] = before }
                    return item
                }
                var object: [String: Any] = [
                    "changes": items, "unchanged": report.unchanged, "dry_run": dryRun,
                ]
                if let stopped = report.stopped { object["stopped"] = stopped.description }
                let data = try JSONSerialization.data(
                    withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            case .text:
                for change in report.changes {
                    let who = change.id.map { "#\($0) " } ?? ""
                    let kind = tr(change.kind.rawValue)
                    func shown(_ name: String) -> String {
                        "\"" + (name == TaskRecord.sealedName ? tr(name) : name) + "\""
                    }
                    let names = [change.previousName, change.name].compactMap { $0 }.map(shown)
                    print(
                        "\(kind.padding(toLength: max(12, kind.count), withPad: " ", startingAt: 0)) \(who)\(names.joined(separator: " → ")): \(Localization.message(change.detail))"
                    )
                }
            }
            if let stopped = report.stopped {
                Console.error(
                    "\(stopped.description): the sync stopped after \(report.changes.count) change(s), which are kept; run it again to finish"
                )
                throw ExitCode(2)
            }
            let counts = Dictionary(grouping: report.changes, by: \.kind).mapValues(\.count)
            let summary = [
                counts[.pushed].map { tr("%@ sent", $0) },
                counts[.deletedThere].map { tr("%@ deleted there", $0) },
                counts[.pulled].map { tr("%@ taken", $0) },
                counts[.deletedHere].map { tr("%@ deleted here", $0) },
                counts[.conflict].map { tr("%@ in conflict", $0) },
                counts[.refused].map { tr("%@ refused", $0) },
            ].compactMap { $0 }
            let done = summary.isEmpty ? tr("nothing to do") : summary.joined(separator: ", ")
            Console.noteTranslated(
                dryRun
                    ? tr(
                        "would sync with %@: %@, %@ unchanged", address.asCollectionText, done,
                        report.unchanged)
                    : tr(
                        "synced with %@: %@, %@ unchanged", address.asCollectionText, done,
                        report.unchanged))
            if counts[.conflict] != nil || counts[.refused] != nil { throw ExitCode(1) }
        }
    }
}

#endif
