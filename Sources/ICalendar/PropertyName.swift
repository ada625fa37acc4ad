import CLibical

/// A property's name with libical's kind for it worked out once, for a writer that names the
/// same few properties for every component it makes.
///
/// ``Component/addProperty(_:_:parameters:)-(PropertyName,_,_)`` given one of these skips
/// what the same call given a `String` does for every property: upper-case the name and look
/// its kind up, about 250 instructions. Writing 10,000 events named 66,000 properties, 1.7% of
/// the whole (callgrind). Keep a name in a `static let`: one made at each use saves nothing.
public struct PropertyName: Sendable, Hashable, CustomStringConvertible {
    /// The name, upper-cased.
    public let text: String
    /// libical's kind for the name: `ICAL_X_PROPERTY` for `X-` names and names libical does
    /// not know, as ``Property/init(_:_:parameters:)`` finds it.
    let kind: icalproperty_kind

    /// The name `name` (any case; written upper-cased).
    public init(_ name: String) {
        text = name.uppercasedName()
        kind = PropertyKinds.kind(of: text)
    }

    public var description: String { text }

    public static func == (left: PropertyName, right: PropertyName) -> Bool {
        left.text == right.text
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

extension PropertyName {
    // What an event, a to-do, a journal entry and an alarm are written with, most of them for
    // every one.
    public static let uid = PropertyName("UID")
    public static let dtstamp = PropertyName("DTSTAMP")
    public static let dtstart = PropertyName("DTSTART")
    public static let dtend = PropertyName("DTEND")
    public static let due = PropertyName("DUE")
    public static let duration = PropertyName("DURATION")
    public static let recurrenceID = PropertyName("RECURRENCE-ID")
    public static let summary = PropertyName("SUMMARY")
    public static let description = PropertyName("DESCRIPTION")
    public static let status = PropertyName("STATUS")
    public static let transp = PropertyName("TRANSP")
    public static let location = PropertyName("LOCATION")
    public static let categories = PropertyName("CATEGORIES")
    public static let color = PropertyName("COLOR")
    public static let `class` = PropertyName("CLASS")
    public static let url = PropertyName("URL")
    public static let rdate = PropertyName("RDATE")
    public static let exdate = PropertyName("EXDATE")
    public static let action = PropertyName("ACTION")
    public static let trigger = PropertyName("TRIGGER")
    public static let attach = PropertyName("ATTACH")
    public static let `repeat` = PropertyName("REPEAT")
    public static let attendee = PropertyName("ATTENDEE")
}
