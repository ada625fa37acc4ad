import ICalendar
import TaskModel

/// What taskcal keeps as written so that nothing is lost, and the strictest readers refuse:
/// the repairs `convert --for any` makes (and, of them, what a profile's app needs), each one
/// a rule with a stable code that says which reader needed it.
extension AppRules {
    public static let anyKeptComponent = AppRule(
        code: "any-kept-component", app: .any, effect: .drops,
        summary:
            "a component kept as written (an event without DTSTART, a superseded revision, VFREEBUSY, VAVAILABILITY) is left out",
        source: "RFC 5545 section 3.6.1; refused by vobject, Radicale, khal and calcurse")
    public static let anyEmptyValue = AppRule(
        code: "any-empty-value", app: .any, effect: .drops,
        summary:
            "a property without a value (LOCATION:, RDATE:), or a text of only spaces, is left out",
        source: "RFC 5545 section 3.1; libical: 'No value for … property'")
    public static let anyPropertyName = AppRule(
        code: "any-property-name", app: .any, effect: .changes,
        summary:
            "a property named as libical 3.0 cannot read (RFC 9253 LINK, a vendor's EVENT-ID without X-) is written as X-NAME",
        source: "libical 3.0: 'Parse error in property name'")
    public static let anyBinaryImage = AppRule(
        code: "any-binary-image", app: .any, effect: .changes,
        summary: "an IMAGE of inline data (RFC 7986) is written as a data: URI (RFC 2397)",
        source: "Radicale (vobject): 'bytes' object has no attribute 'encode'")
    public static let anyLoneChange = AppRule(
        code: "any-lone-change", app: .any, effect: .changes,
        summary:
            "changed occurrences whose series is not in the output are written as a series of their own (the first an event, the others its RDATEs)",
        source: "Radicale: 'Main component missing'; taskcal reads it as that one occurrence")
    public static let anyImpossibleDate = AppRule(
        code: "any-impossible-date", app: .any, effect: .drops,
        summary: "a date no reader can hold (year 0, a 13th month) is left out",
        source: "Python icalendar (strict): 'Wrong datetime format'; vobject")
    public static let anyExtraRepeat = AppRule(
        code: "any-extra-repeat", app: .any, effect: .changes,
        summary:
            "RDATE;VALUE=PERIOD, a second RRULE and a bounded EXRULE become plain RDATEs and EXDATEs (a period's own length: a changed occurrence)",
        source: "Radicale and khal: 'PERIOD not supported by used vobject'; khal: a second RRULE")
    public static let anyRuleForm = AppRule(
        code: "any-rule-form", app: .any, effect: .changes,
        summary:
            "a rule is rewritten to the form every reader takes: UNTIL in the type of DTSTART, UNTIL without COUNT, names in capitals",
        source: "RFC 5545 section 3.3.10; calcurse: 'invalid until format', 'either until or count'"
    )
    public static let anyEndType = AppRule(
        code: "any-end-type", app: .any, effect: .changes,
        summary: "DTEND or DUE is written in the type of DTSTART (a DATE for an all-day entry)",
        source: "RFC 5545 section 3.8.2.2; calcurse: 'invalid end time value type'; khal, Radicale")
    public static let anyRuleStart = AppRule(
        code: "any-rule-start", app: .any, effect: .changes,
        summary:
            "a DTSTART its rule does not give becomes an RDATE, and the series starts where the rule does",
        source: "RFC 5545 section 3.3.10; calcurse: 'rrule does not match start day'")
    public static let anyRuleLeftOut = AppRule(
        code: "any-rule-left-out", app: .any, effect: .drops,
        summary:
            "a rule no reader can read (FREQ=INVALID, UNTL=, RSCALE), or a second rule without an end, is left out",
        source: "libical, Python icalendar, khal and Radicale refuse the file")
    public static let anyLoneExdate = AppRule(
        code: "any-lone-exdate", app: .any, effect: .drops,
        summary: "an EXDATE of an entry that does not repeat is left out",
        source: "calcurse: 'exception date, but no recurrence rule'")
    public static let anyZoneName = AppRule(
        code: "any-zone-name", app: .any, effect: .changes,
        summary:
            "a TZID that is no IANA name is written as the IANA zone whose offsets agree with its VTIMEZONE at every time the entry uses (else in UTC, when that keeps its occurrences); a TZID nothing defines is left out, the time written as it was read",
        source:
            "Home Assistant (ical): 'Expected DATE-TIME TZID value … to be a valid timezone'; Google Calendar takes IANA names only"
    )
    public static let anyEmptyCalendar = AppRule(
        code: "any-empty-calendar", app: .any, effect: .refuses,
        summary:
            "a calendar with no event, to-do or journal entry left is not written (an error): readers refuse it",
        source: "CalDAV servers and strict readers: 'Calendar must contain at least one component'")

    /// The repairs, in the order `lint --for any` lists them.
    static let strict: [AppRule] = [
        anyKeptComponent, anyEmptyValue, anyPropertyName, anyBinaryImage, anyImpossibleDate,
        anyExtraRepeat,
        anyRuleForm,
        anyEndType, anyRuleStart, anyRuleLeftOut, anyLoneExdate, anyLoneChange, anyZoneName,
        anyEmptyCalendar,
    ]
}
