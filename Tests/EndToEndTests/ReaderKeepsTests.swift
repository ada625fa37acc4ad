import Foundation
import Testing

/// libical's parser and printer as a reader that writes back: `Fixtures/libical_roundtrip.c`,
/// compiled once.
let libicalRoundTrip = libicalProgram("libical_roundtrip")

/// The readers of the table and what each needs.
let keepsReadersMissing: String? = {
    let imports = available(
        "python3", ["-c", "import icalendar, khal, radicale, xandikos"])
    if !imports {
        return "Python icalendar, khal, Radicale and Xandikos are needed (Scripts/ci-packages.sh)"
    }
    if !available("calcurse", ["--version"]) { return calcurseMissing }
    if libicalRoundTrip == nil { return "cc and libical-dev are needed to build libical's reader" }
    return nil
}()

/// What each real reader keeps of a calendar, judged by `taskcal diff` (`Scripts/keeps.py`),
/// held to the table in docs/calendar-apps.md: a test per reader fails when the reader keeps
/// less of a kind of property than the table says (or, over the corpus, anything else than it
/// says). CI reads the samples; `TASKCAL_KEEPS_CORPUS=1` (the deep check) the corpus too,
/// which is what the table was measured on.
@Suite("What each reader keeps, as docs/calendar-apps.md's table says")
struct ReaderKeepsTests {
    /// DAViCal when it is installed (it needs root, PostgreSQL and PHP), or CI requires it.
    static let readers =
        ["libical", "icalendar", "khal", "calcurse", "radicale", "xandikos"]
        + (davicalInstalled || required ? ["davical"] : [])
    static let kinds = [
        "attachments", "alarms", "categories", "attendees", "x-properties", "time zones",
        "recurrence",
    ]

    /// The table's word for each reader and kind (kept, changed, dropped; `—`: not present).
    static func documented() throws -> [String: [String: String]] {
        let text = try String(
            contentsOf: Taskcal.packageRoot.appendingPathComponent("docs/calendar-apps.md"),
            encoding: .utf8)
        guard let start = text.range(of: "<!-- keeps-table -->") else { return [:] }
        var table: [String: [String: String]] = [:]
        for line in text[start.upperBound...].split(separator: "\n").prefix(12)
        where line.hasPrefix("| ") && !line.hasPrefix("| reader") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == kinds.count + 1 else { continue }
            var row: [String: String] = [:]
            for (kind, cell) in zip(kinds, cells.dropFirst()) {
                row[kind] = String(cell.prefix { $0 != " " })
            }
            table[cells[0]] = row
        }
        return table
    }

    /// Runs Scripts/keeps.py over the samples (and the corpus when asked) for one reader.
    static func measure(_ reader: String) throws -> [String: [String: Any]] {
        let root = Taskcal.packageRoot.appendingPathComponent("Samples")
        var files =
            ((FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? [])
            .filter { ($0.hasSuffix(".ics") || $0.hasSuffix(".json")) && !$0.hasPrefix("broken/") }
            .sorted().map { root.appendingPathComponent($0).path }
        if ProcessInfo.processInfo.environment["TASKCAL_KEEPS_CORPUS"] == "1" {
            files += corpus ?? []
        }
        let run = try Taskcal.execute(
            "/usr/bin/env",
            [
                "python3", Taskcal.packageRoot.appendingPathComponent("Scripts/keeps.py").path,
                "--readers", reader, Taskcal.binary.path, libicalRoundTrip ?? "",
            ] + files, in: FileManager.default.temporaryDirectory, timeLimit: Taskcal.scriptLimit)
        #expect(run.status == 0, "\(run.stderr.suffix(2_000))")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return (report?["readers"] as? [String: Any])?[reader] as? [String: [String: Any]] ?? [:]
    }

    @Test(
        "a reader keeps what the table says it keeps",
        .enabled(if: keepsReadersMissing == nil || required, "\(keepsReadersMissing ?? "")"),
        arguments: readers)
    func keeps(reader: String) throws {
        let table = try Self.documented()
        let row = try #require(table[reader], "docs/calendar-apps.md has no row for \(reader)")
        let measured = try Self.measure(reader)
        let order = ["—": -1, "kept": 0, "changed": 1, "dropped": 2]
        let corpusToo = ProcessInfo.processInfo.environment["TASKCAL_KEEPS_CORPUS"] == "1"
        for kind in Self.kinds {
            let cell = measured[kind] ?? [:]
            let present = cell["present"] as? Int ?? 0
            guard present > 0 else { continue }
            let status =
                (cell["dropped"] as? Int ?? 0) > 0
                ? "dropped" : (cell["changed"] as? Int ?? 0) > 0 ? "changed" : "kept"
            let said = row[kind] ?? "—"
            let example = cell["example"] as? String ?? ""
            // The samples may show less than the corpus did; never more.
            if corpusToo {
                #expect(
                    status == said,
                    "\(reader), \(kind): \(status) (\(example)); the table says \(said)")
            } else {
                #expect(
                    order[status]! <= order[said]!,
                    "\(reader), \(kind): \(status) (\(example)); the table says \(said)")
            }
        }
    }
}
