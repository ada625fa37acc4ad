import Foundation
import Testing

/// A scripted CalDAV server that answers as a hostile or broken one would
/// (`Fixtures/hostile_server.py`), logging every request it gets.
final class HostileServer {
    private let process = Process()
    let port: Int
    let log: String

    init(_ scenario: String, log: String) throws {
        self.log = log
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Taskcal.fixture("hostile_server.py"), scenario, log]
        port = try startPrintingPort(process)
    }

    var calendar: String { "http://127.0.0.1:\(port)/anna/diary/" }

    /// The requests it got: `METHOD PATH`.
    var requests: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

let gnuTime = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")

@Suite(
    "Hostile server replies: a clear error, bounded memory, nothing outside the calendar touched, the diary and the sync state unchanged",
    .enabled(if: BuiltTraits.calDAV || required, "\(BuiltTraits.missing("CalDAV"))"))
struct HostileServerTests {
    /// Each scenario of `hostile_server.py` and what taskcal must say of it.
    static let scenarios: [(String, String)] = [
        ("outside", "as an object of"),
        ("bomb", "declares a document type"),
        ("entity", "declares a document type"),
        ("deep", "nests elements deeper than 64"),
        ("huge", "larger than 64 MB; not read"),
        ("cut", "127.0.0.1"),
        ("error500", "REPORT sync-collection failed: HTTP 500 (<error>the database is down"),
        ("midway", "REPORT calendar-multiget failed: HTTP 500"),
        ("redirect", "redirects REPORT to another server"),
    ]

    @Test(
        "diary sync against each hostile reply",
        arguments: scenarios.map(\.0))
    func sync(scenario: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("netrc", "machine 127.0.0.1 login anna password not-asked\n")
        chmod(cli.path("netrc"), 0o600)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(
                ["diary"] + arguments + ["--store", "d.sqlite"],
                environment: ["NETRC": cli.path("netrc"), "TZ": "Europe/Berlin"])
        }
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-10T09:00", "--end",
                "2026-12-10T10:00",
            ]).status == 0)
        let before = try diary(["list", "--format", "json"]).stdout
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
        let server = try HostileServer(scenario, log: cli.path("requests.log"))
        defer { server.stop() }
        let command =
            (gnuTime ? ["/usr/bin/time", "-f", "peak %M KB"] : []) + [
                Taskcal.binary.path, "diary", "sync", server.calendar, "--store", "d.sqlite",
            ]
        let sync = try Taskcal.execute(
            "/usr/bin/env", command, in: cli.directory,
            environment: ["NETRC": cli.path("netrc"), "TZ": "Europe/Berlin"], timeLimit: 120)
        let expected = Self.scenarios.first { $0.0 == scenario }?.1 ?? ""
        #expect(sync.status == 2, "\(scenario): \(sync.stdout)\(sync.stderr)")
        #expect(!sync.signaled && !sync.hung, "\(scenario): \(sync.stderr.prefix(2000))")
        #expect(sync.stderr.contains(expected), "\(scenario): \(sync.stderr.prefix(600))")
        #expect(sync.stderr.contains("nothing was changed"), "\(scenario): \(sync.stderr)")
        // The diary as it was, no sync state written, nothing sent or asked outside the
        // calendar.
        #expect(try diary(["list", "--format", "json"]).stdout == before, "\(scenario)")
        let after = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
        #expect(
            Set(after).subtracting(files).subtracting(["requests.log"]).filter {
                $0.contains("caldav")
            }.isEmpty, "\(scenario): \(after)")
        let requests = server.requests
        #expect(!requests.isEmpty, "\(scenario): the server was asked")
        for request in requests {
            #expect(
                request.hasPrefix("REPORT /anna/diary/")
                    || request.hasPrefix("PROPFIND /anna/diary/"),
                "\(scenario): \(request)")
        }
        // Bounded memory: well under the 100 MB the huge answer is.
        if gnuTime,
            let line = sync.stderr.split(separator: "\n").last(where: { $0.hasPrefix("peak ") }),
            let kilobytes = Int(line.split(separator: " ")[1])
        {
            #expect(kilobytes < 200_000, "\(scenario): \(kilobytes) KB")
        }
    }

    @Test("the same server's sound answers are read: what fails above fails for its hostile part")
    func soundAnswers() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("netrc", "machine 127.0.0.1 login anna password not-asked\n")
        chmod(cli.path("netrc"), 0o600)
        // Scenario "midway" is sound until its objects are fetched.
        let server = try HostileServer("midway", log: cli.path("requests.log"))
        defer { server.stop() }
        let ls = try cli.run(
            ["caldav", "ls", server.calendar], environment: ["NETRC": cli.path("netrc")])
        #expect(ls.status == 0, "\(ls.stderr)")
        #expect(ls.stdout.contains("Diary"), "\(ls.stdout)")
    }
}
