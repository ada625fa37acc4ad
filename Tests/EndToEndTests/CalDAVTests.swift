import Foundation
import Testing

let radicaleInstalled = available("python3", ["-c", "import radicale"])
let radicaleMissing =
    "Radicale is not installed (python3 -m pip install radicale==3.9.0): no CalDAV server to test with"
let xandikosInstalled = available("python3", ["-c", "import xandikos"])
/// DAViCal runs on a PostgreSQL cluster of its own, which as root is the postgres user's.
let davicalInstalled =
    FileManager.default.fileExists(atPath: "/usr/share/davical/htdocs/caldav.php")
    && available("php", ["-m"]) && geteuid() == 0

/// The CalDAV servers the suite runs against, each a real one started here: Radicale (with
/// authentication), Xandikos (the server vdirsyncer tests against; it has no authentication
/// of its own) and DAViCal (Debian's, PHP on PostgreSQL, with its own users), when they are
/// installed (in CI they must be).
enum CalDAVServerKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case radicale, xandikos, davical

    static let available: [CalDAVServerKind] =
        [.radicale] + (xandikosInstalled || required ? [.xandikos] : [])
        + (davicalInstalled || required ? [.davical] : [])

    var testDescription: String { rawValue }
}

/// A real CalDAV server on a free loopback port storing in `storage`
/// (`Fixtures/radicale_server.py`, `xandikos_server.py`, `davical_server.py`): Radicale and
/// DAViCal with authentication on (user anna, password `s3cret-Radicale`), Xandikos serving
/// the principal `/anna/`.
final class CalDAVServer {
    static let user = "anna"
    static let password = "s3cret-Radicale"
    let kind: CalDAVServerKind
    let storage: String
    private let process = Process()
    let port: Int

    /// Starts it; with `dieAfterWrites` N it exits (a server that goes away) at the N+1th
    /// PUT or DELETE; with `writeLog`, each PUT or DELETE is logged there ("PUT /anna/…").
    init(
        _ kind: CalDAVServerKind = .radicale, storage: String, htpasswd: String,
        dieAfterWrites: Int? = nil, writeLog: String? = nil
    ) throws {
        self.kind = kind
        self.storage = storage
        try Data("\(Self.user):\(Self.password)\n".utf8).write(
            to: URL(fileURLWithPath: htpasswd))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let fixture: [String] =
            switch kind {
            case .radicale: [Taskcal.fixture("radicale_server.py"), storage, htpasswd]
            case .xandikos: [Taskcal.fixture("xandikos_server.py"), storage]
            case .davical: [Taskcal.fixture("davical_server.py"), storage]
            }
        process.arguments =
            ["python3"] + fixture
            + (dieAfterWrites.map { ["--die-after-writes", String($0)] } ?? [])
            + (writeLog.map { ["--log-writes", $0] } ?? [])
        port = try startPrintingPort(process)
    }

    /// Where `caldav ls` starts: the server's root (DAViCal's is its script, `caldav.php`).
    var root: String { "http://127.0.0.1:\(port)/\(kind == .davical ? "caldav.php/" : "")" }

    /// Where calendar `name` goes: in the user's calendar home, which `caldav ls` finds from
    /// the root (Radicale's and DAViCal's is the principal itself, Xandikos's `calendars/`
    /// below it).
    func calendar(_ name: String) -> String {
        switch kind {
        case .radicale, .davical: "\(root)\(Self.user)/\(name)/"
        case .xandikos: "\(root)\(Self.user)/calendars/\(name)/"
        }
    }

    var isRunning: Bool { process.isRunning }

