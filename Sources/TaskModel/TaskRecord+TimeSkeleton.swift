extension TaskRecord {
    /// The record without what no report of times reads: its id, UID, name, kind, status,
    /// class, times, zone and recurrence stay (what ``occupiesTime`` and the reports' entries
    /// need), with the iCalendar lines kept as written that say when it happens (a second
    /// `RRULE`, an `EXRULE`, an `RDATE` of periods, `SEQUENCE`) and the parameters of
    /// `DTSTART` (a wall-clock time the zone skips); description, attachments, alarms, people,
    /// subtasks and the other iCalendar extras go.
    public var timeSkeleton: TaskRecord {
        var slim = self
        slim.description = nil
        slim.attachments = []
        slim.alarms = []
        slim.subtasks = []
        slim.location = nil
        slim.categories = []
        slim.color = nil
        slim.url = nil
        slim.organizer = nil
        slim.attendees = []
        if !slim.icalParameters.isEmpty {
            slim.icalParameters = slim.icalParameters.filter { $0.key == "DTSTART" }
        }
        if !slim.icalExtra.isEmpty { slim.icalExtra = slim.icalExtra.filter(Self.saysWhen) }
        slim.icalComponents = []
        return slim
    }

    /// Whether a line kept as written says when the record happens.
    static func saysWhen(_ line: String) -> Bool {
        guard let first = line.utf8.first else { return false }
        switch first | 0x20 {
        case UInt8(ascii: "r"), UInt8(ascii: "e"), UInt8(ascii: "s"):
            let head = line.prefix(8).uppercased()
            return head.hasPrefix("RRULE") || head.hasPrefix("EXRULE") || head.hasPrefix("RDATE")
                || head.hasPrefix("SEQUENCE")
        default: return false
        }
    }

    /// Whether the record is its own ``timeSkeleton`` already (as a reader of
    /// ``TaskJSON/Reading/timesOnly`` gives it), so that no copy need be made.
    public var isTimeSkeleton: Bool {
        description == nil && attachments.isEmpty && alarms.isEmpty && subtasks.isEmpty
            && location == nil && categories.isEmpty && color == nil && url == nil
            && organizer == nil && attendees.isEmpty
            && icalParameters.keys.allSatisfy { $0 == "DTSTART" }
            && icalExtra.allSatisfy(Self.saysWhen) && icalComponents.isEmpty
    }

    /// The JSON fields of what ``timeSkeleton`` leaves out: a reader that wants skeletons
    /// checks their syntax only and never builds them (``TaskJSON/Reading/timesOnly``).
    /// `ical_extra` and `ical_parameters` are read: some of their lines say when the record
    /// happens.
    static let untimedFields: Set<String> = [
        "description", "attachments", "alarms", "subtasks", "location", "categories", "color",
        "url", "organizer", "attendees", "ical_components",
    ]
}
