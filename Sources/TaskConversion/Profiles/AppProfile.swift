import Foundation
import ICalendar
import TaskModel

extension CalendarApp {
    /// `record` as written for this app (`nil`: left out), and each change made, as a
    /// finding of the rule that asks for it. Rules the profile cannot help (Google drops
    /// alarms) are findings too, so that the conversion reports them.
    public func shape(
        _ record: TaskRecord, at location: Location, links: AttachmentLinks? = nil
    ) -> (record: TaskRecord?, changes: [AppFinding]) {
        var changes: [AppFinding] = []
        func note(_ rule: AppRule, _ message: String) {
            changes.append(AppFinding(rule: rule, location: location, message: message))
        }
        let name = "\"\(record.name)\""
        var shaped = record
        switch self {
        case .outlook, .google:
            let rule = self == .outlook ? AppRules.outlookTodo : AppRules.googleTodo
            if record.kind == .todo {
                note(rule, "\(name) is a to-do: left out")
                return (nil, changes)
            }
            if !record.subtasks.isEmpty {
                note(rule, "\(name): its \(record.subtasks.count) subtask(s) (to-dos) left out")
                shaped.subtasks = []
            }
        case .apple, .thunderbird, .caldav, .any:
            break
        }
        switch self {
        case .outlook:
            let disabled = shaped.alarms.filter { !$0.enabled }.count
            if disabled > 0 {
                note(
                    AppRules.outlookDisabledAlarm, "\(name): \(disabled) disabled alarm(s) left out"
                )
            }
            var enabled = shaped.alarms.filter(\.enabled)
            if enabled.count > 1 {
                note(
                    AppRules.outlookOneAlarm,
                    "\(name): \(enabled.count - 1) alarm(s) after the first left out (Outlook keeps one reminder)"
                )
                enabled = [enabled[0]]
            }
            for alarm in enabled where alarm.action != .display {
                note(
                    AppRules.outlookAlarmAction,
                    "\(name): its \(alarm.action.rawValue.uppercased()) alarm will be a plain reminder"
                )
            }
            if enabled.contains(where: { $0.repeatCount != nil }) {
                note(AppRules.outlookAlarmRepeat, "\(name): the alarm's repeats will be ignored")
            }
            shaped.alarms = enabled
            for index in shaped.attachments.indices {
                let attachment = shaped.attachments[index]
                if !attachment.isInline { continue }
                let kept = attachment.icalParameters.flatMap(ParameterText.parse) ?? []
                guard let filename = attachment.filename,
                    !kept.contains(where: { $0.name == "X-FILENAME" })
                else { continue }
                shaped.attachments[index].icalParameters = ParameterText.format(
                    kept + [Parameter("X-FILENAME", filename)])
                note(AppRules.outlookAttachmentName, "\(name): X-FILENAME=\(filename) added")
            }
            if shaped.allDay,
                !shaped.icalExtra.contains(where: {
                    $0.uppercased().hasPrefix("X-MICROSOFT-CDO-ALLDAYEVENT")
                })
            {
                shaped.icalExtra.append("X-MICROSOFT-CDO-ALLDAYEVENT:TRUE")
                note(AppRules.outlookAllDay, "\(name): X-MICROSOFT-CDO-ALLDAYEVENT:TRUE added")
            }
        case .google:
            let enabled = shaped.alarms.filter(\.enabled).count
            if enabled > 0 {
                note(AppRules.googleReminders, "\(name): \(enabled) alarm(s) Google will drop")
            }
            if let links {
                for index in shaped.attachments.indices {
                    if !shaped.attachments[index].isInline { continue }
                    do {
                        let url = try links.link(
                            shaped.attachments[index], of: record, index: index,
                            base: location.file == "-"
                                ? nil
                                : URL(fileURLWithPath: location.file).deletingLastPathComponent())
                        shaped.attachments[index].content = .url(url)
                        note(
                            AppRules.googleInlineAttachment,
                            "\(name): inline attachment linked as \(url)")
                    } catch {
                        note(
                            AppRules.googleInlineAttachment,
                            "\(name): an inline attachment could not be linked (\(error.message)); left out"
                        )
                    }
                }
            }
            let inline = shaped.attachments.filter(\.isInline)
            if !inline.isEmpty {
                note(
                    AppRules.googleInlineAttachment,
                    "\(name): \(inline.count) inline attachment(s) left out (Google keeps links only)"
                )
                shaped.attachments.removeAll(where: \.isInline)
            }
        case .apple:
            if let zone = shaped.timeZone, !shaped.allDay, !shaped.floating,
                AppRules.needsQuotes(zone)
            {
                note(AppRules.appleQuotedZone, "\(name): written in UTC, not in \"\(zone)\"")
                shaped.timeZone = nil
            }
        case .thunderbird, .caldav, .any:
            break
        }
        return (shaped, changes)
    }

