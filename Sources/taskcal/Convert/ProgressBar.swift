import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

/// A progress line on standard error: files and records done, rate, time left.
final class ProgressBar: Sendable {
    let enabled: Bool
    private let total: Int
    private let state: Locked<(records: Int, lastDraw: ContinuousClock.Instant?)>
    private let start = ContinuousClock.now

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        self.state = Locked((0, nil))
    }

    func update(done: Int, records: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let line: String? = state.withLock { state in
            state.records += records
            if let last = state.lastDraw, now - last < .milliseconds(100), done < total {
                return nil
            }
            state.lastDraw = now
            let elapsed =
                Double((now - start).components.seconds) + Double(
                    (now - start).components.attoseconds) / 1e18
            let rate = elapsed > 0 ? Double(state.records) / elapsed : 0
            let left = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
            let width = 24
            let filled = total == 0 ? width : width * done / total
            return "\r[" + String(repeating: "=", count: filled)
                + String(repeating: " ", count: width - filled) + "] "
                + Localization.message(
                    "\(done)/\(total) files, \(state.records) records, \(Int(rate)) records/s, \(Int(left)) s left"
                ) + "  "
        }
        if let line { Console.standardError(line) }
    }

    func finish() {
        if enabled { Console.standardError("\n") }
    }
}
