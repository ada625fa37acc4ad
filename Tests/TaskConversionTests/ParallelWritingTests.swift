import Foundation
import TaskConversion
import TaskModel
import Testing

@Suite("Writing .ics on several threads gives the bytes and errors of one")
struct ParallelWritingTests {
    /// 1,500 records: zones first used midway (their VTIMEZONE must come before the first
    /// event that needs it), attachments and alarms, two files with their own UID
    /// namespaces, and two refused records (a broken `ical_extra` line) while batches of
    /// records read before them wait to be written.
    static func inputs(in folder: URL) throws -> [String] {
        var paths: [String] = []
        for file in 0..<2 {
            var lines: [String] = []
            for number in 1...750 {
                let start = 1_767_225_600 + number * 5_400
                var fields = [
                    #""id": \#(number)"#, #""date_start": "\#(start)""#,
                    #""date_finish": "\#(start + 3_600)""#, #""name": "entry \#(number), ✓""#,
                ]
                if number % 7 == 0 { fields.append(#""time_zone": "Asia/Tokyo""#) }
                if number > 400 && number % 11 == 0 {
                    fields.append(#""time_zone": "America/Sao_Paulo""#)
                }
                if number % 5 == 0 {
                    fields.append(#""alarms": [{"action": "display", "trigger": "-PT15M"}]"#)
                }
                if number % 13 == 0 {
                    fields.append(
                        #""attachments": [{"filename": "a.txt", "mime_type": "text/plain", "data": "aGVsbG8="}]"#
                    )
                }
                if file == 1 && (number == 300 || number == 640) {
                    fields.append(#""ical_extra": ["NOT A CONTENT LINE"]"#)
                }
                lines.append("{" + fields.joined(separator: ", ") + "}")
            }
            let path = folder.appendingPathComponent("part\(file).ndjson").path
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    /// The report's errors and the bytes written (empty when nothing was).
    static func convert(_ inputs: [String], threads: Int, skipInvalid: Bool, in folder: URL)
        -> (errors: [String], written: Int, bytes: Data)
    {
        let output = folder.appendingPathComponent("out-\(threads)-\(skipInvalid).ics")
        var write = WriteOptions(format: .ics, uidScheme: UIDScheme(), timestamp: 1_700_000_000)
        write.parallelism = threads
        var read = ReadOptions()
        read.parallelism = threads
        let report = Converter.convert(
            inputs: inputs, output: output.path, read: read, write: write,
            skipInvalid: skipInvalid)
        return (
            report.errors.map(\.description), report.written,
            (try? Data(contentsOf: output)) ?? Data()
        )
    }

    @Test("the same file, and the same refusals in the same order", arguments: [false, true])
    func same(skipInvalid: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parallel-writing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.inputs(in: folder)
        let one = Self.convert(inputs, threads: 1, skipInvalid: skipInvalid, in: folder)
        #expect(one.errors.count == 2, "\(one.errors)")
        #expect(one.errors.first?.contains("part1.ndjson") == true)
        #expect(one.bytes.isEmpty == !skipInvalid)
        for threads in [2, 3] {
            let several = Self.convert(
                inputs, threads: threads, skipInvalid: skipInvalid, in: folder)
            #expect(several.errors == one.errors, "\(threads) threads")
            #expect(several.written == one.written, "\(threads) threads")
            #expect(several.bytes == one.bytes, "\(threads) threads")
        }
    }
}