    func stop() {
        if process.isRunning {
            // SIGKILL: the test process may hand its children SIGTERM blocked.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// Starts `process`, a fixture server that prints its port on its first line, and returns
/// the port.
func startPrintingPort(_ process: Process) throws -> Int {
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line = Data()
    while true {
        let byte = output.fileHandleForReading.readData(ofLength: 1)
        if byte.isEmpty || byte == Data("\n".utf8) { break }
        line += byte
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)) else {
        process.terminate()
        throw CocoaError(.fileReadUnknown)
    }
    return port
}

/// The server most tests start: Radicale.
typealias Radicale = CalDAVServer

@Suite(
    "CalDAV against a real Radicale: push, pull, ls, two-way diary sync",
    .enabled(if: radicaleInstalled || required, "\(radicaleMissing)"),
    .enabled(if: BuiltTraits.calDAV || required, "\(BuiltTraits.missing("CalDAV"))"))
struct CalDAVTests {
    /// A folder with a `.netrc` for the server and a Radicale started on it.
    static func setUp(
        _ cli: Taskcal, _ kind: CalDAVServerKind = .radicale, dieAfterWrites: Int? = nil,
        writeLog: String? = nil
    ) throws -> CalDAVServer {
        try cli.write(
            "netrc", "machine 127.0.0.1 login \(Radicale.user) password \(Radicale.password)\n")
        chmod(cli.path("netrc"), 0o600)
        return try CalDAVServer(
            kind, storage: cli.path("server"), htpasswd: cli.path("htpasswd"),
            dieAfterWrites: dieAfterWrites, writeLog: writeLog)
    }

    /// `taskcal ARGS` with the test's `.netrc`.
    static func run(_ cli: Taskcal, _ arguments: [String], _ environment: [String: String] = [:])
        throws -> Taskcal.Result
    {
        try cli.run(
            arguments,
            environment: ["NETRC": cli.path("netrc"), "TZ": "Europe/Berlin"].merging(
                environment
            ) { _, new in new })
    }

    @Test(
        "ls finds calendars from the server's root; push and pull give back the records",
        arguments: CalDAVServerKind.available)
    func pushAndPull(server kind: CalDAVServerKind) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try Self.setUp(cli, kind)
        defer { server.stop() }
        let work = server.calendar("work")
        #expect(try Self.run(cli, ["caldav", "mkcal", work, "--name", "Работа"]).status == 0)
        let list = try Self.run(cli, ["caldav", "ls", server.root])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("\(work)  Работа"), "\(list.stdout)")
        let json = try Self.run(cli, ["caldav", "ls", server.root, "--format", "json"])
        #expect(json.stdout.contains(#""name":"Работа""#) && json.stdout.contains(#""sync":true"#))

        // The samples: attachments and alarms, Cyrillic, a recurring series with a moved
        // occurrence, a to-do with subtasks.
        try FileManager.default.copyItem(
            atPath: Taskcal.sample("attachments-and-alarms.json"), toPath: cli.path("tasks.json"))
        let pushed = try Self.run(
            cli,
            [
                "caldav", "push", "tasks.json", Taskcal.sample("google-recurring.ics"),
                Taskcal.sample("todo-with-subtasks.ics"), work,
            ])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stderr.contains("pushed 9 of 9 calendar objects"), "\(pushed.stderr)")
        #expect(pushed.stderr.contains("9 new, 0 updated"))
        // Radicale refuses an object with more than one UID: nine objects went in.
        if kind == .radicale {
            let objects = try FileManager.default.subpathsOfDirectory(atPath: cli.path("server"))
                .filter {
                    $0.hasSuffix(".ics") && $0.contains("/work/") && !$0.contains(".Radicale")
                }
            #expect(objects.count == 9, "\(objects)")
        }
        let again = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(again.stderr.contains("0 new, 0 updated, 2 unchanged"), "\(again.stderr)")

        // Pulled back as JSON: the records pushed, the to-do's subtasks nested again.
        let pulled = try Self.run(
            cli, ["caldav", "pull", work, "-o", "back.json", "--uid-namespace", "tasks"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let original = try Taskcal.recordList(cli.read("tasks.json"))
        let back = try Taskcal.recordList(cli.read("back.json"))
        for record in original {
            let id = record["id"] as! Int
            let match = back.first { ($0["id"] as? Int) == id && $0["uid"] == nil }
            #expect(
                match.map { NSDictionary(dictionary: $0) } == NSDictionary(dictionary: record),
                "record \(id) came back as \(String(describing: match))")
        }
        #expect(back.count == 7, "2 tasks, 3 records of the series, 2 to-dos")
        #expect(
            back.contains { (($0["subtasks"] as? [Any])?.count ?? 0) == 3 }, "subtasks nested")

