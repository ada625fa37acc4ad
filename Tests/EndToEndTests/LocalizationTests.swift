import Foundation
import Testing

/// The string literals of Swift source, read as xgettext reads C: each literal's text as the
/// program has it at run time, with `%@` for each interpolated value.
enum SwiftLiterals {
    struct Literal {
        var template: String
        var line: Int
        /// Passed straight to `tr(`, `.tr(` or `say(`: a text translated where it is made.
        var marked: Bool
        var raw: Bool
    }

    static func literals(in source: String) -> [Literal] {
        let s = Array(source.unicodeScalars)
        var result: [Literal] = []
        var index = 0
        var line = 1
        func starts(_ text: String, at position: Int) -> Bool {
            let scalars = Array(text.unicodeScalars)
            guard position + scalars.count <= s.count else { return false }
            return Array(s[position..<position + scalars.count]) == scalars
        }
        while index < s.count {
            if starts("//", at: index) {
                while index < s.count && s[index] != "\n" { index += 1 }
                continue
            }
            if starts("/*", at: index) {
                while index < s.count && !starts("*/", at: index) {
                    if s[index] == "\n" { line += 1 }
                    index += 1
                }
                index += 2
                continue
            }
            if s[index] == "\n" { line += 1 }
            let isRawStart =
                s[index] == "#" && index + 1 < s.count
                && (s[index + 1] == "\"" || s[index + 1] == "#")
                && (index == 0 || !(s[index - 1].properties.isAlphabetic || s[index - 1] == "_"))
            if s[index] == "\"" || isRawStart {
                let end = literalEnd(s, index)
                let text = String(String.UnicodeScalarView(s[index..<end]))
                var before = index
                while before > 0 && (s[before - 1] == " " || s[before - 1] == "\n") { before -= 1 }
                let prefix = String(String.UnicodeScalarView(s[max(0, before - 5)..<before]))
                // tr( and say( as functions of their own (not Console.say(, which
                // translates where the text is shown), and .tr( of ArgumentHelp.
                func call(_ name: String) -> Bool {
                    guard prefix.hasSuffix(name + "(") else { return false }
                    let before = prefix.dropLast(name.count + 1).last
                    return before.map { !isWord($0) } ?? true
                }
                let marked = call("tr") || prefix.hasSuffix(".tr(") || call("say")
                result.append(
                    Literal(
                        template: template(text), line: line, marked: marked,
                        raw: text.hasPrefix("#")))
                line += text.filter { $0 == "\n" }.count
                index = end
                continue
            }
            index += 1
        }
        return result
    }

    private static func isWord(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "."
    }

    static func literalEnd(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var i = start
        var hashes = 0
        while s[i] == "#" {
            hashes += 1
            i += 1
        }
        let close = "\"" + String(repeating: "#", count: hashes)
        func at(_ text: String, _ position: Int) -> Bool {
            let scalars = Array(text.unicodeScalars)
            guard position + scalars.count <= s.count else { return false }
            return Array(s[position..<position + scalars.count]) == scalars
        }
        let multi = at("\"\"\"", i)
        var j = i + (multi ? 3 : 1)
        let end = multi ? "\"\"" + close : close
        while j < s.count {
            if s[j] == "\\" && at(String(repeating: "#", count: hashes), j + 1) {
                let k = j + 1 + hashes
                if k < s.count && s[k] == "(" {
                    j = interpolationEnd(s, k + 1)
                    continue
                }
                j = k + 1
                continue
            }
            if at(end, j) { return j + end.unicodeScalars.count }
            j += 1
        }
        return s.count
    }

    static func interpolationEnd(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var depth = 1
        var j = start
        while j < s.count && depth > 0 {
            if s[j] == "\""
                || (s[j] == "#" && j + 1 < s.count && (s[j + 1] == "\"" || s[j + 1] == "#"))
            {
                j = literalEnd(s, j)
                continue
            }
            if s[j] == "(" { depth += 1 }
            if s[j] == ")" { depth -= 1 }
            j += 1
        }
        return j
    }

