import Foundation
import Testing

@Suite("--from and --to read the same everywhere (one WindowOption, one instant())")
struct TimeWindowTests {
    /// Today in Europe/Berlin as YYYY-MM-DD.
    static func today() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    @Test("today, tomorrow and yesterday bound every window; a word that is no time is refused")
    func dayWords() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let day = Self.today()
        let store = ["--store", "d.sqlite", "--tz", "Europe/Berlin"]
        let added = try cli.run(
            [
                "diary", "add", "--name", "Lunch", "--start", "\(day)T12:00", "--end",
                "\(day)T13:00",
                "--alarm", "-15m",
            ] + store)
        #expect(added.status == 0, "\(added.stderr)")
        // The same window, in the words every window command takes.
        let commands: [[String]] = [
            ["diary", "list"], ["diary", "alarms"], ["overlaps"], ["stats"], ["free"],
        ]
        for command in commands {
            let today = try cli.run(command + ["--from", "today", "--to", "tomorrow"] + store)
            #expect(today.status == 0, "\(command): \(today.stderr)")
            let past = try cli.run(command + ["--from", "yesterday", "--to", "today"] + store)
            // free exits 1 when nothing is free; a day before the entry is all free.
            #expect(past.status == 0, "\(command): \(past.stderr)")
            let bad = try cli.run(command + ["--from", "soon"] + store)
            #expect(bad.status == 2, "\(command)")
            #expect(bad.stderr.contains("--from 'soon' is not a time"), "\(command): \(bad.stderr)")
        }
        #expect(
            try cli.run(["diary", "list", "--from", "today", "--to", "tomorrow"] + store).stdout
                .contains("Lunch"))
        #expect(
            !(try cli.run(["diary", "list", "--from", "yesterday", "--to", "today"] + store).stdout
                .contains("Lunch")))
        #expect(
            try cli.run(["diary", "alarms", "--from", "today", "--to", "tomorrow"] + store).stdout
                .contains("11:45  #1 Lunch"))
    }
}
