import Foundation
import SystemCrypto
import TaskConversion
import TaskModel

/// The key that seals a diary's protected entries: 256 bits for AES-GCM, never written
/// anywhere but the place the diary's ``DiaryProtection`` names (the Secret Service, a key
/// file of mode 0600) or derived from a passphrase with scrypt (RFC 7914).
///
/// Its ``id`` (a digest of the key, not the key) is what the diary and every sealed text
/// record, so a key that is not the diary's is told apart from damage.
public struct DiaryKey: Sendable {
    let key: SecretBytes
    /// 16 hex digits that name the key without revealing it.
    public let id: String

    init(_ key: SecretBytes) {
        self.key = key
        let digest = key.withUnsafeBytes { bytes in
            sha256(Array("taskcal diary key:".utf8) + Array(bytes))
        }
        id = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random key.
    public static func generate() throws(DiaryError) -> DiaryKey {
        do {
            return DiaryKey(try SecretBytes.random(count: 32))
        } catch {
            throw .storage("no key can be made: \(error)")
        }
    }

    /// The key a passphrase gives with the diary's scrypt parameters.
    public static func derive(passphrase: [UInt8], _ parameters: DiaryProtection.Scrypt)
        throws(DiaryError) -> DiaryKey
    {
        guard let salt = Data(base64Encoded: parameters.salt) else {
            throw .storage("the diary's passphrase salt is damaged")
        }
        do {
            return DiaryKey(
                try scrypt(
                    passphrase: passphrase, salt: Array(salt), n: parameters.n, r: parameters.r,
                    p: parameters.p, count: 32))
        } catch {
            throw .storage("the key cannot be derived from the passphrase: \(error)")
        }
    }

    // MARK: - Key files

    /// What a key file holds: one line, `taskcal-key-v1:` and the key in base64.
    var fileText: String {
        key.withUnsafeBytes { "\(Self.filePrefix)\(Data($0).base64EncodedString())\n" }
    }

    static let filePrefix = "taskcal-key-v1:"

    /// The key a key file holds.
    ///
    /// - Throws: ``DiaryError/locked(_:)`` for a file that holds no key, and for one that
    ///   others may read (the key would not be the owner's alone).
    public static func read(file path: String) throws(DiaryError) -> DiaryKey {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .locked(
                "the key file \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw .locked(
                "the key file \(path) may be read by others (mode \(String(status.st_mode & 0o777, radix: 8))); make it private with chmod 600 \(path)"
            )
        }
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(
                in: .whitespacesAndNewlines),
            text.hasPrefix(filePrefix),
            let bytes = Data(base64Encoded: String(text.dropFirst(filePrefix.count))),
            bytes.count == 32
        else {
            throw .locked(
                "\(path) is not a taskcal key file (one line: \(filePrefix) and 32 bytes in base64, as diary key export writes it)"
            )
        }
        return DiaryKey(SecretBytes(Array(bytes)))
    }

    /// Writes the key to a new file at `path` (mode 0600; a missing folder is made, 0700),
    /// refusing to replace a file.
    public func write(file path: String) throws(DiaryError) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason =
                errno == EEXIST
                ? "it exists; taskcal never replaces a key file (move it away first)"
                : String(cString: strerror(errno))
            throw .storage("cannot write the key file \(path): \(reason)")
        }
        fchmod(descriptor, 0o600)
        let bytes = Array(fileText.utf8)
        let written = bytes.withUnsafeBytes {
            Foundation.write(descriptor, $0.baseAddress, $0.count)
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            unlink(path)
            throw .storage("cannot write the key file \(path): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Sealing

    /// Seals `record` (a protected one): its shell with the whole record encrypted in it.
    public func seal(_ record: TaskRecord) throws(DiaryError) -> TaskRecord {
        var whole = record
        whole.icalExtra.removeAll { $0.hasPrefix(TaskRecord.sealedProperty + ":") }
        let plain = Array(whole.jsonLine.utf8)
        do {
            let combined = try AESGCM.seal(
                plain, key: key, authenticating: Array(associated.utf8))
            return TaskRecord.sealed(
                record.protectedShell,
                text: "\(Self.version):\(id):\(Data(combined).base64EncodedString())")
        } catch {
            throw .storage("entry #\(record.id) cannot be sealed: \(error)")
        }
    }

    /// The record a sealed shell holds, brought up to date with its shell.
    ///
    /// - Throws: ``DiaryError/locked(_:)`` when the text was sealed with another key, or
    ///   when it fails authentication (changed or damaged): never a record made of garbage.
    public func unseal(_ shell: TaskRecord) throws(DiaryError) -> TaskRecord {
        guard let text = shell.sealedText else { return shell }
        let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == Self.version, let data = Data(base64Encoded: parts[2])
        else {
            throw .locked("entry #\(shell.id): its sealed text is damaged (not \(Self.version))")
        }
        guard parts[1] == id else {
            throw .locked(
                "entry #\(shell.id) was sealed with key \(parts[1]), not with this key (\(id))")
        }
        guard
            let plain = AESGCM.open(
                Array(data), key: key, authenticating: Array(associated.utf8))
        else {
            throw .locked(
                "entry #\(shell.id): its sealed text fails authentication (it was changed or damaged); nothing of it is shown"
            )
        }
        guard let opened = try? TaskJSON.decodeLine(Data(plain)).get() else {
            throw .locked("entry #\(shell.id): its sealed text holds no record")
        }
        return shell.unsealed(with: opened)
    }

    /// The first part of every sealed text: the format's version.
    static let version = "v1"

    /// What AES-GCM authenticates with every sealed text besides the text itself.
    private var associated: String { "taskcal-sealed-\(Self.version):\(id)" }
}
