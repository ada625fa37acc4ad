// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

extension CalDAVCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: tr("List the calendars at an address (a server, a user's home, a calendar)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("The address: https://[USER@]HOST/PATH.")) var url: String
        @OptionGroup var printed: FormatOption

        func run() throws {
            let address = try server.address(url)
            let client = server.client()
            let calendars = try server.run { () throws(CalDAVError) in
                try client.calendars(at: address)
            }
            switch printed.format {
            case .json:
                let items = calendars.map { calendar -> [String: Any] in
                    var item: [String: Any] = [
                        "url": calendar.address.url.absoluteString,
                        "components": calendar.components, "sync": calendar.syncable,
                    ]
                    if let name = calendar.name { item["name"] = name }
                    if let color = calendar.color { item["color"] = color }
                    return item
                }
                let data = try JSONSerialization.data(
                    withJSONObject: items, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            case .text:
                if calendars.isEmpty { Console.note("no calendars at \(address)") }
                for calendar in calendars {
                    let kinds =
                        calendar.components.isEmpty
                        ? "" : "  " + calendar.components.joined(separator: ", ")
                    print(
                        "\(calendar.address.url.absoluteString)  \(calendar.name ?? tr("(no name)"))\(kinds)"
                    )
                }
            }
        }
    }
}

#endif