        // A window: what touches 25 November 2026 only.
        let window = try Self.run(
            cli,
            ["caldav", "pull", work, "-o", "day.ics", "--from", "2026-11-25", "--to", "2026-11-26"])
        #expect(window.status == 0, "\(window.stderr)")
        #expect(window.stderr.contains("pulled 2 calendar objects"), "\(window.stderr)")
        if pythonJudges || required {
            let judged = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys, icalendar; c = icalendar.Calendar.from_ical(open(sys.argv[1],'rb').read()); print(sorted(str(e['SUMMARY']) for e in c.walk('VEVENT')))",
                    cli.path("day.ics"),
                ], in: cli.directory)
            #expect(
                judged.stdout.contains("'Planning (moved to the afternoon)'"),
                "\(judged.stdout)\(judged.stderr)")
        }
    }

    @Test(
        "diary sync: new, changed and deleted entries both ways; conflicts; overlaps refused",
        arguments: CalDAVServerKind.available, ["sqlite", "vdir"])
    func sync(server kind: CalDAVServerKind, backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try Self.setUp(cli, kind)
        defer { server.stop() }
        let calendar = server.calendar("diary")
        #expect(try Self.run(cli, ["caldav", "mkcal", calendar]).status == 0)
        let home = backend == "sqlite" ? "home.sqlite" : "vdir:" + cli.path("home")
        let laptop = backend == "sqlite" ? "laptop.sqlite" : "vdir:" + cli.path("laptop")
        func diary(_ store: String, _ arguments: [String]) throws -> Taskcal.Result {
            try Self.run(cli, ["diary"] + arguments + ["--store", store])
        }
        func sync(_ store: String, _ extra: [String] = []) throws -> Taskcal.Result {
            try diary(store, ["sync", calendar] + extra)
        }
        func names(_ store: String) throws -> [String] {
            try Taskcal.recordList(diary(store, ["list", "--format", "json"]).stdout).map {
                $0["name"] as! String
            }.sorted()
        }
        // Home: three entries and a to-do with a subtask.
        for (name, start, end) in [
            ("Dentist", "2026-12-01T09:00", "2026-12-01T10:00"),
            ("Lunch with Ольга", "2026-12-01T12:00", "2026-12-01T13:00"),
            ("Gym", "2026-12-02T08:00", "2026-12-02T09:00"),
        ] {
            #expect(
                try diary(home, ["add", "--name", name, "--start", start, "--end", end]).status == 0
            )
        }
        #expect(try diary(home, ["add", "--todo", "--name", "Move"]).stdout == "4\n")
        #expect(
            try diary(home, ["add", "--todo", "--name", "Buy boxes", "--parent", "4"]).status == 0)
        let first = try sync(home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("4 sent, 0 unchanged"), "\(first.stderr)")
        #expect(try sync(home).stderr.contains("nothing to do, 4 unchanged"))

        // The laptop gets them all.
        let taken = try sync(laptop)
        #expect(taken.stderr.contains("4 taken"), "\(taken.stdout)\(taken.stderr)")
        #expect(try names(laptop) == ["Dentist", "Gym", "Lunch with Ольга", "Move"])
        #expect(try diary(laptop, ["list", "--todo"]).stdout.contains("Buy boxes"))

        // Changed, deleted and added on the laptop; seen at home.
        let dentist =
            try Taskcal.recordList(diary(laptop, ["list", "--format", "json"]).stdout)
            .first { $0["name"] as? String == "Dentist" }!["id"] as! Int
        let gym =
            try Taskcal.recordList(diary(laptop, ["list", "--format", "json"]).stdout)
            .first { $0["name"] as? String == "Gym" }!["id"] as! Int
        #expect(
            try diary(laptop, ["edit", "\(dentist)", "--name", "Dentist, Dr. Weiss"]).status == 0)
        #expect(try diary(laptop, ["delete", "\(gym)"]).status == 0)
        #expect(
            try diary(
                laptop,
                [
                    "add", "--name", "Call", "--start", "2026-12-03T10:00", "--end",
                    "2026-12-03T10:30",
                ]
            )
            .status == 0)
        let sent = try sync(laptop)
        #expect(sent.stderr.contains("2 sent, 1 deleted there"), "\(sent.stdout)\(sent.stderr)")
        let home1 = try sync(home)
        #expect(home1.stderr.contains("2 taken, 1 deleted here"), "\(home1.stdout)\(home1.stderr)")
        // A pulled entry is named as it is now, and as it was where it was renamed.
        #expect(
            home1.stdout.contains(#"#1 "Dentist" → "Dentist, Dr. Weiss": changed on the server"#),
            "\(home1.stdout)")
        #expect(home1.stdout.contains(#""Call": new on the server"#), "\(home1.stdout)")
        #expect(try names(home) == ["Call", "Dentist, Dr. Weiss", "Lunch with Ольга", "Move"])
        // The subtask done at home shows done on the laptop.
        #expect(try diary(home, ["done", "5"]).status == 0)
        #expect(try sync(home).status == 0)
        #expect(try sync(laptop).status == 0)
        #expect(try diary(laptop, ["list", "--todo"]).stdout.contains("[x] Buy boxes"))

        // A conflict: the lunch changed on both sides. Kept as it is on each, reported.
        let lunchHome = 2
        let lunchLaptop =
            try Taskcal.recordList(diary(laptop, ["list", "--format", "json"]).stdout)
            .first { ($0["name"] as? String)?.hasPrefix("Lunch") == true }!["id"] as! Int
        #expect(try diary(home, ["edit", "\(lunchHome)", "--name", "Lunch (home)"]).status == 0)
        #expect(
            try diary(laptop, ["edit", "\(lunchLaptop)", "--name", "Lunch (laptop)"]).status == 0)
        #expect(try sync(home).status == 0)
        let conflict = try sync(laptop)
        #expect(conflict.status == 1)
        #expect(
            conflict.stdout.contains("conflict")
                && conflict.stdout.contains("changed here and on the server"))
        #expect(try names(laptop).contains("Lunch (laptop)"))
        #expect(try sync(laptop).status == 1, "still a conflict until decided")
        // Decided for the server's version.
        let decided = try sync(laptop, ["--prefer", "remote"])
        #expect(decided.status == 0, "\(decided.stdout)\(decided.stderr)")
        #expect(decided.stdout.contains(#""Lunch (laptop)" → "Lunch (home)""#), "\(decided.stdout)")
        #expect(try names(laptop).contains("Lunch (home)"))

        // The other side of a conflict: changed here, deleted there; the diary's version wins.
        #expect(try diary(home, ["delete", "\(lunchHome)"]).status == 0)
        #expect(try sync(home).status == 0)
        #expect(
            try diary(laptop, ["edit", "\(lunchLaptop)", "--name", "Lunch, moved"]).status == 0)
        let gone = try sync(laptop)
        #expect(gone.status == 1 && gone.stdout.contains("changed here and deleted on the server"))
        #expect(try sync(laptop, ["--prefer", "local"]).status == 0)
        #expect(try sync(home).stderr.contains("1 taken"))
        #expect(try names(home).contains("Lunch, moved"))

        // An entry on the server that would overlap one in the diary is not taken.
        try cli.write(
            "clash.json",
            #"[{"id": 1, "date_start": "1796113800", "date_finish": "1796115600", "name": "Clash"}]"#
        )
        #expect(try Self.run(cli, ["caldav", "push", "clash.json", calendar]).status == 0)
        let clash = try sync(home)
        #expect(clash.status == 1)
        #expect(
            clash.stdout.contains("refused") && clash.stdout.contains("not taken: overlaps #1"),
            "\(clash.stdout)")
        #expect(!(try names(home).contains("Clash")))
    }

    @Test(
        "a private entry goes to the server sealed; a diary with the key reads it",
        arguments: CalDAVServerKind.available)
    func privateEntries(server kind: CalDAVServerKind) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try Self.setUp(cli, kind)
        defer { server.stop() }
        let calendar = server.calendar("diary")
        #expect(try Self.run(cli, ["caldav", "mkcal", calendar]).status == 0)
        let key = ["TASKCAL_KEY_FILE": cli.path("diary.key")]
        #expect(
            try Self.run(cli, ["diary", "key", "init", "--store", "home.sqlite"], key).status == 0)
        #expect(
            try Self.run(
                cli,
                [
                    "diary", "add", "--private", "--name", "Therapist Weiss", "--start",
                    "2026-12-01T10:00", "--end", "2026-12-01T11:00", "--store", "home.sqlite",
                ], key
            ).status == 0)
        // No key needed to sync it: it goes sealed.
        #expect(
            try Self.run(cli, ["diary", "sync", calendar, "--store", "home.sqlite"]).status == 0)
        for path in try FileManager.default.subpathsOfDirectory(atPath: cli.path("server")) {
            let data = FileManager.default.contents(atPath: cli.path("server/" + path)) ?? Data()
            #expect(data.range(of: Data("Weiss".utf8)) == nil, "in \(path)")
        }
        // As the server serves it (Xandikos keeps its objects compressed in git): sealed.
        #expect(try Self.run(cli, ["caldav", "pull", calendar, "-o", "served.ics"]).status == 0)
        let served = try cli.read("served.ics")
        #expect(served.contains("X-TASKCAL-SEALED") && !served.contains("Weiss"), "\(served)")
        // Another diary with the same key (a copy of the key file) opens it.
        #expect(
            try Self.run(cli, ["diary", "sync", calendar, "--store", "laptop.sqlite"]).status == 0)
        let sealed = try Self.run(cli, ["diary", "list", "--store", "laptop.sqlite"])
        #expect(sealed.stdout.contains("(private)") && !sealed.stdout.contains("Weiss"))
        #expect(
            try Self.run(
                cli, ["diary", "key", "status", "--store", "laptop.sqlite"]
            ).stdout.contains("no key"))
        let adopted = try Self.run(
            cli, ["diary", "key", "init", "--store", "laptop.sqlite"], key)
        #expect(adopted.status == 0 && adopted.stderr.contains("now uses key"), "\(adopted.stderr)")
        let revealed = try Self.run(
            cli, ["diary", "list", "--reveal", "--store", "laptop.sqlite"], key)
        #expect(revealed.stdout.contains("Therapist Weiss"), "\(revealed.stderr)")
        // A diary with a key of its own does not open entries another key sealed.
        let otherKey = ["TASKCAL_KEY_FILE": cli.path("other.key")]
        #expect(
            try Self.run(cli, ["diary", "key", "init", "--store", "other.sqlite"], otherKey).status
                == 0)
        #expect(
            try Self.run(cli, ["diary", "sync", calendar, "--store", "other.sqlite"]).status == 0)
        let other = try Self.run(
            cli, ["diary", "list", "--reveal", "--store", "other.sqlite"], otherKey)
        #expect(other.status == 1 && other.stderr.contains("sealed with key"), "\(other.stderr)")
    }

    @Test(
        "a server that goes away mid-sync: nothing lost, the next sync finishes",
        arguments: CalDAVServerKind.available)
    func serverGoesAway(server kind: CalDAVServerKind) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var server = try Self.setUp(cli, kind, dieAfterWrites: 3)
        let calendar = server.calendar("diary")
        #expect(try Self.run(cli, ["caldav", "mkcal", calendar]).status == 0)
        for day in 1...6 {
            #expect(
                try Self.run(
                    cli,
                    [
                        "diary", "add", "--store", "d.sqlite", "--name", "Entry \(day)", "--start",
                        "2026-12-0\(day)T09:00", "--end", "2026-12-0\(day)T10:00",
                    ]
                ).status == 0)
        }
        let cut = try Self.run(cli, ["diary", "sync", calendar, "--store", "d.sqlite"])
        #expect(cut.status == 2)
        #expect(cut.stderr.contains("run it again to finish"), "\(cut.stderr)")
        #expect(!server.isRunning || true)
        server.stop()
        // Back, on the same storage.
        server = try CalDAVServer(
            kind, storage: cli.path("server"), htpasswd: cli.path("htpasswd"))
        defer { server.stop() }
        let again = try Self.run(
            cli, ["diary", "sync", server.calendar("diary"), "--store", "d.sqlite"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("3 sent, 3 unchanged"), "\(again.stderr)")
        let pulled = try Self.run(
            cli, ["caldav", "pull", server.calendar("diary"), "-o", "all.json"])
        #expect(try Taskcal.recordList(cli.read("all.json")).count == 6)
        #expect(
            try Self.run(cli, ["diary", "list", "--store", "d.sqlite"]).stdout
                .split(separator: "\n").count == 6)
        _ = pulled
    }

    @Test(
        "offline, wrong credentials, a password in the address: clear errors, nothing changed or said"
    )
    func failures() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try Self.setUp(cli)
        defer { server.stop() }
        let calendar = server.calendar("diary")
        #expect(try Self.run(cli, ["caldav", "mkcal", calendar]).status == 0)
        #expect(
            try Self.run(
                cli,
                [
                    "diary", "add", "--store", "d.sqlite", "--name", "Dentist", "--start",
                    "2026-12-01T09:00", "--end", "2026-12-01T10:00",
                ]
            ).status == 0)
        func entries() throws -> String {
            try Self.run(cli, ["diary", "list", "--format", "json", "--store", "d.sqlite"]).stdout
        }
        let before = try entries()

        // Nobody listening.
        let offline = try Self.run(
            cli, ["diary", "sync", "http://127.0.0.1:9/anna/diary/", "--store", "d.sqlite"])
        #expect(offline.status == 2)
        #expect(
            offline.stderr.contains("cannot reach 127.0.0.1:9")
                && offline.stderr.contains("nothing was changed"))
        #expect(try entries() == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).filter {
                $0.contains("caldav")
            }.isEmpty, "no state written")

        // Wrong password: refused, said, and the password appears nowhere.
        try cli.write("wrong-netrc", "machine 127.0.0.1 login anna password not-the-one\n")
        chmod(cli.path("wrong-netrc"), 0o600)
        let wrong = try Self.run(
            cli, ["diary", "sync", calendar, "--store", "d.sqlite"],
            ["NETRC": cli.path("wrong-netrc")])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("refused the user name anna and the password from"))
        #expect(!wrong.stderr.contains("not-the-one") && !wrong.stdout.contains("not-the-one"))
        // None at all: says where to put one.
        let none = try Self.run(
            cli, ["caldav", "ls", calendar], ["NETRC": cli.path("no-such-netrc")])
        #expect(
            none.status == 2 && none.stderr.contains("none was found")
                && none.stderr.contains(".netrc"))
        // A .netrc others may read is not used.
        try cli.write("open-netrc", "machine 127.0.0.1 login anna password \(Radicale.password)\n")
        chmod(cli.path("open-netrc"), 0o644)
        let open = try Self.run(cli, ["caldav", "ls", calendar], ["NETRC": cli.path("open-netrc")])
        #expect(open.status == 2 && open.stderr.contains("may be read by others"))
        // A password file named by the environment works.
        try cli.write("password", Radicale.password + "\n")
        let file = try Self.run(
            cli, ["caldav", "ls", server.root],
            [
                "NETRC": cli.path("no-such-netrc"),
                "TASKCAL_CALDAV_PASSWORD_FILE": cli.path("password"),
                "TASKCAL_CALDAV_USER": "anna",
            ])
        #expect(file.status == 0, "\(file.stderr)")
        // A password in the address is refused before anything is sent, and not repeated.
        let inline = try Self.run(
            cli, ["caldav", "ls", "http://anna:hunter2@127.0.0.1:\(server.port)/"])
        #expect(inline.status != 0 && inline.stderr.contains("holds a password"))
        #expect(!inline.stderr.contains("hunter2"))
        // Plain HTTP to another machine, unless asked for.
        let plain = try Self.run(cli, ["caldav", "ls", "http://calendar.example.org/"])
        #expect(plain.status != 0 && plain.stderr.contains("--allow-http"))
        for result in [offline, wrong, none, open, file, inline, plain] {
            #expect(!result.stderr.contains(Radicale.password))
        }
        // Nothing in the folder but the credential files holds the password.
        for name in try FileManager.default.subpathsOfDirectory(atPath: cli.directory.path)
        where !["netrc", "open-netrc", "password", "htpasswd"].contains(name) {
            guard let data = FileManager.default.contents(atPath: cli.path(name)) else { continue }
            #expect(data.range(of: Data(Radicale.password.utf8)) == nil, "in \(name)")
        }
    }
}
