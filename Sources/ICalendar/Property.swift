import CLibical
import Foundation

/// One property of a component, as libical holds it.
///
/// Built with ``init(_:_:parameters:)`` it stands alone until a component adopts it with
/// ``Component/add(_:)-(Property)``; read from a parsed tree it is a view that keeps the tree alive.
public final class Property {
    let pointer: OpaquePointer
    private var owner: AnyObject?
    private let ownsPointer: Bool
    /// The 1-based line this property was parsed from, when known.
    public let lineNumber: Int?
    /// The unfolded line as the file had it, when the property was parsed from text.
    public let rawLine: RawLine?
    /// The name, when the component's index already read it from libical (a view's kind
    /// never changes): reading an event asks each property's name a dozen times.
    private let knownName: String?

    init(
        view pointer: OpaquePointer, owner: AnyObject, line: Int?, raw: [UInt8]? = nil,
        name: String? = nil
    ) {
        self.pointer = pointer
        self.owner = owner
        self.ownsPointer = false
        self.lineNumber = line
        self.rawLine = raw.map { RawLine(line: line ?? 0, bytes: $0) }
        self.knownName = name
    }

    /// Creates a free-standing property `name` with `value` and `parameters`.
    ///
    /// Invalid `literal` text or a parameter value outside its enumeration is a programming
    /// error and traps; text from users goes through ``PropertyValue/text(_:)``.
    public init(_ name: String, _ value: PropertyValue, parameters: [Parameter] = []) {
        pointer = Self.make(name, value, parameters: parameters)
        owner = nil
        ownsPointer = true
        lineNumber = nil
        rawLine = nil
        knownName = nil
    }

    /// A new libical property `name` with `value` and `parameters`, owned by the caller (see
    /// ``init(_:_:parameters:)``): ``Component/addProperty(_:_:parameters:)-(String,_,_)``
    /// hands it to the component at once, without a ``Property`` for it.
    ///
    /// Strings go to libical through `withCString`: passed as they are, each was first copied
    /// into a new array (`String.utf8CString`), for every value of every event written.
    static func make(_ name: String, _ value: PropertyValue, parameters: [Parameter])
        -> OpaquePointer
    {
        make(PropertyName(name), value, parameters: parameters)
    }

    /// ``make(_:_:parameters:)-(String,_,_)`` with the name's kind known.
    static func make(_ name: PropertyName, _ value: PropertyValue, parameters: [Parameter])
        -> OpaquePointer
    {
        Libical.ensureReady()
        let upper = name.text
        let kind = name.kind
        var made: OpaquePointer
        switch value {
        case .attachmentURI(let uri):
            let attach = uri.withCString { icalattach_new_from_url($0) }!
            made = icalproperty_new_attach(attach)
            icalattach_unref(attach)
        case .attachmentBase64(let base64):
            // A nil free function makes libical copy the bytes, so the temporary is safe.
            let attach = base64.withCString { icalattach_new_from_data($0, nil, nil) }!
            made = icalproperty_new_attach(attach)
            icalattach_unref(attach)
            icalproperty_add_parameter(made, icalparameter_new_encoding(ICAL_ENCODING_BASE64))
            icalproperty_add_parameter(made, icalparameter_new_value(ICAL_VALUE_BINARY))
        default:
            made = icalproperty_new(kind == ICAL_NO_PROPERTY ? ICAL_X_PROPERTY : kind)
            if kind == ICAL_X_PROPERTY || kind == ICAL_NO_PROPERTY {
                upper.withCString { icalproperty_set_x_name(made, $0) }
            }
            icalproperty_set_value(made, Property.makeValue(value, for: kind))
        }
        if case .dateTime(let time) = value {
            if case .tzid(let tzid) = time.zone {
                // `icalproperty_new_dtstart(zoned)` would drop the zone; the parameter is
                // written here, with the plain IANA name and never libical's prefix.
                icalproperty_add_parameter(made, tzid.withCString { icalparameter_new_tzid($0) })
            }
            if time.isDate {
                icalproperty_add_parameter(made, icalparameter_new_value(ICAL_VALUE_DATE))
            }
        }
        if case .uri = value, kind == ICAL_X_PROPERTY || kind == ICAL_NO_PROPERTY {
            icalproperty_add_parameter(made, icalparameter_new_value(ICAL_VALUE_URI))
        }
        for parameter in parameters {
            icalproperty_add_parameter(made, Property.namedParameter(parameter))
        }
        return made
    }

