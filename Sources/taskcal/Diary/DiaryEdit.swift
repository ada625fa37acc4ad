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
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: tr("Change an entry; it may overlap only its own old slot."))
        @OptionGroup var options: StoreOptions
        @Argument(help: .tr("The entry's id."), completion: EntryIDs.completion) var id: Int64
        @Option(help: .tr("New name.")) var name: String?
        @Option(help: .tr("New start.")) var start: String?
        @Option(help: .tr("New end.")) var end: String?
        @Option(help: .tr("New description (empty to remove it).")) var description: String?
        @Option(
            help:
                .tr(
                    "New categories, replacing the old; may be repeated (--category '' removes them all)."
                )
        )
        var category: [String] = []
        @Option(help: .tr("New colour, a CSS colour name (empty to remove it).")) var color: String?
        @Option(help: .tr("New emoji (empty to remove it).")) var emoji: String?
        @Flag(
            inversion: .prefixedNo,
            help: .tr("Pin it (listed first), or --no-pin."))
        var pin: Bool?
        @Option(
            help: ArgumentHelp(
                tr("Attach another file or URL. May be repeated."), valueName: "file-or-url"))
        var attach: [String] = []
        @Option(
            help: .tr("Remove attachment N (diary attachments ID lists them). May be repeated."))
        var detach: [Int] = []
        @Option(
            help:
                .tr(
                    "Make it repeat by this RFC 5545 rule (FREQ=WEEKLY;BYDAY=TU,TH), or 'none' to stop it repeating."
                )
        )
        var rule: String?
        @Option(
            help:
                .tr(
                    "A habit: leave out its occurrence on this day (YYYY-MM-DD in --tz) or at this time. May be repeated."
                )
        )
        var skip: [String] = []
        @Option(
            help: ArgumentHelp(
                tr(
                    "Change one occurrence of a repeating entry: the one on this day (YYYY-MM-DD in --tz) or at this time."
                ),
                discussion:
                    tr(
                        "--name, --start, --end and --description then change that occurrence alone (kept as a changed occurrence, RECURRENCE-ID in .ics, as calendar apps do); an occurrence changed before, by an app or by taskcal, is found by its original or its present time."
                    )
            ))
        var occurrence: String?
        @Flag(
            name: .customLong("private"), inversion: .prefixedNo,
            help:
                .tr(
                    "Make it private (its text kept encrypted), or --no-private to keep it in the clear again; both need the key."
                )
        )
        var isPrivate: Bool?

        /// Whether the edit gives the entry text (or takes it away): a private entry is then
        /// opened with the key first, so that its sealed text is changed, not lost.
        var touchesText: Bool {
            name != nil || description != nil || !category.isEmpty || color != nil
                || emoji != nil || pin != nil || !attach.isEmpty || !detach.isEmpty
                || isPrivate != nil
        }

        func validate() throws {
            if let rule, rule.lowercased() != "none", let problem = RecurrenceRule.problem(rule) {
                throw ValidationError("--rule: \(problem)")
            }
            if occurrence != nil && (rule != nil || !skip.isEmpty) {
                throw ValidationError(
                    "--occurrence changes one occurrence; --rule and --skip change the whole entry (give them without --occurrence)"
                )
            }
        }

        func run() throws {
            var store = try options.open()
            var record = try options.run { () throws(DiaryError) in try store.entry(id) }
            if record.isSealed && touchesText {
                store = try options.open(reveal: true)
                record = try options.run { () throws(DiaryError) in try store.entry(id) }
            }
            if let occurrence {
                record = try options.occurrence(
                    occurrence, of: record, in: store, option: "--occurrence")
            }
            if let isPrivate {
                record.classification = isPrivate ? .confidential : nil
                if record.isSealed || isPrivate {
                    // The key is needed either way: say so before anything else is changed.
                    _ = try options.run { () throws(DiaryError) in try store.key() }
                }
            }
            if let name { record.name = name }
            if let start { record.dateStart = try options.parseTime(start, option: "--start") }
            if let end { record.dateFinish = try options.parseTime(end, option: "--end") }
            if let description { record.description = description.isEmpty ? nil : description }
            if !category.isEmpty { record.categories = category.filter { !$0.isEmpty } }
            if let color { record.color = color.isEmpty ? nil : color }
            if let emoji { Marks.setEmoji(emoji, on: &record) }
            if let pin { Marks.setPinned(pin, on: &record) }
            for number in Set(detach).sorted(by: >) {
                guard number >= 1 && number <= record.attachments.count else {
                    throw ValidationError(
                        "--detach \(number): #\(id) has \(record.attachments.count) attachment\(record.attachments.count == 1 ? "" : "s")"
                    )
                }
                record.attachments.remove(at: number - 1)
            }
            record.attachments += try attach.map(Attachments.attachment)
            if let rule {
                if rule.lowercased() == "none" {
                    record.recurrence = nil
                } else {
                    record.recurrence = Recurrence(
                        rule: rule, exdates: record.recurrence?.exdates ?? [],
                        rdates: record.recurrence?.rdates ?? [])
                    record.timeZone = record.timeZone ?? options.time.zone
                }
            }
            for text in skip {
                guard record.recurrence != nil else {
                    throw ValidationError("--skip: #\(id) does not repeat")
                }
                let time = options.time
                var window: Range<Int64>
                if let day = LocalTime.Day(text) {
                    let span = time.span(of: day)
                    window = span.start..<span.finish
                } else {
                    let instant = try options.parseTime(text, option: "--skip")
                    window = instant..<instant + 1
                }
                // The occurrences that start in the window.
                let starts = ((try? Expansion(window: window).occurrences(of: record).0) ?? [])
                    .map(\.dateStart).filter { window.contains($0) }
                guard !starts.isEmpty else {
                    throw ValidationError(
                        "--skip '\(text)': #\(id) \"\(record.displayName)\" does not occur then")
                }
                let known = record.recurrence?.exdates ?? []
                record.recurrence?.exdates = known + starts.filter { !known.contains($0) }
            }
            try options.run { () throws(DiaryError) in try store.update(record) }
        }
    }
}
