// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

extension CalDAVCommand {
    struct Pull: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: tr("Download a calendar into a file of any format taskcal writes."),
            discussion: tr(
                """
                Reads the calendar's objects (REPORT calendar-query; with --from/--to, the events \
                and to-dos that touch the window) and writes them, in the server's order, as -o's \
                name says: .json, .ndjson, .ics, .jcal or .jscal.json. Subtasks, kept apart on the \
                server, come back inside their to-dos. The file appears whole or not at all.
                """))
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("The calendar's address.")) var url: String
        @Option(name: .shortAndLong, help: .tr("The file to write (- for standard output)."))
        var output: String
        @Option(help: .tr("Output format when the name does not tell it.")) var outputFormat:
            Format?
        @OptionGroup var window: WindowOption<PullWindow>
        @OptionGroup var zone: ZoneOption<PullZone>
        var tz: String? { zone.tz }
        @Option(
            help: ArgumentHelp(
                tr("What derived UIDs are unique to (as convert --uid-namespace)."),
                valueName: "text"))
        var uidNamespace: String?

        func validate() throws {
            try Zone.validate(tz)
            if output == "-" && outputFormat == nil {
                throw ValidationError("writing to standard output needs --output-format")
            }
        }

        func run() throws {
            let address = try server.address(url)
            let time = Zone.time(tz)
            let lower = try window.lower(in: time)
            let upper = try window.upper(in: time)
            let range =
                lower == nil && upper == nil
                ? nil
                : (lower ?? Timestamp.range.lowerBound)..<(upper ?? Timestamp.range.upperBound)
            let client = server.client()
            let objects = try server.run { () throws(CalDAVError) in
                try client.query(address, range: range)
            }
            var read = ReadOptions(format: .ics, floatingZone: tz)
            read.uidScheme = UIDScheme(namespace: uidNamespace)
            var write = WriteOptions(
                format: outputFormat ?? Format(path: output) ?? .ics, uidScheme: read.uidScheme)
            write.uidNamespace = uidNamespace
            let report = Converter.convert(
                bytes: CalendarObjects.joined(objects.compactMap(\.data)),
                name: address.description,
                format: .ics, output: output, read: read, write: write)
            Console.show(report, quiet: false)
            guard report.succeeded else {
                Console.error("nothing was written: fix the error(s) above")
                throw ExitCode(2)
            }
            if output != "-" {
                Console.note(
                    "pulled \(objects.count) calendar object\(objects.count == 1 ? "" : "s") (\(report.records) record\(report.records == 1 ? "" : "s")) from \(address) to \(output)"
                )
            }
        }
    }
}

#endif
