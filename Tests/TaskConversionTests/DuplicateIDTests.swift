import Foundation
import TaskConversion
import Testing

@Suite("Records that repeat an id are found wherever the ids come in the file")
struct DuplicateIDTests {
    /// The errors of reading `lines` as NDJSON, and how many records came through.
    private func read(_ lines: [String]) throws -> (errors: [String], records: Int) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ids-\(UUID().uuidString).ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var records = 0
        let report = Converter.read(inputs: [url.path], options: ReadOptions()) { _, _ in
            records += 1
        }
        let name = url.path + ":"
        return (report.errors.map { "\($0)".replacingOccurrences(of: name, with: "") }, records)
    }

    private func record(_ id: Int) -> String {
        #"{"id": \#(id), "date_start": "\#(id * 100)", "date_finish": "\#(id * 100 + 50)", "name": "n"}"#
    }

    @Test("ids rising, falling back, repeating one that rose and one that fell back")
    func outOfOrder() throws {
        // Lines:      1  2  3  4  5  6  7  8  9  10 11
        let ids = [5, 3, 7, 3, 9, 5, 2, 8, 1, 10, 8]
        let (errors, records) = try read(ids.map(record))
        #expect(
            errors == [
                "4: id: id 3 is also the id of the record of line 2; each record needs its own id (a calendar app would keep one of them)",
                "6: id: id 5 is also the id of the record of line 1; each record needs its own id (a calendar app would keep one of them)",
                "11: id: id 8 is also the id of the record of line 8; each record needs its own id (a calendar app would keep one of them)",
            ])
        // Records are passed on until the first error (the input will not be used).
        #expect(records == 3)
    }

    @Test("a long rising run with repeats among it, at its ends and past them")
    func risingRun() throws {
        let ids = Array(1...1_000) + [1, 500, 1_000, 0, 0, 1_001, 1_001]
        let (errors, records) = try read(ids.map(record))
        #expect(
            errors.map { $0.prefix(while: { $0 != ";" }) } == [
                "1001: id: id 1 is also the id of the record of line 1",
                "1002: id: id 500 is also the id of the record of line 500",
                "1003: id: id 1000 is also the id of the record of line 1000",
                "1005: id: id 0 is also the id of the record of line 1004",
                "1007: id: id 1001 is also the id of the record of line 1006",
            ])
        #expect(records == 1_000)
    }
}
