import Glibc

/// Physical lines from a file descriptor or a byte array, read in large blocks.
///
/// Lines end at LF; a CR before it is dropped. A line longer than the limit is refused as
/// soon as the limit is passed, without buffering the rest of it. Used for iCalendar here
/// and for NDJSON by the conversion layer.
public final class LineSource {
    private let descriptor: Int32?
    // Checked for exclusivity at compile time only (see ICalendarReader's state): the
    // properties are private, a source is read by one thread at a time, and no access to
    // one of them is open while another to the same one runs.
    @exclusivity(unchecked) private var buffer: [UInt8]
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var atEOF = false
    /// A run of whole lines kept in the buffer until it is taken (see ``mark(from:)``):
    /// where it begins and ends.
    @exclusivity(unchecked) private var marked: Range<Int>?
    private static let blockSize = 1 << 18

    /// Reads the file at `path`; `-` is standard input.
    public convenience init(path: String) throws(ICalendarError) {
        let descriptor = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ICalendarError(.io, "cannot open: \(String(cString: strerror(errno)))")
        }
        self.init(descriptor: descriptor)
    }

    init(descriptor: Int32) {
        self.descriptor = descriptor
        self.buffer = [UInt8](repeating: 0, count: Self.blockSize)
    }

    /// Reads lines of `bytes` in memory.
    public init(bytes: [UInt8]) {
        self.descriptor = nil
        self.buffer = bytes
        self.end = bytes.count
        self.atEOF = true
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// The next line without its line end, or `nil` at the end of the input.
    public func nextLine(limit: Int, lineNumber: Int) throws(ICalendarError) -> [UInt8]? {
        guard let range = try nextLineRange(limit: limit, lineNumber: lineNumber) else {
            return nil
        }
        return Array(buffer[range])
    }

    /// Up to `count` lines, copied out at once: their bytes (line ends and all) and where
    /// each line lies in them, without its line end. Fewer at the end of the input, once
    /// the lines hold `bytes` bytes, or when a line is longer than `limit` or cannot be read:
    /// the lines before it, and why (its number counted from `firstLineNumber`). One copy
    /// for thousands of lines, where ``nextLine(limit:lineNumber:)`` makes an array of each.
    package func nextLines(
        _ count: Int, bytes: Int = 4 << 20, limit: Int, firstLineNumber: Int
    ) -> (text: [UInt8], lines: [Range<Int>], failure: ICalendarError?) {
        var lines: [Range<Int>] = []
        lines.reserveCapacity(min(count, 4_096))
        var failure: ICalendarError?
        while lines.count < count, (lines.last?.upperBound ?? 0) < bytes {
            let range: Range<Int>
            do {
                guard
                    let next = try nextLineRange(
                        limit: limit, lineNumber: firstLineNumber + lines.count)
                else { break }
                range = next
            } catch {
                failure = error
                break
            }
            // Where the run starts moves when a read moves the buffer; a line's place in
            // the run does not.
            let runStart = marked?.lowerBound ?? range.lowerBound
            lines.append(range.lowerBound - runStart..<range.upperBound - runStart)
            marked = runStart..<start
        }
        return (takeMarked() ?? [], lines, failure)
    }

    /// Where the next line lies in the buffer (valid until the next call; read it with
    /// ``withBuffer(_:)``), without its line end, or `nil` at the end of the input.
    package func nextLineRange(limit: Int, lineNumber: Int) throws(ICalendarError)
        -> Range<Int>?
    {
        var searchFrom = start
        while true {
            if let newline = findNewline(from: searchFrom) {
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                guard lineEnd - start <= limit else { throw tooLong(lineNumber, limit) }
                let range = start..<lineEnd
                start = newline + 1
                return range
            }
            guard end - start <= limit else { throw tooLong(lineNumber, limit) }
            if atEOF {
                guard start < end else { return nil }
                var lineEnd = end
                if buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let range = start..<lineEnd
                start = end
                return range
            }
            let scanned = end - start  // fill() moves the unread bytes to the front
            try fill()
            searchFrom = start + scanned
        }
    }

    /// The buffer the ranges of ``nextLineRange(limit:lineNumber:)`` point into.
    package func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        buffer.withUnsafeBufferPointer(body)
    }

    /// The first byte of a range ``nextLineRange(limit:lineNumber:)`` gave, `nil` when it is
    /// empty. (Not through ``withBuffer(_:)``: another module calls it unspecialized, a
    /// closure call per line.)
    package func firstByte(of range: Range<Int>) -> UInt8? {
        range.isEmpty ? nil : buffer[range.lowerBound]
    }

    /// Appends the bytes of a range ``nextLineRange(limit:lineNumber:)`` gave to `bytes`.
    package func append(_ range: Range<Int>, to bytes: inout [UInt8]) {
        buffer.withUnsafeBufferPointer {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range]))
        }
    }

    /// Skips the whole lines ahead, already in the buffer, that cannot be a `BEGIN` or an
    /// `END`: lines whose first byte is neither `B` nor `E` (in either case), and neither a
    /// line end. Returns how many it skipped; the first line it did not skip is the next
    /// ``nextLineRange(limit:lineNumber:)`` gives, which also reports a line past `limit`
    /// (this leaves such a line, and a line not wholly read yet, to it).
    ///
    /// A splitter of a large .ics looks only at the first byte of most of its lines: line by
    /// line through ``nextLineRange(limit:lineNumber:)`` that was most of its work.
    package func skipLinesBeforeKeyword(limit: Int) -> Int {
        var skipped = 0
        var position = start
        let end = self.end
        buffer.withUnsafeBufferPointer { pointer in
            let base = pointer.baseAddress!
            while position < end {
                let first = base[position]
                let folded = first | 0x20
                guard folded != UInt8(ascii: "b"), folded != UInt8(ascii: "e"), first != 0x0A,
                    first != 0x0D,
                    let found = memchr(base + position, 0x0A, end - position)
                else { return }
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let lineEnd = base[newline - 1] == 0x0D ? newline - 1 : newline
                guard lineEnd - position <= limit else { return }
                position = newline + 1
                skipped += 1
            }
        }
        start = position
        return skipped
    }

    /// Hands `body` the whole lines already in the buffer, without their line ends, in one
    /// access to it, and returns how many. It stops before a line past `limit` or one not
    /// wholly read yet: ``nextLineRange(limit:lineNumber:)`` gives that one next (reading
    /// more) or refuses it.
    ///
    /// A pass over every line of a large input (the scan for revisions) spent more on the
    /// call per line than on the line.
    package func takeBufferedLines(limit: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
        -> Int
    {
        var taken = 0
        var position = start
        let end = self.end
        buffer.withUnsafeBufferPointer { pointer in
            let base = pointer.baseAddress!
            while position < end, let found = memchr(base + position, 0x0A, end - position) {
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let lineEnd =
                    newline > position && base[newline - 1] == 0x0D ? newline - 1 : newline
                guard lineEnd - position <= limit else { return }
                body(UnsafeBufferPointer(start: base + position, count: lineEnd - position))
                position = newline + 1
                taken += 1
            }
        }
        start = position
        return taken
    }

    /// Goes back to the first line: true when it can (a file, bytes in memory), false for a
    /// pipe, which gives its bytes once.
    package func rewind() -> Bool {
        if let descriptor {
            guard lseek(descriptor, 0, SEEK_SET) == 0 else { return false }
            end = 0
            atEOF = false
        }
        start = 0
        marked = nil
        return true
    }

    /// Whether ``rewind()`` can go back (without going there).
    package var canRewind: Bool {
        guard let descriptor else { return true }
        return lseek(descriptor, 0, SEEK_CUR) >= 0
    }

    // MARK: - Runs of lines

    /// Starts a run of whole lines with the line at `lineStart` (the start of the range the
    /// last call gave), kept in the buffer until ``takeMarked()``: a caller that hands
    /// contiguous lines on (the splitter of a large .ics) copies them once, as they are,
    /// line ends and all, instead of line by line.
    package func mark(from lineStart: Int) {
        marked = lineStart..<start
    }

    /// Extends the run to the end of the last line read, its line end included.
    package func extendMark() {
        if let run = marked { marked = run.lowerBound..<start }
    }

    /// Whether a run is being kept.
    package var isMarking: Bool { marked != nil }

    /// The run's bytes, and no run any more; `nil` when there is none.
    package func takeMarked() -> [UInt8]? {
        guard let run = marked else { return nil }
        marked = nil
        return Array(buffer[run])
    }

    private func findNewline(from index: Int) -> Int? {
        guard index < end else { return nil }
        return buffer.withUnsafeBufferPointer { pointer -> Int? in
            guard let found = memchr(pointer.baseAddress! + index, 0x0A, end - index) else {
                return nil
            }
            return pointer.baseAddress!.distance(
                to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Moves unread bytes to the front (growing the buffer if a line fills it) and reads more.
    private func fill() throws(ICalendarError) {
        guard let descriptor else {
            atEOF = true
            return
        }
        // The unread bytes, and a run being kept, move to the front.
        let keep = min(start, marked?.lowerBound ?? start)
        if keep > 0 {
            buffer.withUnsafeMutableBufferPointer { pointer in
                _ = memmove(pointer.baseAddress!, pointer.baseAddress! + keep, end - keep)
            }
            end -= keep
            start -= keep
            if let run = marked { marked = (run.lowerBound - keep)..<(run.upperBound - keep) }
        }
        if end == buffer.count {
            buffer += [UInt8](repeating: 0, count: buffer.count)
        }
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            read(descriptor, pointer.baseAddress! + end, pointer.count - end)
        }
        if count < 0 {
            throw ICalendarError(.io, "cannot read: \(String(cString: strerror(errno)))")
        }
        if count == 0 { atEOF = true }
        end += count
    }

    private func tooLong(_ lineNumber: Int, _ limit: Int) -> ICalendarError {
        ICalendarError(
            .lineTooLong, line: lineNumber,
            "the line is longer than \(limit) octets; RFC 5545 folds content lines at 75 octets")
    }
}

/// UTF-8 validation on raw bytes, with an ASCII fast path.
enum UTF8Check {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            let count = buffer.count
            let base = UnsafeRawBufferPointer(buffer)
            while index < count {
                // ASCII, the bulk of a calendar, eight bytes at a time.
                if index + 8 <= count,
                    base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                    continue
                }
                let byte = buffer[index]
                if byte < 0x80 {
                    index += 1
                    continue
                }
                // Two bytes (Cyrillic, Greek, accented Latin): the lead byte alone rules out
                // overlong forms, and no two-byte scalar is a surrogate or out of range.
                if byte >= 0xC2, byte <= 0xDF, index + 1 < count, buffer[index + 1] & 0xC0 == 0x80 {
                    index += 2
                    continue
                }
                let length: Int
                var minimum: UInt32
                var scalar: UInt32
                switch byte {
                case 0xC2...0xDF: length = 2; scalar = UInt32(byte & 0x1F); minimum = 0x80
                case 0xE0...0xEF: length = 3; scalar = UInt32(byte & 0x0F); minimum = 0x800
                case 0xF0...0xF4: length = 4; scalar = UInt32(byte & 0x07); minimum = 0x10000
                default: return false
                }
                guard index + length <= count else { return false }
                for offset in 1..<length {
                    let next = buffer[index + offset]
                    guard next & 0xC0 == 0x80 else { return false }
                    scalar = scalar << 6 | UInt32(next & 0x3F)
                }
                guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar)
                else {
                    return false
                }
                _ = minimum
                index += length
            }
            return true
        }
    }
}
