import Foundation
import TaskModel

/// The calendar apps taskcal knows the import rules of (`convert --for`, `lint --for`).
public enum CalendarApp: String, CaseIterable, Sendable {
    case google, outlook, apple, thunderbird, caldav, any

    /// The app's name for people.
    public var displayName: String {
        switch self {
        case .google: "Google Calendar"
        case .outlook: "Outlook"
        case .apple: "Apple Calendar"
        case .thunderbird: "Thunderbird"
        case .caldav: "a CalDAV server (SabreDAV: Nextcloud, Baïkal)"
        case .any:
            "every reader (calcurse, khal, Radicale, libical, Python icalendar, vobject, Thunderbird's ical.js, KDE's KCalendarCore, Home Assistant's ical)"
        }
    }

    /// The repairs for the strictest readers this app needs: every one for `any`; for a
    /// CalDAV server, those Radicale refuses a file without.
    var repairs: Set<StrictRepairs.Kind> {
        switch self {
        case .any: Set(StrictRepairs.Kind.allCases)
        case .caldav:
            [
                .keptComponents, .impossibleDates, .extraRepeats, .ruleForm, .binaryImages,
                .loneChanges, .emptyCalendar,
            ]
        // Google takes IANA zone names only.
        case .google: [.zoneNames]
        case .outlook, .apple, .thunderbird: []
        }
    }
}

/// One thing an app does with what a file holds, with a stable code.
public struct AppRule: Sendable, Hashable {
    /// What the app does with it.
    public enum Effect: String, Sendable, Hashable {
        /// It is left out on import: lost.
        case drops
        /// The file (or the component) is refused: lost.
        case refuses
        /// It comes in differently.
        case changes

        /// Whether something is lost.
        public var loses: Bool { self != .changes }
    }

    /// Stable, for scripts: `outlook-todo`.
    public var code: String
    public var app: CalendarApp
    public var effect: Effect
    /// What the rule is about, for `lint --help`.
    public var summary: String
    /// Where the behaviour is documented or was observed.
    public var source: String
}

/// What `lint` found: a rule that applies to a record (or the file) at a place.
public struct AppFinding: Sendable, Hashable, CustomStringConvertible {
    public var rule: AppRule
    public var location: Location
    public var message: String

    /// `FILE:LINE: outlook-todo: message`.
    public var description: String { "\(location): \(rule.code): \(message)" }

    /// One JSON object: `file`, `line`/`index` where known, `app`, `code`, `effect`, `message`.
    public var json: String {
        var writer = JSONWriter()
        writer.begin()
        writer.field("file", string: location.file)
        if let line = location.line { writer.field("line", number: Int64(line)) }
        if let index = location.index { writer.field("index", number: Int64(index)) }
        writer.field("app", string: rule.app.rawValue)
        writer.field("code", string: rule.code)
        writer.field("effect", string: rule.effect.rawValue)
        writer.field("message", string: message)
        writer.end()
        return writer.text
    }
}

extension Attachment {
    /// Whether the attachment travels as data (inline or from a file) rather than as a link:
    /// what Google drops and Outlook names with `X-FILENAME`.
    var isInline: Bool {
        if case .url = content { false } else { true }
    }
}

/// The rules, from the apps' own specifications where they exist.
public enum AppRules {
    private static let stanoical =
        "Microsoft [MS-STANOICAL] (Outlook's iCalendar standards support), section 2.2.48"
    private static let oxcical =
        "Microsoft [MS-OXCICAL] (iCalendar to appointment object conversion)"

