import Foundation
import TaskConversion
import TaskModel

/// A series whose occurrences overlap one another: one finding, not a pair for every two
/// occurrences. A rule every minute with four-hour occurrences makes 100,000 occurrences and
/// 24 million pairs, which no one reads; "every occurrence overlaps the next 239" says it.
public struct SeriesOverlap: Sendable, Hashable {
    /// The series' first occurrence, an index into the report's entries.
    public var entry: Int
    /// Its occurrences (of some length) in the report.
    public var occurrences: Int
    /// How many pairs of its occurrences overlap.
    public var pairs: Int
    /// The most later occurrences one occurrence overlaps.
    public var mostNext: Int
    /// From the first instant two of its occurrences share to the last.
    public var shared: TimeSpan
    /// The length of the first occurrence, in seconds.
    public var length: Int64
    /// From the first occurrence's start to the second's, in seconds.
    public var step: Int64

    /// The series among `entries` whose occurrences overlap one another, in the order their
    /// overlaps begin, and for each entry the index of its series among them (`-1`: none),
    /// as ``OverlapSweep/overlaps(_:apart:limit:)`` takes it. Occurrences of one series are
    /// the entries of one record: the same id read at the same place.
    ///
    /// Per series, sorted by start, occurrence `i` overlaps exactly the later ones that start
    /// before it ends: a binary search counts them, so a series of any size costs
    /// O(n log n), whatever the number of its pairs.
    public static func find(in entries: [ReportEntry]) -> (series: [SeriesOverlap], groups: [Int]) {
        struct Key: Hashable {
            var id: Int64
            var source: Location
        }
        var members: [Key: [Int]] = [:]
        for (index, entry) in entries.enumerated() where !entry.span.isEmpty {
            members[Key(id: entry.id, source: entry.source), default: []].append(index)
        }
        var found: [SeriesOverlap] = []
        var foundMembers: [[Int]] = []
        for (_, indices) in members where indices.count > 1 {
            let sorted = indices.sorted {
                (entries[$0].span.start, entries[$0].span.finish, $0)
                    < (entries[$1].span.start, entries[$1].span.finish, $1)
            }
            let spans = sorted.map { entries[$0].span }
            guard let series = measure(spans, first: sorted[0]) else { continue }
            found.append(series)
            foundMembers.append(sorted)
        }
        // Dictionary order differs between runs; the report must not.
        let order = found.indices.sorted {
            (found[$0].shared.start, found[$0].entry) < (found[$1].shared.start, found[$1].entry)
        }
        var groups = [Int](repeating: -1, count: entries.count)
        for (number, position) in order.enumerated() {
            for index in foundMembers[position] { groups[index] = number }
        }
        return (order.map { found[$0] }, groups)
    }

    /// The finding for one series' spans (sorted by start, none empty), or nil when no two
    /// of them overlap.
    static func measure(_ spans: [TimeSpan], first: Int) -> SeriesOverlap? {
        var pairs = 0
        var mostNext = 0
        var sharedStart = Int64.max
        var sharedFinish = Int64.min
        var latestFinish = Int64.min
        for (position, span) in spans.enumerated() {
            // The later occurrences starting before this one ends: a binary search.
            var low = position + 1
            var high = spans.count
            while low < high {
                let middle = (low + high) / 2
                if spans[middle].start < span.finish { low = middle + 1 } else { high = middle }
            }
            let next = low - position - 1
            pairs += next
            mostNext = max(mostNext, next)
            // This one meets an earlier one when an earlier one is still running: they
            // share from its start to the earlier of the two ends.
            if latestFinish > span.start {
                sharedStart = min(sharedStart, span.start)
                sharedFinish = max(sharedFinish, min(span.finish, latestFinish))
            }
            latestFinish = max(latestFinish, span.finish)
        }
        guard pairs > 0 else { return nil }
        return SeriesOverlap(
            entry: first, occurrences: spans.count, pairs: pairs, mostNext: mostNext,
            shared: TimeSpan(start: sharedStart, finish: sharedFinish),
            length: spans[0].finish - spans[0].start, step: spans[1].start - spans[0].start)
    }

    /// One finding as JSON: `{"series": RECORD, "uid": …, "occurrences": N,
    /// "overlapping_pairs": N, "overlaps_next": N, "overlap_start": "…", "overlap_finish":
    /// "…"}`; RECORD is the first occurrence, `uid` there only when the series has one.
    func write(of entries: [ReportEntry], to writer: inout JSONWriter) {
        writer.begin()
        writer.key("series")
        entries[entry].write(to: &writer)
        if let uid = entries[entry].uid { writer.field("uid", string: uid) }
        writer.field("occurrences", number: Int64(occurrences))
        writer.field("overlapping_pairs", number: Int64(pairs))
        writer.field("overlaps_next", number: Int64(mostNext))
        writer.field("overlap_start", numberString: shared.start)
        writer.field("overlap_finish", numberString: shared.finish)
        writer.end()
    }

    /// For people: `"Stand-up" #1 (work.ics:12): each occurrence overlaps up to the next 239
    /// (4 h each, one every 1 min): 23,879,880 overlapping pairs of 100,000 occurrences, not
    /// listed (--series-pairs lists them)`.
    func text(of entries: [ReportEntry], style: some ReportStyle) -> String {
        let first = entries[entry]
        return "  " + style.conflict("\"\(first.displayName)\"") + " #\(first.id) "
            + style.faint("(\(first.source))") + ": "
            + say(
                "each occurrence overlaps up to the next %@ (%@ each, one every %@): %@ overlapping pair%@ of %@ occurrences, not listed (--series-pairs lists them)",
                OverlapReport.grouped(mostNext), Self.seconds(length), Self.seconds(step),
                OverlapReport.grouped(pairs), pairs == 1 ? "" : "s",
                OverlapReport.grouped(occurrences)) + "\n"
    }

    /// A length in seconds as the report says lengths (`4 h`, `1 min`, `25 h`, `30 s`).
    static func seconds(_ value: Int64) -> String {
        value % 60 == 0 || value >= 3_600 ? OverlapReport.duration(value / 60) : say("%@ s", value)
    }
}
