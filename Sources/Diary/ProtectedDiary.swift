import Foundation
import Locking
import TaskConversion
import TaskModel

/// A diary whose protected entries are sealed at rest, over any ``DiaryStore``.
///
/// A private or confidential entry is stored as its shell (`TaskRecord.protectedShell`:
/// times, zone, repetition, status, alarms' timing) with everything else encrypted with the
/// diary's key (AES-GCM, ``DiaryKey``), so that the SQLite file, the vdir's files and the
/// server's rows never hold its text, while overlaps are still refused against it and its
/// alarms still ring, without the key.
///
/// Reads give the shells, named `TaskRecord.sealedName`, unless the diary is opened to
/// `reveal`: then each is opened with the key (asked for once), and a key that is not the
/// diary's or a text that fails authentication is an error, never garbage. Writing a
/// protected entry's text needs the key; a shell read without it may be changed in what it
/// shows (its times, status, done) and written back without the key.
public final class ProtectedDiary: DiaryStore {
    /// The diary underneath.
    public let base: any DiaryStore
    /// Where its key comes from.
    public let keyring: Keyring
    /// Whether reads open protected entries.
    public let reveal: Bool
    private let unlocked = Locked<DiaryKey?>(nil)
    private let known = Locked<DiaryProtection??>(nil)

    /// Protects `base`; with `reveal`, reads open protected entries with the key.
    public init(_ base: any DiaryStore, keyring: Keyring = Keyring(), reveal: Bool = false) {
        self.base = base
        self.keyring = keyring
        self.reveal = reveal
    }

    public var uidScheme: UIDScheme { base.uidScheme }

    /// The diary's key, unlocked once.
    ///
    /// - Throws: ``DiaryError/locked(_:)`` when the diary has no key yet, or it cannot be
    ///   found or is not the diary's.
    public func key() throws(DiaryError) -> DiaryKey {
        if let key = unlocked.withLock({ $0 }) { return key }
        guard let protection = try protection() else {
            throw .locked(
                "this diary has no key yet, and a private entry's text is kept only encrypted: run taskcal diary key init first (for entries sealed by another diary, with that diary's key: TASKCAL_KEY_FILE=COPY taskcal diary key init)"
            )
        }
        let key = try keyring.unlock(protection)
        unlocked.withLock { $0 = key }
        return key
    }

    /// The diary's protection (read once), `nil` while it has no key.
    public func protection() throws(DiaryError) -> DiaryProtection? {
        if let known = known.withLock({ $0 }) { return known }
        let protection = try DiaryProtection.of(base)
        known.withLock { $0 = .some(protection) }
        return protection
    }

    /// `record` as it is stored: a protected one sealed, a shell as it is when nothing but
    /// what a shell shows was changed, else opened and sealed again with the text given.
    ///
    /// A diary that has no key yet keeps a private record as it comes, in the clear (an
    /// export from a calendar app marks entries private; it is not refused for that), until
    /// `diary key init` seals it; the command line refuses `add --private` there instead.
    func stored(_ record: TaskRecord) throws(DiaryError) -> TaskRecord {
        if record.isSealed {
            if record.isProtected && record.isBareShell { return record }
            let key = try key()
            let whole = record.clearEdits(over: try key.unseal(record))
            return record.isProtected ? try key.seal(whole) : whole
        }
        guard record.isProtected, try protection() != nil else { return record }
        return try key().seal(record)
    }

    /// `record` as reads give it: opened when revealing.
    func shown(_ record: TaskRecord) throws(DiaryError) -> TaskRecord {
        guard reveal, record.isSealed else { return record }
        return try key().unseal(record)
    }

    /// A refusal with the entries it names opened when revealing (the key is asked for only
    /// if it already was).
    private func shown(_ error: DiaryError) -> DiaryError {
        guard reveal, case .conflict(let mine, let others) = error,
            let key = unlocked.withLock({ $0 })
        else { return error }
        func open(_ record: TaskRecord) -> TaskRecord { (try? key.unseal(record)) ?? record }
        return .conflict(open(mine), with: others.map(open))
    }

    private func passing<T>(_ body: () throws(DiaryError) -> T) throws(DiaryError) -> T {
        do { return try body() } catch { throw shown(error) }
    }

    public func add(_ record: TaskRecord) throws(DiaryError) -> TaskRecord {
        let stored = try stored(record)
        let added = try passing { () throws(DiaryError) in try base.add(stored) }
        return try shown(added)
    }

    public func entry(_ id: Int64) throws(DiaryError) -> TaskRecord {
        try shown(try base.entry(id))
    }

    public func entries(from: Int64?, to: Int64?, search: String?) throws(DiaryError)
        -> [TaskRecord]
    {
        // A search looks into opened texts only when revealing; shells match nothing.
        let found = try base.entries(from: from, to: to, search: reveal ? nil : search)
        var result: [TaskRecord] = []
        result.reserveCapacity(found.count)
        for record in found {
            let shown = try shown(record)
            if reveal, let search, !Rules.matches(shown, search: search) { continue }
            result.append(shown)
        }
        return result
    }

    public func update(_ record: TaskRecord) throws(DiaryError) {
        let stored = try stored(record)
        try passing { () throws(DiaryError) in try base.update(stored) }
    }

    public func delete(_ id: Int64) throws(DiaryError) { try base.delete(id) }

