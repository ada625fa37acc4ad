// What the diary benchmarks (SQLite and PostgreSQL) measure alike: the same entries, the same
// refused adds, the same clock.
import Diary
import Foundation
import TaskModel

/// Seconds `body` takes.
public func seconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Entry `index` of a benchmark diary: half an hour at the start of hour `index`.
public func entry(_ index: Int) -> TaskRecord {
    TaskRecord(
        id: 0, dateStart: Int64(index) * 3600, dateFinish: Int64(index) * 3600 + 1800,
        name: "entry \(index)")
}

/// Seconds for `probes` adds into `diary` (holding the first `count` of ``entry(_:)``) that
/// each collide with one entry; every one must be refused.
public func refusedAdds(_ diary: any DiaryStore, count: Int, probes: Int) -> Double {
    var refused = 0
    let time = seconds {
        for probe in 0..<probes {
            let index = (probe * 7919) % count
            do {
                _ = try diary.add(
                    TaskRecord(
                        id: 0, dateStart: Int64(index) * 3600 + 600,
                        dateFinish: Int64(index) * 3600 + 900, name: "x"))
            } catch {
                refused += 1
            }
        }
    }
    precondition(refused == probes, "every probe must be refused")
    return time
}

/// Seconds for reading `probes` entries by id, the same ids ``refusedAdds(_:count:probes:)``
/// collides with.
public func lookups(_ diary: any DiaryStore, count: Int, probes: Int) throws -> Double {
    try seconds {
        for probe in 0..<probes { _ = try diary.entry(Int64((probe * 7919) % count + 1)) }
    }
}
