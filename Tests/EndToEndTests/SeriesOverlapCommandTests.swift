import Foundation
import Testing

/// Seven lines of calendar that once made 7 GB of overlap report: an endless rule every
/// minute, each occurrence four hours long (issue 57).
private let everyMinute = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//test//EN\r
    BEGIN:VEVENT\r
    RRULE:FREQ=MINUTELY;INTERVAL=1\r
    SUMMARY:RDATE period\r
    DTSTART:19961230T020000Z\r
    DTEND:19961230T060000Z\r
    UID:rdate_period\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

@Suite("A series whose occurrences overlap one another is one finding")
struct SeriesOverlapCommandTests {
    @Test("the every-minute series: one line of text, one JSON item, exit 1")
    func everyMinuteSeries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("it.ics", everyMinute)
        let text = try cli.run(["overlaps", "it.ics", "--tz", "UTC"])
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.stdout.utf8.count < 1_000, "\(text.stdout.prefix(2_000))")
        #expect(text.stdout.contains("1 repeating entry whose occurrences overlap one another:"))
        #expect(
            text.stdout.contains(
                "\"RDATE period\" #1 (it.ics:4): each occurrence overlaps up to the next 239 (4 h each, one every 1 min)"
            ), "\(text.stdout)")
        #expect(text.stdout.contains("No other overlaps"))

        let json = try cli.run(["overlaps", "it.ics", "--format", "json"])
        #expect(json.status == 1)
        #expect(json.stdout.utf8.count < 1_000, "\(json.stdout.prefix(2_000))")
        let items = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item["uid"] as? String == "rdate_period")
        #expect(item["overlaps_next"] as? Int == 239)
        let count = try #require(item["occurrences"] as? Int)
        #expect(item["overlapping_pairs"] as? Int == 239 * (count - 239) + 239 * 238 / 2)
        #expect((item["series"] as? [String: Any])?["name"] as? String == "RDATE period")
        #expect(item["overlap_start"] as? String == "851911260")  // 1996-12-30T02:01Z

        // Asked for, the pairs are there, counted the same (listed up to the limit).
        let pairs = try cli.run([
            "overlaps", "it.ics", "--format", "json", "--series-pairs", "--max-pairs", "3",
        ])
        let counted = try #require(
            try JSONSerialization.jsonObject(with: Data(pairs.stdout.utf8)) as? [String: Any])
        #expect(counted["total"] as? Int == item["overlapping_pairs"] as? Int)
        #expect(counted["listed"] as? Int == 3)
        #expect(counted["series"] as? Int == 0)
    }

    @Test("a daily entry of 25 hours and a meeting: the series once, the meeting's pairs listed")
    func seriesBesideEntries() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "week.ics",
            """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:shift\r
            DTSTART:20261201T080000Z\r
            DTEND:20261202T090000Z\r
            RRULE:FREQ=DAILY;COUNT=5\r
            SUMMARY:Long shift\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:meeting\r
            DTSTART:20261202T083000Z\r
            DTEND:20261202T100000Z\r
            SUMMARY:Meeting\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let json = try cli.run(["overlaps", "week.ics", "--format", "json"])
        #expect(json.status == 1, "\(json.stderr)")
        let items = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 3, "\(json.stdout)")
        // The series first: five occurrences, each meeting the next for an hour.
        #expect(items.first?["uid"] as? String == "shift")
        #expect(items.first?["overlapping_pairs"] as? Int == 4)
        #expect(items.first?["overlaps_next"] as? Int == 1)
        // The meeting overlaps two occurrences (the first's last half hour, the second's
        // first ninety minutes): listed as pairs, as any two entries.
        let pairs = items.dropFirst().map {
            (
                ($0["first"] as? [String: Any])?["name"] as? String ?? "",
                ($0["second"] as? [String: Any])?["name"] as? String ?? ""
            )
        }
        #expect(pairs.allSatisfy { $0.0 == "Meeting" || $0.1 == "Meeting" }, "\(pairs)")

        let text = try cli.run(["overlaps", "week.ics", "--tz", "UTC"])
        #expect(text.stdout.contains("\"Long shift\" #"), "\(text.stdout)")
        #expect(
            text.stdout.contains(
                "each occurrence overlaps up to the next 1 (25 h each, one every 24 h)"))
        #expect(text.stdout.contains("2 overlaps among 6 entries"), "\(text.stdout)")

        // --series-pairs lists the shift's own four pairs too: six in all.
        let all = try cli.run(["overlaps", "week.ics", "--format", "json", "--series-pairs"])
        let every = try #require(
            try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(every.count == 6)
        #expect(every.allSatisfy { $0["first"] != nil })
    }

    @Test("in Russian too")
    func russian() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write("it.ics", everyMinute)
        let text = try cli.run(
            ["overlaps", "it.ics", "--tz", "UTC"], environment: ["LANG": "ru_RU.UTF-8"])
        #expect(text.status == 1)
        #expect(
            text.stdout.contains("пересекается не более чем с 239 следующими"), "\(text.stdout)")
        #expect(text.stdout.contains("Других пересечений нет"), "\(text.stdout)")
    }
}
