import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

let timeForms =
    "expected Unix seconds or ISO 8601 such as 2026-11-22, 2026-11-22T14:00, 2026-11-22T14:00Z or 2026-11-22T14:00+03:00"

/// `YYYY-MM-DD`, `today` or `tomorrow` in `time`'s zone.
func dayWord(_ text: String, time: LocalTime) -> LocalTime.Day? {
    let today = time.day(of: Int64(Date().timeIntervalSince1970))
    switch text {
    case "today": return today
    case "tomorrow": return today.next
    case "yesterday": return today.adding(days: -1)
    default: return LocalTime.Day(text)
    }
}

/// `text` as an instant in `time`'s zone: Unix seconds, ISO 8601, or a day (`YYYY-MM-DD`,
/// `today`, `tomorrow`, `yesterday`) from its midnight; `option` names it in the error.
func instant(_ text: String, option: String, time: LocalTime) throws -> Int64 {
    guard let value = time.parse(text) ?? dayWord(text, time: time).map({ time.epoch($0) })
    else { throw ValidationError("\(option) '\(text)' is not a time; \(timeForms)") }
    return value
}
