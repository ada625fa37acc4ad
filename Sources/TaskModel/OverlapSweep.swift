import HeapModule

/// A half-open interval `[start, finish)` in Unix seconds.
public struct TimeSpan: Sendable, Hashable, Comparable {
    public var start: Int64
    public var finish: Int64

    /// Creates `[start, finish)`.
    public init(start: Int64, finish: Int64) {
        self.start = start
        self.finish = finish
    }

    /// An interval that contains no instant (start == finish) overlaps nothing.
    public var isEmpty: Bool { finish <= start }

    /// Whether the two half-open intervals share an instant: 14:00–15:00 and 15:00–16:00 do not.
    public func overlaps(_ other: TimeSpan) -> Bool {
        start < other.finish && other.start < finish
    }

    /// The shared part, if any.
    public func intersection(_ other: TimeSpan) -> TimeSpan? {
        let shared = TimeSpan(start: max(start, other.start), finish: min(finish, other.finish))
        return shared.isEmpty ? nil : shared
    }

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool {
        (lhs.start, lhs.finish) < (rhs.start, rhs.finish)
    }
}

/// One overlap found by ``OverlapSweep``: indices into the input, the earlier-starting first.
public struct Overlap: Sendable, Hashable {
    public var first: Int
    public var second: Int
    /// The time both occupy.
    public var shared: TimeSpan

    /// Creates an overlap of `first` and `second` during `shared`.
    public init(first: Int, second: Int, shared: TimeSpan) {
        self.first = first
        self.second = second
        self.shared = shared
    }
}

/// Finds every pair of intersecting intervals with a sweep over the intervals sorted by start.
///
/// The intervals still running are kept in a min-heap by finish: when the sweep reaches a
/// start, every interval that finished at or before it leaves the heap, and each one left
/// overlaps the new interval. That is O(n log n) for sorting and the heap, plus the work of
/// writing the k pairs (sorted within each group, so the report comes out in a stable order),
/// instead of comparing all n² pairs.
public enum OverlapSweep {
    private struct Running: Comparable {
        var finish: Int64
        var rank: Int
        static func < (lhs: Running, rhs: Running) -> Bool {
            (lhs.finish, lhs.rank) < (rhs.finish, rhs.rank)
        }
    }

    /// Every overlapping pair of `spans`, in the order the overlaps begin (ties: by the
    /// earlier interval). Empty intervals overlap nothing.
    public static func overlaps(_ spans: [TimeSpan]) -> [Overlap] {
        overlaps(spans, limit: Int.max).pairs
    }

    /// The first `limit` overlapping pairs of `spans` (in the order of
    /// ``overlaps(_:)-([TimeSpan])``) and how many there are in all.
    ///
    /// Counting needs no pairs: when the sweep reaches a start, each interval still running
    /// overlaps it, so the count grows by the heap's size. 5,000 entries in one slot make
    /// 12,497,500 pairs, counted in milliseconds and never held in memory.
    ///
    /// `apart`, when given, names a group for each span (`-1`: none): pairs of two spans of
    /// one group are neither listed nor counted (a series whose occurrences overlap one
    /// another, said once by the report instead of pair by pair).
    public static func overlaps(_ spans: [TimeSpan], apart groups: [Int]? = nil, limit: Int)
        -> (pairs: [Overlap], total: Int)
    {
        var result: [Overlap] = []
        let total = sweep(spans, apart: groups, limit: limit) { result.append($0) }
        return (result, total)
    }

    /// Hands every overlapping pair of `spans` to `body` as the sweep finds it, in the order
    /// of ``overlaps(_:)-([TimeSpan])``, holding none: a list of millions of pairs written
    /// out costs the memory of the running intervals only. Returns how many pairs there were.
    /// `apart` as for ``overlaps(_:apart:limit:)``. An error `body` throws ends the sweep.
    @discardableResult
    public static func forEachOverlap(
        _ spans: [TimeSpan], apart groups: [Int]? = nil, _ body: (Overlap) throws -> Void
    ) rethrows -> Int {
        try sweep(spans, apart: groups, limit: Int.max, body)
    }

    /// The sweep: the first `limit` pairs to `emit`, and the count of all, leaving out pairs
    /// within one group of `groups`. The running members of each group are counted, so the
    /// total needs no look at them; listing looks only at the running spans of the other
    /// groups (``RunningByGroup``): a series whose hundred thousand occurrences all overlap
    /// one another and one entry besides costs its pairs with that entry, not the square of
    /// its occurrences (a 500-byte file took 6 s of CPU, issue 55's deep check).
    private static func sweep(
        _ spans: [TimeSpan], apart groups: [Int]?, limit: Int, _ emit: (Overlap) throws -> Void
    ) rethrows -> Int {
        precondition(groups.map { $0.count == spans.count } ?? true)
        let order = spans.indices.filter { !spans[$0].isEmpty }.sorted {
            (spans[$0].start, spans[$0].finish, $0) < (spans[$1].start, spans[$1].finish, $1)
        }
        var running = Heap<Running>()
        var emitted = 0
        var total = 0
        var group: [Int] = []
        let groupCount = (groups?.max() ?? -1) + 1
        var runningInGroup = [Int](repeating: 0, count: groupCount)
        // Slot `groupCount`: the spans of no group, which pair with one another too.
        var listed = RunningByGroup(slots: groupCount + 1, spans: order.count)
        func slot(_ index: Int) -> Int {
            guard let groups, groups[index] >= 0 else { return groupCount }
            return groups[index]
        }
        for (rank, index) in order.enumerated() {
            let span = spans[index]
            while let earliest = running.min, earliest.finish <= span.start {
                running.removeMin()
                if let groups, case let gone = groups[order[earliest.rank]], gone >= 0 {
                    runningInGroup[gone] -= 1
                }
                if emitted < limit {
                    listed.remove(earliest.rank, from: slot(order[earliest.rank]))
                }
            }
            let mine = groups?[index] ?? -1
            total += running.count - (mine >= 0 ? runningInGroup[mine] : 0)
            defer {
                running.insert(Running(finish: span.finish, rank: rank))
                if mine >= 0 { runningInGroup[mine] += 1 }
                if emitted < limit { listed.insert(rank, into: slot(index)) }
            }
            guard emitted < limit else { continue }
            group.removeAll(keepingCapacity: true)
            listed.append(into: &group, except: mine >= 0 ? mine : nil)
            group.sort()
            for otherRank in group.prefix(limit - emitted) {
                let other = order[otherRank]
                try emit(
                    Overlap(
                        first: other, second: index,
                        shared: TimeSpan(
                            start: span.start, finish: min(span.finish, spans[other].finish))))
                emitted += 1
            }
        }
        return total
    }

