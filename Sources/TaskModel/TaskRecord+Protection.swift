/// Protected entries: a private or confidential record that a diary keeps sealed.
///
/// A sealed record is a *shell* that keeps in the clear what the diary needs without the key
/// (its id, UID, times, zone, repetition, status, whether it is done, when its alarms fire
/// and whom an email alarm goes to, so that overlaps are still refused and reminders still
/// ring) and is named ``TaskRecord/sealedName``; everything else (name, description, place,
/// people, links, attachments, the alarms' texts, subtasks' names, verbatim lines) is in one
/// encrypted `X-TASKCAL-SEALED` line of its ``TaskRecord/icalExtra``, which every backend
/// stores and every calendar app keeps as an unknown property. TaskModel knows the shape; the
/// Diary module does the cryptography.
extension TaskRecord {
    /// What a sealed record is called where its name would be.
    public static let sealedName = "(private)"
    /// The property whose value is a sealed record's encrypted text.
    public static let sealedProperty = "X-TASKCAL-SEALED"

    /// Whether the record asks to be protected: `"private": true`, `"class": "private"` or
    /// `"confidential"` (`CLASS:PRIVATE`, `CLASS:CONFIDENTIAL`).
    public var isProtected: Bool { isConfidential }

    /// The sealed text of a sealed record (the value of its `X-TASKCAL-SEALED` line).
    public var sealedText: String? {
        let prefix = Self.sealedProperty + ":"
        return icalExtra.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Whether the record is a sealed shell.
    public var isSealed: Bool { sealedText != nil }

    /// The record as a sealed shell keeps it, without its sealed text: what the diary may
    /// show and check without the key. Subtasks keep their ids, times and whether they are
    /// done; alarms keep when and how they fire.
    public var protectedShell: TaskRecord {
        // The times as a redacted export keeps them, and what the diary needs besides.
        var shell = redacted()
        shell.name = Self.sealedName
        shell.done = done
        shell.classification = classification
        // An alarm keeps when and how it fires, and whom an email alarm goes to (RFC 5545
        // requires recipients), not what it says.
        shell.alarms = alarms.map { alarm in
            Alarm(
                action: alarm.action, trigger: alarm.trigger, attendees: alarm.attendees,
                repeatCount: alarm.repeatCount, repeatInterval: alarm.repeatInterval,
                enabled: alarm.enabled)
        }
        shell.subtasks = subtasks.map(\.protectedShell)
        return shell
    }

    /// `shell` with its sealed text added: the record a diary stores.
    public static func sealed(_ shell: TaskRecord, text: String) -> TaskRecord {
        var record = shell
        record.icalExtra = ["\(sealedProperty):\(text)"]
        return record
    }

    /// Whether everything of the record but its sealed text is what its shell keeps: no text
    /// of its own in the clear (so it may be stored without the key).
    public var isBareShell: Bool {
        var bare = self
        bare.icalExtra.removeAll { $0.hasPrefix(Self.sealedProperty + ":") }
        return bare == bare.protectedShell
    }

    /// `opened`, the record a sealed text held, brought up to date with what may have
    /// changed in the clear since it was sealed (`self`, the shell): times, zone, repetition,
    /// status, done, the alarms' timing (by position) and the subtasks' (by id).
    public func unsealed(with opened: TaskRecord) -> TaskRecord {
        var record = opened
        record.id = id
        record.uid = uid
        record.dateStart = dateStart
        record.dateFinish = dateFinish
        record.allDay = allDay
        record.status = status
        record.free = free
        record.kind = kind
        record.unscheduled = unscheduled
        record.due = due
        record.done = done
        record.timeZone = timeZone
        record.floating = floating
        record.recurrence = recurrence
        record.recurrenceID = recurrenceID
        record.thisAndFuture = thisAndFuture
        record.classification = classification
        for (key, value) in icalParameters where Self.timeProperties.contains(key) {
            record.icalParameters[key] = value
        }
        for key in Self.timeProperties where icalParameters[key] == nil {
            record.icalParameters[key] = nil
        }
        var alarms: [Alarm] = []
        for (index, timing) in self.alarms.enumerated() {
            var alarm = index < opened.alarms.count ? opened.alarms[index] : timing
            alarm.action = timing.action
            alarm.trigger = timing.trigger
            alarm.repeatCount = timing.repeatCount
            alarm.repeatInterval = timing.repeatInterval
            alarm.enabled = timing.enabled
            alarm.attendees = timing.attendees
            alarms.append(alarm)
        }
        record.alarms = alarms
        record.subtasks = subtasks.map { shell in
            opened.subtasks.first { $0.id == shell.id }.map { shell.unsealed(with: $0) } ?? shell
        }
        return record
    }

    /// The properties whose parameters a shell keeps: its times'.
    static let timeProperties: Set<String> = [
        "DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE",
    ]
}

extension TaskRecord {
    /// `whole` (an unsealed record) with the text `self` (its shell as read, edited without
    /// the key) was given in the clear: each field that is no longer what a shell shows
    /// replaces the sealed one.
    public func clearEdits(over whole: TaskRecord) -> TaskRecord {
        var record = whole
        let shell = protectedShell
        if name != shell.name { record.name = name }
        if description != shell.description { record.description = description }
        if location != shell.location { record.location = location }
        if categories != shell.categories { record.categories = categories }
        if color != shell.color { record.color = color }
        if url != shell.url { record.url = url }
        if organizer != shell.organizer { record.organizer = organizer }
        if attendees != shell.attendees { record.attendees = attendees }
        if attachments != shell.attachments { record.attachments = attachments }
        if icalComponents != shell.icalComponents { record.icalComponents = icalComponents }
        let extra = icalExtra.filter { !$0.hasPrefix(Self.sealedProperty + ":") }
        if !extra.isEmpty { record.icalExtra = extra }
        for (index, alarm) in alarms.enumerated() where index < record.alarms.count {
            if alarm.description != nil { record.alarms[index].description = alarm.description }
            if alarm.summary != nil { record.alarms[index].summary = alarm.summary }
            if alarm.sound != nil { record.alarms[index].sound = alarm.sound }
        }
        for subtask in subtasks {
            guard let index = record.subtasks.firstIndex(where: { $0.id == subtask.id }) else {
                continue
            }
            record.subtasks[index] = subtask.clearEdits(over: record.subtasks[index])
        }
        return record
    }
}
