import CLibical

/// libical's property names and kinds, looked up in tables built once.
///
/// `icalproperty_string_to_kind` and `icalproperty_kind_to_string` walk a table of about 120
/// names with `strcasecmp`; called for every property of every event they cost more than the
/// parsing itself.
enum PropertyKinds {
    /// The raw values scanned: the enumeration is not contiguous and RFC 7986 kinds sit past
    /// ICAL_NO_PROPERTY.
    private static let raws = UInt32(0)...UInt32(1000)

    private static let table: (names: [String?], kinds: NameTable<icalproperty_kind>) = {
        var names = [String?](repeating: nil, count: raws.count)
        var kinds = NameTable<icalproperty_kind>()
        for raw in raws {
            let kind = icalproperty_kind(rawValue: raw)
            guard kind != ICAL_X_PROPERTY, kind != ICAL_ANY_PROPERTY, kind != ICAL_NO_PROPERTY,
                let text = icalproperty_kind_to_string(kind)
            else { continue }
            let name = String(cString: text).uppercased()
            names[Int(raw)] = name
            if kinds[name] == nil { kinds[name] = kind }
        }
        return (names, kinds)
    }()

    /// The name of a kind libical knows (not X-), upper-cased.
    static func name(of kind: icalproperty_kind) -> String? {
        raws.contains(kind.rawValue) ? table.names[Int(kind.rawValue)] : nil
    }

    /// The kind of an upper-cased name: `ICAL_X_PROPERTY` for `X-` names and names libical
    /// does not know.
    static func kind(of upperName: String) -> icalproperty_kind {
        table.kinds[upperName] ?? ICAL_X_PROPERTY
    }

    /// Whether libical's parser knows the upper-cased name (it refuses unknown non-X names).
    static func isKnown(_ upperName: String) -> Bool {
        table.kinds[upperName] != nil
    }
}