    /// The text of a literal at run time, `%@` for each interpolation.
    static func template(_ literal: String) -> String {
        var scalars = Array(literal.unicodeScalars)[...]
        var hashes = 0
        while scalars.first == "#" {
            hashes += 1
            scalars = scalars.dropFirst()
        }
        let multi = scalars.starts(with: Array("\"\"\"".unicodeScalars))
        let quote = multi ? 3 : 1
        var body = Array(scalars.dropFirst(quote).dropLast(quote + hashes))
        if multi {
            // The first line break goes, and each line loses the closing line's indentation.
            var lines = String(String.UnicodeScalarView(body)).components(separatedBy: "\n")
            let indent = lines.last?.count ?? 0
            lines = Array(lines.dropFirst().dropLast())
            body = Array(
                lines.map { $0.count >= indent ? String($0.dropFirst(indent)) : $0 }.joined(
                    separator: "\n"
                ).unicodeScalars)
        }
        var out = String.UnicodeScalarView()
        var j = 0
        let escape = Array(("\\" + String(repeating: "#", count: hashes)).unicodeScalars)
        while j < body.count {
            if j + escape.count <= body.count && Array(body[j..<j + escape.count]) == escape {
                let k = j + escape.count
                guard k < body.count else { break }
                switch body[k] {
                case "(":
                    j = interpolationEnd(body, k + 1)
                    out.append(contentsOf: "%@".unicodeScalars)
                    continue
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "u":
                    var end = k
                    while end < body.count && body[end] != "}" { end += 1 }
                    let hex = String(String.UnicodeScalarView(body[(k + 2)..<end]))
                    if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) {
                        out.append(scalar)
                    }
                    j = end + 1
                    continue
                case "\n" where multi:
                    j = k + 1
                    continue
                default: out.append(body[k])
                }
                j = k + 1
                continue
            }
            out.append(body[j])
            j += 1
        }
        return String(out)
    }
}

/// The catalogue of `language`: its two tables, as the package's resources hold them.
private func catalogue(_ language: String) throws -> [String: String] {
    var entries: [String: String] = [:]
    for table in ["Localizable", "Formats"] {
        let url = Taskcal.packageRoot.appendingPathComponent(
            "Sources/Localization/Resources/\(language).lproj/\(table).strings")
        let data = try Data(contentsOf: url)
        let parsed = try #require(
            try PropertyListSerialization.propertyList(from: data, format: nil)
                as? [String: String],
            "\(url.path) is no .strings file")
        entries.merge(parsed) { first, _ in first }
    }
    return entries
}

/// `taskcal` with the Russian locale; texts without a translation are logged to `log`.
private func russian(_ cli: Taskcal, _ arguments: [String], log: String, stdin: String? = nil)
    throws -> Taskcal.Result
{
    try cli.run(
        arguments, stdin: stdin,
        environment: [
            "LANG": "ru_RU.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "TASKCAL_L10N_MISSING": log,
            "TZ": "Europe/Berlin",
        ])
}

private func missing(_ log: String) -> [String] {
    guard let data = FileManager.default.contents(atPath: log) else { return [] }
    return Array(
        Set(
            String(decoding: data, as: UTF8.self).components(separatedBy: "\u{1E}\n").filter {
                !$0.isEmpty
            }))
}

private func hasCyrillic(_ text: String) -> Bool {
    text.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) }
}

