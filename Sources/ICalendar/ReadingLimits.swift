/// The limits that keep reading bounded in time and memory whatever the input holds.
///
/// Each is a named constant so that the README, the error messages and the tests say the same
/// thing; the reader's own properties (``ICalendarReader/maximumLineLength`` …) start from
/// these and a command-line flag may raise them where a real user could need more.
public enum ReadingLimits {
    /// The longest content line, folded or not: 256 MiB. An inline attachment is one line,
    /// and some exporters write it unfolded; lines are read in linear time.
    public static let lineLength = 256 << 20
    /// The deepest `BEGIN` nesting: 12 (a calendar, an event and an alarm are 3).
    public static let depth = 12
    /// The most `STANDARD` and `DAYLIGHT` blocks one `VTIMEZONE` may have: 100 (real zones
    /// written in full have a few dozen).
    public static let zoneObservances = 100
    /// The most onset dates (`RDATE`) one `VTIMEZONE` may list: 2,000.
    public static let zoneDates = 2_000
}
