import Foundation
import Testing

let xmllintInstalled = available("xmllint", ["--version"])
let rsvgInstalled = available("rsvg-convert", ["--version"])
let chromiumInstalled = available("chromium", ["--version"])

/// Pictures as their readers see them: XML checked by xmllint (Debian's libxml2-utils), SVG
/// drawn by librsvg (rsvg-convert), HTML by headless Chromium, the PNGs they draw counted
/// square by square (`Fixtures/png_regions.py`).
@Suite(
    "Pictures: stats, month and overlaps as SVG and HTML, drawn by real renderers",
    .enabled(
        if: (xmllintInstalled && rsvgInstalled && chromiumInstalled) || required,
        "xmllint, rsvg-convert or chromium is missing (apt-get install libxml2-utils librsvg2-bin chromium)"
    ))
struct PictureTests {
    /// A coloured region of a PNG: where, how big, how many pixels.
    struct Region {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var pixels: Int
    }

    static func regions(_ png: String, colour: String? = nil, in cli: Taskcal) throws -> [Region] {
        let result = try Taskcal.execute(
            "/usr/bin/env",
            ["python3", Taskcal.fixture("png_regions.py"), png]
                + (colour.map { ["--colour", $0] } ?? []),
            in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let object =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["regions"] as? [[Int]] ?? []).map {
            Region(x: $0[0], y: $0[1], width: $0[2], height: $0[3], pixels: $0[4])
        }
    }

    /// xmllint reads `file` as well-formed XML.
    static func expectWellFormed(_ file: String, in cli: Taskcal) throws {
        let lint = try Taskcal.execute(
            "/usr/bin/env", ["xmllint", "--noout", file], in: cli.directory)
        #expect(lint.status == 0, "\(file): \(lint.stderr)")
    }

    /// rsvg-convert draws `svg` into `png`.
    static func draw(_ svg: String, to png: String, in cli: Taskcal) throws {
        let drawn = try Taskcal.execute(
            "/usr/bin/env", ["rsvg-convert", "--background-color", "white", svg, "-o", png],
            in: cli.directory)
        #expect(drawn.status == 0, "\(drawn.stderr)")
    }

