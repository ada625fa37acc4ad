extension TaskRecord {
    /// The record without what no report of times reads: its id, UID, name, kind, status,
    /// class, times, zone and recurrence stay (what ``occupiesTime`` and the reports' entries
    /// need); description, attachments, alarms, people, subtasks and the iCalendar extras go.
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
        slim.icalParameters = [:]
        slim.icalExtra = []
        slim.icalComponents = []
        return slim
    }

    /// Whether the record is its own ``timeSkeleton`` already (as a reader of
    /// ``TaskJSON/Reading/timesOnly`` gives it), so that no copy need be made.
    public var isTimeSkeleton: Bool {
        description == nil && attachments.isEmpty && alarms.isEmpty && subtasks.isEmpty
            && location == nil && categories.isEmpty && color == nil && url == nil
            && organizer == nil && attendees.isEmpty && icalParameters.isEmpty
            && icalExtra.isEmpty && icalComponents.isEmpty
    }

    /// The JSON fields of what ``timeSkeleton`` leaves out: a reader that wants skeletons
    /// checks their syntax only and never builds them (``TaskJSON/Reading/timesOnly``).
    static let untimedFields: Set<String> = [
        "description", "attachments", "alarms", "subtasks", "location", "categories", "color",
        "url", "organizer", "attendees", "ical_parameters", "ical_extra", "ical_components",
    ]
}
