/// Byte searches over UTF-8 text eight bytes at a time (SWAR: SIMD within a register), for the
/// hot loops of the JSON reader and the text checks, where most bytes are ordinary text.
///
/// Each word test is exact about whether the word holds such a byte; the byte itself is then
/// found one at a time, so the answers are those of the plain loop.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` is zero.
    @inline(__always)
    static func hasZero(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    /// Whether some byte of `word` equals `byte`.
    @inline(__always)
    static func has(_ word: UInt64, _ byte: UInt8) -> Bool {
        hasZero(word ^ (ones &* UInt64(byte)))
    }

    /// Whether some byte of `word` is less than `limit` (at most 128).
    @inline(__always)
    static func hasLess(_ word: UInt64, than limit: UInt8) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    /// The first offset from `start` whose byte ends a JSON string's plain run: a quote, a
    /// backslash or a control character; `bytes.count` when there is none.
    static func stringStop(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if has(word, 0x22) || has(word, 0x5C) || hasLess(word, than: 0x20) { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { return index }
            index += 1
        }
        return index
    }

    /// Whether `bytes` hold `byte`; for a byte past ASCII, eight bytes of ASCII (base64, say)
    /// are passed over on one test.
    static func contains(_ byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let ascii = byte < 0x80
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (ascii || word & highs != 0) && has(word, byte) { return true }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] == byte { return true }
            index += 1
        }
        return false
    }

    /// The first offset holding a control character (below U+0020, or U+007F), or nil.
    static func firstControl(in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasLess(word, than: 0x20) || has(word, 0x7F) { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F { return index }
            index += 1
        }
        return nil
    }
}

/// JSON's structural bytes by their names in RFC 8259 §2 (`begin-object` …), for the readers
/// and writers that test and write them one byte at a time.
enum JSONByte {
    @inline(__always) static var beginObject: UInt8 { 0x7B }
    @inline(__always) static var endObject: UInt8 { 0x7D }
    @inline(__always) static var beginArray: UInt8 { 0x5B }
    @inline(__always) static var endArray: UInt8 { 0x5D }
}
