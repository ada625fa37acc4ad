import CLibical
import Glibc

/// Process-wide libical set-up, run once before the first call into libical.
///
/// - Errors must never abort: some distributions build libical with `ICAL_ERRORS_ARE_FATAL`,
///   which turns a malformed line into `assert()`. Debian does not, but we do not rely on it.
/// - The UTC zone and the built-in zone table are initialised lazily and without locks
///   (helgrind flags the first calls); touching them here, on one thread, makes later
///   concurrent use read-only.
enum Libical {
    /// Runs the set-up; cheap after the first call (a `static let` is initialised once).
    static func ensureReady() {
        _ = ready
    }

    private static let ready: Bool = {
        icalerror_set_errors_are_fatal(0)
        _ = icaltimezone_get_utc_timezone()
        _ = icaltimezone_get_builtin_timezone("UTC")
        return true
    }()

    /// Copies a caller-owned C string (from a `*_r` function) into Swift and frees it.
    static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { icalmemory_free_buffer(pointer) }
        return String(
            decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)),
            as: UTF8.self)
    }

    /// Copies a borrowed C string (valid while its owner lives) into Swift.
    static func copyString(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