    /// Imports `records`, sealing the private ones; a diary that has no key yet keeps them
    /// in the clear and says so (``ImportResult/notes``).
    public func importRecords(
        _ records: [IncomingRecord], skipConflicts: Bool, newIDs: Bool
    ) throws(DiaryError) -> ImportResult {
        var sealed: [IncomingRecord] = []
        sealed.reserveCapacity(records.count)
        for incoming in records {
            sealed.append(IncomingRecord(try stored(incoming.record), source: incoming.source))
        }
        var result = try passing { () throws(DiaryError) in
            try base.importRecords(sealed, skipConflicts: skipConflicts, newIDs: newIDs)
        }
        let clear = sealed.filter { $0.record.isProtected && !$0.record.isSealed }.count
        if clear > 0 {
            result.notes.append(
                "\(clear) private record\(clear == 1 ? " is" : "s are") kept in the clear: this diary has no key yet (taskcal diary key init makes one and seals them)"
            )
        }
        return result
    }

    public func replace(_ id: Int64, with records: [TaskRecord]) throws(DiaryError) {
        var sealed: [TaskRecord] = []
        for record in records { sealed.append(try stored(record)) }
        try passing { () throws(DiaryError) in try base.replace(id, with: sealed) }
    }

    public func check() throws(DiaryError) -> [String] { try base.check() }

    public func setting(_ name: String) throws(DiaryError) -> String? { try base.setting(name) }

    public func rewrite(_ records: [TaskRecord], settings: [String: String?]) throws(DiaryError) {
        try base.rewrite(records, settings: settings)
    }

    // MARK: - The key's life

    /// Gives the diary its first key, kept by `keeper` (for a passphrase, with `scrypt`),
    /// and seals every protected entry it already holds in the clear, in one write.
    ///
    /// - Throws: ``DiaryError/locked(_:)`` when the diary has a key already (see
    ///   ``rotate(to:passphrase:keyFile:)``), or the key cannot be kept.
    ///
    /// With `adopting`, the key is one that exists already (a copy from `diary key export`,
    /// the key of the diary this one syncs with): it is kept, not made, and the entries
    /// sealed with it open.
    public func initialize(
        keeper: DiaryProtection.Keeper, passphrase: [UInt8]? = nil, adopting: DiaryKey? = nil
    ) throws(DiaryError) -> DiaryProtection {
        if let existing = try protection() {
            throw .locked(
                "this diary has a key already (\(existing.keyID), in \(existing.place)); taskcal diary key rotate replaces it"
            )
        }
        var (key, scrypt): (DiaryKey, DiaryProtection.Scrypt?)
        if let adopting {
            (key, scrypt) = (adopting, nil)
        } else {
            (key, scrypt) = try Self.newKey(keeper, passphrase: passphrase)
        }
        let entries = try base.allEntries()
        if let foreign = entries.lazy.compactMap(\.sealedText).compactMap(Self.keyID).first(where: {
            $0 != key.id
        }) {
            throw .locked(
                "this diary holds private entries sealed with key \(foreign) (from another diary): give it that key (TASKCAL_KEY_FILE=COPY taskcal diary key init, with a copy made by diary key export)"
            )
        }
        let clear = entries.filter { $0.isProtected && !$0.isSealed }
        var sealed: [TaskRecord] = []
        for record in clear { sealed.append(try key.seal(record)) }
        let protection =
            adopting == nil
            ? try keyring.keep(key, in: keeper, scrypt: scrypt)
            : DiaryProtection(keyID: key.id, keptIn: keeper)
        do {
            try base.rewrite(sealed, settings: [DiaryProtection.setting: protection.settingValue])
        } catch {
            if adopting == nil { keyring.forget(protection) }
            throw error
        }
        unlocked.withLock { $0 = key }
        known.withLock { $0 = .some(protection) }
        return protection
    }

    /// Replaces the diary's key by a new one kept by `keeper` (a new key file at `keyFile`),
    /// sealing every protected entry again with it in one write; the old key (in the Secret
    /// Service) is removed after.
    public func rotate(
        to keeper: DiaryProtection.Keeper, passphrase: [UInt8]? = nil, keyFile: String? = nil
    ) throws(DiaryError) -> (old: DiaryProtection, new: DiaryProtection) {
        guard let old = try protection() else {
            throw .locked("this diary has no key yet; taskcal diary key init makes one")
        }
        let oldKey = try key()
        let (key, scrypt) = try Self.newKey(keeper, passphrase: passphrase)
        var resealed: [TaskRecord] = []
        for record in try base.allEntries() where record.isSealed || record.isProtected {
            resealed.append(try key.seal(try oldKey.unseal(record)))
        }
        let protection = try keyring.keep(key, in: keeper, scrypt: scrypt, file: keyFile)
        do {
            try base.rewrite(
                resealed, settings: [DiaryProtection.setting: protection.settingValue])
        } catch {
            keyring.forget(protection)
            if keeper == .keyFile, let keyFile { unlink(keyFile) }
            throw error
        }
        if old.keptIn == .secretService && old.keyID != protection.keyID { keyring.forget(old) }
        unlocked.withLock { $0 = key }
        known.withLock { $0 = .some(protection) }
        return (old, protection)
    }

    /// The key id a sealed text names.
    static func keyID(_ sealedText: String) -> String? {
        let parts = sealedText.split(separator: ":", maxSplits: 2)
        return parts.count == 3 ? String(parts[1]) : nil
    }

    private static func newKey(_ keeper: DiaryProtection.Keeper, passphrase: [UInt8]?)
        throws(DiaryError) -> (DiaryKey, DiaryProtection.Scrypt?)
    {
        guard keeper == .passphrase else { return (try DiaryKey.generate(), nil) }
        guard let passphrase, !passphrase.isEmpty else {
            throw .locked("a passphrase is needed to make the key")
        }
        let scrypt = DiaryProtection.Scrypt.fresh()
        return (try DiaryKey.derive(passphrase: passphrase, scrypt), scrypt)
    }
}
