import ArgumentParser
import Diary
import Foundation
import Localization

extension DiaryCommand.KeyCommand {
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
