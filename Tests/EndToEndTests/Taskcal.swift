import Foundation
import Locking
import TestPostgres
import Testing

/// The diary backends the command-line tests run on: PostgreSQL too when taskcal was built
/// with it and its server can be started here (Debian's postgresql package; in CI it must be).
let diaryBackends: [String] =
    ["sqlite", "vdir"]
    + (BuiltTraits.postgreSQL && TestPostgres.isRunning
        || ProcessInfo.processInfo.environment["CI"] != nil
        ? ["postgres"] : [])

/// Runs the built `taskcal` binary as a user would, in a fresh folder.
struct Taskcal {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Whether the process ended by a signal (a crash, or killed when it hung).
        var signaled = false
        /// Whether it was killed for running past its time.
        var hung = false
    }

    /// How long one command may run before the test kills it and reports a hang: far above
    /// any honest run, so it never fails a slow machine, only a command that never ends.
    static let hangLimit: TimeInterval = 300

    /// How long a script that runs taskcal over the whole corpus or thousands of series may
    /// run: under AddressSanitizer beside other suites on two cores the corpus' conformance
    /// script took past `hangLimit` (killed, status 9), and such a script is hundreds of commands.
    static let scriptLimit: TimeInterval = 3_600

    /// The package root: tests run from it under `swift test`.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/"
            && !FileManager.default.fileExists(
                atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url
    }()

    /// The `taskcal` executable the end-to-end suites run: `TASKCAL_BINARY` when set (CI
    /// sets it to a copy of the release build the Debian package is made from, so the suites
    /// judge the binary that ships; docs/development.md says why), else the one built beside
    /// this test bundle.
    static let binary: URL = {
        if let chosen = ProcessInfo.processInfo.environment["TASKCAL_BINARY"], !chosen.isEmpty {
            let url = URL(fileURLWithPath: chosen, relativeTo: packageRoot).standardizedFileURL
            precondition(
                FileManager.default.isExecutableFile(atPath: url.path),
                "TASKCAL_BINARY=\(chosen): no executable there")
            return url
        }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [
            besideTests, besideTests.deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ] {
            let candidate = directory.appendingPathComponent("taskcal")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/taskcal")
    }()

    /// A new empty folder, removed by the caller with `cleanUp`.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The diary a test keeps on `backend`: `sqlite` a file, `vdir` a folder of .ics files,
    /// `postgres` a diary of its own on the test server.
    func store(_ backend: String) -> String {
        switch backend {
        case "sqlite": path("diary.sqlite")
        case "postgres":
            (try? TestPostgres.shared.get().url(diary: directory.lastPathComponent))
                ?? "postgres://nowhere.invalid/unavailable"
        default: "vdir:" + path("calendar")
        }
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    func write(_ name: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Runs `taskcal arguments…` in ``directory`` with `SOURCE_DATE_EPOCH` and `TZ` fixed.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:])
        throws -> Result
    {
        try Self.execute(
            Self.binary.path, arguments, in: directory, stdin: stdin, environment: environment)
    }

    static func execute(
        _ executable: String, _ arguments: [String], in directory: URL, stdin: String? = nil,
        environment: [String: String] = [:], timeLimit: TimeInterval = hangLimit
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["SOURCE_DATE_EPOCH"] = "1700000000"
        env["TZ"] = "UTC"
        env["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        // A command that names the test server's diary logs in as a user would: through
        // PGPASSWORD, never a password in the address.
        if arguments.contains(where: { $0.hasPrefix("postgres://") }),
            let server = try? TestPostgres.shared.get()
        {
            env["PGPASSWORD"] = server.password
        }
        env.merge(environment) { _, new in new }
        process.environment = env
        // Output goes to files, not pipes: a large output cannot block the child.
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-err-\(UUID().uuidString)")
        let inURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-in-\(UUID().uuidString)")
        defer {
            for url in [outURL, errURL, inURL] { try? FileManager.default.removeItem(at: url) }
        }
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let input = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try Self.withSignalsUnblocked { try process.run() }
        let end = Self.wait(for: process, finished, limit: timeLimit)
        try out.close()
        try err.close()
        try input.close()
        return Result(
            status: end.status,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            signaled: end.signaled, hung: end.hung)
    }

    /// Runs `body` (which starts a process) on this thread with no signal blocked.
    ///
    /// A child inherits the mask of the thread that spawns it, and the test runner's threads
    /// block SIGTERM among others: a `dbus-daemon` that `dbus-run-session` started this way
    /// never took its SIGTERM and stayed behind after every run of the Secret Service test.
    static func withSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    /// Waits for `process` (started with a termination handler that signals `finished`) to
    /// end, killing it after `limit` seconds, and returns how it ended.
    ///
    /// Foundation's Process was seen, with many threads starting processes at once, to never
    /// reap a child nor call its handler: the child stayed a zombie and a wait without end hung
    /// the whole suite. So a child that has been a zombie for two seconds is reaped here.
    static func wait(for process: Process, _ finished: DispatchSemaphore, limit: TimeInterval)
        -> (status: Int32, signaled: Bool, hung: Bool)
    {
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(limit)
        var hung = false
        var zombieSince: Date?
        while finished.wait(timeout: .now() + 0.5) == .timedOut {
            if TestPostgres.isZombie(pid) {
                zombieSince = zombieSince ?? Date()
                var status: Int32 = 0
                if Date().timeIntervalSince(zombieSince!) > 2, waitpid(pid, &status, WNOHANG) == pid
                {
                    // WIFEXITED and WEXITSTATUS, WTERMSIG: Swift imports none of them.
                    let signal = status & 0x7f
                    return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, signal != 0, hung)
                }
            } else if !hung && Date() > deadline {
                hung = true
                kill(pid, SIGKILL)
            }
        }
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal, hung)
    }

    /// The sample file `name` from `Samples/`.
    static func sample(_ name: String) -> String {
        packageRoot.appendingPathComponent("Samples").appendingPathComponent(name).path
    }

    /// The test fixture `name` from `Tests/EndToEndTests/Fixtures/`.
    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures").appendingPathComponent(
            name
        ).path
    }

    /// JSON records of a task file (an array, the object form with calendar data, or NDJSON),
    /// as plain JSON values (for comparisons that ignore layout).
    static func records(_ text: String) throws -> NSArray {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("[") {
            return try JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as! NSArray
        }
        if trimmed.hasPrefix("{\"calendar\""),
            !trimmed.contains("\n{") || trimmed.contains("\"records\"")
        {
            if let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))
                as? [String: Any], let records = object["records"] as? NSArray
            {
                return records
            }
        }
        return try NSArray(
            array: trimmed.split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8))
            }.filter { ($0 as? [String: Any])?.keys.contains("calendar") != true })
    }

    /// The records of a task file as dictionaries.
    static func recordList(_ text: String) throws -> [[String: Any]] {
        try records(text).map { $0 as! [String: Any] }
    }
}

