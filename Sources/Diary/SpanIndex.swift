import TaskModel

/// Time spans with owners, of which some are active: "which active span overlaps this one?"
/// in O(log n), for the collision checks of an import.
///
/// The spans are fixed when the index is made and sorted by start; a segment tree over that
/// order holds the latest finish of the active spans under each node. A span `s` overlaps an
/// active span exactly when, among the active spans that start before `s` finishes, one
/// finishes after `s` starts: a prefix maximum, then a descent to the leftmost such span.
/// Checking an import of n spans is O(n log n), where comparing every pair was O(n²) and
/// listing every overlapping pair (5,000 records in one slot: 12.5 million) took gigabytes.
struct SpanIndex {
    private let starts: [Int64]
    private let finishes: [Int64]
    /// Owner of each span, in start order.
    private let owners: [Int]
    /// Positions (in start order) of each owner's spans.
    private var positionsByOwner: [Int: [Int]] = [:]
    private var tree: [Int64]
    private let size: Int

    /// An index of `spans` (empty spans, which overlap nothing, are left out), all inactive.
    init(_ spans: [(span: TimeSpan, owner: Int)]) {
        let sorted = spans.filter { !$0.span.isEmpty }.sorted {
            ($0.span.start, $0.span.finish, $0.owner) < ($1.span.start, $1.span.finish, $1.owner)
        }
        starts = sorted.map(\.span.start)
        finishes = sorted.map(\.span.finish)
        owners = sorted.map(\.owner)
        var size = 1
        while size < max(sorted.count, 1) { size *= 2 }
        self.size = size
        tree = [Int64](repeating: Int64.min, count: 2 * size)
        for (position, owner) in owners.enumerated() {
            positionsByOwner[owner, default: []].append(position)
        }
    }

    /// Makes every span of `owner` active.
    mutating func activate(_ owner: Int) {
        for position in positionsByOwner[owner] ?? [] {
            var node = position + size
            tree[node] = finishes[position]
            node /= 2
            while node >= 1 {
                tree[node] = max(tree[2 * node], tree[2 * node + 1])
                node /= 2
            }
        }
    }

    /// The owner of the earliest-starting active span that overlaps `span`, and that span.
    func firstOverlap(with span: TimeSpan) -> (owner: Int, span: TimeSpan)? {
        guard !span.isEmpty else { return nil }
        // Spans at positions before `end` start before `span` finishes.
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < span.finish { low = middle + 1 } else { high = middle }
        }
        guard
            let position = leftmost(
                finishingAfter: span.start, before: low, node: 1,
                range: 0..<size)
        else { return nil }
        return (owners[position], TimeSpan(start: starts[position], finish: finishes[position]))
    }

    /// The smallest position below `end` whose active span finishes after `instant`.
    private func leftmost(
        finishingAfter instant: Int64, before end: Int, node: Int, range: Range<Int>
    )
        -> Int?
    {
        guard range.lowerBound < end, tree[node] > instant else { return nil }
        if range.count == 1 { return range.lowerBound }
        let middle = (range.lowerBound + range.upperBound) / 2
        return leftmost(
            finishingAfter: instant, before: end, node: 2 * node, range: range.lowerBound..<middle)
            ?? leftmost(
                finishingAfter: instant, before: end, node: 2 * node + 1,
                range: middle..<range.upperBound)
    }
}
