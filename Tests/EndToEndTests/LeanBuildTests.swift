import Foundation
import Testing

/// The build a newcomer's first `swift run` makes: no traits, so no TLS, HTTP or database
/// client is compiled, and the commands that need one say how to get it.
@Suite("The lean default build: no server clients compiled, their commands say how to add them")
struct LeanBuildTests {
    /// Modules of the server clients; none may be compiled without the traits.
    static let serverModules = [
        "NIOCore", "NIOPosix", "NIOSSL", "CNIOBoringSSL", "AsyncHTTPClient", "PostgresNIO",
        "Crypto", "CCryptoBoringSSL", "Logging",
    ]

    @Test("swift build without traits builds taskcal alone, and it converts, refuses, explains")
    func lean() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // A build folder of its own (the running `swift test` holds .build); in a fresh clone
        // that is the newcomer's first build.
        let scratch = ".build-lean"
        let built = try Taskcal.execute(
            "/usr/bin/env", ["swift", "build", "--product", "taskcal", "--scratch-path", scratch],
            in: Taskcal.packageRoot, timeLimit: 3600)
        #expect(built.status == 0, "\(built.stdout.suffix(2000))\(built.stderr.suffix(2000))")
        let folder = Taskcal.packageRoot.appendingPathComponent("\(scratch)/debug")
        /// Whether `module` was compiled: its folder holds object files.
        func compiled(_ module: String) -> Bool {
            let objects = FileManager.default.enumerator(
                atPath: folder.appendingPathComponent("\(module).build").path)
            return (objects?.allObjects as? [String] ?? []).contains { $0.hasSuffix(".o") }
        }
        for module in Self.serverModules {
            #expect(!compiled(module), "\(module) was compiled")
        }
        #expect(compiled("GRDB") && compiled("ICalendar") && compiled("SystemCrypto"))
        let binary = folder.appendingPathComponent("taskcal").path

        let version = try Taskcal.execute(binary, ["--version"], in: cli.directory)
        #expect(version.stdout.hasSuffix(", traits: none\n"), "\(version.stdout)")
        let converted = try Taskcal.execute(
            binary, ["convert", Taskcal.sample("spec-example.json"), "-o", cli.path("out.ics")],
            in: cli.directory)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try cli.read("out.ics").contains("SUMMARY:My task"))

        for arguments in [
            ["caldav", "ls", "https://cloud.example.org/dav/"],
            ["caldav", "push", "tasks.json", "https://cloud.example.org/dav/anna/work/"],
            ["diary", "sync", "https://cloud.example.org/dav/anna/work/"],
        ] {
            let refused = try Taskcal.execute(binary, arguments, in: cli.directory)
            #expect(refused.status == 2, "\(arguments)")
            #expect(
                refused.stderr.contains(
                    "taskcal: CalDAV (taskcal caldav, taskcal diary sync) is not in this build: taskcal was built without the SwiftPM trait CalDAV. Rebuild with `swift build --traits CalDAV`"
                ), "\(refused.stderr)")
        }
        let postgres = try Taskcal.execute(
            binary, ["diary", "list", "--store", "postgres://anna@db.example.org/team"],
            in: cli.directory)
        #expect(postgres.status == 2)
        #expect(
            postgres.stderr.contains("swift build --traits PostgreSQL"), "\(postgres.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).sorted()
                == ["out.ics"], "nothing but the conversion's output was written")
        let help = try Taskcal.execute(binary, ["--help"], in: cli.directory)
        #expect(
            help.stdout.contains(
                "caldav                  Put records on a CalDAV server (not in this build:"))
    }
}
