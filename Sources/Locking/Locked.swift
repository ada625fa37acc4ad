import Foundation

/// A value that threads share, reached only under a lock.
///
/// The standard library's `Mutex` would do as well, except under ThreadSanitizer: on Linux a
/// contended `Mutex` passes from one thread to the next inside the kernel (`FUTEX_LOCK_PI`),
/// where the sanitizer cannot see it, so the sanitized tests reported races that were not
/// there whenever two workers finished together. `NSLock` is a `pthread_mutex_t`, which the
/// sanitizer follows; uncontended, it costs about what `Mutex` does.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread reaching it meanwhile.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
