import Foundation
import ICalendar
import Testing

/// Why these checks are skipped here, and how to get what they need.
let zoneinfoMissing =
    "python3 with zoneinfo is not available (Python 3.9 or later, and apt-get install tzdata)"

/// Python's zoneinfo on this machine, run once: every zone's offsets twice a year 1970–2037.
private let reference: [String: [[Int64]]]? = {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/zone_offsets.py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let zones = object["zones"] as? [String: [[NSNumber]]]
    else { return nil }
    return zones.mapValues { $0.map { $0.map(\.int64Value) } }
}()

@Suite("System zones: the tz database every other program uses")
struct SystemZoneTests {
    @Test(
        "every zone agrees with Python's zoneinfo twice a year from 1970 to 2037, both ways",
        .enabled(if: reference != nil, "\(zoneinfoMissing)"))
    func everyZoneAgrees() throws {
        var checked = 0
        var disagreements: [String] = []
        for (name, rows) in (reference ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let zone = SystemZone.named(name) else {
                disagreements.append("\(name): not found")
                continue
            }
            for row in rows {
                let (instant, offset, noon) = (row[0], row[1], row[2])
                if Int64(zone.offset(at: instant)) != offset {
                    disagreements.append(
                        "\(name) at \(instant): \(zone.offset(at: instant)) vs \(offset)")
                }
                // 12:00 local on the same day, read back to an instant.
                let localNoon = (noon + Int64(zone.offset(at: noon)))
                if zone.epoch(ofLocal: localNoon) != noon {
                    disagreements.append("\(name) noon \(noon): \(zone.epoch(ofLocal: localNoon))")
                }
                checked += 1
            }
        }
        #expect(checked > 70_000)
        #expect(disagreements.isEmpty, "\(disagreements.count): \(disagreements.prefix(10))")
    }

