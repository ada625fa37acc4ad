import Foundation
import Testing

/// Whether a Secret Service can be started here for a test: a session bus, GNOME Keyring and
/// secret-tool (Debian: dbus, gnome-keyring, libsecret-tools).
let secretServiceTools = [
    "dbus-run-session", "dbus-send", "gnome-keyring-daemon", "secret-tool",
].allSatisfy {
    tool in
    ["/usr/bin", "/bin", "/usr/local/bin"].contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
    }
}
let secretServiceMissing =
    "no Secret Service to test with: apt-get install dbus gnome-keyring libsecret-tools"

@Suite("Private entries: text sealed at rest, times still checked, shown only with the key")
struct ProtectedEntryTests {
    /// What a private entry holds that must never be stored in the clear.
    static let secrets = ["Therapist Weiss", "talk about sleep", "SECRETATTACHMENT"]

    @Test(
        "sealed in the store, refused against without the key, revealed with it",
        arguments: diaryBackends)
    func lifecycle(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        let withKey = ["TASKCAL_KEY_FILE": cli.path("diary.key")]
        func diary(_ arguments: [String], _ environment: [String: String] = [:]) throws
            -> Taskcal.Result
        {
            try cli.run(
                ["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"],
                environment: environment)
        }
        try cli.write("notes.txt", "SECRETATTACHMENT")
        let add = [
            "add", "--private", "--name", "Therapist Weiss", "--description", "talk about sleep",
            "--start", "2026-12-01T10:00", "--end", "2026-12-01T11:00", "--alarm", "-15m",
            "--attach", "notes.txt",
        ]
        // No key yet: refused, and nothing is written.
        let early = try diary(add)
        #expect(early.status == 1)
        #expect(early.stderr.contains("no key yet") && early.stderr.contains("diary key init"))
        #expect(!(try diary(["list", "--format", "json"]).stdout.contains("Therapist")))

        let initialized = try diary(["key", "init"], withKey)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        var status = stat()
        #expect(stat(cli.path("diary.key"), &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try diary(add, withKey).stdout == "1\n")
        #expect(
            try diary([
                "add", "--name", "Lunch", "--start", "2026-12-01T12:00", "--end",
                "2026-12-01T13:00",
            ]).stdout == "2\n")

