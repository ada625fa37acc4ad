import CLibical
import CLibicalLookups
import Foundation
import ICalendar
import Testing

/// The table-driven look-ups the executables link (CLibicalLookups) against libical's own
/// functions, answer for answer. This test process links them too, so every other test here
/// reads and writes through them as well.
@Suite("libical's look-ups from tables: libical's answers, faster")
struct LibicalLookupsTests {
    @Test("libical's parser reaches the tables, in this process as in the taskcal executable")
    func installed() {
        // Parses an event through libical and tells whether its name look-up was answered here.
        #expect(taskcal_lookups_installed() != 0)
        #expect(taskcal_lookups_reads_times() != 0)
        // libical's own parser asks for the kind: a property it parses has the right one.
        let component = icalcomponent_new_from_string("BEGIN:VEVENT\r\nsummary:x\r\nEND:VEVENT\r\n")
        defer { icalcomponent_free(component) }
        let property = icalcomponent_get_first_property(component, ICAL_ANY_PROPERTY)
        #expect(icalproperty_isa(property) == ICAL_SUMMARY_PROPERTY)
    }

    @Test("every property kind, in range and out: its name, value type and validity")
    func kinds() {
        for raw in -3..<400 {
            let kind = icalproperty_kind(rawValue: UInt32(bitPattern: Int32(raw)))
            let mine = icalproperty_kind_to_string(kind).map { String(cString: $0) }
            let theirs = taskcal_libical_property_kind_to_string(kind).map { String(cString: $0) }
            #expect(mine == theirs, "kind \(raw)")
            #expect(
                icalproperty_kind_to_value_kind(kind)
                    == taskcal_libical_property_kind_to_value_kind(kind), "kind \(raw)")
            #expect(
                icalproperty_kind_is_valid(kind) == taskcal_libical_property_kind_is_valid(kind),
                "kind \(raw)")
        }
        for raw in 4990..<5100 {
            let kind = icalvalue_kind(rawValue: UInt32(raw))
            #expect(
                icalvalue_kind_is_valid(kind) == taskcal_libical_value_kind_is_valid(kind),
                "value kind \(raw)")
        }
    }

    /// Every name libical knows, and what a file may hold near it.
    static var names: [String] {
        var names: [String] = ["", "X-", "X-WR-CALNAME", "x-wr-calname", "X", "-", "IANA-TOKEN"]
        for raw in 0..<200 {
            let kind = icalproperty_kind(rawValue: UInt32(raw))
            guard let name = icalproperty_kind_to_string(kind).map({ String(cString: $0) })
            else { continue }
            let mixed = String(
                name.enumerated().map {
                    $0.offset % 2 == 0 ? $0.element : Character($0.element.lowercased())
                })
            names += [
                name, name.lowercased(), mixed, name + "X", "X" + name, "X-" + name,
                String(name.dropLast()), name + " ", name.replacingOccurrences(of: "E", with: "Е"),
            ]
        }
        names.append(String(repeating: "A", count: 31))
        names.append(String(repeating: "A", count: 32))
        names.append("DTSTART" + String(repeating: "-", count: 40))
        names.append("ÜID")
        return names
    }

    @Test("a property's name to its kind: every name, in every case, and near misses")
    func namesToKinds() {
        for name in Self.names {
            #expect(
                icalproperty_string_to_kind(name) == taskcal_libical_property_string_to_kind(name),
                "name '\(name)'")
        }
        #expect(icalproperty_string_to_kind(nil) == taskcal_libical_property_string_to_kind(nil))
    }

    @Test("random names: the same kind as libical gives")
    func randomNames() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABDEINRSTUXYZaeinrstu-_ ;:1É")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let name = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(
                icalproperty_string_to_kind(name) == taskcal_libical_property_string_to_kind(name),
                "name '\(name)'")
        }
    }

    /// The reader's answer and libical's error after it, for comparison.
    struct TimeAnswer: Equatable, CustomStringConvertible {
        var fields: [Int32]
        var zone: UnsafeRawPointer?
        var error: icalerrorenum

        init(_ read: (String) -> icaltimetype, _ text: String) {
            clibical_clear_errno()
            let time = read(text)
            error = clibical_errno()
            fields = [
                time.year, time.month, time.day, time.hour, time.minute, time.second, time.is_date,
                time.is_daylight,
            ]
            zone = UnsafeRawPointer(time.zone)
        }

        var description: String { "\(fields) zone \(String(describing: zone)) error \(error)" }
    }

    static func sameTime(_ text: String) -> (mine: TimeAnswer, theirs: TimeAnswer) {
        (
            TimeAnswer({ icaltime_from_string($0) }, text),
            TimeAnswer({ taskcal_libical_time_from_string($0) }, text)
        )
    }

    @Test(
        "a DATE or DATE-TIME string reads as libical reads it",
        arguments: [
            "20260921T154107Z", "20260921T154107", "20260921", "19700101T000000Z",
            "99991231T235960Z", "00000000T000000", "20261332T256199", "2026-09-21",
            "2026-09-21T15:41:07", "2026-09-21T15:41:07Z", "20260921T154107z", "20260921t154107",
            "20260921X154107", "20260921T1541070", "2026092", "202609211", " 20260921",
            "+0260921", "-0260921", "2026 921", "20260921T15410 Z", "20260921T1541 7",
            "２0260921", "20260921T154107ZZ", "", "T", "Z", "20260921T154107\u{7F}",
        ])
    func times(text: String) {
        let answers = Self.sameTime(text)
        #expect(answers.mine == answers.theirs, "'\(text)'")
    }

    @Test("random near-canonical strings read as libical reads them")
    func randomTimes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789TZtz-: +")
        for _ in 0..<20_000 {
            var text = Array(
                "20260921T154107Z".prefix([8, 15, 16].randomElement(using: &generator)!))
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                let index = Int.random(in: 0...text.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where index < text.count:
                    text[index] = alphabet.randomElement(using: &generator)!
                case 1: text.insert(alphabet.randomElement(using: &generator)!, at: index)
                default: if index < text.count { text.remove(at: index) }
                }
            }
            let answers = Self.sameTime(String(text))
            #expect(answers.mine == answers.theirs, "'\(String(text))'")
        }
    }

    typealias Written = UnsafeMutablePointer<CChar>?

    /// A value as written by `write`: its text, or `nil`, and libical's error after it.
    static func written(_ value: OpaquePointer, _ write: (OpaquePointer) -> Written) -> String {
        clibical_clear_errno()
        let text = write(value)
        defer { free(text) }
        return "\(text.map { String(cString: $0) } ?? "nil") error \(clibical_errno())"
    }

    /// What the value writer here and libical's own write for `value`.
    static func sameValue(_ value: OpaquePointer) -> (mine: String, theirs: String) {
        (
            written(value) { icalvalue_as_ical_string_r($0) },
            written(value) { taskcal_libical_value_as_ical_string_r($0) }
        )
    }

    @Test("libical's serializer reaches the value writer, which writes libical's probes as it does")
    func writerInstalled() {
        #expect(taskcal_value_writer_installed() != 0)
        #expect(taskcal_lookups_writes_values() != 0)
    }

    @Test("random texts, in every text property and the list ones, written as libical writes them")
    func texts() throws {
        var generator = SystemRandomNumberGenerator()
        // Every byte libical treats apart, ASCII, and UTF-8 of two, three and four bytes.
        let pieces = [
            "\n", "\r", "\t", "\u{8}", "\u{C}", ";", ",", "\\", "\"", ":", " ", "a", "Z", "0",
            "\u{1}", "\u{7F}", "é", "отчёт", "会議", "😀", "\\n", "\\,",
        ]
        let kinds: [icalproperty_kind] = [
            ICAL_SUMMARY_PROPERTY, ICAL_DESCRIPTION_PROPERTY, ICAL_LOCATION_PROPERTY,
            ICAL_COMMENT_PROPERTY, ICAL_UID_PROPERTY, ICAL_CATEGORIES_PROPERTY,
            ICAL_RESOURCES_PROPERTY, ICAL_X_PROPERTY, ICAL_CONTACT_PROPERTY,
        ]
        for round in 0..<5_000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let kind = kinds[round % kinds.count]
            let property = try #require(icalproperty_new(kind))
            defer { icalproperty_free(property) }
            if kind == ICAL_X_PROPERTY { icalproperty_set_x_name(property, "X-PROBE") }
            icalproperty_set_value(property, icalvalue_new_text(text))
            let value = try #require(icalproperty_get_value(property))
            let answers = Self.sameValue(value)
            #expect(answers.mine == answers.theirs, "\(kind) '\(text)'")
        }
        // A text value no property holds: libical's function writes it.
        let loose = try #require(icalvalue_new_text("a;b"))
        defer { icalvalue_free(loose) }
        let answers = Self.sameValue(loose)
        #expect(answers.mine == answers.theirs)
    }

    @Test(
        "DATE and DATE-TIME values, in range and out, floating, UTC and zoned, written as libical does"
    )
    func dateTimes() throws {
        var generator = SystemRandomNumberGenerator()
        let zone = icaltimezone_get_builtin_timezone("Europe/Berlin")
        let fields = [
            -1, 0, 1, 9, 10, 12, 31, 59, 60, 99, 100, 999, 1970, 2026, 2999, 3000, 9999, 10_000,
        ]
        for round in 0..<5_000 {
            // A field out of its range now and then, else one that is in it.
            func field(_ every: Int, _ range: ClosedRange<Int>) -> Int32 {
                Int32(
                    round % every == 0
                        ? fields.randomElement(using: &generator)!
                        : Int.random(in: range, using: &generator))
            }
            var time = icaltime_null_time()
            time.year = field(1, 0...0)
            time.month = field(7, 1...12)
            time.day = field(11, 1...28)
            time.hour = field(5, 0...23)
            time.minute = field(13, 0...59)
            time.second = field(3, 0...60)
            time.is_date = round % 4 == 0 ? 1 : 0
            switch round % 3 {
            case 0: time.zone = icaltimezone_get_utc_timezone()
            case 1: time.zone = zone
            default: break
            }
            let values = [
                icalvalue_new_datetime(time), icalvalue_new_date(time),
                icalvalue_new_datetimedate(time),
            ]
            for value in values {
                let value = try #require(value)
                defer { icalvalue_free(value) }
                let answers = Self.sameValue(value)
                #expect(answers.mine == answers.theirs, "\(time)")
            }
        }
    }

    @Test("libical's parser reaches the TEXT reader, which reads libical's probes as it does")
    func readerInstalled() {
        #expect(taskcal_text_reader_installed() != 0)
        #expect(taskcal_lookups_reads_texts() != 0)
    }

    /// A TEXT value as read by `read`: its text, or `nil`, and libical's error after it.
    static func read(_ quoted: String, _ read: (String) -> OpaquePointer?) -> String {
        clibical_clear_errno()
        let value = read(quoted)
        defer { if let value { icalvalue_free(value) } }
        let text = value.map { String(cString: icalvalue_get_text($0)) }
        return "\(text ?? "nil") error \(clibical_errno())"
    }

    @Test("random escaped texts read as libical reads them")
    func readTexts() {
        var generator = SystemRandomNumberGenerator()
        // Every escape libical knows in both cases, ones it does not, and a backslash at the end.
        let pieces = [
            "\\", "\\n", "\\N", "\\t", "\\T", "\\r", "\\R", "\\b", "\\B", "\\f", "\\F",
            "\\;", "\\,", "\\\"", "\\\\", "\\x", "\\:", "\\ ", "\\é", ";", ",", ":", " ", "a",
            "отчёт", "😀", "\t", "\u{1}",
        ]
        for _ in 0..<10_000 {
            let text = (0..<Int.random(in: 0...30, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let mine = Self.read(text) { icalvalue_new_from_string(ICAL_TEXT_VALUE, $0) }
            let theirs = Self.read(text) {
                taskcal_libical_value_new_from_string(ICAL_TEXT_VALUE, $0)
            }
            #expect(mine == theirs, "'\(text)'")
        }
    }
}
