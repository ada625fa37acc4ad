import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element as a WebDAV response holds it: namespace, local name, children and text.
/// Built by FoundationXML's `XMLParser` with namespaces processed (libxml2 underneath: no
/// external entities are resolved). What a server sends is input like any other: an answer
/// with a document type (WebDAV answers have no DTD; one is an XML bomb or an external entity
/// on its way) or elements nested deeper than ``maximumDepth`` is refused, not built.
public struct XMLTree: Sendable, Equatable {
    public var namespace: String
    public var name: String
    public var attributes: [String: String] = [:]
    public var children: [XMLTree] = []
    public var text = ""

    /// The children named `name` in `namespace`.
    public func all(_ namespace: String, _ name: String) -> [XMLTree] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }

    /// The first child named `name` in `namespace`.
    public func first(_ namespace: String, _ name: String) -> XMLTree? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    /// The text, without the white space around it.
    public var trimmed: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The deepest nesting of elements read: a multistatus with calendar data needs six.
    public static let maximumDepth = 64

    /// Parses `data`.
    ///
    /// - Throws: the parser's message, with its line; what was refused, and why.
    public static func parse(_ data: Data) throws(DAVReplyError) -> XMLTree {
        if !isReadableText(data) {
            throw DAVReplyError(
                "the server's answer is not UTF-8 (as WebDAV answers are); not read")
        }
        if hasEmptyInstruction(data) {
            throw DAVReplyError(
                "the server's answer holds a processing instruction without data (<?NAME?>); WebDAV answers have none; not read"
            )
        }
        if declaresDocumentType(data) {
            throw DAVReplyError(
                "the server's answer declares a document type (<!DOCTYPE, entities: an XML bomb or an external entity on its way); WebDAV answers have none; not read"
            )
        }
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let refusal = builder.refusal {
            throw DAVReplyError(
                "the server's answer \(refusal) (line \(parser.lineNumber)); not read")
        }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no element"
            throw DAVReplyError(
                "the server's answer is not XML (line \(parser.lineNumber): \(reason))")
        }
        return root
    }

    /// Whether `data` is UTF-8, as WebDAV answers are (RFC 4918 §4.3 has servers use it).
    /// FoundationXML on Linux crashes on an element name that is not UTF-8 (it unwraps the
    /// name's String; an unknown `encoding=` lets such a name through libxml2), so any other
    /// answer is refused before it reaches the parser.
    public static func isReadableText(_ data: Data) -> Bool {
        String(validating: data, as: UTF8.self) != nil
    }

    /// Whether `data` holds `<?NAME?>`, a processing instruction without data: FoundationXML
    /// on Linux hands its missing data to `strlen` and crashes. Each `?>` is looked at with
    /// the last `<?` since the `?>` before it (an instruction holds no `?>`): nothing but a
    /// name between them is such an instruction.
    public static func hasEmptyInstruction(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        let question = UInt8(ascii: "?")
        var lastClose = 0
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == question, bytes[index + 1] == UInt8(ascii: ">") else {
                continue
            }
            var open = index - 1
            while open >= lastClose,
                !(bytes[open] == UInt8(ascii: "<") && bytes[open + 1] == question)
            {
                open -= 1
            }
            if open >= lastClose {
                let between = bytes[(open + 2)..<max(open + 2, index)]
                if !between.contains(where: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                    return true
                }
            }
            lastClose = index + 2
        }
        return false
    }

    /// Whether a `<!DOCTYPE` comes before the first element: FoundationXML on Linux tells its
    /// delegate of no entity declaration, so the prolog is looked at before parsing.
    public static func declaresDocumentType(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(1 << 20))
        let marker = Array("<!DOCTYPE".utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                // The first element: the prolog is over.
                if next != UInt8(ascii: "!") && next != UInt8(ascii: "?") { return false }
                if index + marker.count <= bytes.count
                    && zip(bytes[index..<index + marker.count], marker).allSatisfy({
                        $0 & 0xDF == $1 & 0xDF
                    })
                {
                    return true
                }
            }
            index += 1
        }
        return false
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?
        /// Why the answer was refused, once it was.
        var refusal: String?

        private func refuse(_ parser: XMLParser, _ reason: String) {
            guard refusal == nil else { return }
            refusal = reason
            stack.removeAll()
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            guard refusal == nil else { return }
            guard stack.count < XMLTree.maximumDepth else {
                return refuse(
                    parser, "nests elements deeper than \(XMLTree.maximumDepth)")
            }
            stack.append(
                XMLTree(namespace: namespaceURI ?? "", name: elementName, attributes: attributes))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard refusal == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName: String?
        ) {
            guard refusal == nil, let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}

/// An element of a request body. Written by ``DAV/document(_:)``: FoundationXML's
/// `XMLDocument` crashes in libxml2 on Linux when it builds namespaced trees (seen with
/// `MKCALENDAR` and `calendar-query` bodies), so requests, a handful of fixed shapes, are
/// written here with their text and attributes escaped; answers are read by `XMLParser`.
public struct XMLRequestElement: Sendable {
    public var name: String
    public var attributes: [(String, String)] = []
    public var children: [XMLRequestElement] = []
    public var text: String?

    public func write(into output: inout String) {
        output += "<" + name
        for (key, value) in attributes { output += " \(key)=\"\(DAV.escaped(value))\"" }
        if children.isEmpty && text == nil {
            output += "/>"
            return
        }
        output += ">"
        if let text { output += DAV.escaped(text) }
        for child in children { child.write(into: &output) }
        output += "</" + name + ">"
    }
}

