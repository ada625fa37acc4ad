import Foundation
import ICalendar
import Testing

@Suite("LineSource: lines from files read in blocks")
struct LineSourceTests {
    /// Lines of every length (mostly short, a few longer than the 256 KiB read block),
    /// ended by LF or CRLF, in a file; and the lines.
    private func linesFile() throws -> (URL, [[UInt8]]) {
        var expected: [[UInt8]] = []
        for index in 0..<3000 {
            // Mostly short lines, a few longer than the 256 KiB read block.
            let length = index % 301 == 0 ? 100_000 + index * 170 : (index * 7919) % 700
            let byte = UInt8(0x21 + index % 90)
            expected.append([UInt8](repeating: byte, count: length))
        }
        var bytes: [UInt8] = []
        for (index, line) in expected.enumerated() {
            bytes += line
            bytes += index % 3 == 0 ? [0x0D, 0x0A] : [0x0A]
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lines-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return (url, expected)
    }

    @Test("lines of every length, across block boundaries, come back exactly")
    func blockBoundaries() throws {
        let (url, expected) = try linesFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try LineSource(path: url.path)
        var lines: [[UInt8]] = []
        while let line = try source.nextLine(limit: 1 << 20, lineNumber: lines.count + 1) {
            lines.append(line)
        }
        #expect(lines.count == expected.count)
        #expect(lines == expected)
    }

    @Test("a line over the limit is refused with its number")
    func limit() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lines-\(UUID().uuidString)")
        try Data(("short\n" + String(repeating: "x", count: 3 << 20) + "\n").utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try LineSource(path: url.path)
        #expect(try source.nextLine(limit: 1 << 20, lineNumber: 1) == Array("short".utf8))
        #expect(throws: ICalendarError.self) { try source.nextLine(limit: 1 << 20, lineNumber: 2) }
    }

    @Test(
        "lines taken in runs are the lines taken one by one",
        arguments: [(1, 1 << 30), (7, 1 << 30), (1_000, 1 << 30), (1_000, 300_000)])
    func runs(count: Int, bytes: Int) throws {
        let (url, expected) = try linesFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try LineSource(path: url.path)
        var lines: [[UInt8]] = []
        while true {
            let run = source.nextLines(
                count, bytes: bytes, limit: 1 << 20, firstLineNumber: lines.count + 1)
            #expect(run.failure == nil)
            guard !run.lines.isEmpty else { break }
            #expect(run.lines.count <= count)
            // Past the byte budget by at most its last line.
            #expect(run.lines.dropLast().last.map { $0.upperBound < bytes } ?? true)
            lines += run.lines.map { Array(run.text[$0]) }
        }
        #expect(lines.count == expected.count)
        #expect(lines == expected)
    }

    @Test("a run ends before a line over the limit, and says which line it is")
    func runLimit() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lines-\(UUID().uuidString)")
        let text = "one\r\ntwo\n\n" + String(repeating: "x", count: 3 << 20) + "\nfive\n"
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try LineSource(path: url.path)
        let run = source.nextLines(10, limit: 1 << 20, firstLineNumber: 1)
        #expect(
            run.lines.map { String(decoding: run.text[$0], as: UTF8.self) } == ["one", "two", ""])
        #expect(run.failure?.line == 4)
        // In memory, the last line without a line end.
        let memory = LineSource(bytes: Array("a\nb".utf8)).nextLines(
            10, limit: 8, firstLineNumber: 1)
        #expect(
            memory.lines.map { String(decoding: memory.text[$0], as: UTF8.self) } == ["a", "b"])
        #expect(memory.failure == nil)
    }

    @Test("lines taken from the buffer in one go, then one read, are the lines one by one")
    func bufferedLines() throws {
        let (url, expected) = try linesFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try LineSource(path: url.path)
        var lines: [[UInt8]] = []
        var inOneGo = 0
        while true {
            inOneGo += source.takeBufferedLines(limit: 1 << 20) { lines.append(Array($0)) }
            guard let range = try source.nextLineRange(limit: 1 << 20, lineNumber: lines.count + 1)
            else { break }
            source.withBuffer { lines.append(Array($0[range])) }
        }
        #expect(lines.count == expected.count)
        #expect(lines == expected)
        #expect(inOneGo > expected.count / 2)

        // It stops before a line over the limit, which the next line read refuses.
        let long = LineSource(
            bytes: Array(("one\r\n\r\ntwo\n" + String(repeating: "x", count: 100) + "\nz").utf8))
        var short: [String] = []
        #expect(
            long.takeBufferedLines(limit: 50) { short.append(String(decoding: $0, as: UTF8.self)) }
                == 3)
        #expect(short == ["one", "", "two"])
        #expect(throws: ICalendarError.self) { try long.nextLineRange(limit: 50, lineNumber: 4) }
    }
}
