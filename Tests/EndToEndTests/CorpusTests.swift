import Foundation
import Testing

/// The real-world corpus (calendar-app exports from other projects' test data), fetched at
/// test time into `.corpus-cache/` by `../shared/corpus/fetch.sh`; never committed.
private let corpus: [String]? = {
    let cache = Taskcal.packageRoot.appendingPathComponent(".corpus-cache")
    let manifest = cache.appendingPathComponent("MANIFEST.tsv")
    let fetch = Taskcal.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/corpus/fetch.sh")
    if !FileManager.default.fileExists(atPath: manifest.path),
        FileManager.default.fileExists(atPath: fetch.path)
    {
        _ = try? Taskcal.execute("/bin/bash", [fetch.path, cache.path], in: Taskcal.packageRoot)
    }
    guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return nil }
    let files = text.split(separator: "\n").dropFirst().compactMap { line -> String? in
        let fields = line.split(separator: "\t")
        return fields.count == 3 ? cache.appendingPathComponent(String(fields[2])).path : nil
    }
    return files.isEmpty ? nil : files
}()

/// Whether Python's icalendar (the independent judge) can be imported.
private let pythonJudgeAvailable: Bool = {
    let result = try? Taskcal.execute(
        "/usr/bin/env", ["python3", "-c", "import icalendar, zoneinfo"], in: Taskcal.packageRoot)
    return result?.status == 0
}()

@Suite("The real-world .ics corpus")
struct CorpusTests {
    @Test(
        "every file converts or is refused with a message; nothing crashes",
        .enabled(
            if: corpus != nil,
            "the corpus could not be fetched (../shared/corpus/fetch.sh needs PyPI)"))
    func noCrash() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var converted = 0
        var refused = 0
        for file in corpus ?? [] {
            let result = try cli.run(["convert", file, "-o", "out.json", "--tz", "UTC", "-q"])
            #expect(
                result.status == 0 || result.status == 2,
                "\(file): exit \(result.status)\n\(result.stderr)")
            if result.status == 0 {
                converted += 1
            } else {
                refused += 1
                #expect(result.stderr.contains("taskcal: "), "\(file): refused without a message")
            }
        }
        print(
            "corpus: \(corpus?.count ?? 0) files, \(converted) converted, \(refused) refused with a message"
        )
        #expect(converted > 0)
    }

    @Test(
        "conformance: every calendar converts, agrees with Python icalendar, and .ics → JSON → .ics keeps every line",
        .enabled(
            if: corpus != nil,
            "the corpus could not be fetched (../shared/corpus/fetch.sh needs PyPI)"),
        .enabled(if: pythonJudgeAvailable, "python3 with icalendar is not installed")
    )
    func conformance() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let script = Taskcal.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/conformance.py"
        ).path
        let samples = try FileManager.default.contentsOfDirectory(
            atPath: Taskcal.packageRoot.appendingPathComponent("Samples").path
        ).filter { $0.hasSuffix(".ics") }.sorted().map(Taskcal.sample)
        let result = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", "-W", "ignore", script, Taskcal.binary.path,
                Taskcal.packageRoot.appendingPathComponent(".corpus-cache").path,
                cli.path("work"),
            ] + samples, in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let summary =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let figures = summary?["figures"] as? [String: Int] ?? [:]
        let disagreements = summary?["disagreements"] as? [[String: Any]] ?? []
        print("conformance: \(figures.sorted { $0.key < $1.key })")
        #expect(figures["crashes", default: 0] == 0)
        // Every file converts but those that are no iCalendar at all (listed in the script).
        #expect(
            figures["files converted", default: 0]
                + figures["files refused: no iCalendar", default: 0]
                == figures["files", default: -1])
        #expect(figures["files refused: no iCalendar", default: 0] <= 16)
        // Every component is converted, or left out with a warning naming it.
        #expect(
            figures["components converted", default: 0]
                + figures["components left out, with a warning", default: 0]
                == figures["components", default: -1])
        #expect(figures["components converted", default: 0] >= 6_100)
        #expect(figures["components compared after the round trip", default: 0] >= 6_100)
        #expect(figures["differences after the round trip", default: -1] == 0)
        #expect(
            figures["outputs valid UTF-8", default: 0] == figures["files converted", default: -1])
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    }
}