    public static let outlookTodo = AppRule(
        code: "outlook-todo", app: .outlook, effect: .drops,
        summary: "to-dos (VTODO) are not imported; taskcal --for outlook leaves them out",
        source: oxcical + ": only VEVENTs become appointments")
    public static let outlookOneAlarm = AppRule(
        code: "outlook-one-alarm", app: .outlook, effect: .drops,
        summary: "one reminder per event: alarms after the first are dropped",
        source: oxcical + " 2.1.3.1.1.20.62: VALARM, 0 or 1 instances")
    public static let outlookAlarmAction = AppRule(
        code: "outlook-alarm-action", app: .outlook, effect: .changes,
        summary: "every alarm becomes a plain reminder (AUDIO and EMAIL are not implemented)",
        source: stanoical + " (V0059)")
    public static let outlookAlarmRepeat = AppRule(
        code: "outlook-alarm-repeat", app: .outlook, effect: .drops,
        summary: "an alarm's REPEAT and DURATION are ignored",
        source: stanoical + " (V0061)")
    public static let outlookDisabledAlarm = AppRule(
        code: "outlook-disabled-alarm", app: .outlook, effect: .drops,
        summary:
            "no disabled reminders: ACTION is ignored, so ACTION:NONE would fire; taskcal --for outlook leaves disabled alarms out",
        source: stanoical + " (V0059)")
    public static let outlookAttachmentName = AppRule(
        code: "outlook-attachment-name", app: .outlook, effect: .changes,
        summary:
            "an inline attachment is named by X-FILENAME; taskcal --for outlook adds it, one without a file name shows untitled",
        source: oxcical + ": ATTACH, X-FILENAME")
    public static let outlookAllDay = AppRule(
        code: "outlook-all-day", app: .outlook, effect: .changes,
        summary:
            "an all-day event shows as all-day when marked X-MICROSOFT-CDO-ALLDAYEVENT:TRUE; taskcal --for outlook adds it",
        source: oxcical + ": X-MICROSOFT-CDO-ALLDAYEVENT")
    public static let outlookPublish = AppRule(
        code: "outlook-publish", app: .outlook, effect: .changes,
        summary:
            "a calendar without METHOD may be taken for a meeting request; taskcal --for outlook writes METHOD:PUBLISH",
        source: oxcical + ": METHOD")
    public static let outlookUndeclaredZone = AppRule(
        code: "outlook-undeclared-zone", app: .outlook, effect: .changes,
        summary: "a TZID without its VTIMEZONE is taken as floating time",
        source: oxcical + ": TZID without VTIMEZONE")
    public static let googleReminders = AppRule(
        code: "google-reminders", app: .google, effect: .drops,
        summary: "alarms are dropped on import; the calendar's default notifications apply",
        source: "Google Calendar Help, Import events to Google Calendar (observed)")
    public static let googleInlineAttachment = AppRule(
        code: "google-inline-attachment", app: .google, effect: .drops,
        summary:
            "attachments can only be links (URLs or Drive files): inline data is dropped; taskcal --for google leaves it out",
        source: "Google Calendar API, Events resource: attachments[].fileUrl")
    public static let googleTodo = AppRule(
        code: "google-todo", app: .google, effect: .drops,
        summary: "to-dos (VTODO) are not imported (Google Tasks is separate)",
        source: "Google Calendar Help, Import events to Google Calendar (observed)")
    public static let googleFileSize = AppRule(
        code: "google-file-size", app: .google, effect: .refuses,
        summary: "the importer takes files up to 1 MB; split with --split-size 1MB",
        source: "Google Calendar Help, Import events to Google Calendar")
    public static let appleMalformedLine = AppRule(
        code: "apple-malformed-line", app: .apple, effect: .drops,
        summary: "a malformed line (a bad value, a fold without its space) fails silently",
        source: "observed (the issue's survey of Apple Calendar imports)")
    public static let appleQuotedZone = AppRule(
        code: "apple-quoted-tzid", app: .apple, effect: .refuses,
        summary:
            "a TZID that must be quoted (it holds : ; or ,) is reported to fail; taskcal --for apple writes those times in UTC",
        source: "reported by users of Apple Calendar")
    public static let thunderbirdStructure = AppRule(
        code: "thunderbird-structure", app: .thunderbird, effect: .drops,
        summary:
            "reading stops at the first structural error, without saying so: what follows is lost",
        source: "observed (Thunderbird's calendar import)")
    public static let caldavMissingUID = AppRule(
        code: "caldav-missing-uid", app: .caldav, effect: .refuses,
        summary: "a component without UID is refused (taskcal writes one)",
        source: "RFC 4791 section 4.1; SabreDAV's CalDAV validation")
    public static let caldavDuplicateUID = AppRule(
        code: "caldav-duplicate-uid", app: .caldav, effect: .refuses,
        summary:
            "two components with one UID and no RECURRENCE-ID are refused (taskcal gives them distinct UIDs)",
        source: "RFC 4791 section 4.1; SabreDAV's CalDAV validation")
    public static let caldavBadValue = AppRule(
        code: "caldav-bad-value", app: .caldav, effect: .refuses,
        summary: "a value libical cannot read (kept as written) is refused by validating servers",
        source: "SabreDAV's iCalendar validation (sabre/vobject)")

    /// Every rule, by app.
    public static let all: [AppRule] =
        [
            outlookTodo, outlookOneAlarm, outlookAlarmAction, outlookAlarmRepeat,
            outlookDisabledAlarm, outlookAttachmentName, outlookAllDay, outlookPublish,
            outlookUndeclaredZone,
            googleReminders,
            googleInlineAttachment, googleTodo, googleFileSize, appleMalformedLine, appleQuotedZone,
            thunderbirdStructure, caldavMissingUID, caldavDuplicateUID, caldavBadValue,
        ] + strict

    /// The characters that make libical quote a `TZID` parameter.
    static func needsQuotes(_ zone: String) -> Bool {
        zone.contains(where: { $0 == ":" || $0 == ";" || $0 == "," })
    }

