import Foundation
import Localization
import TaskConversion

/// What every picture shares: its fonts and colours, and the page an HTML picture is put on.
public enum Drawing {
    static let font = "DejaVu Sans, Liberation Sans, Arial, sans-serif"
    static let ink = "#1f2328"
    static let faint = "#656d76"
    static let empty = "#ebedf0"
    static let conflict = "#cf222e"
    /// The colour of what was done when no entry names one (RFC 7986 COLOR).
    public static let doneColor = "#2da44e"

    /// An `<svg>` of `width` × `height` with `body` inside, its title for readers and
    /// screen readers.
    static func svg(width: Double, height: Double, title: String, _ body: (inout Markup) -> Void)
        -> Markup
    {
        var markup = Markup()
        markup.open(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "width": Markup.number(width),
                "height": Markup.number(height),
                "viewBox": #"0 0 \#(Markup.number(width)) \#(Markup.number(height))"#,
                "font-family": font, "font-size": "11", "fill": ink, "role": "img",
            ])
        markup.element("title", text: title)
        markup.newline()
        markup.empty(
            "rect", ["width": "100%", "height": "100%", "fill": "#ffffff"])
        body(&markup)
        markup.close()
        markup.newline()
        markup.size = (width, height)
        return markup
    }

    /// `pictures` in one SVG, each below the one before, as wide as the widest; one picture
    /// as it is.
    public static func stacked(_ pictures: [Markup], title: String) -> Markup {
        guard pictures.count > 1 else { return pictures.first ?? Markup() }
        let sizes = pictures.map { $0.size ?? (0, 0) }
        let width = sizes.map(\.width).max() ?? 0
        let height = sizes.map(\.height).reduce(0, +)
        var markup = Markup()
        markup.open(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "width": Markup.number(width),
                "height": Markup.number(height),
                "viewBox": #"0 0 \#(Markup.number(width)) \#(Markup.number(height))"#,
            ])
        markup.element("title", text: title)
        var y = 0.0
        for (picture, size) in zip(pictures, sizes) {
            markup.open("g", ["transform": "translate(0 \(Markup.number(y)))"])
            markup.add(markup: picture)
            markup.close()
            y += size.height
        }
        markup.close()
        markup.size = (width, height)
        return markup
    }

    /// Text at `x`, `y`.
    static func label(
        _ markup: inout Markup, _ text: String, x: Double, y: Double,
        anchor: String = "start", color: String = ink, size: Int = 11, bold: Bool = false
    ) {
        markup.element(
            "text",
            [
                "x": Markup.number(x), "y": Markup.number(y), "text-anchor": anchor,
                "fill": color, "font-size": String(size),
                "font-weight": bold ? "bold" : "normal",
            ], text: text)
    }

    /// `text` cut to `limit` characters, with an ellipsis when cut.
    static func cut(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(max(1, limit - 1))) + "…"
    }

    /// A standalone SVG file: the XML declaration, then the picture.
    public static func svgFile(_ picture: Markup) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + picture.finished
    }

    /// One self-contained HTML page (styles inline, the pictures inside, no script, nothing
    /// fetched), written as well-formed XML so that XML tools read it too; `table` is the
    /// same figures as text, for printing, searching and screen readers.
    public static func htmlPage(title: String, pictures: [Markup], table: [[String]]) -> String {
        var page = Markup()
        page.open(
            "html",
            ["xmlns": "http://www.w3.org/1999/xhtml", "lang": Localization.language.rawValue])
        page.open("head")
        page.empty("meta", ["charset": "utf-8"])
        page.empty(
            "meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
        page.element("title", text: title)
        page.element(
            "style",
            text: #"""
                body { font-family: \#(font); color: \#(ink); margin: 2em auto; max-width: 60em; \#
                padding: 0 1em; }
                h1 { font-size: 1.4em; } figure { margin: 1em 0; overflow-x: auto; }
                table { border-collapse: collapse; margin-top: 1em; }
                td, th { border-bottom: 1px solid \#(empty); padding: 0.25em 0.75em; \#
                text-align: left; }
                @media print { body { margin: 0; max-width: none; } figure { overflow: visible; } }
                """#)
        page.close()
        page.open("body")
        page.element("h1", text: title)
        for picture in pictures {
            page.open("figure")
            page.add(markup: picture)
            page.close()
        }
        if let header = table.first {
            page.open("table")
            page.open("tr")
            for cell in header { page.element("th", text: cell) }
            page.close()
            for row in table.dropFirst() {
                page.open("tr")
                for cell in row { page.element("td", text: cell) }
                page.close()
            }
            page.close()
        }
        return #"<!DOCTYPE html>"# + "\n" + page.finished + "\n"
    }
}
