import CLibical
import Foundation

/// A property parameter such as `FMTTYPE=image/png` or `X-APPLE-FILENAME=a.png`.
public struct Parameter: Sendable, Hashable {
    /// The parameter name, upper-cased (`FMTTYPE`).
    public var name: String
    /// The value, unquoted.
    public var value: String

    /// Creates `name=value`.
    public init(_ name: String, _ value: String) {
        self.name = name.uppercasedName()
        self.value = value
    }
}

/// A value to build a new property from: the Swift face of libical's value kinds that
/// taskcal writes.
public enum PropertyValue: Sendable, Equatable {
    /// TEXT: escaped on output (`,` `;` `\` and newlines).
    case text(String)
    /// DATE-TIME or DATE; a `.tzid` zone adds the `TZID` parameter with the plain name.
    case dateTime(DateTimeValue)
    /// An RFC 5545 duration such as `-PT15M`.
    case duration(String)
    /// `TRIGGER` relative to the start (or the end, with `RELATED=END`): a duration.
    case relativeTrigger(String)
    /// `TRIGGER;VALUE=DATE-TIME` at an absolute UTC time, in Unix seconds.
    case absoluteTrigger(epoch: Int64)
    /// `ATTACH` by reference: a URI.
    case attachmentURI(String)
    /// `ATTACH` inline: the base64 text (libical does not encode for us).
    case attachmentBase64(String)
    /// A URI value (`URL`, `X-…;VALUE=URI`).
    case uri(String)
    /// A CAL-ADDRESS, usually `mailto:…`.
    case calAddress(String)
    /// The value of `ACTION`: `DISPLAY`, `AUDIO`, `EMAIL`, `NONE` or an `X-` name.
    case action(String)
    /// An INTEGER (`REPEAT`, `SEQUENCE`).
    case integer(Int)
    /// A UTC-OFFSET in seconds east of UTC (`TZOFFSETTO:+0100`).
    case utcOffset(Int)
    /// Text in the property's default value type, parsed by libical (`VERSION:2.0`).
    case literal(String)
    /// A list of TEXT values in one property (`CATEGORIES:Work,Meeting\, John`): commas and
    /// semicolons inside a value are escaped, which libical does not do for lists.
    case textList([String])
}
