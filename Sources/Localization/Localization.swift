import Foundation

/// The languages taskcal speaks.
public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case russian = "ru"

    /// The language of messages as every Linux tool chooses it: `LC_ALL`, else `LC_MESSAGES`,
    /// else `LANG` (`ru_RU.UTF-8` is Russian); `LANGUAGE`'s first entry first, as GNU gettext
    /// takes it, unless the locale is `C` or `POSIX`. English otherwise.
    public static func from(_ environment: [String: String]) -> Language {
        func nonEmpty(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let locale = nonEmpty("LC_ALL") ?? nonEmpty("LC_MESSAGES") ?? nonEmpty("LANG") ?? "C"
        var wanted: [String] = []
        if locale != "C" && locale != "POSIX" && !locale.hasPrefix("C.") {
            wanted += (nonEmpty("LANGUAGE") ?? "").split(separator: ":").map(String.init)
        }
        wanted.append(locale)
        for name in wanted {
            let code = name.prefix { $0.isLetter }.lowercased()
            if let language = Language(rawValue: code) { return language }
        }
        return .english
    }

    /// The language of this process.
    public static let current = from(ProcessInfo.processInfo.environment)
}

/// Messages in the user's language.
///
/// English is the language of the source: every message is written in English where it is
/// made, and that text is the key of its translation. A message that is data as well (a
/// diagnostic, which also goes into JSON reports that never change with the locale) stays
/// English where it is made and is translated where it is shown, by ``message(_:)``: its
/// template (the source's text with `%@` for each interpolated value) is matched, the
/// values are put into the translation, and values that are messages themselves are
/// translated too. Texts that are only ever shown (help, text reports) are translated where
/// they are made, by ``text(_:)`` and ``format(_:_:)``.
///
/// The catalogues are resources of this module (SwiftPM localized resources:
/// `ru.lproj/Localizable.strings`). In a translation, `%1$@` puts the first value, `%@` the
/// next, and `{1|запись|записи|записей}` the form of the word for the number in the first
/// value (one, few, many: Russian's plural rule; English keys use the source's own forms).
public enum Localization {
    /// The language messages are shown in.
    public static let language = Language.current

