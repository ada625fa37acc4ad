extension TaskRecord {
    /// Which iCalendar component a record is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A `VEVENT`: something that happens at a time.
        case event
        /// A `VTODO`: something to do, possibly with a start, a deadline and subtasks.
        case todo
        /// A `VJOURNAL`: a diary entry written about a day or a moment; it takes up no time.
        case journal
    }

    /// Who may see an entry (iCalendar `CLASS`).
    public enum Classification: String, Sendable, Hashable, CaseIterable {
        case `public`, `private`, confidential
    }
}

/// A person or resource: an `ORGANIZER` or an `ATTENDEE`.
public struct Person: Sendable, Hashable {
    /// The calendar address, usually `mailto:…`.
    public var address: String
    /// The display name (`CN`).
    public var name: String?
    /// Every other parameter, verbatim, sorted by name (`PARTSTAT=ACCEPTED`, `ROLE=…`,
    /// `X-NUM-GUESTS=0`).
    public var parameters: [(name: String, value: String)]

    /// Creates a person.
    public init(address: String, name: String? = nil, parameters: [(String, String)] = []) {
        self.address = address
        self.name = name
        self.parameters = parameters.map { (name: $0.0.uppercased(), value: $0.1) }
            .sorted { $0.name < $1.name }
    }

    public static func == (lhs: Person, rhs: Person) -> Bool {
        lhs.address == rhs.address && lhs.name == rhs.name
            && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(address)
        hasher.combine(name)
        for parameter in parameters {
            hasher.combine(parameter.name)
            hasher.combine(parameter.value)
        }
    }
}

/// How an entry repeats: an RFC 5545 rule, the occurrences taken out, and extra ones.
public struct Recurrence: Sendable, Hashable {
    /// The `RRULE` value, such as `FREQ=WEEKLY;BYDAY=MO,WE`; `nil` when only ``rdates`` give
    /// the occurrences.
    public var rule: String?
    /// Starts of occurrences that do not happen (`EXDATE`), Unix seconds.
    public var exdates: [Int64]
    /// Starts of extra occurrences (`RDATE`), Unix seconds; each lasts as long as the first.
    public var rdates: [Int64]

    /// Creates a recurrence.
    public init(rule: String?, exdates: [Int64] = [], rdates: [Int64] = []) {
        self.rule = rule
        self.exdates = exdates
        self.rdates = rdates
    }
}
