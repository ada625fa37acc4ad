import ArgumentParser
import Localization

/// `--format text|json`, as every command that prints a list or a report without a picture takes
/// it: text for people, json for scripts. Reports that also draw (svg, html) take
/// ``ReportInputs``' `--format`; `diary list`, whose JSON is the task format, its own.
struct FormatOption: ParsableArguments {
    @Option(help: .tr("text for people, json for scripts.")) var format: ReportFormat = .text
}
