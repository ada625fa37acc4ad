import Testing

@testable import Localization

@Suite("Help fitted to the screen after its translation")
struct HelpWrappingTests {
    @Test("an option's help made longer by its translation goes on in its own column")
    func optionColumn() {
        let help = [
            "  --to <to>               Формат результата, когда его не понять по имени: json,",
            "                          ndjson. (значения: json, ndjson, ics, jcal, jscalendar)",
            "  --tz <tz>               Пояс.",
        ].joined(separator: "\n")
        let fitted = HelpWrapping.fitted(help, width: 80).components(separatedBy: "\n")
        #expect(fitted.allSatisfy { $0.count <= 80 }, "\(fitted)")
        #expect(fitted[2] == "                          jscalendar)")
        #expect(fitted[3] == "  --tz <tz>               Пояс.")
    }

    @Test("a word carried over joins the line it continues, not a line of its own")
    func joinsContinuation() {
        let help = "word " + String(repeating: "x", count: 74) + " carried\nrest of it"
        #expect(
            HelpWrapping.fitted(help, width: 80)
                == "word " + String(repeating: "x", count: 74) + "\ncarried rest of it")
    }

    @Test("a usage line breaks before an option, under the command")
    func usage() {
        let usage =
            "USAGE: taskcal diary free [--store <store>] [--tz <tz>] [--reveal] [--from <from>] [--to <to>]"
        let fitted = HelpWrapping.fitted(usage, width: 80).components(separatedBy: "\n")
        #expect(
            fitted == [
                "USAGE: taskcal diary free [--store <store>] [--tz <tz>] [--reveal]",
                "       [--from <from>] [--to <to>]",
            ])
        #expect(HelpWrapping.textColumn(of: "ИСПОЛЬЗОВАНИЕ: taskcal") == 15)
    }

    @Test("lines that fit, and a word longer than the screen, stay as they are")
    func untouched() {
        let text = "short line\n" + String(repeating: "y", count: 100)
        #expect(HelpWrapping.fitted(text, width: 80) == text)
    }
}