    /// When set (`TASKCAL_L10N_MISSING`, for the tests), each text without a translation is
    /// appended to this file.
    static let missingLog = ProcessInfo.processInfo.environment["TASKCAL_L10N_MISSING"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// `english`, a text without values (a help text, a word), in the user's language.
    public static func text(_ english: String) -> String {
        guard language != .english else { return english }
        if let translated = catalog.exact[english] { return render(translated, []) }
        noteMissing(english)
        return english
    }

    /// `template` (`%@` for each value, the source's English) with `values`, in the user's
    /// language; values that are messages of the catalogue are translated too.
    public static func format(_ template: String, _ values: [String]) -> String {
        guard language != .english, let translated = catalog.exact[template] else {
            if language != .english { noteMissing(template) }
            return render(template, values)
        }
        return render(translated, values.map { translate($0, depth: 1) ?? $0 })
    }

    /// A message made in English (a diagnostic, an error), in the user's language: a
    /// template of the catalogue it matches, with its values translated where they are
    /// messages too; else its parts (`A; B`, `WHERE: WHAT`, lines) translated one by one;
    /// else as it is.
    public static func message(_ english: String) -> String {
        guard language != .english else { return english }
        return translate(english, depth: 0) ?? english
    }

    /// What ArgumentParser prints (help, usage errors) in the user's language: its headings
    /// and fixed phrases, and each line a template of the catalogue matches (the help texts
    /// themselves are translated where they are made).
    public static func argumentParserText(_ text: String) -> String {
        guard language != .english else { return text }
        let lines = text.components(separatedBy: "\n").map { line -> String in
            if line.hasPrefix("Error: ") {
                return (catalog.exact["Error:"] ?? "Error:") + " "
                    + message(String(line.dropFirst("Error: ".count)))
            }
            let indent = line.prefix { $0 == " " }
            let body = String(line.dropFirst(indent.count))
            if let exact = catalog.exact[body] { return indent + render(exact, []) }
            for template in templateIndex.templates(for: body) {
                if let values = template.match(body) {
                    return indent
                        + render(template.translation, values.map { translate($0, depth: 1) ?? $0 })
                }
            }
            return line
        }
        var result = lines.joined(separator: "\n")
        for key in [
            "OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "SUBCOMMANDS:",
            "Show help information.",
            "Show the version.", "(default:", "(values:", "; default:", "Usage:", "Help:",
        ] {
            if let translated = catalog.exact[key] {
                result = result.replacingOccurrences(of: key, with: translated)
            } else {
                noteMissing(key)
            }
        }
        return result
    }

    /// Help as ArgumentParser printed it, fitted to the screen: the lines its translation made
    /// longer and the usage lines it does not wrap, wrapped at the last space that fits.
    /// Anything else (the command tree as JSON, a completion script) comes back unchanged.
    public static func fittedToScreen(_ help: String) -> String {
        let headings = ["OVERVIEW:", "USAGE:"].flatMap { [$0, catalog.exact[$0] ?? $0] }
        guard headings.contains(where: help.hasPrefix) else { return help }
        return HelpWrapping.fitted(help, width: HelpWrapping.terminalWidth)
    }

    // MARK: - Matching

    private static func translate(_ text: String, depth: Int) -> String? {
        guard depth < 6, !text.isEmpty else { return nil }
        if let exact = catalog.exact[text] { return render(exact, []) }
        // A text that ends a line: the line is the message.
        if text.hasSuffix("\n") {
            return translate(String(text.dropLast()), depth: depth + 1).map { $0 + "\n" }
        }
        for template in templateIndex.templates(for: text) {
            if let values = template.match(text) {
                let translated = values.map { translate($0, depth: depth + 1) ?? $0 }
                return render(template.translation, translated)
            }
        }
        if text.contains("\n") {
            let lines = text.components(separatedBy: "\n")
            let translated = lines.map { translate($0, depth: depth + 1) }
            guard translated.contains(where: { $0 != nil }) else { return nil }
            return zip(lines, translated).map { $1 ?? $0 }.joined(separator: "\n")
        }
        // Leading spaces (an indented line of a list) stay.
        let indent = text.prefix { $0 == " " }
        if !indent.isEmpty {
            return translate(String(text.dropFirst(indent.count)), depth: depth + 1).map {
                indent + $0
            }
        }
        // `WHERE: WHAT` (a file, a field, a line): the place stays, the message is translated.
        if let colon = text.range(of: ": ") {
            let place = text[..<colon.lowerBound]
            if let rest = translate(String(text[colon.upperBound...]), depth: depth + 1) {
                return place + ": " + rest
            }
        }
        // `A; B`: each part on its own.
        if text.contains("; ") {
            let parts = text.components(separatedBy: "; ")
            let translated = parts.map { translate($0, depth: depth + 1) }
            if translated.contains(where: { $0 != nil }) {
                return zip(parts, translated).map { $1 ?? $0 }.joined(separator: "; ")
            }
        }
        if depth == 0 { noteMissing(text) }
        return nil
    }

    private static func noteMissing(_ text: String) {
        guard let missingLog, let data = (text + "\u{1E}\n").data(using: .utf8) else { return }
        if let handle = FileHandle(forWritingAtPath: missingLog) {
            handle.seekToEndOfFile()
            handle.write(data)
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: missingLog, contents: data)
        }
    }

    // MARK: - Rendering

