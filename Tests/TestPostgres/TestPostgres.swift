import Foundation

/// A throw-away PostgreSQL cluster for the tests of one test process: Debian's server
/// (`apt-get install postgresql`), started on first use on a free loopback port with password
/// authentication on, and stopped and removed when the process ends.
///
/// Every test gets its own diary in the one database (`?diary=<uuid>`), which is how a team
/// shares a database anyway; tests that need a database of their own ask for one.
public struct TestPostgres: Sendable {
    public let port: Int
    public let user = "taskcal"
    /// Given to taskcal through `PGPASSWORD` or a password file, never in a URL.
    public let password: String
    /// The folder of the server's Unix socket.
    public let socketFolder: String
    /// The server's programs (`createdb`, `psql`, …).
    public let binaries: String

    /// The cluster, or why there is none (PostgreSQL not installed, or it would not start).
    public static let shared: Result<TestPostgres, Unavailable> = start()

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether the cluster runs; in CI (`CI` set) the tests must not skip it.
    public static var isRunning: Bool { (try? shared.get()) != nil }
    public static var unavailableReason: String {
        if case .failure(let reason) = shared { return reason.description }
        return ""
    }

    /// A `postgres://` URL of a fresh diary in the shared database `taskcal`.
    public func url(
        diary: String = "test-" + UUID().uuidString.lowercased(), database: String = "taskcal"
    )
        -> String
    {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?diary=\(diary)&sslmode=disable"
    }

    /// The environment a taskcal process needs to log in.
    public var environment: [String: String] { ["PGPASSWORD": password] }

