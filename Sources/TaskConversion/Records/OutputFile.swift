import Foundation

/// A file written atomically: to a temporary file beside the target, renamed over it only
/// when everything was written. A failed or interrupted run leaves the target as it was.
/// A symbolic link to a file keeps pointing to the file, written anew.
///
/// `-` writes to standard output instead, and a path that names a descriptor, a pipe or a
/// device (`/dev/stdout`, `>(gzip > f)`, a FIFO) is written to as it is. Such an output is
/// held (in memory, past 8 MiB in an unnamed temporary file) and written at the commit, so
/// that it can be revised like a file (``canRewrite``): what a sink learns only at the end
/// (a calendar's name, a zone a later event defines) reaches standard output as it reaches a
/// file, byte for byte, and a failed run writes nothing there.
///
/// An output may have a ``limit``: past it the write fails and nothing is written (the
/// reports and expansions, whose output can be many times their input).
package final class OutputFile {
    package let displayPath: String
    /// The most bytes this output may take (none when nil); a write past it throws.
    package var limit: OutputLimit?
    private let target: String?
    private let temporary: String?
    /// Where the bytes go before the commit: the temporary file, or the spool of a direct
    /// output (-1 until the held bytes first pass ``heldLimit``).
    private var descriptor: Int32
    /// Standard output or the descriptor a direct path opened: written at the commit.
    private let direct: Int32?
    private var buffer: [UInt8] = []
    private var done = false
    private let mode: mode_t
    /// Counts what is written and keeps none of it (for measuring what a file would hold).
    private let discards: Bool
    /// The descriptor was opened for a path written to as it is (closed when done).
    private var ownsDescriptor = false
    /// The bytes held in memory before they go to the descriptor: 64 KiB for a file, 8 MiB
    /// for a direct output, whose spool file is made only past it.
    private let heldLimit: Int

    /// The mode a new file gets from `open(2)`: 0666 less the process's umask.
    static let defaultMode: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }()

    /// Opens `path` for writing; the file gets `mode` (default: as any new file would, 0666
    /// less the umask; a diary asks for 0600).
    package init(path: String, mode: mode_t? = nil) throws(Diagnostic) {
        displayPath = path
        self.mode = mode ?? Self.defaultMode
        discards = false
        if path == "-" {
            target = nil
            temporary = nil
            descriptor = -1
            direct = STDOUT_FILENO
            heldLimit = 1 << 23
            return
        }
        if let opened = try Self.directDescriptor(path) {
            target = nil
            temporary = nil
            descriptor = -1
            direct = opened
            ownsDescriptor = true
            heldLimit = 1 << 23
            return
        }
        direct = nil
        heldLimit = 1 << 16
        let url = URL(fileURLWithPath: Self.resolvingLink(path))
        let directory = url.deletingLastPathComponent().path
        // Batch scripts write into folders that do not exist yet; make them.
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        var template = Array("\(directory)/.\(url.lastPathComponent).taskcal-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else {
            throw Diagnostic(
                .error, Location(file: path),
                "cannot create the output file: \(String(cString: strerror(errno)))")
        }
        fchmod(made, self.mode)
        target = url.path
        temporary = String(
            decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = made
        buffer.reserveCapacity(1 << 16)
    }

    /// The descriptor to write to for a path that names a descriptor or something other than
    /// a file (a pipe, a terminal, `/dev/null`), or `nil` for a file. A temporary file renamed
    /// over `/dev/stdout` replaced the link with a file (as root), and one beside
    /// `/dev/fd/63` could not be made.
    private static func directDescriptor(_ path: String) throws(Diagnostic) -> Int32? {
        let namesDescriptor =
            path == "/dev/stdout" || path == "/dev/stderr" || path.hasPrefix("/dev/fd/")
            || path.hasPrefix("/proc/self/fd/")
        var info = stat()
        guard
            namesDescriptor
                || (stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG
                    && info.st_mode & S_IFMT != S_IFDIR)
        else { return nil }
        // Appending: after what the shell's redirection holds (`{ echo; taskcal …; } > f`).
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Diagnostic(
                .error, Location(file: path),
                "cannot open the output: \(String(cString: strerror(errno)))", code: .io)
        }
        return descriptor
    }

    /// The file a symbolic link leads to (the link stays and the file is written anew), or
    /// `path` when it is no link.
    private static func resolvingLink(_ path: String) -> String {
        var path = path
        // A link to a file not made yet leads to where it will be; a loop ends somewhere.
        for _ in 0..<40 {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
                let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
            else { break }
            path =
                destination.hasPrefix("/")
                ? destination
                : URL(fileURLWithPath: path).deletingLastPathComponent()
                    .appendingPathComponent(destination).path
        }
        return path
    }

    /// An output that counts the bytes written (``written``) and keeps none.
    init(discardingAs name: String) {
        displayPath = name
        mode = Self.defaultMode
        target = nil
        temporary = nil
        descriptor = -1
        direct = nil
        heldLimit = 1 << 16
        discards = true
    }

    deinit {
        if !done { abandon() }
    }

    package func write(_ text: String) throws(Diagnostic) {
        written += text.utf8.count
        if let limit, written > limit.bytes { throw limit.exceeded(displayPath) }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= heldLimit { try flush() }
    }

    package func write(bytes: [UInt8]) throws(Diagnostic) {
        written += bytes.count
        if let limit, written > limit.bytes { throw limit.exceeded(displayPath) }
        buffer.append(contentsOf: bytes)
        if buffer.count >= heldLimit { try flush() }
    }

    private func flush() throws(Diagnostic) {
        if discards { return buffer.removeAll(keepingCapacity: true) }
        if descriptor < 0 {
            guard !buffer.isEmpty else { return }
            descriptor = try Self.spool(for: displayPath)
        }
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw Diagnostic(.error, Location(file: displayPath), "cannot write: \(reason)")
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Bytes written so far.
    private(set) var written = 0

    /// Whether ``commit(replacing:)`` can revise what was written: always, but for an output
    /// that only counts.
    var canRewrite: Bool { !discards }

    /// An unnamed temporary file (in `TMPDIR`, else /tmp) that holds a direct output's bytes
    /// until the commit; it goes away with its descriptor.
    private static func spool(for displayPath: String) throws(Diagnostic) -> Int32 {
        let folder =
            ProcessInfo.processInfo.environment["TMPDIR"].flatMap {
                $0.isEmpty ? nil : $0
            } ?? "/tmp"
        var template = Array("\(folder)/taskcal-output-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else {
            throw Diagnostic(
                .error, Location(file: displayPath),
                "cannot hold the output in \(folder) (TMPDIR): \(String(cString: strerror(errno)))",
                code: .io)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return made
    }

    /// ``commit(replacing:)`` with the first `prefix` bytes replaced.
    func commit(replacingPrefix prefix: Int, with replacement: [UInt8]) throws(Diagnostic) {
        try commit(replacing: [(0..<prefix, replacement)])
    }

    /// Flushes, syncs and renames the temporary file over the target, with the byte ranges
    /// of `replacements` (ascending, not overlapping) replaced by their bytes: what was known
    /// about the file only at its end. Without replacements the file is renamed as it is;
    /// with some, it is copied once into a new temporary file. A direct output gets its held
    /// bytes, revised the same way.
    func commit(replacing replacements: [(range: Range<Int>, bytes: [UInt8])]) throws(Diagnostic) {
        if let direct { return try commitDirect(to: direct, replacing: replacements) }
        try flush()
        guard let temporary, let target, !replacements.isEmpty else { return try commit() }
        let url = URL(fileURLWithPath: target)
        var template = Array(
            "\(url.deletingLastPathComponent().path)/.\(url.lastPathComponent).taskcal-XXXXXX"
                .utf8CString)
        let rewritten = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard rewritten >= 0 else {
            throw Diagnostic(
                .error, Location(file: displayPath),
                "cannot rewrite the output file: \(String(cString: strerror(errno)))", code: .io)
        }
        fchmod(rewritten, mode)
        let newPath = String(
            decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard copyWritten(revisedBy: replacements, into: rewritten) else {
            let reason = String(cString: strerror(errno))
            close(rewritten)
            unlink(newPath)
            throw Diagnostic(
                .error, Location(file: displayPath), "cannot write: \(reason)", code: .io)
        }
        done = true
        close(descriptor)
        unlink(temporary)
        if fsync(rewritten) != 0 || close(rewritten) != 0 || rename(newPath, target) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(newPath)
            throw Diagnostic(
                .error, Location(file: displayPath), "cannot write: \(reason)", code: .io)
        }
        Self.syncFolder(of: target)
    }

    /// Writes what a direct output holds to `destination`, revised by `replacements`: from
    /// memory, or from its spool file when it grew past ``heldLimit``.
    private func commitDirect(
        to destination: Int32, replacing replacements: [(range: Range<Int>, bytes: [UInt8])]
    ) throws(Diagnostic) {
        if descriptor >= 0 { try flush() }
        done = true
        defer {
            if descriptor >= 0 { close(descriptor) }
            if ownsDescriptor { close(destination) }
            buffer = []
        }
        var written: Bool
        if descriptor >= 0 {
            written = copyWritten(revisedBy: replacements, into: destination)
        } else {
            var position = 0
            written = true
            for (range, bytes) in replacements where written {
                written =
                    range.lowerBound >= position && range.upperBound <= buffer.count
                    && Self.writeAll(destination, buffer[position..<range.lowerBound])
                    && Self.writeAll(destination, bytes[...])
                position = range.upperBound
            }
            written = written && Self.writeAll(destination, buffer[min(position, buffer.count)...])
        }
        guard written else {
            let reason = String(cString: strerror(errno))
            throw Diagnostic(
                .error, Location(file: displayPath), "cannot write: \(reason)", code: .io)
        }
    }

    /// Copies what was written to ``descriptor`` into `destination`, with the byte ranges of
    /// `replacements` (ascending, not overlapping) replaced by their bytes. False when a read
    /// or a write failed (`errno` says why).
    private func copyWritten(
        revisedBy replacements: [(range: Range<Int>, bytes: [UInt8])], into destination: Int32
    ) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        /// Copies the bytes from `start` up to `end` (nil: the end).
        func copy(from start: Int, to end: Int?) -> Bool {
            var position = start
            while end.map({ position < $0 }) ?? true {
                let wanted = min(chunk.count, end.map { $0 - position } ?? chunk.count)
                let count = chunk.withUnsafeMutableBytes {
                    pread(descriptor, $0.baseAddress!, wanted, off_t(position))
                }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { return false }
                if count == 0 { return end == nil }
                guard Self.writeAll(destination, chunk[0..<count]) else { return false }
                position += count
            }
            return true
        }
        var position = 0
        for (range, bytes) in replacements {
            guard range.lowerBound >= position, copy(from: position, to: range.lowerBound),
                Self.writeAll(destination, bytes[...])
            else { return false }
            position = range.upperBound
        }
        return copy(from: position, to: nil)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }

    /// Flushes, syncs and renames the temporary file over the target (a direct output: writes
    /// what it holds).
    package func commit() throws(Diagnostic) {
        if let direct { return try commitDirect(to: direct, replacing: []) }
        try flush()
        done = true
        guard let target, let temporary else { return }
        if fsync(descriptor) != 0 || close(descriptor) != 0 || rename(temporary, target) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Diagnostic(.error, Location(file: displayPath), "cannot write: \(reason)")
        }
        Self.syncFolder(of: target)
    }

    /// Syncs the folder `path` is in, so that the rename that put it there survives a crash
    /// of the machine too (a failure to is no failure to write: the file is whole). For a
    /// writer whose renames are its own protocol (a vdir diary's import), after them.
    package static func syncFolder(of path: String) {
        let folder = open(
            URL(fileURLWithPath: path).deletingLastPathComponent().path,
            O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }

    /// Writes `bytes` to `path` whole or not at all, as every output is written: a temporary
    /// file beside it (`.NAME.taskcal-XXXXXX`, with `mode`), synced, renamed over it, the
    /// folder synced. The one way taskcal writes a file of its own (a state, a list).
    package static func writeWhole(_ bytes: [UInt8], to path: String, mode: mode_t? = nil)
        throws(Diagnostic)
    {
        let file = try OutputFile(path: path, mode: mode)
        do {
            try file.write(bytes: bytes)
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
    }

    /// Removes the temporary file (a direct output: writes nothing); the target is untouched.
    package func abandon() {
        guard !done else { return }
        done = true
        buffer.removeAll()
        if let direct, ownsDescriptor { close(direct) }
        if descriptor >= 0 { close(descriptor) }
        if let temporary { unlink(temporary) }
    }
}