@Suite("English and Russian: every message, help and report, chosen by the locale")
struct LocalizationTests {
    @Test("every message and help text of the source has a Russian translation")
    func catalogueIsComplete() throws {
        let entries = try catalogue("ru")
        let untranslated = Set(
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(fileURLWithPath: Taskcal.fixture("l10n-untranslated.json")))
            ) as? [String] ?? [])
        let sql = try NSRegularExpression(
            pattern:
                #"^\s*((SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|WITH|BEGIN|COMMIT|ROLLBACK|PRAGMA|SET|LOCK|VALUES|FROM|WHERE|AND|OR|ORDER|GRANT|SHOW|ANALYZE|EXPLAIN|VACUUM|TRUNCATE|UNION)\s|ON CONFLICT|\()"#
        )
        let words = try NSRegularExpression(pattern: "[A-Za-z]{2,} [a-z]{2,}")
        let content = try NSRegularExpression(pattern: "^[A-Z][A-Z0-9-]+[:;]")
        func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        let sources = Taskcal.packageRoot.appendingPathComponent("Sources")
        var checked = 0
        var absent: [String] = []
        let files =
            (FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String]) ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(
                contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for literal in SwiftLiterals.literals(in: text) {
                // A message: natural language, not SQL, not an iCalendar line, not raw JSON.
                let template =
                    literal.template.hasSuffix("\n") && !literal.template.hasSuffix("\n\n")
                    ? String(literal.template.dropLast()) : literal.template
                let message =
                    !literal.raw
                    && matches(words, template.replacingOccurrences(of: "%@", with: "value"))
                    && !matches(sql, template) && !matches(content, template)
                guard literal.marked || message else { continue }
                checked += 1
                if entries[template] == nil && !untranslated.contains(template) {
                    absent.append("Sources/\(file):\(literal.line): \(template.prefix(100))")
                }
            }
        }
        #expect(checked > 900, "the scan found \(checked) texts")
        #expect(absent.isEmpty, "no Russian for:\n\(absent.joined(separator: "\n"))")
        // Every translation keeps the values of its English (none lost, none invented).
        for (key, value) in entries where key.contains("%@") {
            let count = key.components(separatedBy: "%@").count - 1
            let positions = value.matches(of: /%(\d+)\$@/).compactMap { Int($0.1) }
            #expect(positions.allSatisfy { $0 <= count }, "\(key) → \(value)")
        }
    }

    @Test("every command's --help is in Russian under LANG=ru_RU.UTF-8, nothing left out")
    func help() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let paths = try cli.commandPaths()
        #expect(paths.count > 35, "\(paths.count) commands (the lean build has 38)")
        let log = cli.path("missing.log")
        for path in paths {
            let shown = try russian(cli, path + ["--help"], log: log)
            #expect(shown.status == 0, "\(path)")
            #expect(shown.stdout.hasPrefix("ОБЗОР:"), "\(path): \(shown.stdout.prefix(120))")
            #expect(shown.stdout.contains("ПАРАМЕТРЫ:") || shown.stdout.contains("ПОДКОМАНДЫ:"))
            #expect(shown.stdout.contains("Показать справку."), "\(path)")
            // No sentence of the English help is left (an option's name is not one).
            for english in ["Show help information.", "OVERVIEW:", "USAGE:", "OPTIONS:"] {
                #expect(!shown.stdout.contains(english), "\(path): \(english)")
            }
        }
        #expect(missing(log).isEmpty, "untranslated: \(missing(log).prefix(10))")
    }

    @Test("errors, refusals and reports are in Russian; plural forms are right")
    func messagesAndReports() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let log = cli.path("missing.log")
        let store = cli.path("d.sqlite")
        try cli.write(
            "bad.json",
            #"[{"id": 1, "date_start": "5", "date_finish": "1", "name": ""}, {"id": 2, "date_start": "1", "date_finish": "2", "name": "x", "extra": 1}]"#
        )
        let bad = try russian(cli, ["convert", "bad.json", "-o", "out.ics"], log: log)
        #expect(bad.status == 2)
        #expect(
            bad.stderr.contains("[0].name: пусто; у каждой записи должно быть имя"), "\(bad.stderr)"
        )
        #expect(bad.stderr.contains("[1].extra: неизвестное поле; ожидается одно из:"))
        #expect(bad.stderr.contains("ничего не записано: исправьте ошибки выше (3)"))
        #expect(!cli.exists("out.ics"))
        // ArgumentParser's own errors.
        let usage = try russian(cli, ["diary", "list", "--store", store, "--nmae", "x"], log: log)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("Ошибка: Неизвестный параметр '--nmae'"), "\(usage.stderr)")
        let zone = try russian(cli, ["agenda", "--tz", "Mars/Olympus", "x.json"], log: log)
        #expect(zone.stderr.contains("неизвестный часовой пояс 'Mars/Olympus'"), "\(zone.stderr)")
        // A refused overlap, and the diary's reports with Russian names and dates.
        for (name, start, end) in [
            ("Зубной врач", "2026-12-01T09:00", "2026-12-01T10:00"),
            ("Обед", "2026-12-01T12:00", "2026-12-01T13:00"),
        ] {
            #expect(
                try russian(
                    cli,
                    [
                        "diary", "add", "--store", store, "--name", name, "--start", start, "--end",
                        end,
                    ],
                    log: log
                ).status == 0)
        }
        let refused = try russian(
            cli,
            [
                "diary", "add", "--store", store, "--name", "Звонок", "--start", "2026-12-01T09:30",
                "--end",
                "2026-12-01T10:30",
            ], log: log)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                #"пересекается с #1 "Зубной врач" (2026-12-01T09:00+01:00 – 10:00); выберите другое время"#
            ), "\(refused.stderr)")
        let list = try russian(cli, ["diary", "list", "--store", store], log: log)
        #expect(
            list.stdout.contains("#1  01.12.2026 вт 09:00–10:00  Зубной врач"), "\(list.stdout)")
        let agenda = try russian(cli, ["agenda", "2026-12-01", "--store", store], log: log)
        #expect(
            agenda.stdout.hasPrefix("вторник, 1 декабря 2026 (Europe/Berlin, 24 часа)"),
            "\(agenda.stdout)")
        let month = try russian(cli, ["month", "2026-12", "--store", store], log: log)
        #expect(month.stdout.contains("Декабрь 2026") && month.stdout.contains("Пн  Вт  Ср"))
        #expect(month.stdout.contains("* есть записи (1 день, всего 2)"), "\(month.stdout)")
        let stats = try russian(
            cli, ["stats", "--store", store, "--by", "category"], log: log)
        #expect(stats.stdout.contains("2 записи"), "\(stats.stdout)")
        // Plural forms: 1 запись, 2 записи, 5 записей.
        for (count, word) in [
            (1, "запись"), (2, "записи"), (5, "записей"), (21, "запись"), (11, "записей"),
        ] {
            let lines = (1...count).map {
                #"{"id": \#($0), "date_start": "\#($0 * 7200)", "date_finish": "\#($0 * 7200 + 60)", "name": "n"}"#
            }
            try cli.write("n\(count).ndjson", lines.joined(separator: "\n"))
            let converted = try russian(
                cli, ["convert", "n\(count).ndjson", "-o", "n\(count).ics"], log: log)
            #expect(
                converted.stderr.contains(" \(count) \(word) в n\(count).ics"),
                "\(count): \(converted.stderr)")
        }
        #expect(missing(log).isEmpty, "untranslated: \(missing(log).prefix(10))")
    }

    @Test("machine output does not change with the locale")
    func machineOutput() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let log = cli.path("missing.log")
        let overlaps = Taskcal.sample("overlaps.json")
        for arguments in [
            ["overlaps", overlaps, "--format", "json"],
            ["agenda", "2026-11-27", overlaps, "--format", "json"],
            ["convert", Taskcal.sample("attachments-and-alarms.json")],
            ["validate", Taskcal.sample("broken/bad.json"), "--format", "json"],
            ["stats", overlaps, "--format", "json"],
        ] {
            let english = try cli.run(
                arguments, environment: ["LANG": "C.UTF-8", "TZ": "Europe/Berlin"])
            let russian = try russian(cli, arguments, log: log)
            #expect(russian.stdout == english.stdout, "\(arguments)")
            #expect(russian.status == english.status, "\(arguments)")
        }
        // And English is what a machine without a Russian locale gets.
        let plain = try cli.run(["diary", "--help"], environment: ["LANG": "C.UTF-8"])
        #expect(
            plain.stdout.hasPrefix("OVERVIEW:")
                && !hasCyrillic(plain.stdout.prefix(200).description))
    }
}
