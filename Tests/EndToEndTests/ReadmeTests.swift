import Foundation
import Testing

/// A `console` example of the README or of a guide in `docs/`: its commands, what it shows they
/// print, and how the test prepares for it (HTML comments just above the block, which a reader
/// never sees).
///
/// - `<!-- test-setup: SHELL -->` runs first, in the example's folder (`$ROOT` is the package).
/// - `<!-- test-now: 2026-11-22 12:00 -->` fixes the clock (libfaketime) for what shows "today".
/// - `<!-- test-skip: WHY -->` leaves it out; the reason says what runs it instead.
///
/// In the shown output a line `…` stands for any lines, and `…` in a line for any text.
struct ReadmeExample: Sendable, CustomTestStringConvertible {
    var file: String
    var line: Int
    var script: String
    var expected: [String]
    var setup: [String] = []
    var now: String?
    var skip: String?

    var testDescription: String {
        "\(file):\(line): " + (script.split(separator: "\n").first ?? "")
    }

    /// The documents whose examples run: README.md and every guide in docs/.
    static let documents: [String] = {
        let docs = Taskcal.packageRoot.appendingPathComponent("docs")
        let guides =
            (try? FileManager.default.contentsOfDirectory(atPath: docs.path))?.filter {
                $0.hasSuffix(".md")
            }.sorted().map { "docs/" + $0 } ?? []
        return ["README.md"] + guides
    }()

    static let all: [ReadmeExample] = documents.flatMap(examples(in:))

    static func examples(in file: String) -> [ReadmeExample] {
        let readme =
            (try? String(
                contentsOf: Taskcal.packageRoot.appendingPathComponent(file), encoding: .utf8
            ))
            ?? ""
        let lines = readme.components(separatedBy: "\n")
        var examples: [ReadmeExample] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```console" else {
                index += 1
                continue
            }
            var example = ReadmeExample(file: file, line: index + 1, script: "", expected: [])
            // The directives above the fence.
            var above = index - 1
            while above >= 0, lines[above].hasPrefix("<!-- test-"), lines[above].hasSuffix(" -->") {
                let body = lines[above].dropFirst(5).dropLast(4)
                let (key, value) = (
                    body.prefix { $0 != ":" },
                    String(body.drop { $0 != ":" }.dropFirst().drop { $0 == " " })
                )
                switch key {
                case "test-setup": example.setup.insert(value, at: 0)
                case "test-now": example.now = value
                case "test-skip": example.skip = value
                default: example.skip = "unknown directive \(key)"
                }
                above -= 1
            }
            var commands: [String] = []
            index += 1
            var continued = false
            while index < lines.count, lines[index] != "```" {
                let text = lines[index]
                if continued || text.hasPrefix("$ ") {
                    commands.append(continued ? text : String(text.dropFirst(2)))
                    continued = text.hasSuffix("\\")
                } else {
                    example.expected.append(text)
                }
                index += 1
            }
            example.script = commands.joined(separator: "\n")
            examples.append(example)
            index += 1
        }
        return examples
    }

    /// Whether `actual` is what `expected` shows, `…` standing for what it leaves out.
    static func matches(_ expected: [String], _ actual: String) -> Bool {
        var pattern = "^"
        for line in expected {
            if line == "…" {
                pattern += "(?:[^\\n]*\\n)*?"
            } else {
                pattern +=
                    line.components(separatedBy: "…").map(NSRegularExpression.escapedPattern)
                    .joined(separator: "[^\\n]*?") + "\\n"
            }
        }
        pattern += "$"
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(actual.startIndex..., in: actual)
        return regex.firstMatch(in: actual, options: [], range: range) != nil
    }
}

let faketime = available("faketime", ["-f", "+0", "true"])
/// Whether the taskcal under test is built with a sanitizer (Scripts/sanitizers.sh says so):
/// libfaketime and the sanitizer's runtime both hook `clock_gettime` as the process starts, and
/// the process hangs or dies there, so what needs a fixed clock is not run under one.
let sanitized = ProcessInfo.processInfo.environment["TASKCAL_SANITIZER"] != nil

@Suite("The README's and the guides' examples run as they show them")
struct ReadmeTests {
    @Test("there are examples in the README and in every guide, and each one skipped says why")
    func parsed() {
        #expect(ReadmeExample.all.count > 20)
        #expect(ReadmeExample.documents.count > 5)
        for document in ["README.md", "docs/converting.md", "docs/diary.md", "docs/reports.md"] {
            #expect(ReadmeExample.all.contains { $0.file == document }, "\(document)")
        }
        for example in ReadmeExample.all where example.skip != nil {
            #expect(example.skip!.count > 20, "\(example.testDescription): say why")
        }
    }

    @Test("a console example", arguments: ReadmeExample.all.filter { $0.skip == nil })
    func example(_ example: ReadmeExample) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        // Run from the package's folder, as the README's commands are: its samples and scripts.
        for folder in ["Samples", "Benchmarks"] {
            try FileManager.default.createSymbolicLink(
                atPath: cli.path(folder),
                withDestinationPath: Taskcal.packageRoot.appendingPathComponent(folder).path)
        }
        let bin = Taskcal.binary.deletingLastPathComponent().path
        // The reader's machine as the README assumes it: taskcal on the PATH, an empty home
        // (so an empty diary), the zone the examples name, and stdout unbuffered so that its
        // lines and stderr's interleave as on a terminal.
        let environment = [
            "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "HOME": cli.directory.path, "ROOT": Taskcal.packageRoot.path,
            "TZ": "Europe/Berlin", "NO_COLOR": "1", "LANG": "C.UTF-8",
            "XDG_DATA_HOME": cli.path(".local/share"), "XDG_STATE_HOME": cli.path(".local/state"),
        ]
        for step in example.setup {
            let done = try Taskcal.execute(
                "/bin/sh", ["-c", step], in: cli.directory, environment: environment)
            #expect(done.status == 0, "setup `\(step)`: \(done.stderr)")
        }
        // An example that sets the clock (test-now, or faketime in its commands) needs
        // libfaketime; without it, it is not run here (in CI it must be).
        if example.now != nil || example.script.contains("faketime ") {
            #expect(faketime || !required, "faketime is not installed (apt-get install faketime)")
            guard faketime && !sanitized else { return }
        }
        let run =
            (example.now.map { ["faketime", "\($0):00"] } ?? [])
            + ["stdbuf", "-o0", "-e0", "/bin/sh", "-c", "exec 2>&1\n" + example.script]
        let result = try Taskcal.execute(
            "/usr/bin/env", run, in: cli.directory, environment: environment)
        let shown = example.expected.joined(separator: "\n") + "\n"
        // .ics lines end in CRLF; the README shows them as a terminal does.
        let printed = (result.stdout + result.stderr).replacingOccurrences(of: "\r\n", with: "\n")
        #expect(
            ReadmeExample.matches(example.expected, printed),
            "\(example.testDescription)\n--- the README shows:\n\(shown)--- taskcal printed:\n\(printed)"
        )
    }
}
