import Foundation
import Testing

/// What spoils a help screen printed at some width: a word alone on a line inside a
/// paragraph (text wrapped by hand, then again by the parser), an example the parser wrapped
/// (it no longer pastes as one command), a continuation backslash not followed by the rest
/// of the command, a line wider than the screen. The usage lines are ArgumentParser's own.
func helpScreenProblems(_ text: String, width: Int) -> [String] {
    let lines = text.components(separatedBy: "\n")
    func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }
    var problems: [String] = []
    var inUsage = false
    for (index, line) in lines.enumerated() {
        if line.hasPrefix("USAGE:") || line.hasPrefix("ИСПОЛЬЗОВАНИЕ:") { inUsage = true }
        if line.isEmpty { inUsage = false }
        if line.count > width { problems.append("wider than \(width): \(line)") }
        guard !inUsage, index + 1 < lines.count else { continue }
        let next = lines[index + 1]
        let blank = { (text: String) in text.allSatisfy { $0 == " " } }
        if !blank(line), !blank(next), indent(line) == indent(next),
            line.split(separator: " ").count == 1
        {
            problems.append("a word alone inside a paragraph: '\(line)' before '\(next)'")
        }
        if line.hasSuffix(" \\"), indent(next) == 0 || blank(next) || next.trimmed == "\\" {
            problems.append("a continuation without the rest of the command: '\(line)'")
        }
        if line.hasPrefix("  taskcal "), !blank(next), indent(next) == 0 {
            problems.append("an example wrapped: '\(line)' then '\(next)'")
        }
    }
    return problems + repeatedDefaults(lines)
}

/// Options whose help says in words what the parser adds on its own: their default, before
/// its "(default: …)" ("the number of cores. (default: 2)" says one thing twice, the second
/// true of one machine only), or their values as a list ("json, ndjson or ics. (values: json,
/// ndjson, ics)").
private func repeatedDefaults(_ lines: [String]) -> [String] {
    var problems: [String] = []
    var option: String?
    func finish() {
        defer { option = nil }
        guard let option, option.hasSuffix(")") else { return }
        for (marker, word) in [("default: ", "default"), ("по умолчанию: ", "умолчанию")] {
            // "(default: …)", or "(values: …; default: …)".
            guard let parsers = option.range(of: marker, options: .backwards),
                ["(", "; "].contains(where: { option[..<parsers.lowerBound].hasSuffix($0) })
            else { continue }
            if option[..<parsers.lowerBound].localizedCaseInsensitiveContains(word) {
                problems.append("the default said twice: '\(option)'")
            }
        }
        guard
            let parsers = option.range(of: "(values: ", options: .backwards)
                ?? option.range(of: "(значения: ", options: .backwards)
        else { return }
        let values = option[parsers.upperBound...].prefix { $0 != ")" && $0 != ";" }
            .components(separatedBy: ", ")
        guard values.count > 1, let last = values.last else { return }
        let head = values.dropLast().joined(separator: ", ")
        if [" or ", ", or ", " или "].contains(where: { option.contains(head + $0 + last) }) {
            problems.append("the values listed twice: '\(option)'")
        }
    }
    for line in lines {
        let indent = line.prefix { $0 == " " }.count
        if indent == 2, line.dropFirst(2).hasPrefix("-") {
            finish()
            option = line.trimmed
        } else if indent >= 20, let text = option {
            option = text + " " + line.trimmed
        } else {
            finish()
        }
    }
    finish()
    return problems
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}

@Suite("Help screens read cleanly at 80 columns, in English and Russian")
struct HelpScreenTests {
    @Test("the check finds what spoiled screens: hand-wrapped text, broken examples, defaults")
    func checkFindsProblems() {
        let before = """
            Exit codes: 0 success; 1 the command found what it reports (an invalid file
            under validate, an overlap, a refused diary write, no free time); 2 bad usage
            or
            unreadable input.

            Examples:
              taskcal diary add --store 'postgres://anna@db/team?diary=rooms' --name Retro
            \\
                                --start 2026-11-27T15:00 --end 2026-11-27T16:00
            """
        let problems = helpScreenProblems(before, width: 80)
        #expect(problems.contains { $0.hasPrefix("a word alone inside a paragraph: 'or'") })
        #expect(problems.contains { $0.hasPrefix("an example wrapped") })
        #expect(helpScreenProblems("  taskcal a \\\n\n", width: 80).count == 1)
        let twice = """
            OPTIONS:
              --jobs <jobs>           Threads for one large .ics (default: the number of
                                      cores). (default: 2)
              --force                 Replace outputs that exist (default: skip them).
              --uid-domain <uid-domain>
                                      Domain of the UIDs (по умолчанию taskcal.invalid). (по
                                      умолчанию: taskcal.invalid)
              -o, --output <output>   Output file. (default: -)
              --to <to>               Output format: json, ndjson or ics. (values: json,
                                      ndjson, ics)
            """
        let found = helpScreenProblems(twice, width: 80)
        #expect(found.count == 3, "\(found)")
        #expect(found.contains { $0.hasPrefix("the values listed twice: '--to <to> ") })
        #expect(found.first?.hasPrefix("the default said twice: '--jobs <jobs> ") == true)
        #expect(found.contains { $0.hasSuffix("(по умолчанию: taskcal.invalid)'") })
        #expect(
            helpScreenProblems("Text that is fine.\n\n  taskcal a \\\n      --b", width: 80).isEmpty
        )
    }

    @Test(
        "every command's --help at 80 columns: paragraphs the parser wraps, examples that paste, each default once, one name for each option's value"
    )
    func everyCommand() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let paths = try cli.commandPaths()
        #expect(paths.count > 35)
        // Each option's value named alike everywhere (--tz <zone>, --for <app>): the commands
        // where it says so. --from and --on are two options each, as scripts already use
        // them: a format (convert, lint, validate) or a time (the reports, diary list); a
        // habit's weekdays (diary add) or a day (diary done, undo).
        var valueNames: [String: [String: [String]]] = [:]
        let valueName = try Regex(#"(--[a-z-]+) <([^>]+)>"#)
        for language in ["C.UTF-8", "ru_RU.UTF-8"] {
            for path in paths {
                let shown = try cli.run(
                    path + ["--help"],
                    environment: ["COLUMNS": "80", "LANG": language, "LC_ALL": language])
                #expect(shown.status == 0)
                for match in shown.stdout.matches(of: valueName) where language == "C.UTF-8" {
                    let option = String(shown.stdout[match.output[1].range!])
                    let value = String(shown.stdout[match.output[2].range!])
                    guard option != "--from" && option != "--on" else { continue }
                    valueNames[option, default: [:]][value, default: []].append(
                        path.joined(separator: " "))
                }
                let problems = helpScreenProblems(shown.stdout, width: 80)
                #expect(
                    problems.isEmpty,
                    "taskcal \(path.joined(separator: " ")) --help (\(language)): \(problems)")
            }
        }
        #expect(valueNames["--tz"]?.keys.sorted() == ["zone"])
        for (option, names) in valueNames {
            #expect(names.count == 1, "\(option) names its value differently: \(names)")
        }
        // A narrow screen: paragraphs still wrap whole (the parser's own wrapping only).
        let narrow = try cli.run(["diary", "--help"], environment: ["COLUMNS": "60"])
        #expect(
            !helpScreenProblems(narrow.stdout, width: 60).contains { $0.hasPrefix("a word") })
    }
}
