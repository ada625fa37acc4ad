import Testing

@testable import Localization

@Suite("The catalogue: its file format, its templates, Russian plurals")
struct CatalogTests {
    @Test("a .strings file: escapes, comments, several lines; damage is said with its line")
    func stringsFile() throws {
        let text = """
            /* a comment
               over two lines */
            "plain" = "просто";
            // a line comment
            "with \\"quotes\\" and \\\\" = "строка\\nвторая\\tтаб";
            "\\U00e9" = "é";

            """
        let entries = try StringsFile.entries(Array(text.utf8))
        #expect(entries["plain"] == "просто")
        #expect(entries["with \"quotes\" and \\"] == "строка\nвторая\tтаб")
        #expect(entries["é"] == "é")
        #expect(entries.count == 3)
        #expect(throws: StringsFile.Malformed.self) {
            try StringsFile.entries(Array("\"a\" = \"b\"\n\"c\" = \"d\";".utf8))
        }
        do {
            _ = try StringsFile.entries(Array("\"a\" = \"b\";\n\n\"c\" = \"d".utf8))
            Issue.record("an unclosed string was read")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.contains("closing quote"))
        }
    }

    @Test("the catalogue shipped is read whole and has the plural forms' syntax right")
    func shippedCatalogue() throws {
        for table in ["Localizable", "Formats"] {
            let entries = Localization.load(.russian, table: table)
            #expect(entries.count > 250, "\(table): \(entries.count) entries")
            for (key, value) in entries where value.contains("{") {
                // Each {N|one|few|many} names a value the key has.
                let values = key.components(separatedBy: "%@").count - 1
                for form in value.split(separator: "{").dropFirst() {
                    guard let number = Int(form.prefix { $0.isNumber }) else { continue }
                    #expect((1...values).contains(number), "\(key) → \(value)")
                }
            }
        }
    }

    @Test("templates match as the shortest values that fit, on any text")
    func templates() {
        let template = Localization.Template(key: "%@ overlaps %@ of %@", translation: "")
        #expect(
            template.parts.map { String(decoding: $0, as: UTF8.self) } == [
                "", " overlaps ", " of ", "",
            ])
        #expect(
            template.match("\"A\" overlaps #1 \"B of C\" of day.json")
                == ["\"A\"", "#1 \"B", "C\" of day.json"])
        #expect(template.match("\"A\" overlaps nothing") == nil)
        let percent = Localization.Template(key: "100%% of %@", translation: "")
        #expect(percent.match("100% of them") == ["them"])
        #expect(percent.match("100%% of them") == nil)
        let adjacent = Localization.Template(key: "a%@%@b", translation: "")
        #expect(adjacent.match("axyb") == ["", "xy"])
        let cyrillic = Localization.Template(key: "«%@» — %@", translation: "")
        #expect(cyrillic.match("«Обед» — 13:00") == ["Обед", "13:00"])
        #expect(cyrillic.match("«Обед» 13:00") == nil)
    }

    @Test("render: values by position, plural forms by the number in a value")
    func render() {
        let forms = "{1|%1$@ запись|%1$@ записи|%1$@ записей}"
        #expect(Localization.render(forms, ["1"]) == "1 запись")
        #expect(Localization.render(forms, ["3"]) == "3 записи")
        #expect(Localization.render(forms, ["11"]) == "11 записей")
        #expect(Localization.render(forms, ["1,021"]) == "1,021 запись")
        #expect(Localization.render("%2$@ из %1$@, 100%%", ["a", "b"]) == "b из a, 100%")
        #expect(Localization.render("без значений", []) == "без значений")
    }
}
