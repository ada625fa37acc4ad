import ArgumentParser
import Diary
import Foundation
import Localization

extension DiaryCommand {
    /// `taskcal diary key`: the key that seals private entries.
    struct KeyCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: tr("Make, replace or back up the key that keeps private entries' texts."),
            discussion: tr(
                """
                A private entry (diary add --private, "private": true, CLASS:CONFIDENTIAL) is \
                stored with its time in the clear and its text (name, description, place, \
                attachments, alarm texts …) encrypted with the diary's key (AES-256-GCM), in every \
                backend. Overlaps are still refused against it, and its alarms still ring, without \
                the key; --reveal shows its text.

                Where the key is kept (init chooses, in this order):
                  TASKCAL_KEY_FILE=PATH  a key file, mode 0600, that init creates (or,
                                         when it exists, a copy of a key to use: the
                                         key of the diary this one syncs with)
                  the Secret Service     the desktop's keyring, through secret-tool
                                         (GNOME Keyring, KWallet), when one is running
                  --passphrase           nothing is kept: the key is derived from a
                                         passphrase with scrypt (asked on the terminal,
                                         or the first line of TASKCAL_PASSPHRASE_FILE)
                TASKCAL_KEY_FILE, when set, is also tried first whenever the key is needed: it is \
                how a copy from diary key export is used (on another machine, by a colleague \
                sharing the diary, after the keyring is lost). A key that is nowhere is lost, and \
                taskcal says so: keep a copy.

                Examples:
                  taskcal diary key init
                  TASKCAL_KEY_FILE=~/.config/taskcal/diary.key taskcal diary key init
                  taskcal diary key init --passphrase
                  taskcal diary key export -o /media/usb/diary.key
                  taskcal diary key rotate
                  taskcal diary key status
                """),
            subcommands: [Initialize.self, Rotate.self, Export.self, Status.self])

        /// Where a new key goes: --passphrase, else TASKCAL_KEY_FILE, else the Secret Service.
        static func keeper(passphrase: Bool, keyring: Keyring) throws -> DiaryProtection.Keeper {
            if passphrase { return .passphrase }
            if keyring.keyFile != nil { return .keyFile }
            if keyring.secretServiceReachable { return .secretService }
            throw ValidationError(
                "no place to keep a key here: no Secret Service is reachable (a desktop session with secret-tool, from libsecret-tools); set TASKCAL_KEY_FILE=PATH to keep it in a file (mode 0600), or use --passphrase"
            )
        }

        /// A new passphrase, asked for twice on the terminal (or read from
        /// TASKCAL_PASSPHRASE_FILE).
        static func newPassphrase(_ keyring: Keyring, options: StoreOptions) throws -> [UInt8] {
            let first = try options.run { () throws(DiaryError) in
                try keyring.passphrase(prompt: "New passphrase: ")
            }
            if ProcessInfo.processInfo.environment["TASKCAL_PASSPHRASE_FILE"] == nil {
                let again = try options.run { () throws(DiaryError) in
                    try keyring.passphrase(prompt: "The passphrase again: ")
                }
                guard again == first else {
                    throw ValidationError("the two passphrases differ; nothing was changed")
                }
            }
            guard first.count >= 8 else {
                throw ValidationError(
                    "a passphrase of fewer than 8 characters is too easily guessed")
            }
            return first
        }

        struct Initialize: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "init",
                abstract: tr("Give the diary its key, and seal the private entries it holds."))
            @OptionGroup var options: StoreOptions
            @Flag(help: .tr("Derive the key from a passphrase (scrypt) instead of keeping it."))
            var passphrase = false

            func run() throws {
                let store = try options.open()
                let keyring = store.keyring
                let keeper = try KeyCommand.keeper(passphrase: passphrase, keyring: keyring)
                // A key file that exists is a copy of a key to use, not to replace.
                let existing = try options.run { () throws(DiaryError) -> DiaryKey? in
                    guard keeper == .keyFile, let file = keyring.keyFile,
                        FileManager.default.fileExists(atPath: file)
                    else { return nil }
                    return try DiaryKey.read(file: file)
                }
                let secret =
                    passphrase ? try KeyCommand.newPassphrase(keyring, options: options) : nil
                let protection = try options.run { () throws(DiaryError) in
                    try store.initialize(keeper: keeper, passphrase: secret, adopting: existing)
                }
                if existing != nil {
                    Console.note(
                        "the diary now uses key \(protection.keyID) from \(keyring.keyFile ?? "")")
                    return
                }
                let place =
                    keeper == .keyFile ? keyring.keyFile ?? protection.place : protection.place
                Console.note("the diary's key \(protection.keyID) is kept in \(place)")
                if keeper != .passphrase {
                    Console.note(
                        "keep a copy somewhere safe: taskcal diary key export -o FILE (without the key, private entries' texts are lost)"
                    )
                }
            }
        }

        struct Rotate: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rotate",
                abstract: tr(
                    "Replace the key: every private entry is sealed again with a new one."),
                discussion: tr(
                    """
                    Needs the current key. The new key is kept where the old one was: in the \
                    Secret Service, behind a new passphrase (asked for), or, for a key file, in \
                    the new file --new-key-file names (the old file, which TASKCAL_KEY_FILE names, \
                    unlocks the diary and is left as it is). Every private entry is sealed anew in \
                    one write; then the old key is removed from the Secret Service. Copies made by \
                    diary key export hold the old key: export again.

                    Examples:
                      taskcal diary key rotate
                      TASKCAL_KEY_FILE=old.key taskcal diary key rotate --new-key-file new.key
                    """))
            @OptionGroup var options: StoreOptions
            @Flag(help: .tr("Derive the new key from a new passphrase.")) var passphrase = false
            @Option(help: .tr("Keep the new key in this new file (mode 0600).")) var newKeyFile:
                String?

            func validate() throws {
                if passphrase && newKeyFile != nil {
                    throw ValidationError("give either --passphrase or --new-key-file, not both")
                }
            }

            func run() throws {
                let store = try options.open()
                let old = try options.run { () throws(DiaryError) in
                    guard let protection = try DiaryProtection.of(store) else {
                        throw DiaryError.locked(
                            "this diary has no key yet; taskcal diary key init makes one")
                    }
                    return protection
                }
                let keeper: DiaryProtection.Keeper =
                    passphrase ? .passphrase : newKeyFile != nil ? .keyFile : old.keptIn
                if keeper == .keyFile && newKeyFile == nil {
                    throw ValidationError(
                        "the diary's key is kept in a file: name a new file for the new key with --new-key-file PATH"
                    )
                }
                // The old key first (its passphrase, its file), before a new one is asked for.
                _ = try options.run { () throws(DiaryError) in try store.key() }
                let secret =
                    keeper == .passphrase
                    ? try KeyCommand.newPassphrase(store.keyring, options: options) : nil
                let new = try options.run { () throws(DiaryError) in
                    try store.rotate(to: keeper, passphrase: secret, keyFile: newKeyFile).new
                }
                let place = keeper == .keyFile ? newKeyFile ?? new.place : new.place
                Console.note(
                    "the diary's key is now \(new.keyID), kept in \(place); key \(old.keyID) no longer opens it"
                )
            }
        }

        struct Export: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "export",
                abstract: tr("Write a copy of the key to a new file (mode 0600), for a backup."),
                discussion: tr(
                    """
                    The file is what TASKCAL_KEY_FILE takes: with it, the diary opens on another \
                    machine, for a colleague who shares it, or after the keyring is lost. Whoever \
                    has it can read the private entries: keep it as safe as the diary. An existing \
                    file is never replaced.
                    """))
            @OptionGroup var options: StoreOptions
            @Option(name: .shortAndLong, help: .tr("The new file.")) var output: String

            func run() throws {
                let store = try options.open()
                let key = try options.run { () throws(DiaryError) in try store.key() }
                try options.run { () throws(DiaryError) in try key.write(file: output) }
                Console.note("wrote key \(key.id) to \(output) (mode 0600)")
            }
        }

        struct Status: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "status",
                abstract: tr(
                    "Say whether the diary has a key, where it is kept, and whether it opens.")
            )
            @OptionGroup var options: StoreOptions
            @Flag(help: .tr("Also unlock the key, to check it opens the diary.")) var check = false

            func run() throws {
                let store = try options.open()
                let protection = try options.run { () throws(DiaryError) in
                    try DiaryProtection.of(store)
                }
                let sealed = try options.run { () throws(DiaryError) in
                    try store.allEntries().filter(\.isSealed).count
                }
                guard let protection else {
                    Console.say(
                        "no key: private entries cannot be added until taskcal diary key init")
                    return
                }
                Console.say(
                    "key \(protection.keyID), kept in \(protection.place); \(sealed) private entr\(sealed == 1 ? "y" : "ies") sealed with it"
                )
                if check {
                    _ = try options.run { () throws(DiaryError) in try store.key() }
                    Console.say("the key opens the diary")
                }
            }
        }
    }
}
