import Foundation
import Locking
import TestPostgres
import Testing

/// The team diary when its server does not behave: killed, restarted, cut off, out of time or
/// disk. Each test has a server of its own (the shared one serves the other tests meanwhile).
@Suite(
    "PostgreSQL diary under faults: a server killed, restarted, cut off, full",
    .enabled(
        if: TestPostgres.isRunning || required,
        "PostgreSQL is not installed here (apt-get install postgresql); \(TestPostgres.unavailableReason)"
    ),
    .enabled(if: BuiltTraits.postgreSQL || required, "\(BuiltTraits.missing("PostgreSQL"))"))
struct PostgresFaultTests {
    /// A private server, a folder, and 10,000 entries an hour long, two hours apart.
    struct Setting {
        let server: TestPostgres
        let cli: Taskcal
        static let count = 10_000
        static let base = 1_800_000_000

        init() throws {
            server = try TestPostgres.startPrivate()
            cli = try Taskcal()
            let lines = (0..<Self.count).map {
                #"{"id": \#($0 + 1), "date_start": "\#(Self.base + $0 * 7200)", "date_finish": "\#(Self.base + $0 * 7200 + 3600)", "name": "entry \#($0 + 1)"}"#
            }
            try cli.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        }

        func cleanUp() {
            server.remove()
            cli.cleanUp()
        }

        func store(_ diary: String) -> String { server.url(diary: diary) }

        /// Runs taskcal against this server.
        func run(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(arguments, environment: server.environment)
        }

        /// Starts taskcal against this server without waiting for it.
        func launch(_ arguments: [String]) throws -> Launched {
            try Launched(arguments, in: cli, environment: server.environment)
        }

