// Built with the CalDAV trait only (Package.swift): without it, this module is empty.
#if CalDAV

import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element as a WebDAV response holds it: namespace, local name, children and text.
/// Built by FoundationXML's `XMLParser` with namespaces processed (libxml2 underneath: no
/// external entities are resolved). What a server sends is input like any other: an answer
/// with a document type (WebDAV answers have no DTD; one is an XML bomb or an external entity
/// on its way) or elements nested deeper than ``maximumDepth`` is refused, not built.
struct XMLTree: Sendable, Equatable {
    var namespace: String
    var name: String
    var attributes: [String: String] = [:]
    var children: [XMLTree] = []
    var text = ""

    /// The children named `name` in `namespace`.
    func all(_ namespace: String, _ name: String) -> [XMLTree] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }

    /// The first child named `name` in `namespace`.
    func first(_ namespace: String, _ name: String) -> XMLTree? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    /// The text, without the white space around it.
    var trimmed: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The deepest nesting of elements read: a multistatus with calendar data needs six.
    static let maximumDepth = 64

    /// Parses `data`.
    ///
    /// - Throws: the parser's message, with its line; what was refused, and why.
    static func parse(_ data: Data) throws(CalDAVError) -> XMLTree {
        if declaresDocumentType(data) {
            throw .protocolError(
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
            throw .protocolError(
                "the server's answer \(refusal) (line \(parser.lineNumber)); not read")
        }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no element"
            throw .protocolError(
                "the server's answer is not XML (line \(parser.lineNumber): \(reason))")
        }
        return root
    }

    /// Whether a `<!DOCTYPE` comes before the first element: FoundationXML on Linux tells its
    /// delegate of no entity declaration, so the prolog is looked at before parsing.
    static func declaresDocumentType(_ data: Data) -> Bool {
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
struct XMLRequestElement: Sendable {
    var name: String
    var attributes: [(String, String)] = []
    var children: [XMLRequestElement] = []
    var text: String?

    func write(into output: inout String) {
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
enum DAV {
    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    static let calendarServer = "http://calendarserver.org/ns/"
    static let apple = "http://apple.com/ns/ical/"

    /// A request body: `root` (its names prefixed `d:`, `c:`, `cs:` or `ic:`) declaring the
    /// namespaces.
    static func document(_ root: XMLRequestElement) -> [UInt8] {
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
    static func element(
        _ name: String, attributes: [String: String] = [:], _ children: [XMLRequestElement] = [],
        text: String? = nil
    ) -> XMLRequestElement {
        XMLRequestElement(
            name: name, attributes: attributes.sorted { $0.key < $1.key }, children: children,
            text: text)
    }

    /// `text` with XML's five special characters as entities, and characters XML 1.0 cannot
    /// hold at all left out.
    static func escaped(_ text: String) -> String {
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
struct DAVResource: Sendable {
    var href: String
    /// The response's own status (sync-collection gives 404 for a member removed).
    var status: Int?
    /// Found properties by namespace and name.
    var properties: [String: XMLTree] = [:]

    func property(_ namespace: String, _ name: String) -> XMLTree? {
        properties[namespace + " " + name]
    }

    var etag: String? { property(DAV.dav, "getetag")?.trimmed }

    var isCalendar: Bool {
        property(DAV.dav, "resourcetype")?.first(DAV.caldav, "calendar") != nil
    }

    var isCollection: Bool {
        property(DAV.dav, "resourcetype")?.first(DAV.dav, "collection") != nil
    }

    /// The `href` inside a property (current-user-principal, calendar-home-set).
    func hrefProperty(_ namespace: String, _ name: String) -> String? {
        property(namespace, name)?.first(DAV.dav, "href")?.trimmed
    }
}

/// A `multistatus` answer: its responses and, for sync-collection, the new token.
struct MultiStatus: Sendable {
    var resources: [DAVResource] = []
    var syncToken: String?

    init(_ data: Data) throws(CalDAVError) {
        let root = try XMLTree.parse(data)
        guard root.namespace == DAV.dav, root.name == "multistatus" else {
            throw .protocolError("expected a DAV:multistatus answer, got <\(root.name)>")
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

#endif