/// The namespaces of WebDAV and its calendar extensions, and request bodies.
public enum DAV {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"

    /// A request body: `root` (its names prefixed `d:`, `c:`, `cs:` or `ic:`) declaring the
    /// namespaces.
    public static func document(_ root: XMLRequestElement) -> [UInt8] {
        var root = root
        root.attributes += [
            ("xmlns:d", dav), ("xmlns:c", caldav), ("xmlns:cs", calendarServer),
            ("xmlns:ic", apple),
        ]
        var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        root.write(into: &text)
        return Array(text.utf8)
    }

    /// An element `name` (`d:prop`, `c:calendar-data` …) with `children` or `text`.
    public static func element(
        _ name: String, attributes: [String: String] = [:], _ children: [XMLRequestElement] = [],
        text: String? = nil
    ) -> XMLRequestElement {
        XMLRequestElement(
            name: name, attributes: attributes.sorted { $0.key < $1.key }, children: children,
            text: text)
    }

    /// `text` with XML's five special characters as entities, and characters XML 1.0 cannot
    /// hold at all left out.
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

/// One `response` of a `multistatus`: a resource, its status and the properties the server
/// found (those of a 2xx `propstat`).
public struct DAVResource: Sendable {
    public var href: String
    /// The response's own status (sync-collection gives 404 for a member removed).
    public var status: Int?
    /// Found properties by namespace and name.
    public var properties: [String: XMLTree] = [:]

    public func property(_ namespace: String, _ name: String) -> XMLTree? {
        properties[namespace + " " + name]
    }

    public var etag: String? { property(DAV.dav, "getetag")?.trimmed }

    public var isCalendar: Bool {
        property(DAV.dav, "resourcetype")?.first(DAV.caldav, "calendar") != nil
    }

    public var isCollection: Bool {
        property(DAV.dav, "resourcetype")?.first(DAV.dav, "collection") != nil
    }

    /// The `href` inside a property (current-user-principal, calendar-home-set).
    public func hrefProperty(_ namespace: String, _ name: String) -> String? {
        property(namespace, name)?.first(DAV.dav, "href")?.trimmed
    }
}

/// A `multistatus` answer: its responses and, for sync-collection, the new token.
public struct MultiStatus: Sendable {
    public var resources: [DAVResource] = []
    public var syncToken: String?

    public init(_ data: Data) throws(DAVReplyError) {
        let root = try XMLTree.parse(data)
        guard root.namespace == DAV.dav, root.name == "multistatus" else {
            throw DAVReplyError("expected a DAV:multistatus answer, got <\(root.name)>")
        }
        syncToken = root.first(DAV.dav, "sync-token")?.trimmed
        for response in root.all(DAV.dav, "response") {
            guard let href = response.first(DAV.dav, "href")?.trimmed else { continue }
            var resource = DAVResource(
                href: href, status: response.first(DAV.dav, "status").flatMap(Self.code))
            for propstat in response.all(DAV.dav, "propstat") {
                let code = propstat.first(DAV.dav, "status").flatMap(Self.code) ?? 200
                guard (200..<300).contains(code), let prop = propstat.first(DAV.dav, "prop")
                else { continue }
                for property in prop.children {
                    resource.properties[property.namespace + " " + property.name] = property
                }
            }
            resources.append(resource)
        }
    }

    /// The code of `HTTP/1.1 404 Not Found`.
    private static func code(_ status: XMLTree) -> Int? {
        let parts = status.trimmed.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }
}

/// Why a server's answer was not read: what it was, and what was refused in it.
public struct DAVReplyError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Where the objects an answer names are.
public enum DAVMember {
    /// The decoded path of the object `href` names when it is a member of the collection at
    /// `collection` (on the same server, directly inside it); `nil` for the collection itself.
    ///
    /// - Throws: for an `href` outside the collection (another server, another collection,
    ///   `..` out of it): a server that names one is not followed, so nothing but the
    ///   calendar's own objects is ever read, written or deleted.
    public static func path(_ href: String, in collection: URL) throws(DAVReplyError) -> String? {
        let base =
            collection.path.hasSuffix("/") ? collection : collection.appendingPathComponent("")
        guard
            let resolved = URL(string: href, relativeTo: base)?.absoluteURL
                ?? URL(
                    string: href.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                        ?? "", relativeTo: base)?.absoluteURL
        else {
            throw DAVReplyError("the server named \(String(href.prefix(200))), which is no address")
        }
        func decoded(_ url: URL) -> String {
            URLComponents(url: url, resolvingAgainstBaseURL: true)?.path ?? url.path
        }
        let own = decoded(base)
        let path = decoded(resolved)
        if path == own || path + "/" == own { return nil }
        let sameServer =
            resolved.scheme == base.scheme
            && (resolved.host ?? "").lowercased() == (base.host ?? "").lowercased()
            && resolved.port == base.port
        let name = path.hasPrefix(own) ? path.dropFirst(own.count) : ""
        guard sameServer, !name.isEmpty, !name.dropLast(name.hasSuffix("/") ? 1 : 0).contains("/")
        else {
            throw DAVReplyError(
                "the server named \(String(href.prefix(200))) as an object of \(base.absoluteString), which it is not (another calendar or server); nothing was read or changed there"
            )
        }
        return path
    }
}
