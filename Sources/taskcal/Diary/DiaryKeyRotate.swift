import ArgumentParser
import Diary
import Foundation
import Localization

extension DiaryCommand.KeyCommand {
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
        @Option(help: .tr("Keep the new key in this new file (mode 0600).")) var newKeyFile: String?

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
                ? try DiaryCommand.KeyCommand.newPassphrase(store.keyring, options: options) : nil
            let new = try options.run { () throws(DiaryError) in
                try store.rotate(to: keeper, passphrase: secret, keyFile: newKeyFile).new
            }
            let place = keeper == .keyFile ? newKeyFile ?? new.place : new.place
            Console.note(
                "the diary's key is now \(new.keyID), kept in \(place); key \(old.keyID) no longer opens it"
            )
        }
    }
}
