import ArgumentParser
import Localization

/// `text`, written in English here, in the user's language (help texts, words of reports).
func tr(_ text: String) -> String { Localization.text(text) }

/// `template` (English, `%@` for each value) with `values`, in the user's language.
func tr(_ template: String, _ values: Any...) -> String {
    Localization.format(template, values.map { "\($0)" })
}

extension ArgumentHelp {
    /// A help text in the user's language.
    static func tr(_ text: String) -> ArgumentHelp { ArgumentHelp(Localization.text(text)) }
}
