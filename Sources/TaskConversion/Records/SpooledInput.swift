import Foundation

/// Standard input, or a pipe named by a path (`<(curl …)`, a FIFO), copied to a private
/// temporary file, removed when this goes: for a reader that reads its input more than once
/// (an .ics input is scanned for ``Revisions`` before it is read), with memory that stays
/// flat however large the input. (Read twice, a pipe gives its bytes to the first reading
/// only: the second found no calendar.)
final class SpooledInput {
    /// Where the copy is.
    let path: String

    /// Whether `path` names something that can be read only once: standard input, or a
    /// path that is not a regular file (a pipe, a FIFO, a character device).
    static func isReadOnce(_ path: String) -> Bool {
        guard path != "-" else { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }  // the reader reports it
        return info.st_mode & S_IFMT != S_IFREG
    }

    /// Copies `source` (`-`: standard input) to the end.
    ///
    /// - Throws: a ``Diagnostic`` naming `source` when it cannot be copied (no room in the
    ///   temporary folder, a read error).
    init(copying source: String = "-") throws(Diagnostic) {
        let input = source == "-" ? STDIN_FILENO : open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw Self.failure("cannot open: \(String(cString: strerror(errno)))", source: source)
        }
        defer { if input != STDIN_FILENO { close(input) } }
        var template = Array(
            (FileManager.default.temporaryDirectory.path + "/taskcal-stdin-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Self.failure(
                "cannot make a temporary copy of it: \(String(cString: strerror(errno)))",
                source: source)
        }
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                read(input, $0.baseAddress, $0.count)
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Self.failure("cannot read it: \(reason)", source: source)
            }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes {
                    write(descriptor, $0.baseAddress! + written, count - written)
                }
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else {
                    let reason = String(cString: strerror(errno))
                    unlink(path)
                    throw Self.failure(
                        "cannot make a temporary copy of it: \(reason)", source: source)
                }
                written += step
            }
        }
    }

    deinit { unlink(path) }

    private static func failure(_ message: String, source: String) -> Diagnostic {
        Diagnostic(.error, Location(file: source), message, code: .io)
    }
}