        // At rest: no text of it anywhere in the store's files.
        if backend != "postgres" {
            for file in try Self.files(of: store) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                for secret in Self.secrets + [Data("SECRETATTACHMENT".utf8).base64EncodedString()] {
                    #expect(
                        bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in \(file)")
                }
            }
        }

        // Without the key: its time still counts, and nothing of its text shows.
        let refused = try diary([
            "add", "--name", "Team sync", "--start", "2026-12-01T10:30", "--end",
            "2026-12-01T11:30",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(#"overlaps #1 "(private)" (2026-12-01T10:00+01:00 – 11:00)"#))
        var shown = try diary(["list"]).stdout
        shown += try diary(["show", "1"]).stdout
        shown += try diary(["list", "--format", "json"]).stdout
        for report in [
            ["agenda", "2026-12-01"], ["month", "2026-12"], ["overlaps"],
            ["stats", "--from", "2026-12-01", "--to", "2026-12-02"],
            ["overlaps", "--format", "json"],
        ] {
            shown += try cli.run(report + ["--store", store, "--tz", "Europe/Berlin"]).stdout
        }
        #expect(shown.contains("(private)"))
        #expect(shown.contains("Lunch"))
        for secret in Self.secrets { #expect(!shown.contains(secret), "\(secret) was shown") }

        // --reveal without the key: a clear refusal, nothing shown.
        let locked = try diary(["list", "--reveal"])
        #expect(locked.status == 1)
        #expect(locked.stdout.isEmpty)
        #expect(locked.stderr.contains("set TASKCAL_KEY_FILE"))
        // With it, the whole entry.
        let revealed = try diary(["show", "1", "--reveal"], withKey)
        #expect(revealed.stdout.contains("#1 Therapist Weiss"), "\(revealed.stderr)")
        #expect(revealed.stdout.contains("talk about sleep"))
        #expect(revealed.stdout.contains("attachment: notes.txt"))
        let agenda = try cli.run(
            ["agenda", "2026-12-01", "--store", store, "--tz", "Europe/Berlin", "--reveal"],
            environment: withKey)
        #expect(agenda.stdout.contains("[10:00–11:00 Therapist Weiss]"))

        // A time changed without the key keeps the sealed text; a name needs the key.
        #expect(try diary(["edit", "1", "--end", "2026-12-01T11:15"]).status == 0)
        let renamed = try diary(["edit", "1", "--name", "Dr. Weiss"])
        #expect(renamed.status == 1 && renamed.stderr.contains("TASKCAL_KEY_FILE"))
        #expect(try diary(["edit", "1", "--name", "Dr. Weiss"], withKey).status == 0)
        let after = try diary(["show", "1", "--reveal", "--format", "json"], withKey).stdout
        #expect(after.contains(#""name": "Dr. Weiss""#) && after.contains("talk about sleep"))
        #expect(after.contains(#""date_finish": "1796120100""#), "the new end stays: \(after)")

        // Another diary's key is told apart, not used to decrypt garbage.
        let other = try Taskcal()
        defer { other.cleanUp() }
        let otherKey = ["TASKCAL_KEY_FILE": other.path("other.key")]
        #expect(
            try other.run(
                ["diary", "key", "init", "--store", other.path("d.sqlite")], environment: otherKey
            ).status == 0)
        let wrong = try diary(["list", "--reveal"], otherKey)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("not this diary's key"))
        #expect(wrong.stdout.isEmpty)

        // The key is never said, whatever happened.
        let keyText = try cli.read("diary.key")
        let secretPart = String(keyText.split(separator: ":").last ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        for result in [early, initialized, refused, locked, revealed, renamed, wrong] {
            #expect(!result.stderr.contains(secretPart) && !result.stdout.contains(secretPart))
        }
    }

    @Test("a JSON import with \"private\": true is sealed; rotation seals again with a new key")
    func importAndRotate() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.path("d.sqlite")
        let first = ["TASKCAL_KEY_FILE": cli.path("first.key")]
        let second = ["TASKCAL_KEY_FILE": cli.path("second.key")]
        try cli.write(
            "in.json",
            #"[{"id": 7, "date_start": "1796112000", "date_finish": "1796115600", "name": "Therapist Weiss", "description": "talk about sleep", "private": true},"#
                + #" {"id": 8, "date_start": "1796119200", "date_finish": "1796122800", "name": "Lunch"}]"#
        )
        // A diary without a key takes an app's private entry as it comes, and says so; the
        // key, once made, seals it, and its old text is left nowhere in the file.
        let imported = try cli.run(["diary", "import", "in.json", "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("1 private record is kept in the clear"))
        #expect(
            try cli.run(["diary", "key", "init", "--store", store], environment: first).status == 0)
        for file in try Self.files(of: store) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data("Therapist".utf8)) == nil, "in \(file)")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(bytes.range(of: Data("Lunch".utf8)) != nil)

        let rotated = try cli.run(
            ["diary", "key", "rotate", "--store", store, "--new-key-file", cli.path("second.key")],
            environment: first)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(
            try cli.run(["diary", "list", "--reveal", "--store", store], environment: first).status
                == 1)
        let list = try cli.run(
            ["diary", "list", "--reveal", "--store", store], environment: second)
        #expect(list.stdout.contains("Therapist Weiss"), "\(list.stderr)")
        let key = try cli.run(
            ["diary", "key", "status", "--check", "--store", store], environment: second)
        #expect(key.stdout.contains("1 private entry sealed"))
        #expect(key.stdout.contains("the key opens the diary"))
        // A redacted export of the sealed entry is "Busy" and its times.
        let export = try cli.run(
            ["diary", "export", "-o", "shared.ics", "--redact", "--store", store])
        #expect(export.status == 0)
        let shared = try cli.read("shared.ics")
        #expect(shared.contains("SUMMARY:Busy") && !shared.contains("private"))
        #expect(!shared.contains("X-TASKCAL-SEALED"))
    }

    @Test("a passphrase makes the key; a wrong one is refused")
    func passphrase() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = "vdir:" + cli.path("calendar")
        try cli.write("pass", "correct horse battery staple\n")
        try cli.write("wrong", "incorrect horse\n")
        let right = ["TASKCAL_PASSPHRASE_FILE": cli.path("pass")]
        let init_ = try cli.run(
            ["diary", "key", "init", "--passphrase", "--store", store], environment: right)
        #expect(init_.status == 0, "\(init_.stderr)")
        #expect(
            try cli.run(
                [
                    "diary", "add", "--private", "--name", "Therapist Weiss", "--start",
                    "1796112000", "--end", "1796115600", "--store", store,
                ], environment: right
            ).status == 0)
        let files = try Self.files(of: store)
        #expect(files.contains { $0.hasSuffix(".ics") })
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains("Weiss") && !text.contains("correct horse"))
        }
        let wrong = try cli.run(
            ["diary", "list", "--reveal", "--store", store],
            environment: ["TASKCAL_PASSPHRASE_FILE": cli.path("wrong")])
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong passphrase"))
        #expect(!wrong.stderr.contains("incorrect horse"))
        let shown = try cli.run(
            ["diary", "list", "--reveal", "--store", store], environment: right)
        #expect(shown.stdout.contains("Therapist Weiss"))
        // Without a terminal and without the file, it says how to give the passphrase.
        let none = try cli.run(["diary", "list", "--reveal", "--store", store])
        #expect(none.status == 1 && none.stderr.contains("TASKCAL_PASSPHRASE_FILE"))
    }

    @Test(
        "the Secret Service keeps the key: in the keyring, in no file, lost when it is gone",
        .enabled(if: secretServiceTools || required, "\(secretServiceMissing)"))
    func secretService() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.path("d.sqlite")
        let taskcal = Taskcal.binary.path
        // One session bus and keyring for the script, as a desktop session would have.
        try cli.write(
            "session.sh",
            """
            set -u
            export HOME="$PWD/home"; mkdir -p "$HOME"
            # In the foreground, so that it is this script's child and ends with it.
            printf 'keyring-password' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
            keyring=$!
            trap 'kill $keyring 2>/dev/null' EXIT
            # Until it owns the Secret Service's name (asking secret-tool would start another).
            for _ in $(seq 100); do
              dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
                | grep -q 'boolean true' && break
              sleep 0.1
            done
            '\(taskcal)' diary key init --store '\(store)' || exit 10
            '\(taskcal)' diary add --private --name 'Therapist Weiss' --start 1796112000 --end 1796115600 --store '\(store)' >/dev/null || exit 11
            '\(taskcal)' diary list --reveal --store '\(store)' || exit 12
            secret-tool search application taskcal 2>/dev/null | grep -c '^label = taskcal diary key' || exit 13
            secret-tool clear application taskcal
            '\(taskcal)' diary list --reveal --store '\(store)'; echo "after clear: $?"
            """)
        let result = try Taskcal.execute(
            "/usr/bin/dbus-run-session", ["--", "sh", cli.path("session.sh")], in: cli.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Therapist Weiss"), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\n1\n"), "one key in the keyring: \(result.stdout)")
        #expect(result.stderr.contains("is not in the Secret Service: it is lost"))
        #expect(result.stdout.hasSuffix("after clear: 1\n"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(bytes.range(of: Data("Weiss".utf8)) == nil)
    }

    /// The files a diary keeps (a SQLite file with its companions, or a vdir's files).
    static func files(of store: String) throws -> [String] {
        if store.hasPrefix("vdir:") {
            let folder = String(store.dropFirst(5))
            return try FileManager.default.contentsOfDirectory(atPath: folder).map {
                folder + "/" + $0
            }
        }
        let folder = (store as NSString).deletingLastPathComponent
        let name = (store as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix(name)
        }.map { folder + "/" + $0 }
    }
}
