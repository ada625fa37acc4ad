import ArgumentParser
import Diary
import Foundation
import Localization

extension DiaryCommand.KeyCommand {
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
            let keeper = try DiaryCommand.KeyCommand.keeper(
                passphrase: passphrase, keyring: keyring)
            // A key file that exists is a copy of a key to use, not to replace.
            let existing = try options.run { () throws(DiaryError) -> DiaryKey? in
                guard keeper == .keyFile, let file = keyring.keyFile,
                    FileManager.default.fileExists(atPath: file)
                else { return nil }
                return try DiaryKey.read(file: file)
            }
            let secret =
                passphrase
                ? try DiaryCommand.KeyCommand.newPassphrase(keyring, options: options) : nil
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
}
