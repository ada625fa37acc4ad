import CLibical

extension Component {
    /// The end of an event: `DTEND`, or `DTSTART` + `DURATION` computed by libical in the
    /// start's zone (so `P1D` across a daylight-saving change is a calendar day), or `nil`
    /// when the component has neither. The corresponding libical function is
    /// `icalcomponent_get_dtend`.
    public func end() throws(ICalendarError) -> ResolvedDateTime? {
        if let dtend = firstProperty(named: "DTEND") { return try dtend.dateTime() }
        guard let duration = firstProperty(named: "DURATION"),
            let start = firstProperty(named: "DTSTART")
        else { return nil }
        let time = icalcomponent_get_dtend(pointer)
        return try ResolvedDateTime(
            time, tzid: start.parameter("TZID"), property: "DURATION", line: duration.lineNumber)
    }
}