        /// How many rows the diary `diary` holds, asked of the server directly.
        func rows(_ diary: String) throws -> Int {
            Int(
                try server.psql("SELECT count(*) FROM taskcal_entry WHERE diary = '\(diary)'")
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        /// The rows of `pg_locks` that say an import holds its diary alone.
        static let importLock = """
            locktype = 'advisory' AND granted AND mode = 'ExclusiveLock'
                AND classid = \(0x7461_736B) AND objsubid = 2
            """

        /// Whether an import holds a diary, and how far the server's write-ahead log has got
        /// (bytes): an import's progress, whatever the speed of the machine.
        func progress() throws -> (holding: Bool, wal: Int) {
            let fields = try server.psql(
                """
                SELECT (SELECT count(*) FROM pg_locks WHERE \(Self.importLock)) || ' ' ||
                    (pg_current_wal_insert_lsn() - '0/0')
                """
            ).split(whereSeparator: \.isWhitespace)
            return (fields.first == "1", Int(fields.last ?? "") ?? 0)
        }

        /// Starts importing big.ndjson into `diary` and returns once the import holds the diary
        /// (or has ended), with the write-ahead log's position then.
        func importHolding(_ diary: String, _ options: [String] = []) throws -> (Launched, Int) {
            let importer = try launch(
                ["diary", "import", "big.ndjson", "--store", store(diary)] + options)
            while true {
                let now = try progress()
                if now.holding || !importer.isRunning { return (importer, now.wal) }
                usleep(1000)
            }
        }

        /// Adds one entry after the imported ones: the diary takes writes again.
        func addAfter(_ diary: String) throws -> Taskcal.Result {
            let start = Self.base + Self.count * 7200
            return try run([
                "diary", "add", "--store", store(diary), "--name", "after the fault",
                "--start", "\(start)", "--end", "\(start + 600)",
            ])
        }
    }

    /// Where in an import the server is killed: at 20 points spread over it; under a
    /// sanitizer (CI's AddressSanitizer run) at 5, which meet the same paths (a connection
    /// lost mid-import, the next command after it) in a quarter of the time.
    static let killPoints = ProcessInfo.processInfo.environment["TASKCAL_SANITIZER"] == nil ? 20 : 5

    @Test(
        "an import of 10,000 entries with the server killed (SIGKILL) at 20 points (5 under a sanitizer): all or none"
    )
    func killedImport() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        // How much write-ahead log a whole import writes while it holds the diary: the kills
        // are spread over that, not over a time that other tests running beside this one skew.
        let (calibration, started) = try setting.importHolding("calibration")
        var written = 0
        while case let now = try setting.progress(), now.holding {
            written = now.wal - started
            usleep(2000)
        }
        let measured = try calibration.wait()
        #expect(measured.status == 0, "\(measured.stderr)")
        var outcomes: [String: Int] = [:]
        let points = Self.killPoints
        for point in 0..<points {
            let diary = "killed-\(point)"
            let (importer, from) = try setting.importHolding(diary)
            let target = from + written * point / points
            while case let now = try setting.progress(), now.holding, now.wal < target {
                usleep(1000)
            }
            try setting.server.killServer()
            let result = try importer.wait()
            try setting.server.startServer()
            let rows = try setting.rows(diary)
            #expect(!result.hung && !result.signaled, "taskcal ended by itself: \(result)")
            #expect(result.status != 1, "a fault is exit 2, not a refusal: \(result.stderr)")
            if result.status == 0 {
                #expect(rows == Setting.count, "an import that said done is all there")
                outcomes["committed before the kill", default: 0] += 1
            } else if rows == Setting.count {
                #expect(result.stderr.contains("may or may not have been kept"), "\(result.stderr)")
                outcomes["killed while it committed", default: 0] += 1
            } else {
                #expect(rows == 0, "a half import: \(rows) rows")
                #expect(
                    result.stderr.contains("connection"), "says what happened: \(result.stderr)")
                #expect(result.stderr.contains("nothing"), "and what it means: \(result.stderr)")
                outcomes["rolled back", default: 0] += 1
            }
            let next = try setting.addAfter(diary)
            #expect(next.status == 0, "the next command works: \(next.stderr)")
            #expect(
                try setting.run(["diary", "check", "--store", setting.store(diary)]).status == 0)
        }
        print("PostgreSQL kills during an import of 10,000 (\(written) bytes of WAL): \(outcomes)")
        #expect(
            outcomes["rolled back", default: 0] >= points * 3 / 4,
            "most kills landed mid-import: \(outcomes)")
    }

    @Test("the connection ended by the server mid-import (pg_terminate_backend): nothing written")
    func droppedConnection() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        let (importer, _) = try setting.importHolding("dropped")
        let ended = try setting.server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE \(Setting.importLock)")
        let result = try importer.wait()
        #expect(ended.hasPrefix("t"), "the import's connection was ended: \(ended)")
        #expect(result.status == 2, "\(result)")
        // The server says why ("terminating connection due to administrator command") when
        // PostgresNIO passes its word on; when it drops the query, taskcal says it was lost.
        #expect(result.stderr.contains("connection"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing"), "\(result.stderr)")
        #expect(try setting.rows("dropped") == 0)
        #expect(try setting.addAfter("dropped").status == 0, "the next command works")
    }

    @Test("the server stopped and started between two commands, and down for one of them")
    func restartBetweenCommands() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        let store = setting.store("restarted")
        func add(_ name: String, at hour: Int) throws -> Taskcal.Result {
            try setting.run([
                "diary", "add", "--store", store, "--name", name,
                "--start", "\(Setting.base + hour * 3600)", "--end",
                "\(Setting.base + hour * 3600 + 600)",
            ])
        }
        #expect(try add("before", at: 0).status == 0)
        try setting.server.stopServer()
        let down = try add("while down", at: 1)
        #expect(down.status == 2, "\(down)")
        #expect(
            down.stderr.contains("cannot connect to the server at 127.0.0.1:"), "\(down.stderr)")
        #expect(down.stderr.contains("is it running?"), "\(down.stderr)")
        try setting.server.startServer()
        #expect(try add("after", at: 2).status == 0)
        try setting.server.stopServer("immediate")
        try setting.server.startServer()
        #expect(try add("after a crash", at: 3).status == 0)
        let listed = try setting.run(["diary", "list", "--store", store, "--format", "json"])
        let names = try Taskcal.recordList(listed.stdout).compactMap { $0["name"] as? String }
        #expect(names == ["before", "after", "after a crash"])
    }

    @Test(
        "a statement_timeout shorter than the wait for the diary: a clear refusal, nothing written")
    func statementTimeout() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        let store = setting.store("timed")
        #expect(try setting.addAfter("timed").status == 0, "the diary exists")
        try setting.server.psql("ALTER ROLE taskcal SET statement_timeout = '1s'")
        // Another session holds the diary until the import has ended (the server gives up on
        // it first): a fixed hold would end before a slow, sanitized import reached the lock.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: setting.server.binaries + "/psql")
        holder.arguments = [
            "-h", "127.0.0.1", "-p", "\(setting.server.port)", "-U", "taskcal", "-d", "taskcal",
            "-X", "-q", "-c",
            """
            SET statement_timeout = 0; BEGIN;
            SELECT pg_advisory_xact_lock(\(0x7461_736B), hashtext('timed')); SELECT pg_sleep(600);
            COMMIT;
            """,
        ]
        holder.environment = ProcessInfo.processInfo.environment.merging(setting.server.environment)
        { $1 }
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice  // "terminating connection", as meant
        try holder.run()
        while try !setting.progress().holding { usleep(1000) }
        let refused = try setting.run(["diary", "import", "big.ndjson", "--store", store])
        try setting.server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE \(Setting.importLock)")
        holder.waitUntilExit()
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("statement timeout"), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("statement_timeout"), "names the setting: \(refused.stderr)")
        #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
        #expect(try setting.rows("timed") == 1)
        // Once nobody holds the diary, the same import fits in the timeout.
        let imported = try setting.run([
            "diary", "import", "big.ndjson", "--store", store, "--new-ids",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try setting.rows("timed") == 1 + Setting.count)
    }

    @Test(
        "the server's disk full (a tablespace on a 1 MB file system): the import refused whole, then room again",
        .enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func fullDisk() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        let store = setting.store("full")
        #expect(try setting.addAfter("full").status == 0, "the diary exists")
        let folder = "/tmp/taskcal-tiny-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mounted = try Taskcal.execute(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", folder],
            in: setting.cli.directory)
        try #require(mounted.status == 0, "a tmpfs for the tablespace: \(mounted.stderr)")
        defer {
            setting.server.remove()
            _ = try? Taskcal.execute("/bin/umount", [folder], in: setting.cli.directory)
            try? FileManager.default.removeItem(atPath: folder)
        }
        if let account = getpwnam("postgres") {
            chown(folder, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        try setting.server.psql("CREATE TABLESPACE tiny LOCATION '\(folder)'")
        try setting.server.psql(
            [
                "taskcal_entry_key", "taskcal_entry_by_start", "taskcal_entry_repeating",
                "taskcal_entry_no_overlap",
            ]
            .map { "ALTER INDEX \($0) SET TABLESPACE tiny;" }.joined()
                + "ALTER TABLE taskcal_entry SET TABLESPACE tiny")
        let refused = try setting.run([
            "diary", "import", "big.ndjson", "--store", store, "--new-ids",
        ])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("disk is full"), "\(refused.stderr)")
        #expect(refused.stderr.contains("No space left on device"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
        #expect(try setting.rows("full") == 1, "the diary as it was")
        let grown = try Taskcal.execute(
            "/bin/mount", ["-o", "remount,size=64m", folder], in: setting.cli.directory)
        #expect(grown.status == 0, "\(grown.stderr)")
        let imported = try setting.run([
            "diary", "import", "big.ndjson", "--store", store, "--new-ids",
        ])
        #expect(imported.status == 0, "with room again: \(imported.stderr)")
        #expect(try setting.rows("full") == 1 + Setting.count)
        #expect(try setting.run(["diary", "check", "--store", store]).status == 0)
    }

    @Test(
        "16 writers while the server is restarted, then killed: no overlap, every accepted add kept"
    )
    func writersThroughRestarts() throws {
        let setting = try Setting()
        defer { setting.cleanUp() }
        let store = setting.store("team")
        #expect(try setting.addAfter("team").status == 0, "the diary exists")
        let finished = Counter()
        let failed = Counter()
        let rounds = 30
        let writers = 16
        // Writers 0–15 add; the 17th stops the server a third of the way through and starts it
        // again once an add has failed for it (or after 10 s: a slow machine, say under a
        // sanitizer, may start no add in a fixed pause), and kills and starts it two thirds of
        // the way. Slot r is [base + 2 h·r + 15 min·(w mod 4), +1 h): the adds of one slot
        // collide.
        let results = try concurrently(writers + 1) { worker in
            guard worker < writers else {
                while finished.value < writers * rounds / 3 { usleep(5000) }
                try setting.server.stopServer()
                let down = Date()
                while failed.value == 0 && Date().timeIntervalSince(down) < 10 { usleep(5000) }
                try setting.server.startServer()
                while finished.value < writers * rounds * 2 / 3 { usleep(5000) }
                try setting.server.killServer()
                try setting.server.startServer()
                return [Taskcal.Result]()
            }
            return try (0..<rounds).map { round in
                let slot = (worker * 3 + round) % rounds
                let start = Setting.base + slot * 7200 + (worker % 4) * 900
                defer { finished.add() }
                let result = try setting.run([
                    "diary", "add", "--store", store, "--name", "w\(worker)s\(slot)",
                    "--start", "\(start)", "--end", "\(start + 3600)",
                ])
                if result.status == 2 { failed.add() }
                return result
            }
        }.flatMap { $0 }
        let accepted = Set(
            results.filter { $0.status == 0 }.map {
                $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            })
        let refused = results.filter { $0.status == 1 && $0.stderr.contains(" overlaps #") }
        let faulted = results.filter { $0.status == 2 }
        let uncertain = faulted.filter { $0.stderr.contains("may or may not") }
        #expect(results.allSatisfy { !$0.hung && !$0.signaled && $0.status <= 2 })
        #expect(
            faulted.allSatisfy {
                $0.stderr.contains("connection") || $0.stderr.contains("cannot connect")
                    || $0.stderr.contains("the database system is")
            }, "each failure says the server went: \(faulted.map(\.stderr).prefix(5))")
        #expect(!faulted.isEmpty, "the restarts met some adds")
        let listed = try setting.run(["diary", "list", "--store", store, "--format", "json"])
        let ids = Set(
            try Taskcal.recordList(listed.stdout).map { String($0["id"] as! Int) })
        #expect(accepted.isSubset(of: ids), "every add that printed an id is kept")
        #expect(
            ids.count - 1 - accepted.count <= uncertain.count,
            "an entry nobody was told of only where the commit's answer was lost")
        try setting.cli.write("team.json", listed.stdout)
        #expect(try setting.run(["overlaps", "team.json"]).status == 0, "no overlap stored")
        #expect(try setting.run(["diary", "check", "--store", store]).status == 0)
        print(
            "16 writers through a restart and a kill: \(accepted.count) accepted, \(refused.count) refused as overlaps, \(faulted.count) failed by the faults (\(uncertain.count) unsure whether committed)"
        )
    }
}

