import Foundation
import Testing

/// Runs `taskcal arguments…` under a file-size limit (`ulimit -f`, in 1024-byte blocks), with
/// standard error on a pipe (a file would be limited too).
private func runLimited(_ cli: Taskcal, blocks: Int, _ arguments: [String]) throws -> (
    status: Int32, stderr: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments =
        ["-c", "ulimit -f \(blocks); exec \"$0\" \"$@\"", Taskcal.binary.path] + arguments
    process.currentDirectoryURL = cli.directory
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Whether a file-size limit can be set on the binary under test. Under `ulimit -f 16` a
/// ThreadSanitizer-built taskcal dies of SIGBUS in the runtime's memcpy interceptor, reading
/// its shadow memory, before it writes a byte (`taskcal convert five.ndjson -o -` does), while
/// the release and AddressSanitizer builds run; the runtime's own mappings, not taskcal, meet
/// the limit. The full-disk tests run against the release binary in CI and under
/// AddressSanitizer in the deep check.
private let fileSizeLimitWorks =
    ProcessInfo.processInfo.environment["TASKCAL_SANITIZER"] != "thread"
private let fileSizeLimitBroken =
    "ThreadSanitizer's shadow memory is bounded by the file-size limit (SIGBUS)"

private func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
}

@Suite("The diary under faults: private files, kills, full disks, damaged files")
struct StoreFaultTests {
    @Test("a new diary is private: files 0600, new folders 0700, whatever the umask")
    func privateFiles() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        for store in ["deep/er/diary.sqlite", "vdir:folder/diary"] {
            let added = try cli.run([
                "diary", "add", "--store", store, "--name", "secret", "--start", "2026-01-01T10:00",
                "--end", "2026-01-01T11:00",
            ])
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try mode(cli.path("deep/er/diary.sqlite")) == 0o600)
        #expect(try mode(cli.path("deep/er")) == 0o700)
        #expect(try mode(cli.path("folder/diary")) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.path("folder/diary"))
        #expect(files.count >= 3)
        for file in files {
            #expect(try mode(cli.path("folder/diary/" + file)) == 0o600, "\(file)")
        }
        // A converted file is not private data: it gets the usual 0666 less the umask.
        try cli.write(
            "a.json", #"[{"id": 1, "date_start": "0", "date_finish": "60", "name": "n"}]"#)
        #expect(try cli.run(["convert", "a.json", "-o", "a.ics"]).status == 0)
        #expect(try mode(cli.path("a.ics")) == 0o644)
    }

