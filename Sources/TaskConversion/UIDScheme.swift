/// How a record's `id` becomes an iCalendar `UID` and back: `taskcal-42@taskcal.invalid`.
///
/// The same id always gives the same UID, so re-exporting a diary updates the events a
/// calendar app already has instead of duplicating them. `--uid-domain` replaces the
/// default domain (reserved as never-real by RFC 6761) with one the user controls, which
/// makes the UIDs globally unique as RFC 5545 asks.
public struct UIDScheme: Sendable, Hashable {
    /// The part after `@`.
    public var domain: String

    /// The default domain, `taskcal.invalid`.
    public static let defaultDomain = "taskcal.invalid"

    /// Creates a scheme for `domain`.
    public init(domain: String = UIDScheme.defaultDomain) {
        self.domain = domain
    }

    /// The UID for `id`.
    public func uid(for id: Int64) -> String {
        "taskcal-\(id)@\(domain)"
    }

    /// The id and domain of a UID this scheme (with any domain) made, or `nil` for other UIDs.
    public static func parse(_ uid: String) -> (id: Int64, domain: String)? {
        guard uid.hasPrefix("taskcal-"), let at = uid.firstIndex(of: "@") else { return nil }
        let number = uid[uid.index(uid.startIndex, offsetBy: 8)..<at]
        let domain = String(uid[uid.index(after: at)...])
        guard !domain.isEmpty, let id = Int64(number), String(id) == number else { return nil }
        return (id, domain)
    }
}