    /// The calendar's data as written for this app: Outlook gets `METHOD:PUBLISH`.
    public func shape(_ calendar: CalendarInfo) -> CalendarInfo {
        guard self == .outlook,
            !calendar.icalExtra.contains(where: { $0.uppercased().hasPrefix("METHOD:") })
        else { return calendar }
        var shaped = calendar
        shaped.icalExtra.insert("METHOD:PUBLISH", at: 0)
        return shaped
    }
}

/// Records shaped for an app on their way to an .ics sink (`convert --for`); what was
/// changed is said once per rule, with a count and the first place.
final class ProfileSink: RecordSink {
    private let base: any RecordSink
    private let app: CalendarApp
    private let links: AttachmentLinks?
    private let path: String
    private var repairs: StrictRepairs
    private var changes: [(first: AppFinding, count: Int)] = []
    private var changeOf: [String: Int] = [:]
    /// Kept components already said to be left out (the calendar is set more than once).
    private var saidComponents: Set<String> = []
    private var written = 0
    /// Series written so far (by UID, or id without one), and changed occurrences held until
    /// their series comes (`--for any`: one that never comes is written as an event of its own).
    private var series: Set<String> = []
    private var heldChanges: [(record: TaskRecord, location: Location)] = []
    /// The calendar as shaped, every zone it defines in it; the base sink gets only the
    /// definitions a record written is in (`any-zone-name`: records go into IANA zones).
    private var definingCalendar = CalendarInfo()
    private var definitionsUsed: Set<String> = []

    init(_ base: any RecordSink, app: CalendarApp, links: AttachmentLinks?, path: String) {
        self.base = base
        self.app = app
        self.links = links
        self.path = path
        repairs = StrictRepairs(kinds: app.repairs)
    }

    var calendar: CalendarInfo {
        get { base.calendar }
        set {
            repairs.zones = (try? ZoneCatalog(calendar: newValue)) ?? ZoneCatalog()
            let location = Location(file: path)
            let shaped = app.shape(newValue)
            if shaped.icalExtra.count > newValue.icalExtra.count,
                saidComponents.insert("METHOD:PUBLISH").inserted
            {
                count(
                    AppFinding(
                        rule: AppRules.outlookPublish, location: location,
                        message: "METHOD:PUBLISH added"))
            }
            definingCalendar = repairs.shape(shaped) { rule, message, text in
                guard saidComponents.insert(text).inserted else { return }
                count(AppFinding(rule: rule, location: location, message: message))
            }
            base.calendar = withheld(definingCalendar)
        }
    }

    /// `calendar` without the zones it defines that no record written so far is in, when
    /// records are moved into IANA zones: a definition a strict reader refuses (an `UNTIL`
    /// in local time, a name no reader knows) is not written for nothing. One is added back
    /// before the first record that stays in it.
    private func withheld(_ calendar: CalendarInfo) -> CalendarInfo {
        guard repairs.kinds.contains(.zoneNames) else { return calendar }
        var shown = calendar
        shown.icalComponents = calendar.icalComponents.filter { text in
            guard let tzid = ZoneCatalog.definedTZID(text) else { return true }
            return definitionsUsed.contains(tzid)
        }
        return shown
    }

    /// Adds to the base sink's calendar the definitions of the zones `records` are in.
    private func useDefinitions(of records: [TaskRecord]) {
        guard repairs.kinds.contains(.zoneNames) else { return }
        var added = false
        func use(_ zone: String) {
            if repairs.zones.definition(zone) != nil, definitionsUsed.insert(zone).inserted {
                added = true
            }
        }
        func visit(_ record: TaskRecord) {
            record.timeZone.map(use)
            // A line kept as written that names the zone (`X-LOTUS-LASTALL-RDATES;TZID=…`):
            // readers look its definition up too.
            for line in record.icalExtra where line.contains("TZID=") {
                (try? ContentLine(parsing: line))?.parameter("TZID").map(use)
            }
            record.subtasks.forEach(visit)
        }
        records.forEach(visit)
        if added { base.calendar = withheld(definingCalendar) }
    }

    private(set) var changedPlaces: [Location] = []

    private func count(_ finding: AppFinding) {
        changedPlaces.append(finding.location)
        if let index = changeOf[finding.rule.code] {
            changes[index].count += 1
        } else {
            changeOf[finding.rule.code] = changes.count
            changes.append((finding, 1))
        }
    }

