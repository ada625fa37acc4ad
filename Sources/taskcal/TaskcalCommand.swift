import ArgumentParser
import CLeakSanitizer
import CLibicalLookups
import CTCMalloc
import Foundation
import ICalendar
import Localization

@main
struct TaskcalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taskcal",
        abstract: tr("Convert tasks to iCalendar and back; keep a diary without double bookings."),
        discussion: tr(
            """
            Task files are JSON arrays of records such as
              {"id": 1, "date_start": "147600000", "date_finish": "147610000",
               "name": "My task", "description": "Описание моего дела"}
            (times are Unix seconds). NDJSON (.ndjson, .jsonl) holds one record a line. iCalendar \
            files (.ics) come from and go to Google Calendar, Apple Calendar, Outlook and \
            Thunderbird (convert --for APP shapes them for one; lint --for APP says beforehand \
            what it will drop). jCal (.jcal) is iCalendar as JSON; JSCalendar (.jscal.json, RFC \
            8984) is the JSON calendar format of JMAP servers.

            Exit codes: 0 success; 1 the command found what it reports (an invalid file under \
            validate, an overlap, a refused diary write, no free time); 2 bad usage or unreadable \
            input.

            Environment: TASKCAL_STORE, the diary when --store is not given; XDG_DATA_HOME, where \
            the default diary lies ($XDG_DATA_HOME/taskcal/diary.sqlite, else \
            ~/.local/share/taskcal/diary.sqlite); TZ, the local zone (--tz overrides it); \
            SOURCE_DATE_EPOCH, the DTSTAMP and updated times written (byte-identical output); \
            NO_COLOR (or TERM=dumb), no colours on a terminal; DISPLAY or WAYLAND_DISPLAY, a \
            desktop session for diary remind's notify-send; PGPASSWORD, PGPASSFILE, PGHOST, \
            PGPORT, PGUSER, PGDATABASE, PGSSLMODE, for a diary on a PostgreSQL server, as psql \
            reads them; XDG_STATE_HOME, where taskcal keeps its own files about such a diary; \
            TASKCAL_KEY_FILE, the key file of a diary's private entries, and \
            TASKCAL_PASSPHRASE_FILE, a file holding its passphrase (diary key --help); \
            TASKCAL_CALDAV_PASSWORD_FILE and TASKCAL_CALDAV_USER, a CalDAV server's password (in a \
            file) and user, and NETRC, the .netrc file (caldav --help); LANG, LC_MESSAGES, LC_ALL, \
            LANGUAGE, the language of messages (English or Russian).

            Files: the diary (SQLite, vdir:DIR of .ics files, or postgres://USER@HOST/DB); \
            DIARY.reminded, what diary remind fired; DIARY.inbox.log, the inbox's decisions (in \
            ~/.local/state/taskcal for a diary on a server); ~/.pgpass, the server's password \
            (mode 0600); ~/.netrc, CalDAV passwords (mode 0600); DIARY.caldav-HASH, what the last \
            diary sync with a calendar agreed.
            """),
        version: TaskcalCommand.version,
        subcommands: [
            Convert.self, Validate.self, Lint.self, Diff.self, Overlaps.self, Agenda.self,
            Month.self,
            Free.self, Stats.self, Inbox.self,
            DiaryCommand.self, CalDAVCommand.self,
        ]
    )

    static let version = "taskcal 1.0.0"

    /// `--version`: taskcal's, libical's as built against and as loaded (worked out only
    /// when asked: reading the process's map costs what a small conversion does), the
    /// allocator's, whose kind look-ups libical's parser reaches, and the traits built in.
    static var fullVersion: String {
        "\(version), libical \(LibicalVersion.built) (built against), \(LibicalVersion.loaded ?? "unknown") (loaded), \(allocator), \(lookups), \(traits)"
    }

    /// The SwiftPM traits this binary was built with (Package.swift): what it can reach beyond
    /// this machine.
    static var traits: String {
        let built = MissingTrait.built.map(\.rawValue)
        return "traits: " + (built.isEmpty ? "none" : built.joined(separator: ", "))
    }

    /// Whether libical's property look-ups and DATE-TIME reader are answered from
    /// CLibicalLookups' tables, and its TEXT and DATE-TIME values written and TEXT values read
    /// there: whether libical's parser, given a one-line event, and its serializer, given a
    /// SUMMARY, reached them (and the checks at first use passed).
    static var lookups: String {
        let read =
            taskcal_lookups_installed() != 0
            ? "libical look-ups from tables" : "libical look-ups linked, not in use"
        let writes = taskcal_value_writer_installed() != 0 && taskcal_lookups_writes_values() != 0
        let reads = taskcal_text_reader_installed() != 0 && taskcal_lookups_reads_texts() != 0
        let values =
            switch (reads, writes) {
            case (true, true): "values read and written in one pass"
            case (false, true): "values written in one pass, TEXT reader not in use"
            case (true, false): "TEXT read in one pass, value writer not in use"
            case (false, false): "value reader and writer linked, not in use"
            }
        return read + ", " + values
    }

    /// tcmalloc's version, and whether malloc is tcmalloc's: it is, when the dynamic linker
    /// finds it before the C library (it would not be, were the C library loaded first by
    /// another route).
    static var allocator: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        let number = tc_version(&major, &minor, nil) == nil ? "?" : "\(major).\(minor)"
        return ctcmalloc_allocated_bytes() > 0
            ? "tcmalloc \(number)" : "tcmalloc \(number) (linked, not in use)"
    }

    /// `body`, run with LeakSanitizer's reports off for what it allocates (where the sanitizer
    /// is linked in; else it only runs `body`). In a debug build ArgumentParser checks every
    /// command it parses and names its type as it does (`String(describing:)`), which the
    /// Swift runtime caches for good: under LeakSanitizer, four such names a run, each a
    /// "leak" whose suppression had to be symbolized in the 200 MB binary as the process
    /// ended, half a second of every taskcal run the sanitized suites start.
    private static func leaksUnreported<T>(_ body: () throws -> T) rethrows -> T {
        cleakcheck_pause()
        defer { cleakcheck_resume() }
        return try body()
    }

    /// Runs the command line. Usage errors exit with 2, the code DESIGN.md fixes for bad
    /// usage (ArgumentParser's own default is 64).
    static func main() {
        // A file-size limit (ulimit -f) must be a write error taskcal reports, with nothing
        // half-written, not a signal that kills it mid-write.
        signal(SIGXFSZ, SIG_IGN)
        if CommandLine.arguments.dropFirst() == ["--version"] {
            print(fullVersion)
            return
        }
        do {
            var command = try leaksUnreported { try parseAsRoot() }
            try command.run()
        } catch {
            // As ArgumentParser's exit(withError:) does, in the user's language: help and
            // what was asked for on standard output, errors on standard error.
            let code = exitCode(for: error)
            let text = leaksUnreported { fullMessage(for: error) }
            var message = Localization.argumentParserText(text)
            // Help for a person; the tree's JSON and completion scripts stay as they are.
            if code == .success { message = Localization.fittedToScreen(message) }
            if code == .validationFailure {
                Console.standardError(message + "\n")
                Foundation.exit(2)
            }
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    Console.standardError(message + "\n")
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