    @Test(
        "a vdir import killed at 20 points leaves all of it or none, and no debris once the next writer has run"
    )
    func killedVdirImport() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let count = 600
        let lines = (1...count).map {
            #"{"id": \#($0), "date_start": "\#(1_800_000_000 + $0 * 3600)", "date_finish": "\#(1_800_000_000 + $0 * 3600 + 600)", "name": "entry \#($0)"}"#
        }
        try cli.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        func importer(_ store: String) throws -> Process {
            let process = Process()
            process.executableURL = Taskcal.binary
            process.arguments = ["diary", "import", "big.ndjson", "--store", store, "--new-ids"]
            process.currentDirectoryURL = cli.directory
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        /// What the folder shows of an import's progress.
        func progress(_ folder: String) -> (temporary: Int, pending: Bool, entries: Int) {
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: cli.path(folder))) ?? []
            return (
                names.filter { $0.hasPrefix(".taskcal-import-") }.count,
                names.contains(".taskcal-pending"),
                names.filter { !$0.hasPrefix(".") }.count
            )
        }
        var outcomes: [Int: Int] = [:]
        var debrisReported = 0
        for point in 1...20 {
            let store = "vdir:killed-\(point)"
            #expect(
                try cli.run([
                    "diary", "add", "--store", store, "--name", "before", "--start", "1",
                    "--end", "2",
                ]).status == 0)
            let process = try importer(store)
            // The 20 points, by what the folder shows: 16 while the files are written, 2 once
            // the list of renames is, 2 during the renames.
            while process.isRunning {
                let seen = progress("killed-\(point)")
                let reached =
                    switch point {
                    case 1...16: seen.temporary >= point * count / 17
                    case 17, 18: seen.pending
                    default: seen.entries >= 1 + (point - 18) * count / 3
                    }
                if reached { break }
                Thread.sleep(forTimeInterval: 0.001)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let check = try cli.run(["diary", "check", "--store", store])
            if check.stdout.contains("temporary file") || check.stderr.contains("temporary file") {
                debrisReported += 1
                #expect(check.status != 0, "debris is a problem check reports")
            }
            // The next writer finishes or undoes what the kill left.
            #expect(
                try cli.run([
                    "diary", "add", "--store", store, "--name", "after", "--start", "3",
                    "--end", "4",
                ]).status == 0)
            let hidden = try FileManager.default.contentsOfDirectory(
                atPath: cli.path("killed-\(point)")
            ).filter { $0.hasPrefix(".") && $0 != ".taskcal-diary" && $0 != ".taskcal.lock" }
            #expect(hidden.isEmpty, "debris after the next writer: \(hidden)")
            let listed = try cli.run(["diary", "list", "--store", store, "--format", "json"])
            let entries = try Taskcal.records(listed.stdout).count - 2
            #expect(entries == 0 || entries == count, "a half import: \(entries) entries")
            outcomes[entries, default: 0] += 1
            let after = try cli.run(["diary", "check", "--store", store])
            #expect(after.status == 0, "\(after.stdout) \(after.stderr)")
        }
        #expect(outcomes.values.reduce(0, +) == 20)
        #expect(debrisReported > 0, "some kill landed while files were being written")
        print("vdir kills: entries imported \(outcomes), debris reported \(debrisReported) times")
    }

    @Test(
        "a full disk (a file-size limit) refuses the write clearly and leaves the diary as it was",
        .enabled(if: fileSizeLimitWorks, "\(fileSizeLimitBroken)"),
        arguments: ["d.sqlite", "vdir:d"])
    func fullDisk(store: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        #expect(
            try cli.run([
                "diary", "add", "--store", store, "--name", "kept", "--start", "1", "--end", "2",
            ]).status == 0)
        let lines = (1...2000).map {
            #"{"id": \#($0), "date_start": "\#(1_800_000_000 + $0 * 3600)", "date_finish": "\#(1_800_000_000 + $0 * 3600 + 600)", "name": "entry \#($0)", "description": "\#(String(repeating: "x", count: 200))"}"#
        }
        try cli.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        let before = try cli.run(["diary", "list", "--store", store, "--format", "json"]).stdout
        // SQLite grows past 64 KB; a vdir file of 300 bytes is past a limit of 0.
        let limited = try runLimited(
            cli, blocks: store.hasPrefix("vdir:") ? 0 : 64,
            ["diary", "import", "big.ndjson", "--store", store, "--new-ids"])
        #expect(limited.status == 2, "\(limited.stderr)")
        #expect(
            limited.stderr.contains("File too large")
                || limited.stderr.contains("the disk may be full"), "\(limited.stderr)")
        #expect(limited.stderr.contains("nothing was"))
        let after = try cli.run(["diary", "list", "--store", store, "--format", "json"]).stdout
        #expect(before == after)
        #expect(try cli.run(["diary", "check", "--store", store]).status == 0)
        // The same import goes in whole once there is room.
        #expect(
            try cli.run(["diary", "import", "big.ndjson", "--store", store, "--new-ids"]).status
                == 0)
    }

    @Test(
        "convert on a full disk: a clear error and no partial output file",
        .enabled(if: fileSizeLimitWorks, "\(fileSizeLimitBroken)"))
    func fullDiskConvert() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let lines = (1...2000).map {
            #"{"id": \#($0), "date_start": "\#($0 * 3600)", "date_finish": "\#($0 * 3600 + 60)", "name": "entry \#($0)"}"#
        }
        try cli.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        let limited = try runLimited(cli, blocks: 16, ["convert", "big.ndjson", "-o", "big.ics"])
        #expect(limited.status == 2)
        #expect(
            limited.stderr.contains("big.ics: cannot write: File too large"), "\(limited.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
        #expect(left.sorted() == ["big.ndjson"], "no partial or temporary file: \(left)")
    }

    @Test(
        "a damaged or foreign SQLite file is named as such; check reports it; nothing else breaks")
    func damagedSQLite() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("text.sqlite", "hello\n")
        let text = try cli.run(["diary", "list", "--store", "text.sqlite"])
        #expect(text.status == 2)
        #expect(
            text.stderr.contains(
                "cannot open the diary text.sqlite: the file is damaged or is no SQLite database"))
        #expect(try cli.read("text.sqlite") == "hello\n", "a foreign file is never overwritten")
        for index in 1...6 {
            #expect(
                try cli.run([
                    "diary", "add", "--store", "good.sqlite", "--name", "n\(index)",
                    "--start", "\(index * 7200)", "--end", "\(index * 7200 + 60)",
                ]).status == 0)
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cli.path("good.sqlite"))))
        for page in 1..<bytes.count / 4096 {
            for offset in 0..<200 { bytes[page * 4096 + offset] = 0xEE }
        }
        try cli.write("bad.sqlite", bytes: bytes)
        for command in [["list"], ["check"], ["add", "--name", "x", "--start", "0", "--end", "1"]] {
            let result = try cli.run(["diary"] + command + ["--store", "bad.sqlite"])
            #expect(result.status == 2, "\(command)")
            #expect(
                result.stderr.contains("bad.sqlite: the file is damaged or is no SQLite database"),
                "\(command): \(result.stderr)")
        }
        #expect(try cli.run(["diary", "check", "--store", "good.sqlite"]).status == 0)
        try FileManager.default.createDirectory(
            atPath: cli.path("folder"), withIntermediateDirectories: true)
        let folder = try cli.run(["diary", "list", "--store", "folder"])
        #expect(folder.status == 2)
        #expect(folder.stderr.contains("folder is a folder; a SQLite diary is a file"))
    }

    @Test(
        "a garbage file in a vdir: reads warn and go on, writes wait for it to be fixed, check names it"
    )
    func garbageInVdir() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = "vdir:d"
        for (index, hour) in [10, 12].enumerated() {
            #expect(
                try cli.run([
                    "diary", "add", "--store", store, "--name", "entry \(index + 1)",
                    "--start", "2026-01-01T\(hour):00", "--end", "2026-01-01T\(hour):30",
                    "--tz", "UTC",
                ]).status == 0)
        }
        // Not a calendar at all: it cannot hold an entry, so it only costs a warning.
        try cli.write("d/notes.ics", "remember the milk\n")
        let list = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        #expect(list.status == 0)
        #expect(try Taskcal.records(list.stdout).count == 2)
        #expect(
            list.stderr.contains("warning: \(cli.path("d/notes.ics")):1: not an iCalendar file"))
        #expect(
            try cli.run([
                "diary", "add", "--store", store, "--name", "third", "--start", "2026-01-02T10:00",
                "--end", "2026-01-02T11:00", "--tz", "UTC",
            ]).status == 0)
        // An event whose start cannot be read may be in the way of any write: writes wait.
        try cli.write(
            "d/broken.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:b\r\nDTSTART:tomorrow\r\nSUMMARY:lost\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
        let reads = try cli.run(["diary", "list", "--store", store, "--format", "json"])
        #expect(reads.status == 0)
        #expect(try Taskcal.records(reads.stdout).count == 3)
        #expect(reads.stderr.contains("broken.ics:6"))
        let write = try cli.run([
            "diary", "add", "--store", store, "--name", "fourth", "--start", "2026-01-03T10:00",
            "--end", "2026-01-03T11:00", "--tz", "UTC",
        ])
        #expect(write.status == 2)
        #expect(
            write.stderr.contains(
                "nothing was written: broken.ics may hold an entry this change would overlap"),
            "\(write.stderr)")
        let check = try cli.run(["diary", "check", "--store", store])
        #expect(check.status != 0)
        let report = check.stdout + check.stderr
        #expect(report.contains("broken.ics"))
        #expect(report.contains("notes.ics"))
        try FileManager.default.removeItem(atPath: cli.path("d/broken.ics"))
        #expect(
            try cli.run([
                "diary", "add", "--store", store, "--name", "fourth", "--start", "2026-01-03T10:00",
                "--end", "2026-01-03T11:00", "--tz", "UTC",
            ]).status == 0)
    }
}
