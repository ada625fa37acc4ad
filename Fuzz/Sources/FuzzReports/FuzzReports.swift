import Foundation
import FuzzSupport
import Reports
import TaskConversion
import TaskModel

/// The reports: .ics or JSON (chosen by the first byte) read as the report commands read it,
/// repeating entries expanded in a window the input chooses (bytes 1–4; the content starts at
/// byte 8, as FuzzExpand's, whose seeds it shares), then every report
/// made and written as text and JSON: overlaps (its series findings, the pairs listed and the
/// whole stream of pairs up to a budget), the day's agenda, the month, the free time and the
/// statistics by day. What the fuzzer looks for besides crashes and leaks is work or output
/// that grows past the input: an input that takes more than FUZZ_TIMEOUT seconds is a finding.
@_cdecl("FuzzReports_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    FuzzDriver.run(argc, argv) { bytes in
        guard bytes.count > 8 else { return }
        let format: Format = bytes[0] % 2 == 0 ? .ics : .json
        // A window of up to about four years somewhere between 1970 and 2100.
        let start = (Int64(bytes[1]) << 16 | Int64(bytes[2]) << 8 | Int64(bytes[3])) * 244
        let length = max(Int64(bytes[4]) * 500_000, 86_400)
        guard let time = try? LocalTime(zone: "Europe/Berlin") else { return }
        var options = ReadOptions(floatingZone: "Europe/Berlin")
        options.reading = .timesOnly
        // Under AddressSanitizer an occurrence costs far more than in the release CLI, whose
        // full limit Benchmarks/hostile.py and BoundedOutputTests measure.
        options.expansion = Expansion(window: start..<(start + length), limit: 2_000)
        var entries: [ReportEntry] = []
        var records: [TaskRecord] = []
        _ = Converter.read(
            bytes: Array(bytes[8...]), name: "input", format: format, options: options
        ) { record, location in
            entries.append(ReportEntry(record, source: location, time: time))
            if records.count < 5_000 { records.append(record) }
        }
        let window = TimeSpan(start: start, finish: start + length)
        let style = PlainStyle()

        let overlaps = OverlapReport(entries: entries, window: window, limit: 1_000)
        _ = overlaps.json()
        _ = overlaps.text(in: time, style: style)
        // The stream of every pair, stopped by a budget as the CLI's --max-output stops it.
        struct Full: Error {}
        var written = 0
        _ = try? OverlapReport.writeAllJSON(entries: entries, window: window, workers: 1) {
            written += $0.count
            if written > 4 << 20 { throw Full() }
        }

        let day = time.day(of: start)
        let agenda = Agenda(day: day, time: time, records: records)
        _ = agenda.json()
        _ = agenda.text(style: style)

        let month = MonthView(
            year: day.year, month: day.month, time: time,
            records: records.map { time.occupied(by: $0) }, today: nil)
        _ = month.json()
        _ = month.text(style: style)

        let free = FreeTime(
            busy: records.filter(\.occupiesTime).map { time.occupied(by: $0) }, window: window,
            time: time, limit: 1_000)
        _ = free.json()
        _ = free.text(in: time, style: style)

        let statistics = Statistics(
            entries: records.map {
                Statistics.Entry(
                    span: time.occupied(by: $0), occupies: $0.occupiesTime,
                    categories: $0.categories, habit: nil, cancelled: $0.status == .cancelled,
                    done: $0.done)
            }, todos: [], skipped: 0, window: window, time: time, grouping: .day, now: start)
        _ = statistics.json()
        _ = statistics.text(in: time, style: style)
    }
}
