import Foundation
import Locking

/// A time zone of the system's tz database (Debian's `tzdata`: `/usr/share/zoneinfo`, or
/// `$TZDIR`), read from its compiled TZif file (RFC 8536).
///
/// This is the zone data every other program on the machine uses, and taskcal's truth for
/// IANA zones. libical's built-in zones are its own conversion of the same files and disagree
/// with them for dozens of zones on some dates between 1970 and 2037 (Africa/Cairo in 1970,
/// Europe/London in 1977, Asia/Jerusalem 2013–16 …), so libical is never asked for an IANA
/// zone's offsets: times are converted here, and the `VTIMEZONE`s taskcal writes are built
/// from these transitions.
public struct SystemZone: Sendable, Hashable {
    /// The IANA name (`Europe/Berlin`).
    public let name: String
    private let data: ZoneData

    /// One kind of local time: its offset east of UTC, whether it is daylight time, and
    /// its abbreviation (`CEST`).
    public struct LocalTimeType: Sendable, Hashable {
        public var offset: Int
        public var isDaylight: Bool
        public var abbreviation: String
    }

    /// A change of local time type at an instant.
    public struct Transition: Sendable, Hashable {
        /// Unix seconds of the change.
        public var instant: Int64
        /// The type in force before and from the change.
        public var before: LocalTimeType
        public var after: LocalTimeType
    }

    /// The zone named `name`, or `nil` when the system has no such zone.
    public static func named(_ name: String) -> SystemZone? {
        if let known = cache.withLock({ $0[name] }) { return known }
        let loaded = load(name)
        cache.withLock { $0[name] = .some(loaded) }
        return loaded
    }

    private static let cache = Locked<[String: SystemZone?]>([:])

    /// Where the compiled zone files are.
    static var directory: String {
        ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/share/zoneinfo"
    }

    private static func load(_ name: String) -> SystemZone? {
        if name == "UTC" || name == "Etc/UTC" || name == "Z" {
            return SystemZone(name: "UTC", data: .utc)
        }
        // A name is letters, digits and `_ + - /`, never `..`: it cannot leave the folder.
        guard !name.isEmpty, name.utf8.count <= 64, !name.hasPrefix("/"),
            !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
            name.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                        || "_+-/".unicodeScalars.contains($0))
            })
        else { return nil }
        guard let bytes = FileManager.default.contents(atPath: directory + "/" + name),
            let data = ZoneData(tzif: Array(bytes))
        else { return nil }
        return SystemZone(name: name, data: data)
    }

    private init(name: String, data: ZoneData) {
        self.name = name
        self.data = data
    }

    public static func == (lhs: SystemZone, rhs: SystemZone) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    // MARK: - Conversions

    /// The local time type in force at the instant `epoch`.
    public func type(at epoch: Int64) -> LocalTimeType { data.type(at: epoch) }

    /// Seconds east of UTC at the instant `epoch`.
    public func offset(at epoch: Int64) -> Int { data.type(at: epoch).offset }

    /// The instant of the wall-clock time `local` (its fields read as if UTC, so
    /// `local` is "seconds since 1970-01-01T00:00 local").
    ///
    /// A wall-clock time that occurs twice (clocks go back) is the first of the two; one that
    /// does not occur (clocks go forward) is read with the offset before the gap, so it lands
    /// after the gap. Both as RFC 5545 §3.3.5 says and as Python's zoneinfo reads `fold=0`.
    public func epoch(ofLocal local: Int64) -> Int64 {
        LocalTimeRule.epoch(ofLocal: local) { data.type(at: $0).offset }
    }

    /// The changes of local time from `start` (inclusive) to `end` (exclusive), in order:
    /// the table's, then the recurring rule's past the table's end.
    public func transitions(from start: Int64, to end: Int64) -> [Transition] {
        data.transitions(from: start, to: end)
    }
}

/// The parsed contents of a TZif file.
private struct ZoneData: Sendable {
    var times: [Int64]
    var typeIndices: [UInt8]
    var types: [SystemZone.LocalTimeType]
    var rule: PosixRule?

