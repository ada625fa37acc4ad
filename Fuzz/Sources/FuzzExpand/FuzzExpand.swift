import FuzzSupport
import TaskConversion

/// `--expand`: repeating records of .ics or JSON as their occurrences in a window the input
/// also chooses (its first eight bytes), then written back.
@_cdecl("FuzzExpand_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    FuzzDriver.run(argc, argv) { bytes in
        guard bytes.count > 8 else { return }
        // A window of up to ten years somewhere between 1970 and 2100.
        let start = Int64(bytes[0]) << 24 | Int64(bytes[1]) << 16 | Int64(bytes[2]) << 8
        let length = (Int64(bytes[3]) << 8 | Int64(bytes[4])) * 6_000
        let lower = start * 16 % 4_102_444_800
        var options = ReadOptions(floatingZone: "Europe/Berlin")
        // 1,000 occurrences at most: under AddressSanitizer an occurrence written with its
        // zone costs about 1 ms (5,000 of a real Google export took 5.2 s, past the 5 s
        // timeout; the release CLI took 0.09 s), and a mutated start centuries before its end
        // overlaps the whole window every week. The full limit is measured without sanitizers
        // by Benchmarks/hostile.py.
        options.expansion = Expansion(
            window: lower..<(lower + max(length, 3_600)), limit: 1_000)
        let format: Format = bytes[5] % 2 == 0 ? .ics : .json
        FuzzDriver.readAndWrite(Array(bytes[8...]), format: format, options: options)
    }
}
