// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

/// Options every command that talks to a CalDAV server takes.
struct ServerOptions: ParsableArguments {
    @Flag(
        help:
            .tr(
                "Allow plain http:// to another machine (the password and the calendar would cross the network unencrypted; http:// to this machine is always allowed)."
            )
    )
    var allowHTTP = false

    @Option(help: ArgumentHelp(tr("How long one request may take, in seconds."), valueName: "s"))
    var timeout: Int = 60

    func validate() throws {
        if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
    }

    func address(_ text: String) throws -> CalDAVAddress {
        do {
            return try CalDAVAddress(text, allowHTTP: allowHTTP)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func client() -> CalDAVClient {
        CalDAVClient(
            sources: CredentialSources(warn: { Console.note("warning: \($0)") }),
            allowHTTP: allowHTTP, timeout: timeout)
    }

    /// Runs a server call; a failure prints its reason and exits 2 (the server could not be
    /// used), since nothing was done but what is said.
    func run<T>(_ body: () throws(CalDAVError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
        }
    }
}

struct CalDAVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caldav",
        abstract: tr("Put records on a CalDAV server, get them back, list its calendars."),
        discussion: tr(
            """
            CalDAV (RFC 4791) is how Nextcloud, Fastmail, iCloud, Radicale, SOGo and Baïkal share \
            calendars. The address is https://HOST/PATH: a calendar's, or a server's root or a \
            user's home, where ls finds the calendars (RFC 6764 discovery). Plain http:// only to \
            this machine, unless --allow-http.

            The password never goes on the command line. It comes from, in turn:
              TASKCAL_CALDAV_PASSWORD_FILE  a file whose first line is the password
                                            (the user from the address or
                                            TASKCAL_CALDAV_USER)
              ~/.netrc (or $NETRC)          machine HOST login USER password PASSWORD
                                            (mode 600; one others can read is not used)
              the Secret Service            secret-tool store --label 'CalDAV HOST' \\
                                              application taskcal server HOST user USER
            and is sent (HTTP Basic) only to that server, only once it asks.

            Examples:
              taskcal caldav ls https://anna@cloud.example.org/remote.php/dav/
              taskcal caldav push tasks.json \\
                  https://cloud.example.org/…/calendars/anna/work/
              taskcal caldav pull https://…/work/ -o work.ics \\
                  --from 2026-12-01 --to 2027-01-01
              taskcal diary sync https://…/work/        (the diary both ways)
            """),
        subcommands: [List.self, Push.self, Pull.self, MakeCalendar.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: tr("List the calendars at an address (a server, a user's home, a calendar)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("The address: https://[USER@]HOST/PATH.")) var url: String
        @Option(help: .tr("text for people, json for scripts.")) var format: ReportFormat =
            .text

        func run() throws {
            let address = try server.address(url)
            let client = server.client()
            let calendars = try server.run { () throws(CalDAVError) in
                try client.calendars(at: address)
            }
            switch format {
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

    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: tr("Upload task files to a calendar: one calendar object per UID."),
            discussion: tr(
                """
                Every record (from JSON, NDJSON, .ics, jCal or JSCalendar) goes to the calendar as \
                a calendar object named after its UID: a repeating event with its changed \
                occurrences is one object, each subtask its own. Only what is new or different is \
                sent: what the server holds is compared first (by the ETag taskcal recorded at its \
                last push there, else by reading the object as records), so a push run again after \
                a failure sends only what is missing, and the same file pushed again sends nothing \
                (DTSTAMP alone is no change). A new object is written only if nothing is there yet \
                (If-None-Match: *), a known one only if it is still as listed (If-Match: its \
                ETag). An object changed on the server since taskcal last pushed it is not \
                overwritten, and said; --force sends it, and every other object, anyway. Nothing \
                is sent if any input is invalid. UIDs come from the file's name, or \
                --uid-namespace; the record of pushes is kept in $XDG_STATE_HOME/taskcal \
                (~/.local/state/taskcal).

                Examples:
                  taskcal caldav push tasks.json https://…/calendars/anna/work/
                  taskcal caldav push tasks.json https://…/work/ --dry-run
                """))
        @OptionGroup var server: ServerOptions
        @Argument(help: .tr("Task files, then the calendar's address.")) var arguments: [String]
        @Option(help: .tr("Input format when the names do not tell it.")) var inputFormat: Format?
        @Option(
            help: ArgumentHelp(
                tr("IANA zone for floating times of .ics inputs."), valueName: "zone"))
        var tz: String?
        @Option(
            help: ArgumentHelp(
                tr("What derived UIDs are unique to (default: each file's name)."),
                valueName: "text"))
        var uidNamespace: String?
        @Flag(help: .tr("Say what would be sent, and send nothing."))
        var dryRun = false
        @Flag(
            help: .tr(
                "Send every object, the same ones and those changed on the server since the last push too."
            ))
        var force = false

        func validate() throws {
            guard arguments.count >= 2 else {
                throw ValidationError("give the files to push, then the calendar's address")
            }
            try Zone.validate(tz)
        }

        func run() throws {
            let address = try server.address(arguments.last!)
            let inputs = Array(arguments.dropLast())
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            // Rendered as one .ics by the converter (zones, UIDs, every check), then cut into
            // one object per UID.
            let rendered = folder.path("push.ics")
            var read = ReadOptions(format: inputFormat, floatingZone: tz)
            read.uidScheme = UIDScheme(namespace: uidNamespace)
            var write = WriteOptions(format: .ics, uidScheme: read.uidScheme, zone: nil)
            write.uidNamespace = uidNamespace
            write.disabledAlarmsAsActionNone = true
            let report = Converter.convert(
                inputs: inputs, output: rendered, read: read, write: write)
            Console.show(report, quiet: false)
            guard report.succeeded else {
                Console.error("nothing was pushed: fix the error(s) above")
                throw ExitCode(2)
            }
            let objects: [CalendarObject]
            do {
                objects = try CalendarObjects.split(
                    Array(try Data(contentsOf: URL(fileURLWithPath: rendered))), name: inputs[0])
            } catch let error as Diagnostic {
                Console.error(error.description)
                throw ExitCode(2)
            }
            let push = CalendarPush(
                client: server.client(), calendar: address,
                stateFile: CalendarPush.stateFile(for: address))
            let pushed: CalendarPush.Report
            do throws(CalDAVError) {
                pushed = try push.run(objects, force: force, dryRun: dryRun)
            } catch {
                Console.error("\(error.description); run the push again to finish it")
                throw ExitCode(2)
            }
            for (uid, fate, reason) in pushed.fates where fate == .notWritten {
                Console.error("\(uid): \(reason ?? "")")
            }
            let (new, updated, unchanged, held) = (
                pushed.count(.new), pushed.count(.updated), pushed.count(.unchanged),
                pushed.count(.notWritten)
            )
            let plural = objects.count == 1 ? "" : "s"
            let counts =
                held > 0
                ? "\(new) new, \(updated) updated, \(unchanged) unchanged, \(held) not written"
                : "\(new) new, \(updated) updated, \(unchanged) unchanged"
            if dryRun {
                Console.note(
                    "would push \(new + updated) of \(objects.count) calendar object\(plural) to \(address): \(counts)"
                )
            } else {
                Console.note(
                    "pushed \(new + updated) of \(objects.count) calendar object\(plural) to \(address): \(counts)"
                )
            }
            if held > 0 { throw ExitCode(1) }
        }
    }

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
        @Option(help: .tr("Only what touches this time or later.")) var from: String?
        @Option(help: .tr("Only what touches times before this.")) var to: String?
        @Option(
            help: ArgumentHelp(
                tr("IANA zone for --from/--to and for floating times (default: local)."),
                valueName: "zone"))
        var tz: String?
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
            func parse(_ text: String?, _ option: String) throws -> Int64? {
                guard let text else { return nil }
                guard let value = time.parse(text) else {
                    throw ValidationError("\(option) '\(text)' is not a time; \(timeForms)")
                }
                return value
            }
            let lower = try parse(from, "--from")
            let upper = try parse(to, "--to")
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

extension CalDAVAddress {
    /// The address as a collection's, ending in `/`.
    var asCollectionText: String {
        url.absoluteString.hasSuffix("/") ? url.absoluteString : url.absoluteString + "/"
    }
}

/// A private folder (0700) for files that must not outlive the command.
struct TemporaryFolder {
    let url: URL

    init() throws {
        var template = Array(
            (FileManager.default.temporaryDirectory.path + "/taskcal-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) })
        else {
            throw ValidationError(
                "cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        url = URL(fileURLWithPath: String(cString: made))
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

#endif
