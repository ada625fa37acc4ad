import Foundation
import SystemCrypto
import Testing

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

private func hex(_ secret: SecretBytes) -> String { secret.withUnsafeBytes { hex(Array($0)) } }

/// The system OpenSSL's answers, against published vectors and against what swift-crypto
/// (the library private entries were sealed with before) gave for the same input: a diary
/// sealed by either reads with the other.
@Suite("SystemCrypto: OpenSSL's SHA-256, AES-256-GCM and scrypt, as before")
struct SystemCryptoTests {
    @Test("SHA-256 of FIPS 180-2's examples")
    func digest() {
        #expect(
            hex(sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("scrypt gives RFC 7914's test vectors, and the diary's parameters what swift-crypto gave")
    func scryptVectors() throws {
        #expect(
            hex(try scrypt(passphrase: [], salt: [], n: 16, r: 1, p: 1, count: 64))
                == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
        )
        #expect(
            hex(
                try scrypt(
                    passphrase: Array("password".utf8), salt: Array("NaCl".utf8), n: 1024, r: 8,
                    p: 16, count: 64))
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
        // N = 2^17, r = 8 (128 MiB, above OpenSSL's default limit): swift-crypto's answer.
        #expect(
            hex(
                try scrypt(
                    passphrase: Array("pw".utf8), salt: Array("salt".utf8), n: 1 << 17, r: 8,
                    p: 1, count: 32))
                == "8e489c9f6e3d1d1fe6d0a5674e5c2010136e67d418b2d707fa7c696c2cb21976")
        #expect(throws: CryptoFailure.self) {
            try scrypt(passphrase: [1], salt: [2], n: 1000, r: 8, p: 1, count: 32)
        }
    }

    @Test("AES-256-GCM seals as swift-crypto's combined box did, and opens only what it sealed")
    func sealing() throws {
        let key = SecretBytes([UInt8](repeating: 7, count: 32))
        let sealed = try AESGCM.seal(
            Array("hello".utf8), key: key, authenticating: Array("aad".utf8),
            nonce: [UInt8](repeating: 1, count: 12))
        #expect(
            Data(sealed).base64EncodedString() == "AQEBAQEBAQEBAQEBHoTl2/87cia0S2HgFdVnULhGNJlu")
        #expect(
            AESGCM.open(sealed, key: key, authenticating: Array("aad".utf8)) == Array("hello".utf8))
        #expect(AESGCM.open(sealed, key: key, authenticating: Array("other".utf8)) == nil)
        let otherKey = SecretBytes([UInt8](repeating: 8, count: 32))
        #expect(AESGCM.open(sealed, key: otherKey, authenticating: Array("aad".utf8)) == nil)
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x20
            #expect(AESGCM.open(changed, key: key, authenticating: Array("aad".utf8)) == nil)
        }
        #expect(AESGCM.open(Array(sealed.prefix(27)), key: key, authenticating: []) == nil)
        let empty = try AESGCM.seal([], key: key, authenticating: [])
        #expect(empty.count == 28)
        #expect(AESGCM.open(empty, key: key, authenticating: []) == [])
        let fresh = try AESGCM.seal(Array("hello".utf8), key: key, authenticating: [])
        let again = try AESGCM.seal(Array("hello".utf8), key: key, authenticating: [])
        #expect(fresh.prefix(12) != again.prefix(12), "every seal takes a fresh nonce")
    }

    @Test("random bytes differ from call to call")
    func random() throws {
        let first = try randomBytes(32)
        let second = try randomBytes(32)
        #expect(first.count == 32 && first != second)
        #expect(try randomBytes(0) == [])
    }
}
