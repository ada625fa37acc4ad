import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

struct Agenda: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agenda",
        abstract: tr("Show a day as hour slots with the entries in each."),
        discussion: tr(
            """
            The day screen of a diary: one row an hour from midnight to midnight in --tz (23 or 25 \
            rows on a daylight-saving change), each with the entries that fall in it; an entry \
            spanning several hours appears in each. DATE is YYYY-MM-DD, today or tomorrow (default \
            today).

            Examples:
              taskcal agenda diary.json
              taskcal agenda 2026-11-27 diary.json work.ics --tz Europe/Moscow
              taskcal agenda tomorrow export.ics --format json
            """)
    )

    @Argument(help: ArgumentHelp(tr("[DATE] then the task files."), valueName: "date-and-inputs"))
    var arguments: [String] = []

    @OptionGroup var options: ReportInputs

    func validate() throws { try options.refusePictures("agenda") }

    func run() throws {
        let time = options.time
        let (day, inputs) = try Self.split(arguments, time: time)
        let span = time.span(of: day)
        var records: [TaskRecord] = []
        try options.read(inputs, window: span.start..<span.finish) { record, _ in
            let entry = time.occupied(by: record)
            if entry.overlaps(span)
                || (entry.isEmpty && entry.start >= span.start && entry.start < span.finish)
            {
                records.append(record)
            }
        }
        let agenda = Reports.Agenda(day: day, time: time, records: records)
        let out = try ReportPrinter(options, inputs: inputs, advice: "")
        switch options.format {
        case .json: try agenda.json(to: out.write(_:))
        case .text: try out.write(agenda.text(style: Style.forStandardOutput()))
        }
        try out.finish()
    }

    static func split(_ arguments: [String], time: LocalTime) throws -> (LocalTime.Day, [String]) {
        var inputs = arguments
        var day = time.day(of: Int64(Date().timeIntervalSince1970))
        if let first = inputs.first {
            if let parsed = dayWord(first, time: time) {
                day = parsed
                inputs.removeFirst()
            } else if first.range(of: #"^\d{4}-\d{1,2}-\d{1,2}$"#, options: .regularExpression)
                != nil
            {
                throw ValidationError(
                    "'\(first)' is not a date; expected YYYY-MM-DD such as 2026-11-27")
            }
        }
        return (day, inputs)
    }
}
