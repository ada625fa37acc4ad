import Foundation
import SystemCrypto
import TaskModel

/// How a diary's protected entries are sealed: which key (by id), and where it is kept.
/// Stored in the diary itself (``DiaryStore/setting(_:)`` `protection`) as JSON; it names the
/// key, never holds it.
public struct DiaryProtection: Codable, Sendable, Equatable {
    /// Where the key is kept.
    public enum Keeper: String, Codable, Sendable, CaseIterable {
        /// The Secret Service (the desktop's keyring: GNOME Keyring, KWallet), through
        /// `secret-tool`, under the attributes `application taskcal key-id ID`.
        case secretService = "secret-service"
        /// A key file (mode 0600) that `TASKCAL_KEY_FILE` names.
        case keyFile = "key-file"
        /// Derived from a passphrase with scrypt; nothing is kept but the salt.
        case passphrase
    }

    /// scrypt's parameters (RFC 7914) for a passphrase.
    public struct Scrypt: Codable, Sendable, Equatable {
        /// 16 random bytes, base64.
        public var salt: String
        /// The cost (a power of two), the block size and the parallelism.
        public var n: Int
        public var r: Int
        public var p: Int

        /// New parameters with a fresh salt: N = 2^17, r = 8, p = 1 (OWASP's recommendation
        /// for scrypt; about 128 MB and a quarter of a second here).
        public static func fresh() -> Scrypt {
            var salt = [UInt8](repeating: 0, count: 16)
            var generator = SystemRandomNumberGenerator()
            for index in salt.indices { salt[index] = generator.next() }
            return Scrypt(salt: Data(salt).base64EncodedString(), n: 1 << 17, r: 8, p: 1)
        }
    }

    /// The id of the key (``DiaryKey/id``).
    public var keyID: String
    public var keptIn: Keeper
    /// For a passphrase: how it becomes the key.
    public var scrypt: Scrypt?

    enum CodingKeys: String, CodingKey {
        case keyID = "key_id"
        case keptIn = "kept_in"
        case scrypt
    }

    public init(keyID: String, keptIn: Keeper, scrypt: Scrypt? = nil) {
        self.keyID = keyID
        self.keptIn = keptIn
        self.scrypt = scrypt
    }

    /// The name of the diary's setting that holds it.
    public static let setting = "protection"

    /// The diary's protection, `nil` when it has no key yet.
    public static func of(_ store: any DiaryStore) throws(DiaryError) -> DiaryProtection? {
        guard let text = try store.setting(setting) else { return nil }
        guard let protection = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else {
            throw .storage("the diary's protection setting is damaged: \(text)")
        }
        return protection
    }

    /// The setting's value.
    public var settingValue: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Where the key is, said for people.
    public var place: String {
        switch keptIn {
        case .secretService: "the Secret Service (application taskcal, key-id \(keyID))"
        case .keyFile: "a key file (TASKCAL_KEY_FILE)"
        case .passphrase: "a passphrase (scrypt)"
        }
    }
}