    /// Creates a database of its own for a test.
    public func createDatabase(_ name: String) throws {
        try Self.run(
            binaries + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, name],
            environment: environment, asServer: false)
    }

    /// Runs SQL through `psql` in `database`, and returns what it printed (tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "taskcal") throws -> String {
        try Self.run(
            binaries + "/psql",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-X", "-q", "-A",
                "-t", "-v", "ON_ERROR_STOP=1", "-c", sql,
            ], environment: environment, asServer: false)
    }

    // MARK: - Starting and stopping

    private static func start() -> Result<TestPostgres, Unavailable> {
        do {
            let server = try startCluster()
            try server.createDatabase("taskcal")
            return .success(server)
        } catch let error as Unavailable {
            return .failure(error)
        } catch {
            return .failure(Unavailable(description: "a PostgreSQL test cluster: \(error)"))
        }
    }

    /// A cluster of the caller's own, with a database `taskcal`, for tests that stop, kill or
    /// fill its server (the shared one serves every other test at the same time). Removed by
    /// ``remove()``, or when the process ends.
    ///
    /// Unlike the shared cluster's, its commits are synchronous (the server's default): with
    /// `synchronous_commit = off` a server that crashes loses the last commits it already
    /// confirmed, which no client can prevent.
    public static func startPrivate() throws -> TestPostgres {
        let server = try startCluster(synchronousCommit: true)
        try server.createDatabase("taskcal")
        return server
    }

    private static func startCluster(synchronousCommit: Bool = false) throws -> TestPostgres {
        let versions =
            (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard
            let version = versions.compactMap(Int.init).sorted().last,
            FileManager.default.isExecutableFile(
                atPath: "/usr/lib/postgresql/\(version)/bin/initdb")
        else {
            throw Unavailable(
                description:
                    "PostgreSQL is not installed (apt-get install postgresql): no /usr/lib/postgresql/*/bin/initdb"
            )
        }
        let binaries = "/usr/lib/postgresql/\(version)/bin"
        let folder = "/tmp/taskcal-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        let password = UUID().uuidString
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data(password.utf8).write(to: URL(fileURLWithPath: folder + "/password"))
            // The server refuses to run as root: as root, the cluster is the postgres user's.
            if geteuid() == 0 {
                guard let account = getpwnam("postgres") else {
                    throw Unavailable(description: "running as root and there is no postgres user")
                }
                chown(folder, account.pointee.pw_uid, account.pointee.pw_gid)
                chown(folder + "/password", account.pointee.pw_uid, account.pointee.pw_gid)
            }
            try run(
                binaries + "/initdb",
                [
                    "-D", folder + "/data", "-U", "taskcal", "--pwfile=\(folder)/password",
                    "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync",
                ], asServer: true)
            Stopper.add(folder: folder, binaries: binaries)
            var lastError = ""
            for _ in 0..<5 {
                let server = TestPostgres(
                    port: freePort(), password: password, socketFolder: folder, binaries: binaries)
                // The settings go into the cluster's configuration (the last line of a name
                // wins), so that a restart after a stop or a kill brings the same server back.
                let settings = """

                    port = \(server.port)
                    unix_socket_directories = '\(folder)'
                    listen_addresses = '127.0.0.1'
                    fsync = off
                    synchronous_commit = \(synchronousCommit ? "on" : "off")
                    full_page_writes = off
                    max_connections = 200

                    """
                let configuration = FileHandle(forWritingAtPath: folder + "/data/postgresql.conf")
                configuration?.seekToEndOfFile()
                configuration?.write(Data(settings.utf8))
                try configuration?.close()
                do {
                    try server.startServer()
                } catch {
                    lastError = "\(error)"
                    continue
                }
                return server
            }
            throw Unavailable(description: "the server would not start: \(lastError)")
        } catch {
            Stopper.stop(folder: folder, binaries: binaries)
            if let error = error as? Unavailable { throw error }
            throw Unavailable(description: "a PostgreSQL test cluster: \(error)")
        }
    }

    // MARK: - Faults, for a private cluster

    /// The cluster's data folder.
    public var dataFolder: String { socketFolder + "/data" }

    /// Starts the server (after ``stopServer(_:)`` or ``killServer()``) and waits until it
    /// takes connections; after a kill, that includes its crash recovery.
    public func startServer() throws {
        try Self.run(
            binaries + "/pg_ctl",
            ["-D", dataFolder, "-l", socketFolder + "/server.log", "-w", "-t", "60", "start"],
            asServer: true)
    }

    /// Stops the server: `fast` rolls back what is under way and ends the connections.
    public func stopServer(_ mode: String = "fast") throws {
        try Self.run(
            binaries + "/pg_ctl", ["-D", dataFolder, "-m", mode, "-w", "stop"], asServer: true)
    }

    /// The server's main process, from its lock file, or nil when it is not running.
    public var serverPID: pid_t? {
        guard
            let text = try? String(contentsOfFile: dataFolder + "/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let pid = pid_t(first),
            Self.isAlive(pid)
        else { return nil }
        return pid
    }

    /// Kills the server and every process of it with SIGKILL at once, as the kernel's OOM
    /// killer or a lost machine would, and waits until all of them are gone. Nothing is shut
    /// down cleanly: ``startServer()`` runs the crash recovery.
    public func killServer() throws {
        guard let main = serverPID else {
            throw Unavailable(description: "the server is not running")
        }
        let processes = [main] + Self.children(of: main)
        for pid in processes { kill(pid, SIGKILL) }
        let deadline = Date().addingTimeInterval(30)
        while processes.contains(where: Self.isAlive) {
            guard Date() < deadline else {
                throw Unavailable(description: "the server's processes outlived SIGKILL for 30 s")
            }
            usleep(10_000)
        }
        // A killed server's main process may linger as a zombie where nobody reaps orphans,
        // and the server would take it for itself still running; after a real crash its
        // process is gone and the lock files name nobody.
        unlink(dataFolder + "/postmaster.pid")
        unlink(socketFolder + "/.s.PGSQL.\(port).lock")
    }

    /// Whether `pid` still runs: a process killed after its parent died may stay a zombie
    /// (state Z) where nobody reaps orphans, and a zombie holds nothing.
    static func isAlive(_ pid: pid_t) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)/stat") && !isZombie(pid)
    }

    /// Whether `pid` has ended and waits to be reaped (state Z).
    public static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            // "pid (name) state ppid …": the name may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid
        }
    }

    /// Stops the server at once and removes its folder.
    public func remove() {
        Stopper.stop(folder: socketFolder, binaries: binaries)
    }

    /// A port nobody listens on now (the kernel's choice for port 0).
    private static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 ? getsockname(descriptor, $0, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The clusters to stop when the process ends (`atexit` takes no captures).
    private enum Stopper {
        nonisolated(unsafe) static var clusters: [(folder: String, binaries: String)] = []
        nonisolated(unsafe) static var registered = false
        static let lock = NSLock()

        static func add(folder: String, binaries: String) {
            lock.lock()
            defer { lock.unlock() }
            if !registered { atexit { Stopper.stopAll() } }
            registered = true
            clusters.append((folder, binaries))
        }

        static func stop(folder: String, binaries: String) {
            _ = try? TestPostgres.run(
                binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"],
                asServer: true)
            try? FileManager.default.removeItem(atPath: folder)
            lock.lock()
            clusters.removeAll { $0.folder == folder }
            lock.unlock()
        }

        static func stopAll() {
            lock.lock()
            let all = clusters
            lock.unlock()
            for cluster in all { stop(folder: cluster.folder, binaries: cluster.binaries) }
        }
    }

    /// Runs a server program (as the postgres user when we are root) and returns its output.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: `pg_ctl start` leaves a server
    /// running behind it, and Process was seen never to notice its child end then.
    @discardableResult
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:],
        asServer: Bool
    ) throws -> String {
        let argv =
            asServer && geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments
            : [program] + arguments
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .map { "\($0)=\($1)" }
        let log = "/tmp/taskcal-pg-run-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
            strings.map { strdup($0) } + [nil]
        }
        let cArguments = cStrings(argv)
        let cEnvironment = cStrings(variables)
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else {
            throw Unavailable(
                description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Unavailable(
                description:
                    "\((program as NSString).lastPathComponent) ended with status \(status): \(text)"
            )
        }
        return text
    }
}
