// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

extension CalDAVCommand {
    struct MakeCalendar: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mkcal", abstract: tr("Make a new calendar at an address (MKCALENDAR)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("The new calendar's address.")) var url: String
        @Option(help: .tr("Its name, as apps show it.")) var name: String?

        func run() throws {
            let address = try server.address(url)
            let client = server.client()
            try server.run { () throws(CalDAVError) in
                try client.makeCalendar(address, name: name)
            }
            Console.note("made the calendar \(address.asCollectionText)")
        }
    }
}

#endif