    static let utc = ZoneData(
        times: [], typeIndices: [],
        types: [SystemZone.LocalTimeType(offset: 0, isDaylight: false, abbreviation: "UTC")],
        rule: nil)

    init(
        times: [Int64], typeIndices: [UInt8], types: [SystemZone.LocalTimeType],
        rule: PosixRule?
    ) {
        self.times = times
        self.typeIndices = typeIndices
        self.types = types
        self.rule = rule
    }

    /// Reads version 2+ data (64-bit times) and the footer; version 1 files have 32-bit
    /// times only and are read as they are.
    init?(tzif bytes: [UInt8]) {
        var reader = ByteReader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        var timeSize = 4
        var counts = header.counts
        if header.version >= 2 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            let skip =
                counts.time * 5 + counts.type * 6 + counts.char + counts.leap * 8
                + counts.isStandard + counts.isUT
            guard reader.skip(skip), let second = reader.header() else { return nil }
            counts = second.counts
            timeSize = 8
        }
        guard counts.type > 0, counts.type <= 256 else { return nil }
        var times: [Int64] = []
        times.reserveCapacity(counts.time)
        for _ in 0..<counts.time {
            guard let value = reader.integer(size: timeSize) else { return nil }
            times.append(value)
        }
        guard let indices = reader.bytes(counts.time),
            indices.allSatisfy({ Int($0) < counts.type })
        else { return nil }
        var raw: [(offset: Int, isDaylight: Bool, index: Int)] = []
        for _ in 0..<counts.type {
            guard let offset = reader.integer(size: 4), let flags = reader.bytes(2).map(Array.init)
            else {
                return nil
            }
            raw.append((Int(offset), flags[0] != 0, Int(flags[1])))
        }
        guard let characters = reader.bytes(counts.char).map(Array.init) else { return nil }
        let types = raw.map { item -> SystemZone.LocalTimeType in
            var end = item.index
            while end < characters.count, characters[end] != 0 { end += 1 }
            let abbreviation =
                item.index < characters.count
                ? String(decoding: characters[item.index..<end], as: UTF8.self) : ""
            return SystemZone.LocalTimeType(
                offset: item.offset, isDaylight: item.isDaylight, abbreviation: abbreviation)
        }
        var rule: PosixRule?
        if header.version >= 2 {
            _ = reader.skip(counts.leap * 12 + counts.isStandard + counts.isUT)
            if let footer = reader.footer() { rule = PosixRule(footer) }
        }
        self.init(times: times, typeIndices: Array(indices), types: types, rule: rule)
    }

    func type(at epoch: Int64) -> SystemZone.LocalTimeType {
        guard let last = times.last else {
            return rule?.type(at: epoch) ?? types[0]
        }
        if epoch >= last, let rule { return rule.type(at: epoch) }
        guard epoch >= times[0] else { return types[0] }
        // The last transition at or before epoch.
        var low = 0
        var high = times.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if times[middle] <= epoch { low = middle } else { high = middle - 1 }
        }
        return types[Int(typeIndices[low])]
    }

    func transitions(from start: Int64, to end: Int64) -> [SystemZone.Transition] {
        var result: [SystemZone.Transition] = []
        for (index, time) in times.enumerated() where time >= start && time < end {
            let before = index == 0 ? types[0] : types[Int(typeIndices[index - 1])]
            let after = types[Int(typeIndices[index])]
            if before != after {
                result.append(SystemZone.Transition(instant: time, before: before, after: after))
            }
        }
        if let rule, rule.daylight != nil {
            let from = max(start, (times.last ?? Int64.min) + 1)
            result += rule.transitions(from: from, to: end)
        }
        return result
    }
}