/// The SwiftPM traits `swift test` was given (`--traits`, `--enable-all-traits`), which the
/// `taskcal` binary it built has too. A suite for a trait not built is skipped, saying how to
/// build it, except in CI, where it must run.
enum BuiltTraits {
    static let calDAV: Bool = {
        #if CalDAV
        true
        #else
        false
        #endif
    }()

    static let postgreSQL: Bool = {
        #if PostgreSQL
        true
        #else
        false
        #endif
    }()

    static func missing(_ trait: String) -> String {
        "taskcal was built without the \(trait) trait: run swift test --enable-all-traits"
    }
}

extension Taskcal {
    /// Every command's path (`[]`, `["diary"]`, `["diary", "add"]`, …), from ArgumentParser's
    /// own description of the tree.
    func commandPaths() throws -> [[String]] {
        let dump = try run(["--experimental-dump-help"])
        let tree = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var paths: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            paths.append(path)
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + [name])
            }
        }
        walk(try #require(tree["command"] as? [String: Any]), [])
        return paths
    }
}

/// Runs `body(0)` … `body(count - 1)` each on a thread of its own, all at once, and returns
/// their results in order. Test workers that start processes and wait for them block their
/// thread: as tasks of a task group they would share the few threads of Swift's pool (one per
/// core), and "16 writers at once" would be two at a time on a two-core machine.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T)
    throws -> [T]
{
    let results = Locked([Int: Result<T, any Error>]())
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        Thread.detachNewThread {
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            done.leave()
        }
    }
    done.wait()
    return try results.withLock { all in try (0..<count).map { try all[$0]!.get() } }
}
