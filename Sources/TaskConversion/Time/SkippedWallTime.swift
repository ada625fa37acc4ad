import ICalendar
import TaskModel

/// A `DTSTART` written at a wall-clock time its zone skips: 02:30 on the night the clocks go
/// from 02:00 to 03:00.
///
/// RFC 5545 §3.3.5 reads such a time with the offset before the gap, so the event starts at
/// 03:30, the instant `date_start` holds. A rule still steps from the time as written: the
/// next day's occurrence is at 02:30, which exists then. The instant alone cannot say which
/// was written (03:30 names it too), so the reader keeps the written time in
/// `ical_parameters` (`"DTSTART": "X-TASKCAL-WALL-TIME=20240331T023000"`); the expansion steps
/// from it and the writer writes it back, never as a parameter. A `date_start` changed since
/// no longer matches it, and it is then ignored.
enum SkippedWallTime {
    static let parameter = "X-TASKCAL-WALL-TIME"

    /// The parameter to keep for `written`, read as `epoch` in `zone`, when the zone skips
    /// that wall-clock time; `nil` when it exists.
    static func parameter(for written: DateTimeValue, epoch: Int64, in zone: CalendarZone)
        -> String?
    {
        guard !written.isDate, zone != .utc,
            zone.local(epoch).epochAsUTC != written.epochAsUTC
        else { return nil }
        return "\(parameter)=\(text(written))"
    }

    /// The wall-clock time `record`'s `DTSTART` was written at in `zone`, when it kept one
    /// that still names its `date_start` there.
    static func start(of record: TaskRecord, in zone: CalendarZone) -> DateTimeValue? {
        guard let kept = record.icalParameters["DTSTART"], kept.contains(parameter),
            let value = ParameterText.parse(kept)?.first(where: { $0.name == parameter })?.value,
            var written = wallTime(value)
        else { return nil }
        written.zone = zone.local(record.dateStart).zone
        return zone.epoch(of: written) == record.dateStart ? written : nil
    }

    /// `20240331T023000`.
    private static func text(_ value: DateTimeValue) -> String {
        func digits(_ number: Int, _ count: Int) -> String {
            let text = String(number)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(value.year, 4) + digits(value.month, 2) + digits(value.day, 2) + "T"
            + digits(value.hour, 2) + digits(value.minute, 2) + digits(value.second, 2)
    }

    private static func wallTime(_ text: String) -> DateTimeValue? {
        let bytes = Array(text.utf8)
        guard bytes.count == 15, bytes[8] == UInt8(ascii: "T"),
            bytes.indices.allSatisfy({ $0 == 8 || (0x30...0x39).contains(bytes[$0]) })
        else { return nil }
        func number(_ offset: Int, _ count: Int) -> Int {
            Int(String(decoding: bytes[offset..<(offset + count)], as: UTF8.self)) ?? 0
        }
        let value = DateTimeValue(
            year: number(0, 4), month: number(4, 2), day: number(6, 2), hour: number(9, 2),
            minute: number(11, 2), second: number(13, 2), zone: .floating)
        return value.rangeProblem == nil ? value : nil
    }
}
