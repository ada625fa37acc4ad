import PropertyBased
import TaskModel
import Testing

@testable import Reports

/// Occurrences on a small grid, some of no length, sorted as a series' are.
private let occurrences = zip(Gen.int64(in: 0...40), Gen.int64(in: 0...10)).map { start, length in
    TimeSpan(start: start * 600, finish: (start + length) * 600)
}.array(of: 2...50).map { spans in spans.filter { !$0.isEmpty }.sorted() }

@Suite("A series that overlaps itself, measured")
struct SeriesOverlapTests {
    @Test("pairs, the most later occurrences one meets, and the time shared: as a brute force")
    func measureMatchesBruteForce() async {
        await propertyCheck(count: 400, input: occurrences) { spans in
            var pairs = 0
            var mostNext = 0
            var shared: TimeSpan?
            for i in spans.indices {
                var next = 0
                for j in spans.indices where j > i {
                    guard let both = spans[i].intersection(spans[j]) else { continue }
                    next += 1
                    shared = TimeSpan(
                        start: min(shared?.start ?? .max, both.start),
                        finish: max(shared?.finish ?? .min, both.finish))
                }
                pairs += next
                mostNext = max(mostNext, next)
            }
            let found = SeriesOverlap.measure(spans, first: 7)
            guard pairs > 0, spans.count > 1 else {
                #expect(found == nil)
                return
            }
            #expect(found?.pairs == pairs)
            #expect(found?.mostNext == mostNext)
            #expect(found?.shared == shared)
            #expect(found?.occurrences == spans.count)
            #expect(found?.entry == 7)
            #expect(found?.length == spans[0].finish - spans[0].start)
            #expect(found?.step == spans[1].start - spans[0].start)
        }
    }

    @Test("100,000 occurrences of four hours every minute: counted, not listed")
    func everyMinute() {
        let spans = (0..<100_000).map { minute -> TimeSpan in
            TimeSpan(start: Int64(minute) * 60, finish: Int64(minute) * 60 + 4 * 3_600)
        }
        let found = SeriesOverlap.measure(spans, first: 0)
        #expect(found?.mostNext == 239)
        // Each overlaps the next 239, but the last 239 fewer: 238, 237, … 0.
        #expect(found?.pairs == 239 * (100_000 - 239) + 239 * 238 / 2)
        #expect(found?.shared == TimeSpan(start: 60, finish: 99_998 * 60 + 4 * 3_600))
    }
}