    @Test(
        "the VTIMEZONE written for every zone, read back by libical, says what the system says",
        .enabled(if: reference != nil, "\(zoneinfoMissing)"))
    func writtenZonesAgree() throws {
        var disagreements: [String] = []
        var largest = (name: "", bytes: 0)
        for name in (reference ?? [:]).keys.sorted() {
            let system = try #require(SystemZone.named(name))
            let text = system.vtimezone().serialized()
            if text.utf8.count > largest.bytes { largest = (name, text.utf8.count) }
            let reader = ICalendarReader(
                text: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + text
                    + "END:VCALENDAR\r\n")
            while try reader.next() != nil {}
            let zone = try CalendarZone(defining: try #require(reader.timeZones.first))
            for year in 1970...2037 {
                for month in [1, 4, 7, 10] {
                    let instant =
                        DateTimeValue(year: year, month: month, day: 15, hour: 12, zone: .utc)
                        .epochAsUTC
                    if zone.offset(at: instant) != system.offset(at: instant) {
                        disagreements.append("\(name) \(year)-\(month)")
                    }
                    let local = instant + Int64(system.offset(at: instant))
                    if zone.epoch(ofLocal: local) != system.epoch(ofLocal: local) {
                        disagreements.append("\(name) \(year)-\(month) local")
                    }
                }
            }
        }
        print("largest VTIMEZONE: \(largest.name), \(largest.bytes) bytes")
        #expect(disagreements.isEmpty, "\(disagreements.count): \(disagreements.prefix(10))")
    }

    @Test(
        "a VTIMEZONE for one year's dates, read back by libical, says what the system says that year",
        .enabled(if: reference != nil, "\(zoneinfoMissing)"))
    func trimmedZonesAgree() throws {
        var disagreements: [String] = []
        var checked = 0
        for name in (reference ?? [:]).keys.sorted() {
            let system = try #require(SystemZone.named(name))
            // Past 2100, where the zone is written as the rules it keeps then: the years of a
            // file of one far date once gave an empty VTIMEZONE.
            for year in [1972, 1978, 1995, 2011, 2014, 2016, 2022, 2026, 2036, 2099, 2100, 2160] {
                let instants = [1, 3, 4, 7, 10, 11, 12].map {
                    DateTimeValue(year: year, month: $0, day: 15, hour: 12, zone: .utc).epochAsUTC
                }
                let text = system.vtimezone(covering: instants[2]...instants[3]).serialized()
                let reader = ICalendarReader(
                    text: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + text
                        + "END:VCALENDAR\r\n")
                while try reader.next() != nil {}
                let zone = try CalendarZone(defining: try #require(reader.timeZones.first))
                for instant in instants {
                    let local = instant + Int64(system.offset(at: instant))
                    if zone.offset(at: instant) != system.offset(at: instant)
                        || zone.epoch(ofLocal: local) != system.epoch(ofLocal: local)
                    {
                        disagreements.append("\(name) \(year) at \(instant)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 30_000)
        #expect(disagreements.isEmpty, "\(disagreements.count): \(disagreements.prefix(10))")
    }

    @Test("a VTIMEZONE for recent dates holds the rules in force, as calendar apps write it")
    func trimmedZoneIsSmall() throws {
        let july2025 = DateTimeValue(year: 2025, month: 7, day: 1, zone: .utc).epochAsUTC
        let berlin = try #require(SystemZone.named("Europe/Berlin"))
            .vtimezone(covering: july2025...july2025)
        let observances = berlin.subcomponents()
        #expect(observances.count == 2, "\(berlin.serialized())")
        let text = berlin.serialized()
        // From the last change before the year, and on without end.
        #expect(
            text.contains("DTSTART:20241027T030000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\n"))
        #expect(
            text.contains("DTSTART:20250330T020000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\n"))
        // Moscow has kept one offset since 2014: one observance.
        let moscow = try #require(SystemZone.named("Europe/Moscow"))
            .vtimezone(covering: july2025...july2025)
        #expect(moscow.subcomponents().count == 1, "\(moscow.serialized())")
        // A repeating record's dates go on: a span without end keeps every rule after it.
        let open = try #require(SystemZone.named("Europe/Moscow"))
            .vtimezone(
                covering: DateTimeValue(year: 1990, month: 1, day: 1, zone: .utc)
                    .epochAsUTC...Int64.max)
        #expect(open.serialized().contains("DTSTART:20141026T020000"))
        #expect(!open.serialized().contains("DTSTART:1970"))
    }

    @Test("a zone with yearly rules is written with them, not date by date")
    func yearlyRules() throws {
        let text = try #require(SystemZone.named("Europe/Berlin")).vtimezone().serialized()
        #expect(text.contains("RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3"))
        #expect(text.contains("RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10"))
        #expect(text.utf8.count < 1_500, "\(text)")
    }

    @Test("wall-clock times in a gap land after it; repeated ones are the first of the two")
    func gapsAndRepeats() throws {
        let berlin = try #require(SystemZone.named("Europe/Berlin"))
        // 2024-03-31 02:30 does not exist in Berlin: read with +01:00, it is 01:30Z = 03:30 CEST.
        let gap: Int64 = 1_711_852_200  // 2024-03-31T02:30:00 as if UTC
        #expect(berlin.epoch(ofLocal: gap) == gap - 3600)
        // 2024-10-27 02:30 happens twice: the first is 00:30Z (+02:00).
        let repeated: Int64 = 1_729_996_200  // 2024-10-27T02:30:00 as if UTC
        #expect(berlin.epoch(ofLocal: repeated) == repeated - 7200)
    }

    @Test("names that are no zone, or would leave the zone folder, are refused")
    func badNames() {
        for name in ["Nowhere/Zone", "../../etc/passwd", "/etc/passwd", "", "Europe/../UTC", "a b"]
        {
            #expect(SystemZone.named(name) == nil, "\(name)")
        }
        #expect(SystemZone.named("UTC")?.offset(at: 0) == 0)
    }

    @Test("past the table's last transition the zone follows its rule")
    func ruleBeyondTable() throws {
        let newYork = try #require(SystemZone.named("America/New_York"))
        // 2100-07-01T12:00Z is in daylight time (-4 h); 2100-01-01 in standard time (-5 h).
        #expect(newYork.offset(at: 4_118_572_800 + 12 * 3600) == -4 * 3600)
        #expect(newYork.offset(at: 4_102_444_800) == -5 * 3600)
        let sydney = try #require(SystemZone.named("Australia/Sydney"))
        #expect(sydney.offset(at: 4_102_444_800) == 11 * 3600)  // January: daylight
    }
}
