import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

struct Month: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "month",
        abstract: tr("Show a month as a calendar grid, marking days with entries and today."),
        discussion: tr(
            """
            Weeks run Monday to Sunday, like `cal -m`. A day with entries is marked *, today is in \
            brackets (in colour on a terminal). --format json gives the number of entries of each \
            day. MONTH is YYYY-MM (default this month).

            Examples:
              taskcal month diary.json
              taskcal month 2026-12 diary.json work.ics --format json
            """)
    )

    @Argument(help: ArgumentHelp(tr("[MONTH] then the task files."), valueName: "month-and-inputs"))
    var arguments: [String] = []

    @OptionGroup var options: ReportInputs

    func run() throws {
        let time = options.time
        let today = time.day(of: Int64(Date().timeIntervalSince1970))
        var inputs = arguments
        var year = today.year
        var month = today.month
        if let first = inputs.first,
            first.range(of: #"^\d{4}-\d{2}$"#, options: .regularExpression) != nil
        {
            let parts = first.split(separator: "-")
            guard let parsedYear = Int(parts[0]), let parsedMonth = Int(parts[1]),
                (1...12).contains(parsedMonth),
                (1...9999).contains(parsedYear)
            else {
                throw ValidationError("'\(first)' is not a month; expected YYYY-MM such as 2026-12")
            }
            year = parsedYear
            month = parsedMonth
            inputs.removeFirst()
        }
        var spans: [TimeSpan] = []
        let first = time.epoch(LocalTime.Day(year: year, month: month, day: 1))
        let last = time.epoch(
            month == 12
                ? LocalTime.Day(year: year + 1, month: 1, day: 1)
                : LocalTime.Day(year: year, month: month + 1, day: 1))
        var entries: [ReportEntry] = []
        try options.read(inputs, window: first..<last, timesOnly: true) { record, location in
            spans.append(time.occupied(by: record))
            if options.output.isPicture {
                entries.append(ReportEntry(record, source: location, time: time))
            }
        }
        let out = try ReportPrinter(options, inputs: inputs, advice: "")
        if options.output.isPicture {
            let picture = MonthPicture(
                year: year, month: month, time: time, entries: entries, today: today)
            return try Pictures.write(
                options.output, title: "\(Localization.month(month)) \(year)", [picture.svg()],
                table: picture.table, to: out)
        }
        let view = MonthView(year: year, month: month, time: time, records: spans, today: today)
        switch options.format {
        case .json: try out.write(view.json())
        case .text: try out.write(view.text(style: Style.forStandardOutput()))
        }
        try out.finish()
    }
}
