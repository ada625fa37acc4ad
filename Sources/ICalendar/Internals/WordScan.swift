/// Tests on eight bytes at once, for scans that skip the bytes with nothing to do.
enum WordScan {
    /// Whether one of the eight bytes of `word` is `byte` (the classic zero-byte test on
    /// `word ^ byte…`: never a miss; a rare false hit only sends the caller bytewise).
    @inline(__always)
    static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let spread = word ^ (ones &* UInt64(byte))
        return (spread &- ones) & ~spread & 0x8080_8080_8080_8080 != 0
    }

    /// Whether one of the eight bytes of `word` is below `bound` (at most 0x80; exact).
    @inline(__always)
    static func hasByte(_ word: UInt64, below bound: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (word &- ones &* UInt64(bound)) & ~word & 0x8080_8080_8080_8080 != 0
    }
}
