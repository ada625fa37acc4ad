import Foundation

/// A small writer of XML markup (SVG, and HTML written as well-formed XML) whose every text
/// and attribute value is escaped: an entry named `<script>` is drawn as those characters.
///
/// No library on the toolchain's mirror writes SVG; this one is small and its escaping has
/// tests of its own (`MarkupTests`).
public struct Markup: Sendable {
    /// The markup written so far.
    public private(set) var text = ""
    private var open: [String] = []
    /// The width and height of the picture this is, when it is one (``Drawing``'s pictures
    /// say theirs): what stacking pictures needs, not read back out of the text.
    public internal(set) var size: (width: Double, height: Double)?

    public init() {}

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, and the characters XML 1.0 does not
    /// allow (control characters, unpaired surrogates cannot occur in a String) left out.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFFFE
                    || value == 0xFFFF
                {
                    continue
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `<name a="1" b="x">`, closed by ``close()``.
    public mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String> = [:]) {
        text += "<" + name + Self.attributes(attributes) + ">"
        open.append(name)
    }

    /// `<name a="1"/>`.
    public mutating func empty(_ name: String, _ attributes: KeyValuePairs<String, String> = [:]) {
        text += "<" + name + Self.attributes(attributes) + "/>"
    }

    /// `<name …>text</name>`.
    public mutating func element(
        _ name: String, _ attributes: KeyValuePairs<String, String> = [:], text content: String
    ) {
        open(name, attributes)
        add(content)
        close()
    }

    /// Text inside the open element, escaped.
    public mutating func add(_ content: String) {
        text += Self.escaped(content)
    }

    /// Markup made by another writer, as it is.
    public mutating func add(markup: Markup) {
        text += markup.text
    }

    /// A line break between elements, for people reading the file.
    public mutating func newline() { text += "\n" }

    /// Closes the element opened last.
    public mutating func close() {
        guard let name = open.popLast() else { return }
        text += "</" + name + ">"
    }

    /// The markup with every open element closed.
    public var finished: String {
        var copy = self
        while !copy.open.isEmpty { copy.close() }
        return copy.text
    }

    private static func attributes(_ attributes: KeyValuePairs<String, String>) -> String {
        attributes.map { " \($0.key)=\"\(escaped($0.value))\"" }.joined()
    }

    /// A number for a coordinate: at most two decimals, no trailing zeros.
    public static func number(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
