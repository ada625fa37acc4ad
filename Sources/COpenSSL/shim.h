#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

// The system's OpenSSL 3 (libcrypto; apt: libssl-dev, at run time libssl3, which every Debian
// machine has): SHA-256, AES-256-GCM, scrypt and random bytes for the diary's private entries
// and the CalDAV sync's digests. Through the system library rather than swift-crypto, whose
// Linux build compiles BoringSSL: the lean build (issue 37) compiles no TLS or crypto library.
//
// Each helper below does one whole operation in C, so Swift never holds an EVP context and
// never sees OpenSSL's macros.

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stddef.h>
#include <stdint.h>

/// SHA-256 of `count` bytes into `digest` (32 bytes). 1 on success.
static inline int copenssl_sha256(const uint8_t *bytes, size_t count, uint8_t *digest) {
    unsigned int length = 0;
    return EVP_Digest(bytes, count, digest, &length, EVP_sha256(), NULL) == 1 && length == 32;
}

/// `count` bytes from OpenSSL's CSPRNG. 1 on success.
static inline int copenssl_random(uint8_t *bytes, size_t count) {
    return count <= INT32_MAX && RAND_bytes(bytes, (int)count) == 1;
}

/// AES-256-GCM with a 12-byte nonce and a 16-byte tag: `plain` (`count` bytes) sealed into
/// `sealed` (`count` bytes) and `tag`, authenticating `aad` too. 1 on success.
static inline int copenssl_aes256gcm_seal(
    const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aadCount,
    const uint8_t *plain, size_t count, uint8_t *sealed, uint8_t *tag) {
    if (count > INT32_MAX || aadCount > INT32_MAX) return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int length = 0, done = 0;
    int ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), NULL, key, nonce) == 1
        && (aadCount == 0
            || EVP_EncryptUpdate(context, NULL, &length, aad, (int)aadCount) == 1)
        && (count == 0 || EVP_EncryptUpdate(context, sealed, &length, plain, (int)count) == 1)
        && EVP_EncryptFinal_ex(context, sealed + length, &done) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

/// Opens what ``copenssl_aes256gcm_seal`` sealed: 1 when the tag proves `sealed` and `aad`
/// unchanged and `plain` holds the text; 0 otherwise (nothing in `plain` is to be used).
static inline int copenssl_aes256gcm_open(
    const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aadCount,
    const uint8_t *sealed, size_t count, const uint8_t *tag, uint8_t *plain) {
    if (count > INT32_MAX || aadCount > INT32_MAX) return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int length = 0, done = 0;
    int ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), NULL, key, nonce) == 1
        && (aadCount == 0
            || EVP_DecryptUpdate(context, NULL, &length, aad, (int)aadCount) == 1)
        && (count == 0 || EVP_DecryptUpdate(context, plain, &length, sealed, (int)count) == 1)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) == 1
        && EVP_DecryptFinal_ex(context, plain + length, &done) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

/// scrypt (RFC 7914) of a passphrase into `key` (`keyCount` bytes), allowed `maxMemory`
/// bytes (OpenSSL's default, 32 MB, is below N = 2^17, r = 8). 1 on success.
static inline int copenssl_scrypt(
    const uint8_t *passphrase, size_t passphraseCount, const uint8_t *salt, size_t saltCount,
    uint64_t n, uint64_t r, uint64_t p, uint64_t maxMemory, uint8_t *key, size_t keyCount) {
    return EVP_PBE_scrypt(
        (const char *)passphrase, passphraseCount, salt, saltCount, n, r, p, maxMemory, key,
        keyCount) == 1;
}

/// OpenSSL's reason for the last failure on this thread, or NULL; the queue is emptied.
static inline const char *copenssl_last_error(void) {
    unsigned long code = ERR_get_error();
    const char *reason = code == 0 ? NULL : ERR_reason_error_string(code);
    ERR_clear_error();
    return reason;
}

#endif
