import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

extension Format: ExpressibleByArgument {}

/// `--revisions`: how components that share a UID (and RECURRENCE-ID) are read.
enum RevisionReading: String, ExpressibleByArgument, CaseIterable {
    /// The newest is the event; the others are kept with the calendar (``Revisions``).
    case newest
    /// Each is an event of its own, under a UID of its own.
    case all

    /// The option's help, the same for every command that reads .ics.
    static let help = ArgumentHelp(
        tr("What becomes of components that share a UID."),
        discussion: tr(
            "newest: the one with the highest SEQUENCE, then the latest DTSTAMP, is the event, as RFC 5546 says and a CalDAV server keeps it; the others are kept with the calendar as written. all: each is an event of its own, under a UID of its own."
        ))
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: tr(
            "Convert between JSON, NDJSON, iCalendar (.ics), jCal (.jcal) and JSCalendar."),
        discussion: tr(
            """
            Formats come from the file extensions (.json, .ndjson/.jsonl, .ics, .jcal, \
            .jscal.json); use --from and --to for standard input and output (-). Records keep \
            their order. Nothing is written unless the whole input is valid: errors name the file \
            and line (or JSON index and field), and the exit code is 2.

            Examples:
              taskcal convert tasks.json -o tasks.ics
              taskcal convert export.ics -o tasks.json --tz Europe/Moscow
              taskcal convert big.ndjson -o big.ics          (streamed, flat memory)
              cat tasks.json | taskcal convert - --from json --to ics > tasks.ics
              taskcal convert mail.ics -o mail.json --extract-attachments files/
              taskcal convert team.ics -o december.json --expand 2026-12-01..2027-01-01
              taskcal convert tasks.json -o tasks.jcal         (jCal, RFC 7265)
              taskcal convert tasks.json -o tasks.jscal.json   (JSCalendar, RFC 8984)

            Calendar apps' exports come in whole: zones (Outlook's Windows names too), all-day \
            events, recurrence with exceptions and changed occurrences, to-dos with subtasks, \
            people, and every other property verbatim in ical_extra.

            JSCalendar (.jscal.json) is one Group of Events and Tasks; what RFC 8984 has no \
            property for (an alarm's text, ical_extra lines) is kept in each object's \
            "taskcal.invalid:fields", so records → JSCalendar → records loses nothing.

            DTSTAMP is the time of conversion, or SOURCE_DATE_EPOCH when it is set, so the same \
            input gives byte-identical output.
            """)
    )

    @Argument(
        help: .tr(
            "Input files (- for standard input). Several inputs go into one output, in order."))
    var inputs: [String]

    @Option(name: .shortAndLong, help: .tr("Output file (- for standard output)."))
    var output: String = "-"

    @Option(
        help: ArgumentHelp(
            tr("Convert each input to its own file in this folder (batch mode)."),
            discussion:
                tr(
                    "Inputs may be folders (searched recursively for .json, .ndjson, .jsonl, .ics, .jcal and .jscal.json; their layout is kept). Files are converted in parallel; one bad file does not stop the others. Output format: --to, else the other family (JSON → ics, ics → json)."
                )
        ))
    var outputDir: String?

    @Option(
        name: .customLong("jobs"),
        help:
            .tr(
                "Files converted at once in batch mode, and threads parsing one large .ics or decoding NDJSON (default: the number of cores)."
            )
    )
    var jobsOption: Int?

    /// `--jobs`, else the number of cores. Not the option's default value: help would print
    /// this machine's count beside the words that say it.
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Flag(help: .tr("Batch mode: replace outputs that exist (default: skip them)."))
    var force = false

    @Flag(help: .tr("Batch mode: stop starting new files after the first failure."))
    var failFast = false

    @Option(
        help:
            .tr(
                "Batch mode: write the summary as JSON to this file (one entry per input, with its errors)."
            )
    )
    var report: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "Batch mode: convert only share K of N (0 to N-1) of the files, as one of N workers."
            ),
            discussion: tr(
                "Every Nth file of the whole plan, from the Kth: N workers given the same inputs cover them once (GNU parallel over ssh, a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX). Their --report files merge with --merge-reports."
            ),
            valueName: "K/N"))
    var shard: String?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Merge the --report files given as inputs into one summary, written to --report (default: standard output)."
            ),
            discussion: tr(
                "The shares of one plan (--shard K/N, all N of them) come back in the plan's order, as one run would have listed them; reports of separate runs follow one another. Exit code 1 when a file failed, 2 when a share is missing."
            )))
    var mergeReports = false

    @Option(
        name: [.customLong("input-format"), .customLong("from")],
        help:
            .tr(
                "Input format when the name does not tell it (--from is the same)."
            )
    )
    var from: Format?

    @Option(
        help:
            .tr(
                "Output format when the name does not tell it. Default: the other family (JSON → ics, ics → json)."
            )
    )
    var to: Format?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Refuse what calendar apps accept but is unclear or beyond libical (all or nothing)."
            ),
            discussion:
                tr(
                    "Without it, an unknown TZID is read as floating time, a value libical cannot read is kept as written, a component without DTSTART is kept with the calendar as written: each with a warning naming the line. --strict makes each of those an error and writes nothing."
                )
        ))
    var strict = false

    @Option(help: RevisionReading.help) var revisions: RevisionReading = .newest

    @Option(
        help: ArgumentHelp(
            tr(
                "What derived UIDs are unique to (default: each input file's name without its extension)."
            ),
            discussion:
                tr(
                    "Records without a uid get taskcal-ID-HASH@DOMAIN, HASH from this text: the same namespace gives the same UIDs, so a calendar app updates its events instead of duplicating them. Give one (a project name, your address, a UUID) to keep UIDs when files move; reading .ics with the same namespace gives back plain ids."
                ),
            valueName: "text"))
    var uidNamespace: String?

    @Option(help: .tr("The calendar's name in the output (NAME and X-WR-CALNAME)."))
    var calendarName: String?

    @OptionGroup var zone: ZoneOption<ConvertZone>
    var tz: String? { zone.tz }

    @Option(
        help:
            .tr(
                "Domain of the UIDs derived from ids (taskcal-ID-HASH@DOMAIN)."
            )
    )
    var uidDomain: String = UIDScheme.defaultDomain

    @Option(
        help:
            .tr(
                "Write inline attachments of .ics input to files in this folder and record their paths instead of base64."
            )
    )
    var extractAttachments: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "With --for google and --extract-attachments DIR: link inline attachments as URL/NAME."
            ),
            discussion:
                tr(
                    "Google Calendar keeps attachments only as links. Each inline attachment (base64 or a path) is written to DIR under a safe name (ID-INDEX-NAME) and the event links it as URL/NAME; publish DIR at URL. Each link is reported."
                ),
            valueName: "url"))
    var attachmentBaseURL: String?

    @Option(
        help: ArgumentHelp(
            tr("Write each occurrence of repeating entries in this window as its own record."),
            discussion:
                tr(
                    "FROM..TO, each Unix seconds or ISO 8601 (2026-12-01, 2026-12-01T09:00, …Z, …+01:00), dates and local times in --tz (default: local). Occurrences overlapping the window are kept; exceptions (EXDATE) are removed and changed occurrences (RECURRENCE-ID) applied. Each occurrence keeps the series' id and uid and gets recurrence_id, its original start. Entries that do not repeat are kept when they overlap the window."
                ),
            valueName: "from..to"))
    var expand: String?

    @Option(
        help: ArgumentHelp(
            tr("With --expand: the most occurrences written, all repeating entries together."),
            discussion:
                tr(
                    "Past it, the series that reaches it is cut short and later ones are left out, each with a warning. The limit keeps an entry that repeats every second from filling the disk."
                ),
            valueName: "n"))
    var maxOccurrences: Int = Expansion.defaultLimit

    @Option(
        help: ArgumentHelp(
            tr("The most an output may take: a size (200MB, 1GiB) or none."),
            discussion:
                tr(
                    "An expansion writes each occurrence in full, so a few lines can ask for gigabytes. Unless told, --expand writes at most 64 MiB or four times what it reads, whichever is more, and other conversions have no limit. Past it the command fails (exit 2) and writes nothing."
                ),
            valueName: "size"))
    var maxOutput: String?

    /// `--max-output`, when given.
    var outputLimit: OutputLimit? {
        maxOutput.flatMap(OutputLimit.bytes).map { OutputLimit(bytes: $0) }
    }

    @Flag(
        help:
            .tr(
                "Leave out the .ics lines the task format has no field for (ical_extra), reading and writing."
            )
    )
    var dropExtra = false

    @Flag(
        help:
            .tr(
                "Write the valid records and skip the invalid ones (each reported; exit 1 when any was skipped) instead of writing nothing."
            )
    )
    var skipInvalid = false

    @Option(
        help: ArgumentHelp(
            tr(
                "Write .ics in parts of at most this size: -o out.ics gives out-001.ics, out-002.ics, …"
            ),
            discussion:
                tr(
                    "SIZE in bytes, or with a unit: 1MB (1,000,000), 500KB, 1MiB (1,048,576), 64KiB. Each part is a complete calendar: the calendar's lines, the VTIMEZONEs its events use, and every series with its changed occurrences whole; the parts together hold exactly what one file would. Google Calendar's importer takes files up to 1 MB. A series larger than SIZE alone gets a part of its own, with a warning."
                ),
            valueName: "size"))
    var splitSize: String?

    @Option(
        help: ArgumentHelp(
            tr(
                "Write .ics in parts of at most this many events (subtasks count), as --split-size does."
            ),
            valueName: "n"))
    var splitCount: Int?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            tr(
                "Shape the .ics for the app it goes into; any suits every reader at once."
            ),
            discussion:
                tr(
                    "Outlook: to-dos and subtasks left out, one alarm (the first), no disabled alarms, X-FILENAME on inline attachments, X-MICROSOFT-CDO-ALLDAYEVENT on all-day events, METHOD:PUBLISH. Google: to-dos and inline attachments left out (links kept); its dropping of alarms reported. Apple: times in a zone whose TZID must be quoted written in UTC. Thunderbird: plain RFC 5545 suits it. CalDAV: what a server refuses repaired (components kept as written but zones, period RDATEs, second rules, rules in a form it cannot read, impossible dates, inline images, changed occurrences without their series); an empty calendar is an error. any: every repair for the strictest readers (calcurse, khal, Radicale, libical, Python icalendar, vobject), also empty values, a start the rule does not give, EXDATEs without a rule; each repair of a repeat is checked to keep the same occurrences. Every change is reported as a warning, once per rule with a count; taskcal lint --for APP lists what the app will still do."
                ),
            valueName: "app"))
    var app: CalendarApp?

    @Flag(
        help: ArgumentHelp(
            tr(
                "Write private and confidential records as \"Busy\" with their times only, to share a calendar without its contents."
            ),
            discussion:
                tr(
                    "Records with \"class\": \"private\" or \"confidential\" (CLASS:PRIVATE or CLASS:CONFIDENTIAL in .ics) keep their id, UID, times, zone and repetition, named Busy; their description, place, people, categories, links, attachments, alarms, subtasks and other lines are left out. The others are written whole."
                )
        ))
    var redact = false

    @Flag(
        help:
            .tr(
                "Write every record as \"Busy\" with its times only (a free/busy view); of the calendar's own lines only X-WR-TIMEZONE and METHOD."
            )
    )
    var redactAll = false

    @Flag(
        help: ArgumentHelp(
            tr("Read the output back and compare it with what was written, as taskcal diff does."),
            discussion: tr(
                "A difference no warning of the conversion said is an error: it is listed, the output is kept, and the exit code is 1. What --expand, --redact and --drop-extra change on purpose is not a difference; --for APP's repairs are said as warnings. In batch mode each file's differences are counted in the report."
            )))
    var verify = false

    @Flag(name: .shortAndLong, help: .tr("Print only errors."))
    var quiet = false

    /// `--redact` or `--redact-all`.
    var redaction: Redaction? { redactAll ? .all : redact ? .confidential : nil }

    /// `--split-size` and `--split-count`, when given.
    var split: SplitLimit? {
        guard splitSize != nil || splitCount != nil else { return nil }
        return SplitLimit(bytes: splitSize.flatMap(SplitLimit.bytes), records: splitCount)
    }

    /// The `--expand` window.
    var expansion: Expansion? {
        guard let expand else { return nil }
        let parts = expand.components(separatedBy: "..")
        let time = Zone.time(tz)
        guard parts.count == 2, let from = time.parse(parts[0]), let to = time.parse(parts[1]),
            from < to
        else { return nil }
        return Expansion(
            window: from..<to, limit: maxOccurrences, uidScheme: UIDScheme(domain: uidDomain))
    }

}
