// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

extension CalDAVCommand {
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
        @OptionGroup var zone: ZoneOption<PushZone>
        var tz: String? { zone.tz }
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
