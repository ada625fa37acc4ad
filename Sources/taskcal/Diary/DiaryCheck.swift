import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

#if PostgreSQL
import PostgresDiary
#endif

extension DiaryCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: tr("Check the diary's integrity: readable, no overlaps."))
        @OptionGroup var options: StoreOptions

        func run() throws {
            let store = try options.open()
            let problems = try options.run { () throws(DiaryError) in try store.check() }
            for problem in problems { Console.error(problem) }
            if !problems.isEmpty { throw ExitCode(1) }
            let count = try options.run { () throws(DiaryError) in try store.allEntries().count }
            Console.say("ok: \(count) entries, no overlaps (\(try options.location()))")
        }
    }
}