    /// The running spans (by rank) of each group, and which groups have any: insert and
    /// remove in constant time, and the spans of all groups but one listed in time linear in
    /// them and in the groups that have any.
    private struct RunningByGroup {
        private var members: [[Int]]
        /// Where each rank is in its group's members.
        private var position: [Int]
        /// The groups with running members, and where each group is in it.
        private var active: [Int] = []
        private var activePosition: [Int]

        init(slots: Int, spans: Int) {
            members = Array(repeating: [], count: slots)
            position = Array(repeating: -1, count: spans)
            activePosition = Array(repeating: -1, count: slots)
        }

        mutating func insert(_ rank: Int, into slot: Int) {
            position[rank] = members[slot].count
            members[slot].append(rank)
            if members[slot].count == 1 {
                activePosition[slot] = active.count
                active.append(slot)
            }
        }

        mutating func remove(_ rank: Int, from slot: Int) {
            let at = position[rank]
            let last = members[slot].removeLast()
            if last != rank {
                members[slot][at] = last
                position[last] = at
            }
            guard members[slot].isEmpty else { return }
            let gone = activePosition[slot]
            let moved = active.removeLast()
            if moved != slot {
                active[gone] = moved
                activePosition[moved] = gone
            }
        }

        /// Appends the running ranks of every group but `excluded`.
        func append(into list: inout [Int], except excluded: Int?) {
            for slot in active where slot != excluded { list += members[slot] }
        }
    }
}

extension OverlapSweep {
    private struct Latest {
        var finish: Int64
        var index: Int
    }

    /// Which owners meet: for each pair of different owners whose intervals overlap, one
    /// overlap at the first instant the two meet, at most `limit` pairs, in the order they
    /// meet. Only pairs where at least one interval is `watched` count.
    ///
    /// `owners[i]` and `watched[i]` describe `spans[i]`. The sweep keeps, per owner, only the
    /// running interval that finishes last: an owner meets a new interval exactly when that one
    /// is still running. So a series whose occurrences overlap each other by the hundred
    /// thousand costs one entry, not the square of its occurrences, and the pairs held are
    /// bounded by `limit`. `complete` is false when the limit cut the list short.
    public static func ownerOverlaps(
        _ spans: [TimeSpan], owners: [Int64], watched: [Bool], limit: Int
    ) -> (pairs: [Overlap], complete: Bool) {
        precondition(spans.count == owners.count && spans.count == watched.count)
        let order = spans.indices.filter { !spans[$0].isEmpty }.sorted {
            (spans[$0].start, spans[$0].finish, $0) < (spans[$1].start, spans[$1].finish, $1)
        }
        var running = Heap<Running>()
        // The running interval that finishes last, per owner, kept apart for watched intervals.
        var latestWatched: [Int64: Latest] = [:]
        var latestOther: [Int64: Latest] = [:]
        var reported = Set<[Int64]>()
        var result: [Overlap] = []
        var met: [Overlap] = []
        for (rank, index) in order.enumerated() {
            let span = spans[index]
            while let earliest = running.min, earliest.finish <= span.start {
                running.removeMin()
                let gone = order[earliest.rank]
                let owner = owners[gone]
                if watched[gone] {
                    if latestWatched[owner]?.index == gone { latestWatched[owner] = nil }
                } else if latestOther[owner]?.index == gone {
                    latestOther[owner] = nil
                }
            }
            let owner = owners[index]
            met.removeAll(keepingCapacity: true)
            func meet(_ latest: [Int64: Latest]) {
                for (other, kept) in latest where other != owner {
                    let key = other < owner ? [other, owner] : [owner, other]
                    guard !reported.contains(key) else { continue }
                    met.append(
                        Overlap(
                            first: kept.index, second: index,
                            shared: TimeSpan(
                                start: span.start, finish: min(span.finish, kept.finish))))
                }
            }
            meet(latestWatched)
            if watched[index] { meet(latestOther) }
            // Dictionary order differs between runs; the report must not.
            met.sort { (spans[$0.first], $0.first) < (spans[$1.first], $1.first) }
            for overlap in met {
                let other = owners[overlap.first]
                guard reported.insert(other < owner ? [other, owner] : [owner, other]).inserted
                else { continue }
                guard result.count < limit else { return (result, false) }
                result.append(overlap)
            }
            if watched[index] {
                if span.finish > latestWatched[owner]?.finish ?? Int64.min {
                    latestWatched[owner] = Latest(finish: span.finish, index: index)
                    running.insert(Running(finish: span.finish, rank: rank))
                }
            } else if span.finish > latestOther[owner]?.finish ?? Int64.min {
                latestOther[owner] = Latest(finish: span.finish, index: index)
                running.insert(Running(finish: span.finish, rank: rank))
            }
        }
        return (result, true)
    }
}