    /// What `app` will do to `record` (a record and its subtasks), read from `location`.
    public static func findings(
        for record: TaskRecord, at location: Location, app: CalendarApp
    ) -> [AppFinding] {
        var found: [AppFinding] = []
        func add(_ rule: AppRule, _ message: String) {
            found.append(AppFinding(rule: rule, location: location, message: message))
        }
        let name = "\"\(record.name)\""
        func visit(_ record: TaskRecord, path: String) {
            let what = path.isEmpty ? name : "\(name) \(path)"
            let enabled = record.alarms.filter(\.enabled)
            switch app {
            case .outlook:
                if record.kind == .todo {
                    // Not imported at all: nothing else about it matters.
                    add(outlookTodo, "\(what) is a to-do: not imported")
                    break
                }
                if enabled.count > 1 {
                    add(
                        outlookOneAlarm,
                        "\(what) has \(enabled.count) alarms: only the first becomes a reminder")
                }
                for alarm in enabled where alarm.action != .display {
                    add(
                        outlookAlarmAction,
                        "\(what): its \(alarm.action.rawValue.uppercased()) alarm becomes a plain reminder"
                    )
                }
                if enabled.contains(where: { $0.repeatCount != nil }) {
                    add(outlookAlarmRepeat, "\(what): the alarm's repeats are ignored")
                }
                if record.alarms.contains(where: { !$0.enabled }) {
                    add(outlookDisabledAlarm, "\(what) has a disabled alarm: Outlook has none")
                }
                for attachment in record.attachments where attachment.filename == nil {
                    if !attachment.isInline { continue }
                    add(
                        outlookAttachmentName,
                        "\(what) has an inline attachment without a file name: shown untitled")
                }
            case .google:
                if record.kind == .todo {
                    add(googleTodo, "\(what) is a to-do: not imported")
                    break
                }
                if !enabled.isEmpty {
                    add(
                        googleReminders,
                        "\(what): \(enabled.count) alarm\(enabled.count == 1 ? "" : "s") dropped")
                }
                let inline = record.attachments.filter(\.isInline)
                if !inline.isEmpty {
                    add(
                        googleInlineAttachment,
                        "\(what): \(inline.count) inline attachment\(inline.count == 1 ? "" : "s") dropped (only links are kept)"
                    )
                }
            case .apple:
                if let zone = record.timeZone, !record.allDay, !record.floating,
                    needsQuotes(zone)
                {
                    add(appleQuotedZone, "\(what): TZID \"\(zone)\" must be quoted")
                }
            case .any:
                if path.isEmpty {
                    var repairs = StrictRepairs(kinds: app.repairs)
                    repairs.knowsCalendarZones = false
                    _ = repairs.repair(record) { rule, message in add(rule, message) }
                }
            case .thunderbird, .caldav:
                break
            }
            for (index, subtask) in record.subtasks.enumerated() {
                visit(subtask, path: (path.isEmpty ? "" : path + ".") + "subtasks[\(index)]")
            }
        }
        visit(record, path: "")
        return found
    }

    /// What `app` will do with what the reader noticed in an .ics file (`warning`): a
    /// malformed line, a structure repaired, an unknown zone, a missing or repeated UID.
    public static func findings(for warning: Diagnostic, app: CalendarApp) -> [AppFinding] {
        func finding(_ rule: AppRule) -> [AppFinding] {
            [AppFinding(rule: rule, location: warning.location, message: warning.message)]
        }
        switch (app, warning.code) {
        case (.apple, .malformedLine), (.apple, .unreadableValue), (.apple, .structure):
            return finding(appleMalformedLine)
        case (.thunderbird, .structure), (.thunderbird, .malformedLine):
            return finding(thunderbirdStructure)
        case (.outlook, .unknownTimeZone):
            return finding(outlookUndeclaredZone)
        case (.caldav, .noUID):
            return finding(caldavMissingUID)
        case (.caldav, .duplicateUID):
            return finding(caldavDuplicateUID)
        case (.caldav, .unreadableValue):
            return finding(caldavBadValue)
        case (.any, .notConverted), (.any, .componentSkipped):
            return finding(anyKeptComponent)
        default:
            return []
        }
    }

    /// What `app` will do with a whole file of `bytes` bytes.
    public static func findings(forFile file: String, bytes: Int, app: CalendarApp)
        -> [AppFinding]
    {
        guard app == .google, bytes > 1_000_000 else { return [] }
        return [
            AppFinding(
                rule: googleFileSize, location: Location(file: file),
                message:
                    "\(bytes) bytes, over 1 MB: convert with --split-size 1MB and import the parts")
        ]
    }
}
