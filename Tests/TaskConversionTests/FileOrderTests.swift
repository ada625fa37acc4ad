import Foundation
import TaskModel
import Testing

@testable import TaskConversion

@Suite("FileOrder: a second component of a UID is found and renamed, however the hashes fall")
struct FileOrderTests {
    /// 400 records whose UIDs (and changed occurrences) come from a few keys, some of them
    /// prefixes of others, beyond ASCII, or derived from an id.
    private static func records() -> [TaskRecord] {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func draw(_ count: Int) -> Int {
            // A small xorshift from a fixed seed: the same records in every run.
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return Int(seed % UInt64(count))
        }
        let uids: [String?] = [
            nil, "a", "ab", "ü-c", "u\u{308}-c", "", "taskcal-7@taskcal.invalid",
        ]
        return (1...400).map { line in
            var record = TaskRecord(
                id: Int64(draw(3) == 0 ? 7 : line), dateStart: 0, dateFinish: 60, name: "r")
            record.uid = uids[draw(uids.count)]
            if draw(3) == 0 { record.recurrenceID = Int64(draw(2)) * 3600 }
            return record
        }
    }

    /// What ordering `records` gives: each record as it comes out, and each warning.
    private static func ordered(_ records: [TaskRecord], hashMask: Int) -> [String] {
        var order = FileOrder(hashMask: hashMask)
        let scheme = UIDScheme()
        return records.enumerated().map { line, record in
            var record = record
            let warning = order.order(
                &record, location: Location(file: "f.ics", line: line + 1), scheme: scheme)
            return "\(record.id) \(record.uid ?? "-") \(warning?.message ?? "")"
        }
    }

    @Test("every hash kept, cut to one bit, or all equal: the same records and warnings")
    func collidingHashes() {
        let records = Self.records()
        let full = Self.ordered(records, hashMask: ~0)
        #expect(Self.ordered(records, hashMask: 1) == full)
        #expect(Self.ordered(records, hashMask: 0) == full)
        // A plain reading of the rule: a key seen before is renamed, naming its first line.
        // A record without a UID of its own is known by its id (unless it changes one
        // occurrence); any other by its UID's bytes (as calendar servers compare UIDs: "ü"
        // and "u" with a combining diaeresis are two UIDs), with the occurrence's start.
        var first: [[UInt8]: Int] = [:]
        var firstByID: [Int64: Int] = [:]
        var renamed = 0
        for (index, record) in records.enumerated() {
            let uid = record.uid ?? UIDScheme().uid(for: record.id)
            let key = Array((record.recurrenceID.map { "\(uid)@\($0)" } ?? uid).utf8)
            let byID = record.uid == nil && record.recurrenceID == nil
            if let seen = byID ? firstByID[record.id] : first[key] {
                renamed += 1
                #expect(full[index].contains("of line \(seen);"), "\(full[index])")
            } else if byID {
                firstByID[record.id] = index + 1
                #expect(full[index].hasSuffix(" "), "\(full[index])")
            } else {
                first[key] = index + 1
                #expect(full[index].hasSuffix(" "), "\(full[index])")
            }
        }
        #expect(renamed > 300)
    }

    @Test("keys past the first growth each keep their own first line")
    func manyKeys() {
        var order = FileOrder(hashMask: 0xFF)
        let scheme = UIDScheme()
        for pass in 0..<2 {
            for index in 0..<5_000 {
                var record = TaskRecord(id: 1, dateStart: 0, dateFinish: 60, name: "r")
                record.uid = "key-\(index)"
                let warning = order.order(
                    &record, location: Location(file: "f.ics", line: pass * 5_000 + index + 1),
                    scheme: scheme)
                if pass == 0 {
                    #expect(warning == nil)
                } else {
                    #expect(warning?.message.contains("of line \(index + 1);") == true)
                }
            }
        }
    }
}
