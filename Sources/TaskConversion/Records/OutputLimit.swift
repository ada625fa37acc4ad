import Foundation

/// The most bytes a command may write where its output can grow past its input many times
/// over: an expansion (`convert --expand`: one series of seven lines gives 100,000
/// occurrences, each as long as the series) and the reports (every overlapping pair of
/// thousands of entries). Past it the command stops and writes nothing: a file keeps what it
/// held, standard output gets no bytes, and the message names the limit and how to raise it.
///
/// Unless told (`--max-output`), the limit is ``floor`` or ``inputFactor`` times what the
/// command read, whichever is more: a calendar of a few kilobytes cannot fill a disk, and a
/// large calendar's expansion or report keeps the room it needs.
public struct OutputLimit: Sendable, Hashable {
    /// The most bytes the output may hold.
    public var bytes: Int
    /// What the user can do instead of raising the limit (`or choose a shorter --expand
    /// window`), said after the limit's own option.
    public var advice: String

    /// Creates a limit of `bytes`.
    public init(bytes: Int, advice: String = "") {
        self.bytes = bytes
        self.advice = advice
    }

    /// The least the default limit allows: 64 MiB.
    public static let floor = 64 << 20
    /// How many times its input a command may write unless told: 4.
    public static let inputFactor = 4

    /// The default limit for a command that read `inputBytes`.
    public static func standard(reading inputBytes: Int, advice: String = "") -> OutputLimit {
        let (scaled, overflow) = inputBytes.multipliedReportingOverflow(by: inputFactor)
        return OutputLimit(bytes: overflow ? .max : max(floor, scaled), advice: advice)
    }

    /// The bytes of the regular files among `paths` (standard input and other streams count
    /// nothing: their size is not known before they are read), for ``standard(reading:advice:)``.
    public static func inputBytes(_ paths: [String]) -> Int {
        paths.reduce(0) { total, path in
            var info = stat()
            guard path != "-", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                return total
            }
            return total + Int(info.st_size)
        }
    }

    /// `--max-output`'s value: a size (`200MB`, `1GiB`, `5000000`) or `none`; `nil` when it is
    /// neither. `none` is `Int.max`.
    public static func bytes(_ text: String) -> Int? {
        if text.lowercased() == "none" { return .max }
        return SplitLimit.bytes(text)
    }

    /// The error when `output` would pass the limit: what it is, how to raise it, what else
    /// to ask for, each a part of its own (the parts are translated one by one).
    func exceeded(_ output: String) -> Diagnostic {
        var parts = [
            "the output would pass \(Self.describe(bytes)), the most this command writes unless told",
            "raise it with --max-output SIZE (or --max-output none)",
        ]
        if !advice.isEmpty { parts.append(advice) }
        parts.append("nothing was written")
        return Diagnostic(
            .error, Location(file: output), parts.joined(separator: "; "), code: .limit)
    }

    /// `64 MiB`, `1.5 GiB`, `812 KiB`, `100 bytes`.
    static func describe(_ bytes: Int) -> String {
        let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (size, unit) in units where bytes >= size {
            let value = Double(bytes) / Double(size)
            let text =
                value == value.rounded()
                ? String(Int(value)) : String(format: "%.1f", value)
            return "\(text) \(unit)"
        }
        return "\(bytes) bytes"
    }
}
