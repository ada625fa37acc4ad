import Foundation
import TaskModel
import Testing

@testable import Diary

@Suite("Moving a habit moves its changes by the wall-clock distance")
struct SeriesMoveTests {
    /// 2026-03-20 (a Friday) 08:00 in Europe/Berlin, before the clocks change on the 29th.
    let march20 = Int64(1_773_990_000)
    let day = Int64(86_400)

    func habit(_ rule: String, exdates: [Int64]) -> TaskRecord {
        var record = TaskRecord(
            id: 1, dateStart: march20, dateFinish: march20 + 3_600, name: "Gym")
        record.timeZone = "Europe/Berlin"
        record.recurrence = Recurrence(rule: rule, exdates: exdates, rdates: [])
        return record
    }

    @Test("across a daylight-saving change, an exception and a skipped day keep their local time")
    func acrossDaylightSaving() {
        // Weekly from 20 March 08:00 (UTC+1); 1 May 08:00 is UTC+2, so 06:00Z.
        let may1 = march20 + 42 * day - 3_600
        let old = habit("FREQ=WEEKLY", exdates: [may1])
        var change = TaskRecord(
            id: 1, dateStart: may1 + 7 * day + 7_200, dateFinish: may1 + 7 * day + 10_800,
            name: "Gym, later")
        change.timeZone = "Europe/Berlin"
        change.recurrenceID = may1 + 7 * day
        // Moved two weeks later, to 3 April 08:00 (UTC+2 by then): 14 days less an hour in
        // UTC, exactly 14 days on the wall clock.
        var new = old
        new.dateStart = march20 + 14 * day - 3_600
        new.dateFinish = new.dateStart + 3_600
        let (series, changes) = Rules.moving(from: old, to: new, changes: [change])
        #expect(series.recurrence?.exdates == [may1 + 14 * day])
        #expect(changes.map(\.recurrenceID) == [may1 + 21 * day])
        #expect(changes.map(\.dateStart) == [may1 + 21 * day + 7_200])
        #expect(changes.map(\.dateFinish) == [may1 + 21 * day + 10_800])
    }

    @Test("exdates the edit set itself, a change of one occurrence and an unmoved start stay")
    func leftAlone() {
        let old = habit("FREQ=DAILY", exdates: [5])
        var new = old
        new.dateStart += 600
        new.recurrence?.exdates = [7]
        #expect(Rules.moving(from: old, to: new, changes: []).series.recurrence?.exdates == [7])
        var renamed = old
        renamed.name = "Run"
        #expect(Rules.moving(from: old, to: renamed, changes: []).series == renamed)
    }
}
