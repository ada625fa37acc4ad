import ICalendar
import Testing

@Suite("Recurrence rules through libical's iterator, bounded")
struct RecurrenceRuleTests {
    static let monday = DateTimeValue(year: 2026, month: 1, day: 5, hour: 9, zone: .utc)

    @Test("a rule ended by its COUNT is whole, however little work the window leaves it")
    func countEndsBeforeWork() throws {
        // The work for 5 occurrences reaches a few years; the window reaches the year 9999.
        let window = Self.monday.epochAsUTC..<253_402_300_800
        let (starts, cut) = try RecurrenceRule.occurrences(
            of: "FREQ=DAILY;COUNT=3", start: Self.monday, zone: nil, in: window, limit: 5)
        #expect(starts.count == 3)
        #expect(cut == false)
        // Without an end it is cut, and says so.
        let (endless, endlessCut) = try RecurrenceRule.occurrences(
            of: "FREQ=DAILY", start: Self.monday, zone: nil, in: window, limit: 5)
        #expect(endless.count == 5)
        #expect(endlessCut)
    }

    @Test("whether a rule gives its own start (calcurse refuses a start it does not)")
    func generatesStart() {
        #expect(RecurrenceRule.generatesStart("FREQ=WEEKLY;BYDAY=MO", start: Self.monday) == true)
        #expect(RecurrenceRule.generatesStart("FREQ=WEEKLY;BYDAY=WE", start: Self.monday) == false)
        #expect(
            RecurrenceRule.generatesStart("FREQ=MONTHLY;BYMONTHDAY=5", start: Self.monday) == true)
        #expect(
            RecurrenceRule.generatesStart("FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", start: Self.monday)
                == false)
        // Not told: more often than daily, or unreadable.
        #expect(RecurrenceRule.generatesStart("FREQ=HOURLY", start: Self.monday) == nil)
        #expect(RecurrenceRule.generatesStart("FREQ=NEVER", start: Self.monday) == nil)
    }
}