    /// `translation` with `values`: `%1$@` (by position), `%@` (the next), `%%` (a percent
    /// sign), `{N|one|few|many}` (the form for the number in value N).
    static func render(_ translation: String, _ values: [String]) -> String {
        if !translation.utf8.contains(where: {
            $0 == UInt8(ascii: "%") || $0 == formOpen.asciiValue
        }) {
            return translation
        }
        var result = ""
        var next = 0
        var characters = Array(translation)[...]
        func value(_ index: Int) -> String { index < values.count ? values[index] : "" }
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "%" {
                if characters.first == "%" {
                    result.append("%")
                    characters = characters.dropFirst()
                    continue
                }
                if characters.first == "@" {
                    result += value(next)
                    next += 1
                    characters = characters.dropFirst()
                    continue
                }
                let digits = characters.prefix { $0.isNumber }
                if let number = Int(String(digits)),
                    characters.dropFirst(digits.count).starts(with: "$@")
                {
                    result += value(number - 1)
                    characters = characters.dropFirst(digits.count + 2)
                    continue
                }
                result.append("%")
                continue
            }
            if character == formOpen, let close = characters.firstIndex(of: formClose) {
                let inside = String(characters[..<close])
                let parts = inside.split(separator: "|", omittingEmptySubsequences: false)
                if parts.count >= 3, let number = Int(parts[0]) {
                    let count = Self.number(in: value(number - 1))
                    let forms = parts.dropFirst().map(String.init)
                    result += render(plural(count, forms), values)
                    characters = characters[characters.index(after: close)...]
                    continue
                }
            }
            result.append(character)
        }
        return result
    }

    /// What opens and closes the forms of a word for a number (`{1|запись|записи|записей}`).
    static let formOpen: Character = "\u{7B}"
    static let formClose: Character = "\u{7D}"

    /// The number a value holds: its digits (grouping commas and spaces aside).
    static func number(in value: String) -> Int {
        let digits = value.filter { $0.isNumber }
        return Int(digits.suffix(18)) ?? 0
    }

    /// The form of a word for `count`: Russian's one (1, 21, 101), few (2–4, 22–24) and many
    /// (5–20, 25–30, 11–14); two forms are English's one and other.
    public static func plural(_ count: Int, _ forms: [String]) -> String {
        guard !forms.isEmpty else { return "" }
        if forms.count == 2 { return count == 1 ? forms[0] : forms[1] }
        let lastTwo = abs(count) % 100
        let last = abs(count) % 10
        let index =
            last == 1 && lastTwo != 11
            ? 0 : (2...4).contains(last) && !(12...14).contains(lastTwo) ? 1 : 2
        return forms[min(index, forms.count - 1)]
    }

    // MARK: - Calendar words

    /// The name of a weekday (1 Monday … 7 Sunday): `Tuesday`, `вторник`; `short`: `Tue`, `вт`.
    public static func weekday(_ weekday: Int, short: Bool = false) -> String {
        let index = max(1, min(7, weekday)) - 1
        switch (language, short) {
        case (.english, false):
            return ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][
                index]
        case (.english, true): return ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][index]
        case (.russian, false):
            return [
                "понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье",
            ][
                index]
        case (.russian, true): return ["пн", "вт", "ср", "чт", "пт", "сб", "вс"][index]
        }
    }

    /// Two letters a weekday column of a month is headed by: `Mo`, `Пн`.
    public static func weekdayColumn(_ weekday: Int) -> String {
        let index = max(1, min(7, weekday)) - 1
        switch language {
        case .english: return ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"][index]
        case .russian: return ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"][index]
        }
    }

    /// A month's name as a title: `December`, `Декабрь`.
    public static func month(_ month: Int) -> String {
        let index = max(1, min(12, month)) - 1
        switch language {
        case .english:
            return [
                "January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December",
            ][index]
        case .russian:
            return [
                "Январь", "Февраль", "Март", "Апрель", "Май", "Июнь", "Июль", "Август", "Сентябрь",
                "Октябрь", "Ноябрь", "Декабрь",
            ][index]
        }
    }

    /// A date as the language writes it: `2026-12-01` (ISO 8601, as taskcal always wrote
    /// it), `01.12.2026` (day, month, year).
    public static func date(year: Int, month: Int, day: Int) -> String {
        switch language {
        case .english: String(format: "%04d-%02d-%02d", year, month, day)
        case .russian: String(format: "%02d.%02d.%04d", day, month, year)
        }
    }

    /// A day with its weekday, for a day's heading: `Tuesday 2026-12-01`,
    /// `вторник, 1 декабря 2026`.
    public static func dayTitle(year: Int, month: Int, day: Int, weekday: Int) -> String {
        switch language {
        case .english:
            return "\(Self.weekday(weekday)) \(date(year: year, month: month, day: day))"
        case .russian:
            let genitive = [
                "января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
                "сентября", "октября", "ноября", "декабря",
            ][max(1, min(12, month)) - 1]
            return "\(Self.weekday(weekday)), \(day) \(genitive) \(year)"
        }
    }

    // MARK: - The catalogue

    /// A message of the catalogue with values: its English cut at each `%@`, matched on
    /// UTF-8 bytes.
    struct Template {
        /// The literal texts around and between the values (`%%` already a percent sign).
        var parts: [[UInt8]]
        var translation: String
        var literalLength: Int
        /// The English, `%@` for each value.
        var key: String

        init(key: String, translation: String) {
            self.key = key
            self.translation = translation
            // Cut at each `%@`; `%%` is a percent sign.
            var parts: [[UInt8]] = [[]]
            var bytes = key.utf8.makeIterator()
            while let byte = bytes.next() {
                guard byte == UInt8(ascii: "%") else {
                    parts[parts.count - 1].append(byte)
                    continue
                }
                switch bytes.next() {
                case UInt8(ascii: "@"): parts.append([])
                case UInt8(ascii: "%"): parts[parts.count - 1].append(byte)
                case let other?: parts[parts.count - 1] += [byte, other]
                case nil: parts[parts.count - 1].append(byte)
                }
            }
            self.parts = parts
            literalLength = parts.reduce(0) { $0 + $1.count }
        }

        /// The values of `text` if it is this template's English, each as short as it can be
        /// (the first way to read it, as the regular expression `^a(.*?)b(.*?)c$` would).
        func match(_ text: String) -> [String]? {
            var text = text
            return text.withUTF8 { bytes in match(bytes) }
        }

        private func match(_ text: UnsafeBufferPointer<UInt8>) -> [String]? {
            guard text.count >= literalLength, let first = parts.first, let last = parts.last,
                text.starts(with: first), text.suffix(last.count).elementsEqual(last)
            else { return nil }
            var values: [String] = []
            values.reserveCapacity(parts.count - 1)
            // The values from `from` on: before part `index` and the ones after it.
            func fill(_ index: Int, _ from: Int) -> Bool {
                if index == parts.count - 1 {
                    let end = text.count - last.count
                    guard end >= from else { return false }
                    values.append(String(decoding: text[from..<end], as: UTF8.self))
                    return true
                }
                let part = parts[index]
                var at = from
                while at + part.count <= text.count {
                    if text[at..<at + part.count].elementsEqual(part) {
                        values.append(String(decoding: text[from..<at], as: UTF8.self))
                        if fill(index + 1, at + part.count) { return true }
                        values.removeLast()
                        if part.isEmpty { return false }
                    }
                    at += 1
                }
                return false
            }
            return fill(1, first.count) ? values : nil
        }
    }

    struct Catalog: Sendable {
        let exact: [String: String]
        /// The messages, also matched as templates.
        let messages: [String: String]

        /// `messages` are also templates matched against messages made in English; `formats`
        /// (texts translated where they are made) are looked up by their exact key only.
        init(messages: [String: String], formats: [String: String]) {
            // A key that ends a line is the line (the message), without its line break.
            var trimmed: [String: String] = [:]
            for (key, value) in messages {
                trimmed[key] = value
                if key.hasSuffix("\n") && value.hasSuffix("\n") {
                    trimmed[String(key.dropLast())] = String(value.dropLast())
                }
            }
            self.messages = trimmed
            exact = trimmed.merging(formats) { message, _ in message }
        }
    }

    /// The messages with values, found by how they begin or end.
    struct TemplateIndex: Sendable {
        /// Templates by the first byte of their text (a template that starts with a value is
        /// under the last byte of its text, in `byLast`), longest literal text first.
        private let byFirst: [UInt8: [Template]]
        private let byLast: [UInt8: [Template]]
        /// Templates with a value at both ends.
        private let open: [Template]

        init(messages: [String: String]) {
            var byFirst: [UInt8: [Template]] = [:]
            var byLast: [UInt8: [Template]] = [:]
            var open: [Template] = []
            for (key, value) in messages {
                let template = Template(key: key, translation: value)
                guard template.parts.count > 1 else { continue }
                if let first = template.parts.first?.first {
                    byFirst[first, default: []].append(template)
                } else if let last = template.parts.last?.last {
                    byLast[last, default: []].append(template)
                } else {
                    open.append(template)
                }
            }
            func longestFirst(_ templates: [Template]) -> [Template] {
                // Ties by key, so that the order does not depend on the dictionary's.
                templates.sorted {
                    $0.literalLength != $1.literalLength
                        ? $0.literalLength > $1.literalLength : $0.key < $1.key
                }
            }
            self.byFirst = byFirst.mapValues(longestFirst)
            self.byLast = byLast.mapValues(longestFirst)
            self.open = longestFirst(open)
        }

        /// The templates `text` may match: those that begin as it does, then those that
        /// begin with a value and end as it does.
        func templates(for text: String) -> [Template] {
            guard let first = text.utf8.first, let last = text.utf8.last else { return open }
            return (byFirst[first] ?? []) + (byLast[last] ?? []) + open
        }
    }

    /// The translations of ``language``, read once.
    static let catalog = Catalog(
        messages: load(language, table: "Localizable"), formats: load(language, table: "Formats"))

    /// The catalogue's messages as templates, made the first time a message is translated
    /// (a run that only shows help and reports needs none).
    static let templateIndex = TemplateIndex(messages: catalog.messages)

    /// The table `table` of `language`'s catalogue, from this module's resources: beside the
    /// executable (as SwiftPM builds it) or in `PREFIX/share/taskcal` (as Scripts/install.sh
    /// installs it).
    static func load(_ language: Language, table: String) -> [String: String] {
        guard language != .english else { return [:] }
        let bundleName = "taskcal_Localization.resources"
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let bin = executable.deletingLastPathComponent()
            folders += [
                bin, bin.deletingLastPathComponent().appendingPathComponent("share/taskcal"),
            ]
        }
        folders.append(Bundle.main.bundleURL)
        for folder in folders {
            let file = folder.appendingPathComponent(bundleName)
                .appendingPathComponent("\(language.rawValue).lproj/\(table).strings")
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            do {
                return try StringsFile.entries(Array(data))
            } catch {
                FileHandle.standardError.write(
                    Data("taskcal: \(file.path): \(error); messages are in English\n".utf8))
                return [:]
            }
        }
        return [:]
    }
}
