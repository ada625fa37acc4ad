import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

#if PostgreSQL
import PostgresDiary
#endif

/// Options every diary verb takes.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            tr(
                "The diary: a SQLite file, vdir:DIR for a folder of .ics files, or postgres://USER@HOST/DB?diary=NAME for one shared on a PostgreSQL server."
            ),
            discussion:
                tr(
                    "Default: $TASKCAL_STORE, else $XDG_DATA_HOME/taskcal/diary.sqlite (~/.local/share/taskcal/diary.sqlite). The server's password comes from ~/.pgpass or PGPASSWORD, never from the address."
                )
        ))
    var store: String?

    @OptionGroup var zone: ZoneOption<ShownZone>
    var tz: String? { zone.tz }

    @Flag(
        help: ArgumentHelp(
            tr("Show private entries' texts, unlocking the diary's key."),
            discussion:
                tr(
                    "Without it a private entry shows its time and \"(private)\" only; its text is kept encrypted and needs the key (taskcal diary key --help)."
                )
        ))
    var reveal = false

    func validate() throws { try Zone.validate(tz) }

    var time: LocalTime { Zone.time(tz) }

    /// Where the diary is: --store, else $TASKCAL_STORE, else the default file.
    func location() throws -> StoreLocation {
        try run { () throws(DiaryError) in try StoreLocation.resolve(store) }
    }

    /// Where taskcal keeps its own file `name` about the diary
    /// (``StoreLocation/companionFile(_:)``), its folder made, private, when missing.
    func companionFile(_ name: String) throws -> String {
        let path = try location().companionFile(name)
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Opens the diary; `reveal` (default: --reveal) opens private entries with the key.
    func open(reveal: Bool? = nil) throws -> ProtectedDiary {
        let location = try location()
        return try run { () throws(DiaryError) in
            try openDiary(location, reveal: reveal ?? self.reveal)
        }
    }

    func parseTime(_ text: String, option: String) throws -> Int64 {
        guard let value = time.parse(text) else {
            throw ValidationError("\(option) '\(text)' is not a time; \(timeForms)")
        }
        return value
    }

    /// Runs a store call; a refusal prints its reason and exits 1, a storage failure exits 2.
    func run<T>(_ body: () throws(DiaryError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            if case .conflict(let record, let others) = error {
                // The refusal in the user's zone, naming every entry in the way.
                let time = self.time
                func describe(_ entry: TaskRecord) -> String {
                    "#\(entry.id) \"\(entry.displayName)\" (\(time.iso(entry.dateStart)) – \(time.clock(entry.dateFinish)))"
                }
                let what =
                    record.id > 0
                    ? describe(record)
                    : "\"\(record.name)\" (\(time.iso(record.dateStart)) – \(time.clock(record.dateFinish)))"
                Console.error(
                    "\(what) overlaps \(others.map(describe).joined(separator: " and ")); pick another time or delete or move the other entry"
                )
            } else {
                Console.error(error.description)
            }
            if case .storage = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
    }
}

/// Opens the diary at `location`, whichever backend keeps it, with its private entries
/// sealed (opened with the key when `reveal`); warnings go to standard error.
func openDiary(_ location: StoreLocation, reveal: Bool = false) throws(DiaryError)
    -> ProtectedDiary
{
    let warn: @Sendable (String) -> Void = { Console.note("warning: \($0)") }
    let base: any DiaryStore
    if case .postgres(let url) = location {
        #if PostgreSQL
        base = try PostgresDiary(url: url, warn: warn)
        #else
        _ = url
        throw .storage(MissingTrait.postgreSQL.message)
        #endif
    } else {
        base = try location.open(warn: warn)
    }
    return ProtectedDiary(base, keyring: Terminal.keyring, reveal: reveal)
}
