import ArgumentParser
import Localization

/// `--format text|json`, as every command that prints a list or a report without a picture takes
/// it: text for people, json for scripts. Reports that also draw (svg, html) take
/// ``ReportInputs``' `--format`; `diary list`, whose JSON is the task format, its own.
struct FormatOption: ParsableArguments {
    @Option(help: .tr("text for people, json for scripts.")) var format: ReportFormat = .text
}

/// `--format text|json|svg|html`, as the reports take it (through ``ReportInputs``) and
/// `diary stats`: text for people, json for scripts, or a picture where the report draws one.
struct PictureFormatOption: ParsableArguments {
    @Option(
        name: .customLong("format"),
        help: .tr(
            "text for people, json for scripts; svg or html, a picture (stats, month and overlaps)."
        ))
    var output: ReportOutput = .text
}
