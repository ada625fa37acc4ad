import Foundation
import Testing

let manAvailable = available("man", ["--version"])

@Suite("Installs like a Linux tool: binary, man pages and completions under a PREFIX")
struct InstallTests {
    @Test(
        "Scripts/install.sh PREFIX installs what the README says, and --uninstall removes it",
        .enabled(if: manAvailable || required, "man is not installed (apt-get install man-db)"))
    func install() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let prefix = cli.path("prefix")
        let script = Taskcal.packageRoot.appendingPathComponent("Scripts/install.sh").path
        // A build folder of its own: the running `swift test` holds .build. In a fresh clone
        // that is a release build from scratch, SwiftNIO and BoringSSL included: over five
        // minutes on two busy cores (seen killed at the usual limit), so it gets an hour.
        let installed = try Taskcal.execute(
            "/bin/bash", [script, prefix], in: Taskcal.packageRoot,
            environment: ["TASKCAL_BUILD_PATH": ".build-install"], timeLimit: 3600)
        #expect(!installed.hung, "the install did not finish within an hour")
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        #expect(installed.stdout.contains("man pages in \(prefix)/share/man/man1"))
        // The installed binary runs and says which libical it was built against and runs on,
        // that its malloc is tcmalloc's, and that libical's parser reaches taskcal's look-up tables.
        let version = try Taskcal.execute("\(prefix)/bin/taskcal", ["--version"], in: cli.directory)
        #expect(version.status == 0)
        #expect(
            version.stdout.range(
                of:
                    #"^taskcal [0-9.]+, libical [0-9.]+ \(built against\), [0-9.]+ \(loaded\), tcmalloc [0-9.]+, libical look-ups from tables, values read and written in one pass, traits: CalDAV, PostgreSQL\n$"#,
                options: .regularExpression) != nil, "\(version.stdout)")
        // Stripped, with its debug information beside it, where gdb looks for it.
        let binary = try FileManager.default.attributesOfItem(atPath: "\(prefix)/bin/taskcal")
        let size = (binary[.size] as? NSNumber)?.intValue ?? .max
        // 86 MB, 34 MB of it ICU's data in the static Foundation: a guard against growth.
        #expect(size < 90_000_000, "the installed binary is \(size) bytes")
        let sections = try Taskcal.execute(
            "/usr/bin/env", ["readelf", "-S", "\(prefix)/bin/taskcal"], in: cli.directory)
        #expect(!sections.stdout.contains(".debug_info"))
        #expect(sections.stdout.contains(".gnu_debuglink"))
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/bin/.debug/taskcal.debug"))
        // A page per command, generated from the definitions: the options --help gives.
        let page = "\(prefix)/share/man/man1/taskcal.diary.free.1"
        let man = try Taskcal.execute(
            "/usr/bin/env", ["man", "-l", page], in: cli.directory)
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stdout.contains("--hours"), "\(man.stdout)")
        let root = try String(
            contentsOfFile: "\(prefix)/share/man/man1/taskcal.1", encoding: .utf8)
        #expect(root.contains("TASKCAL_STORE") && root.contains("SOURCE_DATE_EPOCH"))
        // man shows the paragraphs --help shows: filled, no word alone, nothing hyphenated
        // (a path broken at a hyphen cannot be copied), the examples as written.
        for name in ["taskcal", "taskcal.diary", "taskcal.caldav"] {
            let shown = try Taskcal.execute(
                "/usr/bin/env", ["man", "-l", "\(prefix)/share/man/man1/\(name).1"],
                in: cli.directory, environment: ["MANWIDTH": "80"])
            #expect(shown.status == 0 && !shown.stdout.contains("\u{2010}\n"), "\(shown.stdout)")
            let problems = helpScreenProblems(shown.stdout, width: 80).filter {
                $0.hasPrefix("a word alone")
            }
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
        let diaryPage = try Taskcal.execute(
            "/usr/bin/env", ["man", "-l", "\(prefix)/share/man/man1/taskcal.diary.1"],
            in: cli.directory, environment: ["MANWIDTH": "80"])
        #expect(
            diaryPage.stdout.contains(
                "taskcal diary add --store 'postgres://anna@db/team?diary=rooms' \\\n"),
            "\(diaryPage.stdout)")
        // bash completes subcommands and zone names.
        let completion = "\(prefix)/share/bash-completion/completions/taskcal"
        func complete(_ words: [String]) throws -> String {
            let line = words.joined(separator: " ")
            let script = """
                source '\(completion)'
                COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " ")))
                COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=\(line.utf8.count)
                _taskcal taskcal '\(words.last ?? "")' '\(words.dropLast().last ?? "")'
                echo "${COMPREPLY[@]}"
                """
            return try Taskcal.execute(
                "/bin/bash", ["-c", script], in: cli.directory,
                environment: ["PATH": "\(prefix)/bin:/usr/bin:/bin"]
            ).stdout
        }
        #expect(try complete(["taskcal", "conv"]) == "convert\n")
        #expect(try complete(["taskcal", "free", "--tz", "Europe/Mosc"]) == "Europe/Moscow\n")
        // and the ids of the diary a command names.
        for hour in 10...12 {
            #expect(
                try Taskcal.execute(
                    "\(prefix)/bin/taskcal",
                    [
                        "diary", "add", "--store", cli.path("d.sqlite"), "--name", "e\(hour)",
                        "--start", "2026-11-27T\(hour):00", "--end", "2026-11-27T\(hour):30",
                    ], in: cli.directory
                ).status == 0)
        }
        #expect(
            try complete(["taskcal", "diary", "show", "--store", cli.path("d.sqlite"), ""])
                == "1 2 3\n")
        for file in [
            "share/zsh/site-functions/_taskcal", "share/fish/vendor_completions.d/taskcal.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file)")
        }
        // The installed binary finds its Russian catalogue in PREFIX/share/taskcal.
        let russian = try Taskcal.execute(
            "\(prefix)/bin/taskcal", ["diary", "--help"], in: cli.directory,
            environment: ["LANG": "ru_RU.UTF-8"])
        #expect(russian.stdout.hasPrefix("ОБЗОР: Вести дневник"), "\(russian.stdout.prefix(200))")
        let removed = try Taskcal.execute(
            "/bin/bash", [script, "--uninstall", prefix], in: Taskcal.packageRoot)
        #expect(removed.status == 0)
        #expect(!FileManager.default.fileExists(atPath: "\(prefix)/bin/taskcal"))
        #expect(!FileManager.default.fileExists(atPath: "\(prefix)/bin/.debug"))
        #expect(!FileManager.default.fileExists(atPath: page))
        #expect(!FileManager.default.fileExists(atPath: completion))
        #expect(!FileManager.default.fileExists(atPath: "\(prefix)/share/taskcal"))
    }
}
