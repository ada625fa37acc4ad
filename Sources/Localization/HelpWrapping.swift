import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// ArgumentParser wraps help to the terminal before its headings and fixed phrases are
/// translated, and never wraps the usage line: a translation longer than its English
/// (`(по умолчанию:` for `(default:`) or a long usage goes past the edge, where the terminal
/// breaks it again mid-word. These lines are wrapped once more, the way ArgumentParser wraps:
/// at the last space that fits (in a usage line, before an option's `[`).
enum HelpWrapping {
    /// The width ArgumentParser wraps to: `COLUMNS`, else the terminal's, else 80.
    static var terminalWidth: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text),
            columns > 0
        {
            return columns
        }
        #if canImport(Glibc)
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        #endif
        return 80
    }

    /// `text` with no line wider than `width` where a space allows it: the words past the
    /// width go to the start of the line's continuation (the next line, when it is indented
    /// to where this line's text runs), else to a new line indented so.
    static func fitted(_ text: String, width: Int) -> String {
        var lines = text.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let column = textColumn(of: line)
            guard line.count > width,
                let cut = breakIndex(
                    in: line, width: width, after: column, atOption: isHeading(line))
            else {
                index += 1
                continue
            }
            let rest = String(line[line.index(after: cut)...])
            lines[index] = String(line[..<cut])
            let indent = String(repeating: " ", count: column)
            if index + 1 < lines.count, continues(lines[index + 1], at: column) {
                lines[index + 1] = indent + rest + " " + lines[index + 1].dropFirst(column)
            } else {
                lines.insert(indent + rest, at: index + 1)
            }
            index += 1
        }
        return lines.joined(separator: "\n")
    }

    /// Where the text of `line` runs: after the option column (a run of two spaces or
    /// more after the first word) or a heading (`ИСПОЛЬЗОВАНИЕ: `), else its indentation.
    static func textColumn(of line: String) -> Int {
        let characters = Array(line)
        let indent = characters.prefix { $0 == " " }.count
        var position = indent
        while position < characters.count, characters[position] != " " { position += 1 }
        if isHeading(line) { return position + 1 }
        var spaces = 0
        for offset in position..<characters.count {
            if characters[offset] == " " {
                spaces += 1
            } else if spaces >= 2 {
                return offset
            } else {
                spaces = 0
            }
        }
        return indent
    }

    /// Whether `line` begins with a heading such as `USAGE:` or `ИСПОЛЬЗОВАНИЕ:`.
    static func isHeading(_ line: String) -> Bool {
        guard let first = line.split(separator: " ", maxSplits: 1).first, first.count > 1,
            !line.hasPrefix(" "), first.hasSuffix(":")
        else { return false }
        return first.dropLast().allSatisfy(\.isUppercase)
    }

    /// The last space of `line` within `width` characters and past `column`; with
    /// `atOption`, the last one before a `[` if there is one (an option kept whole).
    private static func breakIndex(
        in line: String, width: Int, after column: Int, atOption: Bool
    ) -> String.Index? {
        let limit = line.index(line.startIndex, offsetBy: width + 1)
        let start = line.index(line.startIndex, offsetBy: column)
        guard start < limit else { return nil }
        let window = line[start..<limit]
        if atOption,
            let space = window.indices.last(where: {
                window[$0] == " " && line.index(after: $0) < line.endIndex
                    && line[line.index(after: $0)] == "["
            })
        {
            return space
        }
        return window.lastIndex(of: " ")
    }

    /// Whether `line` goes on with the text of the line before it, which runs at `column`.
    private static func continues(_ line: String, at column: Int) -> Bool {
        let indent = line.prefix { $0 == " " }.count
        return indent == column && line.count > column
    }
}
