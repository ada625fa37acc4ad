import Foundation
import TaskConversion
import TaskModel
import Testing

@Suite("Writing .ics on several threads gives the bytes and errors of one")
struct ParallelWritingTests {
    /// 2,700 records: zones first used midway (their VTIMEZONE must come before the first
    /// event that needs it), attachments and alarms, three files with their own UID
    /// namespaces, and two records refused as they are read (a broken `ical_extra` line)
    /// while batches of records read before them wait to be written.
    ///
    /// The first file's 1,200 records span three batches, and two of them are refused only
    /// as they are written (an attachment file that is not there), in the first batch and in
    /// the second: the second is being rendered by then, and without `--skip-invalid` none
    /// of it may be written.
    static func inputs(in folder: URL) throws -> [String] {
        var refusals: [String] = []
        for number in 1...1_200 {
            let start = 1_767_225_600 + number * 3_600
            let attachment =
                number == 100 || number == 900
                ? #", "attachments": [{"path": "missing-\#(number).txt"}]"# : ""
            refusals.append(
                #"{"id": \#(number), "date_start": "\#(start)", "date_finish": "\#(start + 1_800)", "name": "refusal \#(number)"\#(attachment)}"#
            )
        }
        let refusalsPath = folder.appendingPathComponent("refusals.ndjson").path
        try Data(refusals.joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: refusalsPath))
        var paths = [refusalsPath]
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
        // Without --skip-invalid, nothing after the first refusal is written (the second
        // attachment is never looked for); what is refused as it is read is still said.
        let expected =
            ["refusals.ndjson:100"] + (skipInvalid ? ["refusals.ndjson:900"] : [])
            + ["part1.ndjson:300", "part1.ndjson:640"]
        #expect(one.errors.count == expected.count, "\(one.errors)")
        for (error, place) in zip(one.errors, expected) {
            #expect(error.contains(place), "\(error)")
        }
        #expect(one.bytes.isEmpty == !skipInvalid)
        for threads in [2, 3] {
            let several = Self.convert(
                inputs, threads: threads, skipInvalid: skipInvalid, in: folder)
            #expect(several.errors == one.errors, "\(threads) threads")
            #expect(several.written == one.written, "\(threads) threads")
            #expect(several.bytes == one.bytes, "\(threads) threads")
        }
    }

    /// A batch whose records come from several files: each is written with its own file's
    /// UID namespace, as one by one (the threads take their own copy of each file's writer).
    @Test("a batch of records from several files keeps each file's namespace")
    func batchOfSeveralFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parallel-writing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Runs of 50, 1 and 149 records from three files, two of them the same file again.
        let files =
            Array(repeating: "first.ndjson", count: 50) + ["second.ndjson"]
            + Array(repeating: "third.ndjson", count: 100)
            + Array(repeating: "first.ndjson", count: 49)
        let batch = files.enumerated().map { index, file in
            (
                record: TaskRecord(
                    id: Int64(index + 1), dateStart: 1_767_225_600 + Int64(index) * 3_600,
                    dateFinish: 1_767_225_600 + Int64(index) * 3_600 + 1_800, name: "entry \(index)"
                ),
                location: Location(file: file, line: index + 1)
            )
        }
        func written(threads: Int) throws -> String {
            var options = WriteOptions(
                format: .ics, uidScheme: UIDScheme(), timestamp: 1_700_000_000)
            options.parallelism = threads
            let path = folder.appendingPathComponent("out-\(threads).ics").path
            let sink = try openRecordSink(path, options: options)
            if threads == 1 {
                for (record, location) in batch { try sink.write(record, from: location) }
            } else {
                let submitted = sink.submit(batch: batch, keepGoing: false)
                let completed = sink.completeBatches()
                #expect(submitted.errors.isEmpty && completed.errors.isEmpty)
                #expect(submitted.written + completed.written == batch.count)
            }
            try sink.finish()
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        let one = try written(threads: 1)
        let uids = one.split(separator: "\r\n").filter { $0.hasPrefix("UID:") }
        #expect(uids.count == batch.count)
        // Each file's namespace: three tags among the UIDs.
        #expect(Set(uids.map { $0.split(separator: "-").dropFirst(2).first }).count == 3)
        #expect(try written(threads: 2) == one)
    }
}
