import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

struct Overlaps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlaps",
        abstract: tr("Report every pair of entries whose times overlap."),
        discussion: tr(
            """
            Reads JSON, NDJSON and .ics files (several at once, mixed) and lists every pair of \
            entries whose half-open intervals intersect, with the time they share: 14:00–15:00 and \
            15:00–16:00 do not overlap; entries of no length overlap nothing. Cancelled entries \
            and those that show as free (.ics STATUS:CANCELLED, TRANSP:TRANSPARENT) are left out \
            unless --include-free. Of JSON records only what the report shows (ids, names, times, \
            zones, repetition, status) is checked; taskcal validate checks the rest. Exit code 1 \
            when any overlap exists, 0 when none, 2 on bad input.

            Examples:
              taskcal overlaps diary.json work.ics
              taskcal overlaps export.ics --from 2026-12-01 --to 2026-12-08 \\
                  --tz Europe/Berlin
              taskcal overlaps diary.ndjson --format json | jq '.[].overlap_start'
            """)
    )

    @Argument(help: .taskFiles) var inputs: [String] = []

    @OptionGroup var options: ReportInputs

    @OptionGroup var window: WindowOption<OverlapWindow>

    @Flag(help: .tr("Count cancelled entries and those that show as free too."))
    var includeFree = false

    @Option(
        help: ArgumentHelp(
            tr("List at most this many overlapping pairs (all are counted)."),
            discussion:
                tr(
                    "The text report lists 10,000 unless told otherwise and ends with \"… and N more\" past them. The JSON report lists every pair unless told: given --max-pairs, it is an object that says whether it is whole, {\"listed\": M, \"total\": N, \"truncated\": true, \"overlaps\": [PAIR, …]}."
                ),
            valueName: "n"))
    var maxPairs: Int?

    @Flag(
        help: ArgumentHelp(
            tr("List the pairs of a repeating entry's own occurrences too."),
            discussion: tr(
                "A repeating entry whose occurrences overlap one another (an event every minute that lasts four hours, a daily one of 25 hours) is one finding: how many occurrences each overlaps and how many pairs that makes. This lists every such pair instead, as for two different entries."
            )))
    var seriesPairs = false

    @Flag(help: .hidden) var timing = false

    func validate() throws {
        _ = try window.lower(in: options.time)
        _ = try window.upper(in: options.time)
        if let maxPairs, maxPairs < 1 {
            throw ValidationError("--max-pairs must be at least 1")
        }
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var entries: [ReportEntry] = []
        let time = options.time
        let lower = try window.lower(in: time) ?? Timestamp.range.lowerBound
        let upper = try window.upper(in: time) ?? Timestamp.range.upperBound
        let expansionWindow = window.isBounded ? lower..<max(lower, upper) : nil
        try options.read(inputs, window: expansionWindow, timesOnly: true) { record, location in
            if includeFree || record.occupiesTime || record.dateFinish == record.dateStart {
                entries.append(ReportEntry(record, source: location, time: time))
            }
        }
        let read = clock.now
        let readPeak = timing ? Self.peakMemory() : ""
        let shown = window.isBounded ? TimeSpan(start: lower, finish: upper) : nil
        let out = try ReportPrinter(
            options, inputs: inputs,
            advice:
                "or list fewer pairs with --max-pairs N (all are counted), or a shorter window with --from and --to"
        )
        // Machine output is whole unless the user set a limit, and then says so inside itself.
        if options.format == .json && maxPairs == nil {
            let total = try OverlapReport.writeAllJSON(
                entries: entries, window: shown, seriesPairs: seriesPairs,
                bytes: out.write(bytes:))
            try out.finish()
            if timing {
                timingNote(started: started, read: read, readPeak: readPeak, entries, total)
            }
            if total > 0 { throw ExitCode(1) }
            return
        }
        let report = OverlapReport(
            entries: entries, window: shown, limit: maxPairs ?? OverlapReport.defaultLimit,
            seriesPairs: seriesPairs)
        let found = clock.now
        if options.output.isPicture {
            try Pictures.write(
                options.output, title: tr("Overlaps"), [report.svg(in: time)],
                table: report.table(in: time), to: out)
            if report.total > 0 || !report.series.isEmpty { throw ExitCode(1) }
            return
        }
        // The pairs listed are held already (at most --max-pairs): a write past the limit
        // stops the report at the end of the listing.
        var failure: Error?
        switch options.format {
        case .json:
            report.countedJSON(bytes: { bytes in
                guard failure == nil else { return }
                do { try out.write(bytes: bytes) } catch { failure = error }
            })
            if let failure { throw failure }
            try out.finish()
            if report.unlisted > 0 {
                Console.note(
                    "warning: listed the first \(report.overlaps.count) of \(report.total) overlapping pairs; list more with --max-pairs"
                )
            }
        case .text:
            report.text(
                in: time, style: Style.forStandardOutput(),
                to: { text in
                    guard failure == nil else { return }
                    do { try out.write(text) } catch { failure = error }
                })
            if let failure { throw failure }
            try out.finish()
        }
        if timing {
            timingNote(
                started: started, read: read, readPeak: readPeak, entries, report.total,
                found: found)
        }
        if report.total > 0 || !report.series.isEmpty { throw ExitCode(1) }
    }
}

extension Overlaps {
    /// `--timing`: how long reading, finding and writing took, and the memory they needed
    /// (finding and writing apart when `found` says when finding ended).
    func timingNote(
        started: ContinuousClock.Instant, read: ContinuousClock.Instant, readPeak: String,
        _ entries: [ReportEntry], _ total: Int, found: ContinuousClock.Instant? = nil
    ) {
        let now = ContinuousClock.now
        if let found {
            Console.note(
                "timing: read \(read - started) (peak memory \(readPeak)), overlaps \(found - read), output \(now - found) (peak memory \(Self.peakMemory())); \(entries.count) entries, \(total) overlaps"
            )
        } else {
            Console.note(
                "timing: read \(read - started) (peak memory \(readPeak)), overlaps and output \(now - read) (peak memory \(Self.peakMemory())); \(entries.count) entries, \(total) overlaps"
            )
        }
    }

    /// The process's peak resident memory so far (`VmHWM` of /proc/self/status), for --timing.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.dropFirst(6).filter(\.isNumber))
        else { return "unknown" }
        return "\(kilobytes / 1024) MB"
    }
}
