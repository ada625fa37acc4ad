import Foundation

/// Standard input copied to a private temporary file, removed when this goes: for a reader
/// that reads its input twice (an .ics input is scanned for ``Revisions`` before it is read),
/// with memory that stays flat however large the input.
final class SpooledInput {
    /// Where the copy is.
    let path: String

    /// Copies standard input to the end.
    ///
    /// - Throws: a ``Diagnostic`` naming standard input when it cannot be copied (no room
    ///   in the temporary folder, a read error).
    init() throws(Diagnostic) {
        var template = Array(
            (FileManager.default.temporaryDirectory.path + "/taskcal-stdin-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Self.failure(
                "cannot make a temporary copy of it: \(String(cString: strerror(errno)))")
        }
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                read(STDIN_FILENO, $0.baseAddress, $0.count)
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Self.failure("cannot read it: \(reason)")
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
                    throw Self.failure("cannot make a temporary copy of it: \(reason)")
                }
                written += step
            }
        }
    }

    deinit { unlink(path) }

    private static func failure(_ message: String) -> Diagnostic {
        Diagnostic(.error, Location(file: "-"), message, code: .io)
    }
}
