import ArgumentParser
import Localization

/// A feature of taskcal that a SwiftPM trait brings (Package.swift): a build without the
/// trait has its commands, which say so and how to get it, and exit 2 (bad usage: this
/// binary cannot do what was asked, and nothing was done).
enum MissingTrait: String {
    case calDAV = "CalDAV"
    case postgreSQL = "PostgreSQL"

    /// What the user reads: what is missing, and the commands that bring it.
    var message: String {
        tr(
            "%@ not in this build: taskcal was built without the SwiftPM trait %@. Rebuild with `swift build --traits %@` (or run `swift run --traits %@ taskcal …`), or install with Scripts/install.sh or the Debian package, which have it.",
            what, rawValue, rawValue, rawValue)
    }

    private var what: String {
        switch self {
        case .calDAV: tr("CalDAV (taskcal caldav, taskcal diary sync) is")
        case .postgreSQL: tr("A diary on a PostgreSQL server (postgres://…) is")
        }
    }

    /// Whether this build has the feature.
    var isBuilt: Bool {
        switch self {
        case .calDAV:
            #if CalDAV
            true
            #else
            false
            #endif
        case .postgreSQL:
            #if PostgreSQL
            true
            #else
            false
            #endif
        }
    }

    /// The traits this build has, for `--version`.
    static var built: [MissingTrait] { [.calDAV, .postgreSQL].filter(\.isBuilt) }

    /// Says the feature is missing and exits 2.
    func refuse() throws -> Never {
        Console.error(message)
        throw ExitCode(2)
    }
}

#if !CalDAV
/// `taskcal caldav` in a build without the CalDAV trait.
struct CalDAVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caldav",
        abstract: tr("Put records on a CalDAV server (not in this build: --traits CalDAV)."),
        discussion: MissingTrait.calDAV.message)

    @Argument(parsing: .allUnrecognized, help: .hidden) var arguments: [String] = []

    func run() throws { try MissingTrait.calDAV.refuse() }
}

extension DiaryCommand {
    /// `taskcal diary sync` in a build without the CalDAV trait.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: tr(
                "Sync the diary with a CalDAV calendar (not in this build: --traits CalDAV)."),
            discussion: MissingTrait.calDAV.message)

        @Argument(parsing: .allUnrecognized, help: .hidden) var arguments: [String] = []

        func run() throws { try MissingTrait.calDAV.refuse() }
    }
}
#endif
