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

    }
}
