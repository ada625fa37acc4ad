import PropertyBased
import TaskModel
import Testing

/// The obvious O(n²) answer the sweep must agree with.
private func bruteForce(_ spans: [TimeSpan]) -> Set<Overlap> {
    var result = Set<Overlap>()
    for i in spans.indices {
        for j in spans.indices
        where i != j && spans[i].overlaps(spans[j]) && !spans[i].isEmpty && !spans[j].isEmpty {
            // The sweep names the earlier-starting entry first (ties: shorter, then input order).
            let (first, second) =
                (spans[i].start, spans[i].finish, i) < (spans[j].start, spans[j].finish, j)
                ? (i, j) : (j, i)
            result.insert(
                Overlap(first: first, second: second, shared: spans[i].intersection(spans[j])!))
        }
    }
    return result
}

/// Intervals on a small grid, so identical, nested, adjacent and zero-length ones are common.
private let span = zip(Gen.int64(in: 0...60), Gen.int64(in: 0...12)).map { start, length in
    TimeSpan(start: start * 900, finish: (start + length) * 900)
}

@Suite("The overlap sweep")
struct OverlapSweepTests {
    @Test("agrees with a brute-force check on random intervals")
    func matchesBruteForce() async {
        await propertyCheck(count: 300, input: span.array(of: 0...60)) { spans in
            let found = OverlapSweep.overlaps(spans)
            #expect(Set(found) == bruteForce(spans))
            #expect(found.count == Set(found).count, "no pair twice")
        }
    }

    @Test("pairs within one group are neither listed nor counted; the rest as without groups")
    func apart() async {
        let grouped = zip(span, Gen.int(in: -1...2)).array(of: 0...60)
        await propertyCheck(count: 300, input: grouped) { items in
            let spans = items.map(\.0)
            let groups = items.map(\.1)
            let expected = bruteForce(spans).filter {
                groups[$0.first] < 0 || groups[$0.first] != groups[$0.second]
            }
            let (found, total) = OverlapSweep.overlaps(spans, apart: groups, limit: .max)
            #expect(Set(found) == expected)
            #expect(total == expected.count)
            // In the order of the sweep without groups, those pairs left out.
            #expect(found == OverlapSweep.overlaps(spans).filter { expected.contains($0) })
            let (capped, cappedTotal) = OverlapSweep.overlaps(spans, apart: groups, limit: 3)
            #expect(capped == Array(found.prefix(3)))
            #expect(cappedTotal == total)
            var streamed: [Overlap] = []
            #expect(
                OverlapSweep.forEachOverlap(spans, apart: groups) { streamed.append($0) } == total)
            #expect(streamed == found)
        }
    }

    @Test("thousands of intervals at once")
    func large() {
        var generator = SplitMix(seed: 42)
        let spans = (0..<3000).map { _ -> TimeSpan in
            let start = Int64(generator.next() % 20_000) * 60
            return TimeSpan(start: start, finish: start + Int64(generator.next() % 8) * 900)
        }
        #expect(Set(OverlapSweep.overlaps(spans)) == bruteForce(spans))
    }

    @Test("half-open: back-to-back entries do not overlap; zero-length entries overlap nothing")
    func edges() {
        let spans = [
            TimeSpan(start: 0, finish: 3600), TimeSpan(start: 3600, finish: 7200),
            TimeSpan(start: 1800, finish: 1800),
            TimeSpan(start: 0, finish: 3600),
        ]
        let found = OverlapSweep.overlaps(spans)
        #expect(found == [Overlap(first: 0, second: 3, shared: TimeSpan(start: 0, finish: 3600))])
    }

    @Test("nested entries share the inner one's time")
    func nested() {
        let found = OverlapSweep.overlaps([
            TimeSpan(start: 0, finish: 10_000), TimeSpan(start: 100, finish: 200),
        ])
        #expect(found.map(\.shared) == [TimeSpan(start: 100, finish: 200)])
    }
}

@Suite("Which owners meet")
struct OwnerOverlapTests {
    @Test("the pairs of owners and the instant they first meet agree with a brute-force check")
    func matchesBruteForce() async {
        let owned = zip(span, zip(Gen.int64(in: 0...5), Gen.bool))
        await propertyCheck(count: 300, input: owned.array(of: 0...40)) { items in
            let spans = items.map(\.0)
            let owners = items.map(\.1.0)
            let watched = items.map(\.1.1)
            var expected: [[Int64]: Int64] = [:]
            for overlap in bruteForce(spans)
            where owners[overlap.first] != owners[overlap.second]
                && (watched[overlap.first] || watched[overlap.second])
            {
                let key = [owners[overlap.first], owners[overlap.second]].sorted()
                expected[key] = min(expected[key] ?? .max, overlap.shared.start)
            }
            let (found, complete) = OverlapSweep.ownerOverlaps(
                spans, owners: owners, watched: watched, limit: .max)
            #expect(complete)
            var met: [[Int64]: Int64] = [:]
            for overlap in found {
                #expect(spans[overlap.first].overlaps(spans[overlap.second]))
                #expect(owners[overlap.first] != owners[overlap.second])
                met[[owners[overlap.first], owners[overlap.second]].sorted()] = overlap.shared.start
            }
            #expect(found.count == met.count, "each pair of owners once")
            #expect(met == expected)
            #expect(found.map(\.shared.start) == found.map(\.shared.start).sorted())
        }
    }

    @Test("one owner's 100,000 mutually overlapping intervals cost one entry, and the limit holds")
    func oneOwnerOverlappingItself() {
        // Weekly occurrences a year long: each overlaps the 52 before it.
        var spans = (0..<100_000).map {
            TimeSpan(start: Int64($0) * 604_800, finish: Int64($0) * 604_800 + 31_536_000)
        }
        var owners = [Int64](repeating: 1, count: spans.count)
        var watched = [Bool](repeating: true, count: spans.count)
        for index in 0..<50 {
            spans.append(TimeSpan(start: Int64(index) * 86_400, finish: Int64(index) * 86_400 + 60))
            owners.append(Int64(index + 2))
            watched.append(false)
        }
        let all = OverlapSweep.ownerOverlaps(spans, owners: owners, watched: watched, limit: .max)
        #expect(all.complete && all.pairs.count == 50)
        let some = OverlapSweep.ownerOverlaps(spans, owners: owners, watched: watched, limit: 10)
        #expect(!some.complete && some.pairs.count == 10)
        #expect(some.pairs == Array(all.pairs.prefix(10)))
    }
}

/// A small deterministic generator for the large test.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