/// Finds and keeps diary keys: the Secret Service through `secret-tool`, key files, and
/// passphrases. Keys and passphrases go through pipes and files, never through arguments,
/// and no message says them.
public struct Keyring: Sendable {
    /// The environment: `TASKCAL_KEY_FILE`, `TASKCAL_PASSPHRASE_FILE`,
    /// `DBUS_SESSION_BUS_ADDRESS`, `PATH`.
    public var environment: [String: String]
    /// Asks for a passphrase (on the terminal, not echoed); `nil` when nobody can be asked.
    public var askPassphrase: @Sendable (_ prompt: String) -> [UInt8]?
    /// How long `secret-tool` may take (it may be waiting for its unlock prompt).
    public var secretServiceTimeout: TimeInterval = 120

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        askPassphrase: @escaping @Sendable (String) -> [UInt8]? = { _ in nil }
    ) {
        self.environment = environment
        self.askPassphrase = askPassphrase
    }

    /// The key file `TASKCAL_KEY_FILE` names, if any.
    public var keyFile: String? {
        environment["TASKCAL_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The key of a diary with `protection`.
    ///
    /// `TASKCAL_KEY_FILE`, when set, is tried first whatever keeps the key (it is how a copy
    /// from `diary key export` is used); then the keeper the diary names.
    ///
    /// - Throws: ``DiaryError/locked(_:)`` saying what is missing and what to do: a key
    ///   that is nowhere is said to be lost.
    public func unlock(_ protection: DiaryProtection) throws(DiaryError) -> DiaryKey {
        if let keyFile {
            let key = try DiaryKey.read(file: keyFile)
            guard key.id == protection.keyID else {
                throw .locked(
                    "the key in \(keyFile) (TASKCAL_KEY_FILE) is key \(key.id), not this diary's key \(protection.keyID)"
                )
            }
            Self.keepOutOfCoreFiles()
            return key
        }
        let key: DiaryKey
        switch protection.keptIn {
        case .keyFile:
            throw .locked(
                "this diary's key \(protection.keyID) is kept in a key file: set TASKCAL_KEY_FILE to its path"
            )
        case .secretService:
            let found = try secretTool(
                ["lookup", "application", "taskcal", "key-id", protection.keyID], input: nil)
            guard found.status == 0, !found.output.isEmpty else {
                if found.status == 1 && found.error.isEmpty {
                    throw .locked(
                        "this diary's key \(protection.keyID) is not in the Secret Service: it is lost, unless you kept a copy (taskcal diary key export); with a copy, set TASKCAL_KEY_FILE to it. Without the key the protected entries' texts cannot be read; their times still count"
                    )
                }
                throw .locked(
                    "this diary's key is kept in the Secret Service, which cannot be reached here (secret-tool: \(found.error.isEmpty ? "exit \(found.status)" : found.error)); set TASKCAL_KEY_FILE to a copy made by taskcal diary key export"
                )
            }
            key = try Self.key(fromKeptText: found.output, place: "the Secret Service")
        case .passphrase:
            guard let scrypt = protection.scrypt else {
                throw .storage("the diary's protection names a passphrase but no scrypt salt")
            }
            let passphrase = try passphrase(prompt: "Passphrase of the diary: ")
            key = try DiaryKey.derive(passphrase: passphrase, scrypt)
            guard key.id == protection.keyID else {
                throw .locked("wrong passphrase: the key it gives is not this diary's key")
            }
        }
        guard key.id == protection.keyID else {
            throw .locked(
                "the key found in \(protection.place) is key \(key.id), not this diary's key \(protection.keyID)"
            )
        }
        Self.keepOutOfCoreFiles()
        return key
    }

    /// Keeps a new `key` where `keeper` says: stores it in the Secret Service or writes the
    /// key file (`file`, default ``keyFile``); a passphrase keeps nothing. Returns the
    /// diary's protection.
    public func keep(
        _ key: DiaryKey, in keeper: DiaryProtection.Keeper,
        scrypt: DiaryProtection.Scrypt? = nil, file: String? = nil
    ) throws(DiaryError) -> DiaryProtection {
        switch keeper {
        case .secretService:
            let stored = try secretTool(
                [
                    "store", "--label", "taskcal diary key \(key.id)", "application", "taskcal",
                    "key-id", key.id,
                ], input: Array(key.fileText.utf8))
            guard stored.status == 0 else {
                throw .locked(
                    "the Secret Service did not keep the key (secret-tool: \(stored.error.isEmpty ? "exit \(stored.status)" : stored.error))"
                )
            }
        case .keyFile:
            guard let path = file ?? keyFile else {
                throw .locked("TASKCAL_KEY_FILE names no file to keep the key in")
            }
            try key.write(file: path)
        case .passphrase: break
        }
        return DiaryProtection(keyID: key.id, keptIn: keeper, scrypt: scrypt)
    }

    /// Removes a key the Secret Service keeps (after a rotation); nothing for the others.
    public func forget(_ protection: DiaryProtection) {
        guard protection.keptIn == .secretService else { return }
        _ = try? secretTool(
            ["clear", "application", "taskcal", "key-id", protection.keyID], input: nil)
    }

    /// Whether a Secret Service may be reached: `secret-tool` is installed and a session bus
    /// is named (a desktop session, or `dbus-run-session`).
    public var secretServiceReachable: Bool {
        guard environment["DBUS_SESSION_BUS_ADDRESS"].map({ !$0.isEmpty }) == true else {
            return false
        }
        return Self.find("secret-tool", in: environment["PATH"]) != nil
    }

    /// A passphrase: the first line of `TASKCAL_PASSPHRASE_FILE`, else asked for.
    public func passphrase(prompt: String) throws(DiaryError) -> [UInt8] {
        if let file = environment["TASKCAL_PASSPHRASE_FILE"], !file.isEmpty {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .locked(
                    "the passphrase file \(file) (TASKCAL_PASSPHRASE_FILE) cannot be read")
            }
            let line = data.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
            guard !line.isEmpty else {
                throw .locked("the passphrase file \(file) (TASKCAL_PASSPHRASE_FILE) is empty")
            }
            return Array(line)
        }
        guard let asked = askPassphrase(prompt), !asked.isEmpty else {
            throw .locked(
                "the diary's key comes from a passphrase, and none can be asked for here (no terminal); set TASKCAL_PASSPHRASE_FILE to a file that holds it"
            )
        }
        return asked
    }

    // MARK: - Internals

    private static func key(fromKeptText text: String, place: String) throws(DiaryError)
        -> DiaryKey
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(DiaryKey.filePrefix),
            let bytes = Data(base64Encoded: String(trimmed.dropFirst(DiaryKey.filePrefix.count))),
            bytes.count == 32
        else { throw .locked("what \(place) holds for this diary is not a taskcal key") }
        return DiaryKey(SecretBytes(Array(bytes)))
    }

    /// No core file of this process from now on: it holds a key.
    static func keepOutOfCoreFiles() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
    }

    private static func find(_ program: String, in path: String?) -> String? {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `secret-tool` with `arguments` (attributes and labels, never a secret), writing
    /// `input` to it; its exit status, standard output and (trimmed) standard error.
    private func secretTool(_ arguments: [String], input: [UInt8]?) throws(DiaryError) -> (
        status: Int32, output: String, error: String
    ) {
        guard let tool = Self.find("secret-tool", in: environment["PATH"]) else {
            return (127, "", "secret-tool is not installed (apt-get install libsecret-tools)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            return (126, "", "cannot run \(tool): \(error.localizedDescription)")
        }
        // Read both pipes to their ends on other threads, so a full pipe never blocks it.
        let outputs = OutputCollector(stdout, stderr)
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try? stdin.fileHandleForWriting.close()
        if finished.wait(timeout: .now() + secretServiceTimeout) == .timedOut {
            process.terminate()
            throw .locked(
                "the Secret Service did not answer within \(Int(secretServiceTimeout)) s (is its unlock prompt waiting?)"
            )
        }
        let (output, error) = outputs.wait()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self),
            String(decoding: error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
}

/// Reads two pipes to their ends on their own threads.
private final class OutputCollector: @unchecked Sendable {
    private let group = DispatchGroup()
    private var output = Data()
    private var error = Data()

    init(_ stdout: Pipe, _ stderr: Pipe) {
        DispatchQueue.global().async(group: group) {
            self.output = stdout.fileHandleForReading.readDataToEndOfFile()
        }
        DispatchQueue.global().async(group: group) {
            self.error = stderr.fileHandleForReading.readDataToEndOfFile()
        }
    }

    func wait() -> (Data, Data) {
        group.wait()
        return (output, error)
    }
}
