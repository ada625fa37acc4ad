import ArgumentParser
import Diary
import Foundation
import Localization

extension DiaryCommand.KeyCommand {
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
}