/// A taskcal process started without waiting for it, its output going to files.
struct Launched {
    let process = Process()
    let finished = DispatchSemaphore(value: 0)
    let output: URL
    let errors: URL

    init(_ arguments: [String], in cli: Taskcal, environment: [String: String]) throws {
        output = cli.directory.appendingPathComponent("launched-\(UUID().uuidString).out")
        errors = cli.directory.appendingPathComponent("launched-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = Taskcal.binary
        process.arguments = arguments
        process.currentDirectoryURL = cli.directory
        process.environment = ProcessInfo.processInfo.environment.merging(
            environment.merging(["TZ": "UTC", "SOURCE_DATE_EPOCH": "1700000000"]) { $1 }
        ) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        let finished = finished
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
    }

    var isRunning: Bool { process.isRunning && !TestPostgres.isZombie(process.processIdentifier) }

    /// Waits for it to end (killing it as hung after `limit` seconds) and reads its output.
    func wait(limit: TimeInterval = 120) throws -> Taskcal.Result {
        let end = Taskcal.wait(for: process, finished, limit: limit)
        return Taskcal.Result(
            status: end.status,
            stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self),
            signaled: end.signaled, hung: end.hung)
    }
}

/// A count several tasks add to.
final class Counter: Sendable {
    private let count = Locked(0)

    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