/// Reads big-endian integers and blocks from TZif bytes.
private struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, position + count <= bytes.count else { return nil }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func skip(_ count: Int) -> Bool { bytes(count) != nil }

    mutating func integer(size: Int) -> Int64? {
        guard let slice = bytes(size) else { return nil }
        var value: UInt64 = 0
        for byte in slice { value = value << 8 | UInt64(byte) }
        if size == 4 { return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: value))) }
        return Int64(bitPattern: value)
    }

    struct Counts {
        var isUT: Int
        var isStandard: Int
        var leap: Int
        var time: Int
        var type: Int
        var char: Int
    }

    mutating func header() -> (version: Int, counts: Counts)? {
        guard let magic = bytes(4), Array(magic) == Array("TZif".utf8),
            let version = bytes(1), skip(15)
        else { return nil }
        var values: [Int] = []
        for _ in 0..<6 {
            guard let value = integer(size: 4), value >= 0, value < 1 << 20 else { return nil }
            values.append(Int(value))
        }
        let number = version.first == 0 ? 1 : Int(version.first! - UInt8(ascii: "0"))
        return (
            number,
            Counts(
                isUT: values[0], isStandard: values[1], leap: values[2], time: values[3],
                type: values[4], char: values[5])
        )
    }

    mutating func footer() -> String? {
        guard position < bytes.count, bytes[position] == 0x0A else { return nil }
        let start = position + 1
        guard let end = bytes[start...].firstIndex(of: 0x0A) else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// A POSIX `TZ` rule as TZif footers hold it (`CET-1CEST,M3.5.0,M10.5.0/3`), with RFC 8536's
/// extensions (hours beyond 24 and below 0 in the change times): the zone's rule after the
/// table's last transition.
struct PosixRule: Sendable {
    var standard: SystemZone.LocalTimeType
    var daylight: SystemZone.LocalTimeType?
    /// When daylight time starts and ends, as dates and local times in the offset before.
    var start: (date: DateRule, time: Int) = (.monthWeekDay(3, 2, 0), 7200)
    var end: (date: DateRule, time: Int) = (.monthWeekDay(11, 1, 0), 7200)

    enum DateRule: Sendable {
        /// `Jn`: day 1…365, February 29 never counted.
        case julianNoLeap(Int)
        /// `n`: day 0…365, February 29 counted.
        case zeroBasedDay(Int)
        /// `Mm.w.d`: the `w`-th (5 = last) weekday `d` (0 = Sunday) of month `m`.
        case monthWeekDay(Int, Int, Int)
    }

    init?(_ text: String) {
        var scanner = PosixScanner(text)
        guard let standardName = scanner.name(), let standardOffset = scanner.offset() else {
            return nil
        }
        standard = SystemZone.LocalTimeType(
            offset: -standardOffset, isDaylight: false, abbreviation: standardName)
        guard !scanner.atEnd else { return }
        guard let daylightName = scanner.name() else { return nil }
        var daylightOffset = standardOffset - 3600
        if !scanner.atEnd, !scanner.peek(","), let given = scanner.offset() {
            daylightOffset = given
        }
        daylight = SystemZone.LocalTimeType(
            offset: -daylightOffset, isDaylight: true, abbreviation: daylightName)
        if scanner.atEnd { return }  // the POSIX default rule (US rules) stays
        guard scanner.take(","), let startDate = scanner.date() else { return nil }
        var startTime = 7200
        if scanner.take("/") {
            guard let time = scanner.time() else { return nil }
            startTime = time
        }
        guard scanner.take(","), let endDate = scanner.date() else { return nil }
        var endTime = 7200
        if scanner.take("/") {
            guard let time = scanner.time() else { return nil }
            endTime = time
        }
        guard scanner.atEnd else { return nil }
        start = (startDate, startTime)
        end = (endDate, endTime)
    }

    /// The type in force at `epoch`.
    func type(at epoch: Int64) -> SystemZone.LocalTimeType {
        guard let daylight else { return standard }
        let year = CivilDate(epochDay: floorDivide(epoch + Int64(standard.offset), 86_400)).year
        // The year's two changes (and the neighbours', for instants near New Year).
        var changes: [(Int64, SystemZone.LocalTimeType)] = []
        for y in (year - 1)...(year + 1) {
            changes.append((startInstant(year: y), daylight))
            changes.append((endInstant(year: y), standard))
        }
        changes.sort { $0.0 < $1.0 }
        var current = changes[0].1 == daylight ? standard : daylight
        for (instant, type) in changes where instant <= epoch { current = type }
        return current
    }

    private func startInstant(year: Int) -> Int64 {
        Self.day(start.date, year: year) * 86_400 + Int64(start.time) - Int64(standard.offset)
    }

    private func endInstant(year: Int) -> Int64 {
        Self.day(end.date, year: year) * 86_400 + Int64(end.time)
            - Int64(daylight?.offset ?? standard.offset)
    }

    func transitions(from start: Int64, to end: Int64) -> [SystemZone.Transition] {
        guard let daylight, start < end else { return [] }
        let firstYear = CivilDate(epochDay: floorDivide(start, 86_400)).year - 1
        let lastYear = CivilDate(epochDay: floorDivide(end, 86_400)).year + 1
        var result: [SystemZone.Transition] = []
        for year in firstYear...lastYear {
            result.append(
                SystemZone.Transition(
                    instant: startInstant(year: year), before: standard, after: daylight))
            result.append(
                SystemZone.Transition(
                    instant: endInstant(year: year), before: daylight, after: standard))
        }
        return result.filter { $0.instant >= start && $0.instant < end }.sorted {
            $0.instant < $1.instant
        }
    }

    /// Days since 1970-01-01 of the rule's date in `year`.
    static func day(_ rule: DateRule, year: Int) -> Int64 {
        let january1 = CivilDate(year: year, month: 1, day: 1).epochDay
        switch rule {
        case .julianNoLeap(let n):
            var day = january1 + Int64(n - 1)
            if CivilDate.isLeap(year) && n >= 60 { day += 1 }
            return day
        case .zeroBasedDay(let n):
            return january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate(year: year, month: month, day: 1).epochDay
            // 1970-01-01 was a Thursday (weekday 4).
            let firstWeekday = Int(floorModulo(first + 4, 7))
            var day = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilDate.daysIn(month: month, year: year)
            while day > length { day -= 7 }
            return first + Int64(day - 1)
        }
    }
}

/// Reads the parts of a POSIX `TZ` string.
private struct PosixScanner {
    let characters: [Character]
    var index = 0

    init(_ text: String) { characters = Array(text) }

    var atEnd: Bool { index >= characters.count }

    func peek(_ character: Character) -> Bool {
        !atEnd && characters[index] == character
    }

    mutating func take(_ character: Character) -> Bool {
        guard peek(character) else { return false }
        index += 1
        return true
    }

    mutating func name() -> String? {
        if take("<") {
            let start = index
            while !atEnd, characters[index] != ">" { index += 1 }
            guard !atEnd else { return nil }
            let name = String(characters[start..<index])
            index += 1
            return name
        }
        let start = index
        while !atEnd, characters[index].isLetter { index += 1 }
        return index - start >= 3 ? String(characters[start..<index]) : nil
    }

    mutating func number() -> Int? {
        let start = index
        while !atEnd, characters[index].isNumber { index += 1 }
        return index > start ? Int(String(characters[start..<index])) : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (POSIX: positive is west of Greenwich).
    mutating func offset() -> Int? { time() }

    /// `[+-]hhh[:mm[:ss]]` in seconds.
    mutating func time() -> Int? {
        var sign = 1
        if take("-") { sign = -1 } else { _ = take("+") }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = hours * 3600
        if take(":") {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(":") {
                guard let rest = number(), rest < 60 else { return nil }
                seconds += rest
            }
        }
        return sign * seconds
    }

    mutating func date() -> PosixRule.DateRule? {
        if take("J") {
            guard let day = number(), (1...365).contains(day) else { return nil }
            return .julianNoLeap(day)
        }
        if take("M") {
            guard let month = number(), (1...12).contains(month), take("."),
                let week = number(), (1...5).contains(week), take("."),
                let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            return .monthWeekDay(month, week, weekday)
        }
        guard let day = number(), (0...365).contains(day) else { return nil }
        return .zeroBasedDay(day)
    }
}

/// A proleptic Gregorian date and its day number since 1970-01-01 (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`).
struct CivilDate: Sendable, Hashable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(epochDay: Int64) {
        let z = epochDay + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    var epochDay: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    a >= 0 ? a / b : -((-a + b - 1) / b)
}

func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
    a - floorDivide(a, b) * b
}
