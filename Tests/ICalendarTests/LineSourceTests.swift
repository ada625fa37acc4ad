import Foundation
import ICalendar
import Testing

@Suite("LineSource: lines from files read in blocks")
struct LineSourceTests {
    @Test("lines of every length, across block boundaries, come back exactly")
    func blockBoundaries() throws {
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
}
