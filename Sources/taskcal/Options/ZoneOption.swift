import ArgumentParser
import ICalendar
import Localization

/// What `--tz` means to a family of commands, in its words: a zone to show times in, to read
/// floating times in, to write in.
protocol ZoneMeaning {
    static var help: String { get }
    static var discussion: String { get }
}

extension ZoneMeaning {
    static var discussion: String { "" }
}

/// `--tz ZONE`, declared once: its name, its value's name, the tab completion of every IANA
/// zone name; the meaning (`Meaning`) is the command family's. Every command that takes a
/// zone takes it through this group.
struct ZoneOption<Meaning: ZoneMeaning>: ParsableArguments {
    @Option(
        help: ArgumentHelp(Meaning.help, discussion: Meaning.discussion, valueName: "zone"),
        completion: .custom { _, _, prefix in TimeZones.allNames.filter { $0.hasPrefix(prefix) } })
    var tz: String?
}

/// The diary's and the inbox's verbs: times typed and times shown.
enum ShownZone: ZoneMeaning {
    static var help: String {
        tr("IANA zone for times on the command line and in text output (default: local).")
    }
}

/// The reports: times shown, and floating times of .ics inputs.
enum ReportZone: ZoneMeaning {
    static var help: String {
        tr("IANA zone to show times in and to read floating .ics times in (default: local).")
    }
}

/// `validate` and `lint`: floating times of the file.
enum FileZone: ZoneMeaning {
    static var help: String {
        tr("IANA zone for floating .ics times (default: the file's X-WR-TIMEZONE, else local).")
    }
}

/// `convert`: the zone written in, and floating times read in.
enum ConvertZone: ZoneMeaning {
    static var help: String { tr("IANA time zone (Europe/Moscow).") }
    static var discussion: String {
        tr(
            "Writing .ics: times are written in this zone with a VTIMEZONE (default UTC). Reading .ics: floating times (no zone) are read in it (default: the file's X-WR-TIMEZONE, else the local zone)."
        )
    }
}

/// `diff`: floating times of either side, and the times its report shows.
enum DiffZone: ZoneMeaning {
    static var help: String {
        tr("IANA zone for floating .ics times and for the times shown (default: local).")
    }
}

/// `caldav push`: floating times of the files pushed.
enum PushZone: ZoneMeaning {
    static var help: String { tr("IANA zone for floating times of .ics inputs.") }
}

/// `caldav pull`: the window's times, and floating times.
enum PullZone: ZoneMeaning {
    static var help: String {
        tr("IANA zone for --from/--to and for floating times (default: local).")
    }
}