    /// Headless Chromium on `html`: its DOM, and a screenshot into `png`.
    static func chromium(_ html: String, screenshot png: String, in cli: Taskcal) throws -> String {
        let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=\(cli.path("chromium-profile"))",
        ]
        let dom = try Taskcal.execute(
            "/usr/bin/env", ["chromium"] + flags + ["--dump-dom", "file://\(html)"],
            in: cli.directory, environment: ["HOME": cli.directory.path])
        #expect(dom.status == 0, "\(dom.stderr)")
        let shot = try Taskcal.execute(
            "/usr/bin/env",
            ["chromium"] + flags + [
                "--window-size=1100,1000", "--screenshot=\(png)", "file://\(html)",
            ],
            in: cli.directory, environment: ["HOME": cli.directory.path])
        #expect(shot.status == 0, "\(shot.stderr)")
        return dom.stdout
    }

    @Test("stats --format svg|html: a square for each day done, a cell for each habit's day")
    func stats() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let diary = try HabitTests.week(cli, store: cli.store("sqlite"))
        let window = ["stats", "--from", "2026-11-16", "--to", "2026-11-23"]
        let svg = try diary(window + ["--format", "svg"])
        #expect(svg.status == 0, "\(svg.stderr)")
        try cli.write("stats.svg", svg.stdout)
        try Self.expectWellFormed(cli.path("stats.svg"), in: cli)
        try Self.draw(cli.path("stats.svg"), to: cli.path("stats.png"), in: cli)
        let regions = try Self.regions(cli.path("stats.png"), in: cli)
        // The heat map: 11-pixel squares, one per day with something done (16, 17, 18, 20
        // and 21 November), and the legend's four shades.
        let squares = regions.filter { $0.width == 11 && $0.height == 11 }
        #expect(squares.count == 5 + 4, "\(regions)")
        // The grid: Run done 4 of 7 days, Read 3 of 7: filled cells, and outlined ones
        // for the days scheduled and not done.
        let cells = regions.filter { $0.width == 14 && $0.height == 14 }
        #expect(cells.filter { $0.pixels > 150 }.count == 7, "\(cells)")
        #expect(cells.filter { $0.pixels <= 150 }.count == 7, "\(cells)")
        // Run's own colour, turquoise (64, 224, 208), fills its four done days.
        let turquoise = try Self.regions(cli.path("stats.png"), colour: "40e0d0", in: cli)
            .filter { $0.width == 14 && $0.pixels > 150 }
        #expect(turquoise.count == 4, "\(turquoise)")

        // The same as one HTML page: well-formed, drawn by Chromium with the same squares.
        let html = try diary(window + ["--format", "html"])
        #expect(html.status == 0, "\(html.stderr)")
        try cli.write("stats.html", html.stdout)
        try Self.expectWellFormed(cli.path("stats.html"), in: cli)
        #expect(!html.stdout.contains("<script"), "no script")
        #expect(
            !html.stdout.contains("http://") || !html.stdout.contains("src="), "nothing fetched")
        let dom = try Self.chromium(
            cli.path("stats.html"), screenshot: cli.path("page.png"), in: cli)
        #expect(dom.contains("<td>completed</td><td>7</td>"), "\(dom.prefix(2000))")
        let page = try Self.regions(cli.path("page.png"), in: cli)
        #expect(page.filter { $0.width == 11 && $0.height == 11 }.count == 9, "\(page)")
    }

    @Test("month --format svg|html: each day's entries; a hostile name shows as text")
    func month() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        try cli.write(
            "month.json",
            """
            [{"id": 1, "date_start": "1795168800", "date_finish": "1795172400", "name": "<script>alert(1)</script>"},
             {"id": 2, "date_start": "1795255200", "date_finish": "1795258800", "name": "Dentist & co"}]
            """)
        let svg = try cli.run([
            "month", "2026-11", cli.path("month.json"), "--tz", "Europe/Berlin", "--format", "svg",
        ])
        #expect(svg.status == 0, "\(svg.stderr)")
        // Cut to the cell, escaped; the page's table below the picture has it whole.
        #expect(svg.stdout.contains(">11:00 &lt;script&gt;alert(…<"), "\(svg.stdout)")
        #expect(svg.stdout.contains(">11:00 Dentist &amp; co<"))
        try cli.write("month.svg", svg.stdout)
        try Self.expectWellFormed(cli.path("month.svg"), in: cli)
        try Self.draw(cli.path("month.svg"), to: cli.path("month.png"), in: cli)
        let html = try cli.run([
            "month", "2026-11", cli.path("month.json"), "--tz", "Europe/Berlin", "--format", "html",
        ])
        try cli.write("month.html", html.stdout)
        try Self.expectWellFormed(cli.path("month.html"), in: cli)
        let dom = try Self.chromium(
            cli.path("month.html"), screenshot: cli.path("month-page.png"), in: cli)
        // The name is text in the page, never an element.
        #expect(!dom.contains("<script"), "\(dom)")
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(dom)")
        // In Russian, as LANG says.
        let russian = try cli.run(
            [
                "month", "2026-11", cli.path("month.json"), "--tz", "Europe/Berlin", "--format",
                "svg",
            ],
            environment: ["LANG": "ru_RU.UTF-8"])
        #expect(russian.stdout.contains("Ноябрь 2026"), "\(russian.stdout.prefix(800))")
        #expect(russian.stdout.contains(">пн<"))
    }

    @Test("overlaps --format svg: a bar for each entry that collides, the shared time in red")
    func overlaps() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let arguments = ["overlaps", Taskcal.sample("overlaps.json"), "--tz", "Europe/Berlin"]
        let json = try cli.run(arguments + ["--format", "json"])
        let pairs = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let involved = Set(
            pairs.flatMap { pair in
                ["first", "second"].compactMap { (pair[$0] as? [String: Any])?["id"] as? Int }
            })
        let svg = try cli.run(arguments + ["--format", "svg"])
        #expect(svg.status == 1, "exit 1 when overlaps exist, as in text: \(svg.stderr)")
        try cli.write("overlaps.svg", svg.stdout)
        try Self.expectWellFormed(cli.path("overlaps.svg"), in: cli)
        try Self.draw(cli.path("overlaps.svg"), to: cli.path("overlaps.png"), in: cli)
        let bars = try Self.regions(cli.path("overlaps.png"), colour: "0969da", in: cli)
        #expect(bars.count == involved.count, "\(bars) for \(involved)")
        #expect(svg.stdout.contains(">Double bookings: \(pairs.count) pairs<"))
        // A report that draws none says so.
        let agenda = try cli.run(["agenda", Taskcal.sample("overlaps.json"), "--format", "svg"])
        #expect(agenda.status == 2)
        #expect(agenda.stderr.contains("agenda draws no picture"), "\(agenda.stderr)")
    }
}