    /// Creates a free-standing property from one unfolded content line
    /// (`X-GOOGLE-CONFERENCE:https://meet.google.com/abc`), parsed by libical.
    ///
    /// - Throws: ``ICalendarError/Kind/invalidValue`` when libical cannot parse the line or
    ///   would change it (it removes values it cannot read and marks them with X-LIC-ERROR).
    public init(contentLine: String) throws(ICalendarError) {
        Libical.ensureReady()
        // The edge whitespace of a TEXT value survives as it does when a file is read.
        var bytes = Array(contentLine.utf8)
        let nameEnd = bytes.firstIndex { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ":") }
        let name = String(decoding: bytes[..<(nameEnd ?? bytes.count)], as: UTF8.self)
            .uppercasedName()
        if let nameEnd, EdgeWhitespace.textProperties.contains(name),
            let valueStart = ICalendarReader.valueStart(of: bytes, from: nameEnd)
        {
            EdgeWhitespace.protect(&bytes, valueStart: valueStart)
        }
        guard !contentLine.contains("\n"), !contentLine.contains("\r"), !bytes.contains(0),
            let made = bytes.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
                let text = Array(buffer) + [0]
                return text.withUnsafeBufferPointer {
                    $0.baseAddress!.withMemoryRebound(to: CChar.self, capacity: text.count) {
                        icalproperty_new_from_string($0)
                    }
                }
            })
        else {
            throw ICalendarError(
                .invalidValue, "'\(contentLine.prefix(80))' is not a content line libical can read")
        }
        if icalproperty_isa(made) == ICAL_XLICERROR_PROPERTY
            || icalproperty_get_first_parameter(made, ICAL_XLICERRORTYPE_PARAMETER) != nil
        {
            icalproperty_free(made)
            throw ICalendarError(
                .invalidValue, "'\(contentLine.prefix(80))' is not a content line libical can read")
        }
        pointer = made
        owner = nil
        ownsPointer = true
        lineNumber = nil
        rawLine = nil
        knownName = nil
    }

    /// Creates a free-standing property that libical prints back as `line` was written:
    /// same name, same parameters (quoted where a value needs it), the value byte for byte.
    ///
    /// libical 3.0 cannot print many lines as they came: it drops parameters it does not
    /// know (`EMAIL=…` on an `ATTENDEE`), refuses values of later RFCs
    /// (`RELATED-TO;VALUE=UID`), loses the backslash of `\,` in `X-` values, rewrites
    /// numbers (`GEO:1.5;2.5` as `1.500000;…`) and rules (`FREQ=WEEKLY;BYDAY=TU;COUNT=6` in
    /// its own order). A line kept verbatim is therefore built as an `X-` property whose
    /// value libical never interprets, renamed to the line's name, with each parameter as a
    /// named parameter; backslashes travel as markers that ``Component/serialize(into:)``
    /// turns back. libical still prints, folds and quotes the line.
    public convenience init(verbatim line: ContentLine) {
        Libical.ensureReady()
        let made = icalproperty_new(ICAL_X_PROPERTY)!
        line.name.withCString { icalproperty_set_x_name(made, $0) }
        var value = Array(line.value.utf8)
        if value.contains(UInt8(ascii: "\\")) {
            value = value.flatMap { byte -> [UInt8] in
                byte == UInt8(ascii: "\\")
                    ? [EdgeWhitespace.marker, EdgeWhitespace.backslash] : [byte]
            }
        }
        value.append(0)
        value.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                icalproperty_set_value(made, icalvalue_new_x($0))
            }
        }
        for parameter in line.parameters {
            icalproperty_add_parameter(made, Self.namedParameter(parameter))
        }
        self.init(made: made)
    }

    /// A parameter libical prints as `NAME=value` whatever the name: an `X-` or IANA
    /// parameter, never one of its own kinds, which it would check against its enumerations
    /// and cut to one value. A value with several quoted values keeps its quotes as markers.
    static func namedParameter(_ parameter: Parameter) -> OpaquePointer {
        let isX = parameter.name.hasPrefix("X-")
        let built = icalparameter_new(isX ? ICAL_X_PARAMETER : ICAL_IANA_PARAMETER)!
        parameter.name.withCString { icalparameter_set_xname(built, $0) }
        // libical encodes `"` and line breaks (RFC 6868) but leaves `^` as it is, which a
        // reader would decode: `^n` would come back as a line break. A `^` no reader decodes
        // (`^a`) stays as written.
        var value = Array(ContentLine.encodeCaret(parameter.value, caretsOnly: true).utf8)
        if ContentLine.isValueList(parameter.value, named: parameter.name) {
            // libical prints a parameter value through its own filter, which replaces bytes
            // that are not UTF-8 (the 0xFF markers) and quotes a value holding `,` `:` `;`:
            // the list's punctuation travels as noncharacters the serializer turns back.
            value = value.flatMap { byte -> [UInt8] in
                ParameterList.marker(for: byte) ?? [byte]
            }
        }
        value.append(0)
        value.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                icalparameter_set_xvalue(built, $0)
            }
        }
        return built
    }

    /// The punctuation of a parameter value list (`"a","b"`) as it passes through libical:
    /// each as a Unicode noncharacter (U+FDD0…U+FDD3, valid UTF-8 that no text is meant to
    /// hold), which ``Component/serialize(into:)`` turns back.
    enum ParameterList {
        static let punctuation: [UInt8] = [
            UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"),
        ]

        static func marker(for byte: UInt8) -> [UInt8]? {
            punctuation.firstIndex(of: byte).map { [0xEF, 0xB7, 0x90 + UInt8($0)] }
        }
    }

    private init(made: OpaquePointer) {
        pointer = made
        owner = nil
        ownsPointer = true
        lineNumber = nil
        rawLine = nil
        knownName = nil
    }

    /// Why `line` cannot be kept verbatim and written back, or `nil` when it can: the name
    /// and parameters of a content line, no control characters, no structure (`BEGIN`, `END`).
    public static func verbatimProblem(_ text: String) -> String? {
        switch verbatimLine(text) {
        case .success: nil
        case .failure(let problem): problem.message
        }
    }

    /// `text` as the content line it keeps verbatim, or why it cannot be kept and written
    /// back (``verbatimProblem(_:)``): one parse for a caller that also needs the line.
    public static func verbatimLine(_ text: String) -> Result<ContentLine, VerbatimProblem> {
        guard !text.contains(where: { $0 == "\n" || $0 == "\r" }) else {
            return .failure(VerbatimProblem(message: "a content line cannot hold a line break"))
        }
        do {
            let line = try ContentLine(parsing: text)
            if line.name == "BEGIN" || line.name == "END" {
                return .failure(
                    VerbatimProblem(message: "BEGIN and END lines are structure, not properties"))
            }
            if let parameter = line.parameters.first(where: {
                $0.value.contains(where: { $0.asciiValue.map { $0 < 0x20 && $0 != 0x09 } ?? false })
            }) {
                return .failure(
                    VerbatimProblem(
                        message: "the parameter \(parameter.name) holds a control character"))
            }
            return .success(line)
        } catch {
            return .failure(VerbatimProblem(message: error.message))
        }
    }

    /// Why a line cannot be kept verbatim (``verbatimLine(_:)``).
    public struct VerbatimProblem: Error, Sendable {
        /// What is wrong and what is expected.
        public var message: String
    }

    deinit {
        if ownsPointer && owner == nil { icalproperty_free(pointer) }
    }

    var isFreestanding: Bool { ownsPointer && owner == nil }

    func becomeView(of newOwner: AnyObject) { owner = newOwner }

    private static func makeValue(_ value: PropertyValue, for kind: icalproperty_kind)
        -> OpaquePointer
    {
        switch value {
        case .text(let text):
            return text.withCString { icalvalue_new_text($0) }
        case .dateTime(let time):
            let icalTime = time.icalTime
            return time.isDate ? icalvalue_new_date(icalTime) : icalvalue_new_datetime(icalTime)
        case .duration(let text):
            return icalvalue_new_duration(text.withCString { icaldurationtype_from_string($0) })
        case .relativeTrigger(let text):
            var trigger = icaltriggertype()
            trigger.time = icaltime_null_time()
            trigger.duration = text.withCString { icaldurationtype_from_string($0) }
            return icalvalue_new_trigger(trigger)
        case .absoluteTrigger(let epoch):
            var trigger = icaltriggertype()
            trigger.time = icaltime_from_timet_with_zone(
                time_t(epoch), 0, icaltimezone_get_utc_timezone())
            trigger.duration = icaldurationtype_null_duration()
            return icalvalue_new_trigger(trigger)
        case .uri(let uri):
            return uri.withCString { icalvalue_new_uri($0) }
        case .calAddress(let address):
            return address.withCString { icalvalue_new_caladdress($0) }
        case .action(let action):
            guard
                let made = action.withCString({ icalvalue_new_from_string(ICAL_ACTION_VALUE, $0) })
            else {
                preconditionFailure("libical rejects ACTION:\(action)")
            }
            return made
        case .integer(let number):
            return icalvalue_new_integer(Int32(clamping: number))
        case .utcOffset(let seconds):
            return icalvalue_new_utcoffset(Int32(clamping: seconds))
        case .textList(let items):
            var bytes: [UInt8] = []
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                for byte in item.utf8 {
                    switch byte {
                    case UInt8(ascii: ","): bytes += [EdgeWhitespace.marker, EdgeWhitespace.comma]
                    case UInt8(ascii: ";"):
                        bytes += [EdgeWhitespace.marker, EdgeWhitespace.semicolon]
                    default: bytes.append(byte)
                    }
                }
            }
            bytes.append(0)
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    icalvalue_new_text($0)
                }
            }
        case .literal(let text):
            let valueKind = icalproperty_kind_to_value_kind(kind)
            guard let made = text.withCString({ icalvalue_new_from_string(valueKind, $0) }) else {
                preconditionFailure("libical rejects the value '\(text)'")
            }
            return made
        case .attachmentURI, .attachmentBase64:
            preconditionFailure("attachments are built as ATTACH properties")
        }
    }

    // MARK: - Reading

    static func name(of pointer: OpaquePointer) -> String {
        let kind = icalproperty_isa(pointer)
        if kind == ICAL_X_PROPERTY {
            if let name = icalproperty_get_x_name(pointer) {
                return String(cString: name).uppercasedName()
            }
        }
        return PropertyKinds.name(of: kind)
            ?? Libical.copyString(icalproperty_kind_to_string(kind)) ?? "X-UNKNOWN"
    }

    /// The property name, upper-cased (`DTSTART`, `X-WR-TIMEZONE`).
    public var name: String { knownName ?? Property.name(of: pointer) }

    /// The parameters in file order.
    public var parameters: [Parameter] { Self.parameters(of: pointer) }

    private static func parameters(of pointer: OpaquePointer) -> [Parameter] {
        var result: [Parameter] = []
        var parameter = icalproperty_get_first_parameter(pointer, ICAL_ANY_PARAMETER)
        while let current = parameter {
            result.append(Property.read(current))
            parameter = icalproperty_get_next_parameter(pointer, ICAL_ANY_PARAMETER)
        }
        return result
    }

    /// The value of the first parameter named `name` (case-insensitive), if any.
    public func parameter(_ name: String) -> String? {
        Self.parameter(named: name, of: pointer)
    }

    /// The value of the first parameter named `name` of the property at `pointer`.
    static func parameter(named name: String, of pointer: OpaquePointer) -> String? {
        let upper = name.uppercasedName()
        let kind = icalparameter_string_to_kind(upper)
        if kind != ICAL_X_PARAMETER && kind != ICAL_IANA_PARAMETER && kind != ICAL_NO_PARAMETER {
            guard let found = icalproperty_get_first_parameter(pointer, kind) else { return nil }
            return Property.read(found).value
        }
        return parameters(of: pointer).first { $0.name == upper }?.value
    }

    private static func read(_ parameter: OpaquePointer) -> Parameter {
        let kind = icalparameter_isa(parameter)
        if kind == ICAL_X_PARAMETER || kind == ICAL_IANA_PARAMETER {
            let name = Libical.copyString(icalparameter_get_xname(parameter)) ?? "X-UNKNOWN"
            let value = Libical.copyString(icalparameter_get_xvalue(parameter)) ?? ""
            return Parameter(name, value)
        }
        let name = Libical.copyString(icalparameter_kind_to_string(kind)) ?? "X-UNKNOWN"
        // Text parameters have getters that return the decoded value itself.
        switch kind {
        case ICAL_FILENAME_PARAMETER:
            return Parameter(name, Libical.copyString(icalparameter_get_filename(parameter)) ?? "")
        case ICAL_FMTTYPE_PARAMETER:
            return Parameter(name, Libical.copyString(icalparameter_get_fmttype(parameter)) ?? "")
        case ICAL_TZID_PARAMETER:
            return Parameter(name, Libical.copyString(icalparameter_get_tzid(parameter)) ?? "")
        case ICAL_CN_PARAMETER:
            return Parameter(name, Libical.copyString(icalparameter_get_cn(parameter)) ?? "")
        default: break
        }
        // `NAME=VALUE` or `NAME="VALUE"`: the generic getter libical offers for every kind.
        let text = Libical.takeString(icalparameter_as_ical_string_r(parameter)) ?? ""
        var value = Substring(text)
        if let equals = value.firstIndex(of: "=") { value = value[value.index(after: equals)...] }
        if value.count >= 2, value.first == "\"", value.last == "\"" {
            value = value.dropFirst().dropLast()
        }
        return Parameter(name, String(value))
    }

    /// The value as text: unescaped for TEXT values (edge whitespace restored, see
    /// `EdgeWhitespace`), and libical's own rendering for other kinds.
    public var text: String { Self.text(of: pointer) }

    /// The text of the property at `pointer` (see ``text``).
    static func text(of pointer: OpaquePointer) -> String {
        guard let value = icalproperty_get_value(pointer) else { return "" }
        switch icalvalue_isa(value) {
        case ICAL_TEXT_VALUE:
            return EdgeWhitespace.restore(icalvalue_get_text(value))
        case ICAL_X_VALUE:
            return EdgeWhitespace.restore(icalvalue_get_x(value))
        default:
            return Libical.takeString(icalproperty_get_value_as_string_r(pointer)) ?? ""
        }
    }

    /// The DURATION value as libical renders it (`-PT15M`) and in seconds.
    public var duration: (text: String, seconds: Int) {
        let value = icalproperty_get_duration(pointer)
        let text = Libical.takeString(icaldurationtype_as_ical_string_r(value)) ?? "PT0S"
        return (text, Int(icaldurationtype_as_int(value)))
    }

    /// A `TRIGGER`: relative (a duration and whether it is related to the end) or absolute.
    public var trigger: Trigger { Self.trigger(of: pointer) }

    /// The trigger of the `TRIGGER` at `pointer` (see ``trigger``).
    static func trigger(of pointer: OpaquePointer) -> Trigger {
        let trigger = icalproperty_get_trigger(pointer)
        if icaltime_is_null_time(trigger.time) == 0 {
            return .absolute(
                epoch: Int64(
                    icaltime_as_timet_with_zone(trigger.time, icaltimezone_get_utc_timezone())))
        }
        let text = Libical.takeString(icaldurationtype_as_ical_string_r(trigger.duration)) ?? "PT0S"
        let relatedToEnd = parameter(named: "RELATED", of: pointer)?.uppercased() == "END"
        return .relative(text, relatedToEnd: relatedToEnd)
    }

    /// An `ATTACH` value: a URI, or inline base64 text (not yet decoded or checked).
    public var attachment: Attachment? { Self.attachment(of: pointer) }

    /// The `ATTACH` value of the property at `pointer` (see ``attachment``).
    static func attachment(of pointer: OpaquePointer) -> Attachment? {
        guard let attach = icalproperty_get_attach(pointer) else { return nil }
        if icalattach_get_is_url(attach) != 0 {
            return .uri(EdgeWhitespace.restore(icalattach_get_url(attach)))
        }
        guard let data = icalattach_get_data(attach) else { return .base64("") }
        return .base64(
            EdgeWhitespace.restore(UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self)))
    }

    /// The `ACTION` value, upper-cased (`DISPLAY`, `NONE`, `X-…`).
    public var action: String { Self.action(of: pointer) }

    /// The `ACTION` value of the property at `pointer` (see ``action``).
    static func action(of pointer: OpaquePointer) -> String {
        let action = icalproperty_get_action(pointer)
        if action == ICAL_ACTION_X || action == ICAL_ACTION_NONE {
            return text(of: pointer).uppercased()
        }
        return
            (Libical.copyString(icalproperty_enum_to_string(Int32(action.rawValue)))
            ?? text(of: pointer)).uppercased()
    }

    /// The values of a list property (`CATEGORIES:a,b`), unescaped; libical splits some
    /// lists into one property a value and leaves others in one.
    public var listText: [String] {
        guard let value = icalproperty_get_value(pointer) else { return [] }
        guard icalvalue_isa(value) == ICAL_TEXT_VALUE else { return [text] }
        // libical unescapes `\,` inside one value but keeps a list's separating commas only
        // in the serialized form; read that and split on unescaped commas.
        let raw = Libical.takeString(icalvalue_as_ical_string_r(value)) ?? ""
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in EdgeWhitespace.restore(raw) {
            if escaped {
                switch character {
                case "n", "N": current.append("\n")
                default: current.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items
    }

    /// Whether the value is a DATE or DATE-TIME (not a PERIOD, as `RDATE` may hold).
    public var isDateOrDateTime: Bool {
        guard let value = icalproperty_get_value(pointer) else { return false }
        let kind = icalvalue_isa(value)
        return kind == ICAL_DATE_VALUE || kind == ICAL_DATETIME_VALUE
            || kind == ICAL_DATETIMEDATE_VALUE
            || kind == ICAL_DATETIMEPERIOD_VALUE
                && icaltime_is_null_time(icalvalue_get_datetimeperiod(value).time) == 0
    }

    /// The property as a content line to keep verbatim (in `ical_extra`): unfolded, with
    /// the text exactly as the file had it.
    public var extraLine: String {
        guard let raw = icalproperty_as_ical_string_r(pointer) else { return "" }
        defer { icalmemory_free_buffer(raw) }
        return EdgeWhitespace.restore(raw).unfoldedLine()
    }

    /// The property as one unfolded content line, without the line end.
    public var contentLine: String {
        let text = Libical.takeString(icalproperty_as_ical_string_r(pointer)) ?? ""
        return text.unfoldedLine()
    }
}

@available(*, unavailable)
extension Property: Sendable {}

/// A `TRIGGER` value.
public enum Trigger: Sendable, Equatable {
    /// A duration before (negative) or after the start, or after the end when `relatedToEnd`.
    case relative(String, relatedToEnd: Bool)
    /// An absolute UTC time in Unix seconds.
    case absolute(epoch: Int64)
}

/// An `ATTACH` value.
public enum Attachment: Sendable, Equatable {
    case uri(String)
    case base64(String)
}

extension String {
    /// The text upper-cased, as `uppercased()` does; a name without a lower-case or
    /// non-ASCII letter (nearly every name in a file) is returned as it is, with no new String.
    func uppercasedName() -> String {
        let plain = utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 &- 0x61 < 26 || $0 >= 0x80 }
        }
        return plain == true ? self : uppercased()
    }

    /// The line with libical's folds (CRLF and a space) taken out and without its line end.
    ///
    /// Done on the UTF-8 bytes: a fold can fall inside a grapheme cluster (before an emoji
    /// skin-tone modifier, which joins the space before it into one Character), where
    /// String's Character-wise `replacingOccurrences(of: "\r\n ")` misses it; the line then
    /// kept the fold and no longer parsed, and a disabled alarm's long description was lost.
    func unfoldedLine() -> String {
        var bytes = Array(utf8)
        var kept = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 2 < bytes.count, bytes[index + 1] == 0x0A,
                bytes[index + 2] == 0x20
            {
                index += 3
                continue
            }
            bytes[kept] = bytes[index]
            kept += 1
            index += 1
        }
        while kept > 0, bytes[kept - 1] == 0x0A || bytes[kept - 1] == 0x0D { kept -= 1 }
        return String(decoding: bytes[..<kept], as: UTF8.self)
    }
}
