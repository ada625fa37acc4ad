import Foundation
import ICalendar
import TaskModel

/// Opens `path` (`-` is standard output) for writing records.
public func openRecordSink(_ path: String, options: WriteOptions) throws(Diagnostic)
    -> any RecordSink
{
    guard let format = options.format ?? Format(path: path) else {
        throw Diagnostic(
            .error, Location(file: path),
            "cannot tell the output format from the file name; name it .json, .ndjson, .jsonl, .ics, .jcal or .jscal.json, or use --to json|ndjson|ics|jcal|jscalendar",
            code: .usage)
    }
    if let app = options.app {
        guard format == .ics else {
            throw Diagnostic(
                .error, Location(file: path),
                "--for \(app.rawValue) shapes .ics for the app; the output here is \(format.rawValue)",
                code: .usage)
        }
        var plain = options
        plain.app = nil
        return ProfileSink(
            try openRecordSink(path, options: plain), app: app, links: options.attachmentLinks,
            path: path)
    }
    if let split = options.split {
        guard format == .ics, path != "-" else {
            throw Diagnostic(
                .error, Location(file: path),
                "--split-size and --split-count write .ics files named after -o (out.ics → out-001.ics, …); give an .ics output file",
                code: .usage)
        }
        // Every record is measured as it comes: the limit holds the parts together.
        let measured = OutputFile(discardingAs: path)
        measured.limit = options.outputLimit
        let measure = ICSRecordSink(measured, options: options)
        return SplitICSSink(path, options: options, limit: split, measure: measure)
    }
    let output = try OutputFile(path: path, mode: options.fileMode)
    output.limit = options.outputLimit
    switch format {
    case .json: return JSONRecordSink(output, name: options.calendarName)
    case .ndjson: return NDJSONRecordSink(output, name: options.calendarName)
    case .jcal: return try JCalRecordSink(output, options: options)
    case .jscalendar: return JSCalendarRecordSink(output, options: options)
    case .ics: return ICSRecordSink(output, options: options)
    }
}