    /// `record` shaped and repaired, the changed occurrences that wait for their series
    /// held aside: what goes to the base sink now.
    private func prepare(_ record: TaskRecord, from location: Location) -> [TaskRecord] {
        let (shaped, found) = app.shape(record, at: location, links: links)
        found.forEach(count)
        // A record left out (an Outlook or Google to-do) is said by its rule's warning.
        guard let shaped else { return [] }
        written += 1
        let repaired = repairs.repair(shaped) { rule, message in
            count(AppFinding(rule: rule, location: location, message: message))
        }
        var ready: [TaskRecord] = []
        let held = heldChanges.count
        for record in repaired {
            if repairs.kinds.contains(.loneChanges), record.recurrenceID != nil,
                !series.contains(Self.seriesKey(record))
            {
                heldChanges.append((record, location))
                continue
            }
            if record.recurrenceID == nil { series.insert(Self.seriesKey(record)) }
            ready.append(record)
        }
        useDefinitions(of: ready + heldChanges[held...].map(\.record))
        return ready
    }

    private func prepare(_ records: [(record: TaskRecord, location: Location)]) -> [(
        record: TaskRecord, location: Location
    )] {
        records.flatMap { item in
            prepare(item.record, from: item.location).map { ($0, item.location) }
        }
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        for ready in prepare(record, from: location) { try base.write(ready, from: location) }
    }

    // Batches go on to the base sink as batches, so that the .ics sink renders them on its
    // threads. What was written is counted in the records given; a refusal, said when the
    // base sink says it, is taken off then.
    func write(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool)
        -> (written: Int, errors: [Diagnostic])
    {
        let done = base.write(batch: prepare(records), keepGoing: keepGoing)
        return (records.count - done.errors.count, done.errors)
    }

    func submit(batch records: [(record: TaskRecord, location: Location)], keepGoing: Bool)
        -> (written: Int, errors: [Diagnostic])
    {
        let done = base.submit(batch: prepare(records), keepGoing: keepGoing)
        return (records.count - done.errors.count, done.errors)
    }

    func completeBatches() -> (written: Int, errors: [Diagnostic]) {
        let done = base.completeBatches()
        return (-done.errors.count, done.errors)
    }

    private static func seriesKey(_ record: TaskRecord) -> String {
        record.uid ?? "#\(record.id)"
    }

    /// The held changed occurrences: with their series when it came. Those of a series that
    /// never came become one of their own, so that the UID stays and is a UID once: the
    /// first an event whose `RDATE`s are the others' starts, the others its changed
    /// occurrences at those starts.
    private func writeHeldChanges() throws(Diagnostic) {
        var lone: [String: [(record: TaskRecord, location: Location)]] = [:]
        var order: [String] = []
        for (record, location) in heldChanges {
            let key = Self.seriesKey(record)
            if series.contains(key) {
                try base.write(record, from: location)
            } else {
                if lone[key] == nil { order.append(key) }
                lone[key, default: []].append((record, location))
            }
        }
        heldChanges = []
        for key in order {
            let changes = lone[key]!.sorted { $0.record.dateStart < $1.record.dateStart }
            var first = changes[0].record
            first.recurrenceID = nil
            first.thisAndFuture = false
            let others = changes.dropFirst().map(\.record.dateStart)
            first.recurrence = others.isEmpty ? nil : Recurrence(rule: nil, rdates: others)
            count(
                AppRules.SeriesCheck.loneChanges(
                    first.name, changes.count, at: changes[0].location))
            try base.write(first, from: changes[0].location)
            for (record, location) in changes.dropFirst() {
                var change = record
                change.recurrenceID = record.dateStart
                change.thisAndFuture = false
                try base.write(change, from: location)
            }
        }
    }

    func finish() throws(Diagnostic) {
        try writeHeldChanges()
        if repairs.kinds.contains(.emptyCalendar), written == 0 {
            base.abandon()
            throw Diagnostic(
                .error, Location(file: path),
                "--for \(app.rawValue): nothing to write: no event, to-do or journal entry is left, and readers refuse an empty calendar (\(AppRules.anyEmptyCalendar.code))",
                code: .appProfile)
        }
        try base.finish()
    }

    func abandon() { base.abandon() }
    var writtenFiles: [String] { base.writtenFiles }

    var notes: [Diagnostic] {
        changes.map { change in
            let said = "--for \(app.rawValue): \(change.first.rule.code): \(change.first.message)"
            return Diagnostic(
                .warning, change.first.location,
                change.count > 1 ? "\(said) (and \(change.count - 1) more like it)" : said,
                code: .appProfile)
        } + base.notes
    }
}
