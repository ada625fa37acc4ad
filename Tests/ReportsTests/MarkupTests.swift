import Foundation
import PropertyBased
import Reports
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The text an XML parser reads back from `markup`'s elements.
private final class TextCollector: NSObject, XMLParserDelegate {
    var text = ""
    var attributes: [String: String] = [:]
    var elements: [String] = []

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        elements.append(elementName)
        self.attributes.merge(attributes) { _, new in new }
    }

    static func read(_ markup: String) -> TextCollector? {
        let collector = TextCollector()
        let parser = XMLParser(data: Data(markup.utf8))
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }
}

/// Any Unicode scalar but the surrogates; one in four from the characters markup gives a
/// meaning to, and control characters.
private let scalar = Gen<UInt32>.value(in: 0...0x2_FFFF).map { value -> Character in
    let special: [Character] = ["<", ">", "&", "\"", "'", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}"]
    if value % 4 == 0 { return special[Int(value / 4) % special.count] }
    let valid = (0xD800...0xDFFF).contains(value) ? value - 0x800 : value
    return Character(UnicodeScalar(valid)!)
}

@Suite("Markup: every text and attribute reaches the picture as the characters it was")
struct MarkupTests {
    /// What XML 1.0 can carry of `text`: it has no place for most control characters.
    static func carried(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { scalar in
                    let value = scalar.value
                    return value == 0x9 || value == 0xA || value == 0xD
                        || (value >= 0x20 && !(0x7F...0x9F).contains(value) && value != 0xFFFE
                            && value != 0xFFFF)
                }))
    }

    @Test("a hostile name is text: <script>, entities, quotes")
    func hostile() throws {
        var markup = Markup()
        markup.open("svg", ["xmlns": "http://www.w3.org/2000/svg", "data-name": "\"><script>"])
        markup.element("text", text: "<script>alert('x')</script> &amp; \u{1B}[31m")
        let text = markup.finished
        #expect(
            text
                == "<svg xmlns=\"http://www.w3.org/2000/svg\" data-name=\"&quot;&gt;&lt;script&gt;\"><text>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp;amp; [31m</text></svg>"
        )
        let read = try #require(TextCollector.read(text))
        #expect(read.elements == ["svg", "text"])
        #expect(read.text == "<script>alert('x')</script> &amp; [31m")
        #expect(read.attributes["data-name"] == "\"><script>")
    }

    @Test("any text and attribute value parses back as itself (less what XML cannot carry)")
    func anyText() async {
        await propertyCheck(count: 400, input: scalar.string(of: 0...40)) { text in
            var markup = Markup()
            markup.open("g", ["data-x": text])
            markup.add(text)
            let read = TextCollector.read(markup.finished)
            #expect(read != nil, "unparsable for \(text.unicodeScalars.map(\.value))")
            // A parser normalises line ends in text and white space in attributes.
            let expected = Self.carried(text)
            #expect(
                read?.text.replacingOccurrences(of: "\r", with: "\n")
                    == expected.replacingOccurrences(of: "\r\n", with: "\n")
                    .replacingOccurrences(of: "\r", with: "\n"))
            #expect(
                read?.attributes["data-x"]
                    == expected.replacingOccurrences(of: "\r\n", with: " ")
                    .replacingOccurrences(of: "\r", with: " ").replacingOccurrences(
                        of: "\n", with: " "
                    ).replacingOccurrences(of: "\t", with: " "))
        }
    }

    @Test("numbers for coordinates: at most two decimals, no trailing zeros")
    func numbers() {
        #expect(Markup.number(14) == "14")
        #expect(Markup.number(0.3) == "0.3")
        #expect(Markup.number(1.0 / 3.0) == "0.33")
        #expect(Markup.number(-2.5) == "-2.5")
        #expect(Markup.number(-0.001) == "0")
        #expect(Markup.number(700.999) == "701")
    }
}
