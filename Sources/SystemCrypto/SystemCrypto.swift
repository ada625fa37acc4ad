import COpenSSL

// The few cryptographic operations taskcal needs, from the system's OpenSSL (libcrypto):
// what the diary's private entries are sealed with (AES-256-GCM, a key from scrypt) and the
// digests the CalDAV sync compares. `package`: for taskcal's own modules, not an API.

/// Why an operation of OpenSSL's failed.
package struct CryptoFailure: Error, CustomStringConvertible, Sendable {
    package let description: String

    init(_ operation: String) {
        let reason = copenssl_last_error().map { String(cString: $0) }
        description = "\(operation) failed" + (reason.map { " (OpenSSL: \($0))" } ?? "")
    }
}

/// Bytes that are a secret: zeroed when the last reference goes, as swift-crypto's
/// `SymmetricKey` did, so a key does not linger in freed memory.
package final class SecretBytes: Sendable {
    /// The bytes; read through ``withUnsafeBytes(_:)``.
    private nonisolated(unsafe) let storage: UnsafeMutableBufferPointer<UInt8>

    package init(_ bytes: [UInt8]) {
        storage = .allocate(capacity: max(bytes.count, 1))
        _ = storage.initialize(from: bytes)
        count = bytes.count
    }

    /// How many bytes.
    package let count: Int

    /// `count` random bytes.
    package static func random(count: Int) throws(CryptoFailure) -> SecretBytes {
        SecretBytes(try randomBytes(count))
    }

    package func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result)
        rethrows -> Result
    {
        try body(UnsafeBufferPointer(rebasing: storage[0..<count]))
    }

    deinit {
        // memset_explicit is C23; a volatile-free loop the optimizer may not remove: the
        // buffer is freed right after, through a call it cannot see into.
        for index in storage.indices { storage[index] = 0 }
        storage.deallocate()
    }
}

/// `count` bytes from OpenSSL's random generator (seeded by the kernel).
package func randomBytes(_ count: Int) throws(CryptoFailure) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count == 0 || copenssl_random(&bytes, count) == 1 else {
        throw CryptoFailure("random bytes")
    }
    return bytes
}

/// SHA-256 (FIPS 180-4) of `bytes`: 32 bytes.
package func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    let done = bytes.withUnsafeBufferPointer { copenssl_sha256($0.baseAddress, $0.count, &digest) }
    // With memory to hash and to write to, SHA-256 cannot fail but for a broken libcrypto.
    precondition(done == 1, "\(CryptoFailure("SHA-256"))")
    return digest
}

/// AES-256-GCM with 12-byte nonces and 16-byte tags (NIST SP 800-38D), in the layout
/// swift-crypto's `AES.GCM.SealedBox.combined` has: nonce, sealed text, tag.
package enum AESGCM {
    package static let nonceCount = 12
    package static let tagCount = 16

    /// `plain` sealed with `key` (32 bytes) under a fresh random nonce (or `nonce`, for tests),
    /// authenticating `associated` too: nonce + sealed text + tag.
    package static func seal(
        _ plain: [UInt8], key: SecretBytes, authenticating associated: [UInt8],
        nonce: [UInt8]? = nil
    ) throws(CryptoFailure) -> [UInt8] {
        precondition(key.count == 32, "AES-256 takes a 32-byte key")
        var nonce = nonce ?? []
        if nonce.isEmpty { nonce = try randomBytes(nonceCount) }
        precondition(nonce.count == nonceCount)
        var sealed = [UInt8](repeating: 0, count: plain.count + 1)
        var tag = [UInt8](repeating: 0, count: tagCount)
        let done = key.withUnsafeBytes { key in
            associated.withUnsafeBufferPointer { associated in
                plain.withUnsafeBufferPointer { plain in
                    copenssl_aes256gcm_seal(
                        key.baseAddress, nonce, associated.baseAddress, associated.count,
                        plain.baseAddress, plain.count, &sealed, &tag)
                }
            }
        }
        guard done == 1 else { throw CryptoFailure("AES-GCM sealing") }
        return nonce + sealed.dropLast() + tag
    }

    /// The text `combined` (nonce + sealed text + tag, as ``seal(_:key:authenticating:nonce:)``
    /// makes it) holds, or `nil` when it fails authentication: a wrong key, or changed bytes.
    package static func open(
        _ combined: [UInt8], key: SecretBytes, authenticating associated: [UInt8]
    ) -> [UInt8]? {
        precondition(key.count == 32, "AES-256 takes a 32-byte key")
        guard combined.count >= nonceCount + tagCount else { return nil }
        let nonce = Array(combined.prefix(nonceCount))
        let sealed = Array(combined.dropFirst(nonceCount).dropLast(tagCount))
        let tag = Array(combined.suffix(tagCount))
        var plain = [UInt8](repeating: 0, count: sealed.count + 1)
        let done = key.withUnsafeBytes { key in
            associated.withUnsafeBufferPointer { associated in
                sealed.withUnsafeBufferPointer { sealed in
                    copenssl_aes256gcm_open(
                        key.baseAddress, nonce, associated.baseAddress, associated.count,
                        sealed.baseAddress, sealed.count, tag, &plain)
                }
            }
        }
        _ = copenssl_last_error()
        return done == 1 ? Array(plain.dropLast()) : nil
    }
}

/// scrypt (RFC 7914): a key of `count` bytes from a passphrase and a salt.
///
/// - Parameters:
///   - n: the cost, a power of two above 1; `r` the block size, `p` the parallelism.
/// - Throws: ``CryptoFailure`` for parameters scrypt refuses (N not a power of two, too much
///   memory: 128 × r × (N + p) bytes must stay under 2 GiB).
package func scrypt(
    passphrase: [UInt8], salt: [UInt8], n: Int, r: Int, p: Int, count: Int
) throws(CryptoFailure) -> SecretBytes {
    guard n > 1, r > 0, p > 0, count > 0 else { throw CryptoFailure("scrypt (bad parameters)") }
    var key = [UInt8](repeating: 0, count: count)
    defer { for index in key.indices { key[index] = 0 } }
    let maxMemory: UInt64 = 2 << 30
    // An empty passphrase or salt has no address; OpenSSL reads NULL as empty.
    let done = passphrase.withUnsafeBufferPointer { passphrase in
        salt.withUnsafeBufferPointer { salt in
            copenssl_scrypt(
                passphrase.baseAddress, passphrase.count, salt.baseAddress, salt.count, UInt64(n),
                UInt64(r), UInt64(p), maxMemory, &key, count)
        }
    }
    guard done == 1 else { throw CryptoFailure("scrypt") }
    return SecretBytes(key)
}
