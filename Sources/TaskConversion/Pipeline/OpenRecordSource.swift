import Foundation
import ICalendar
import TaskModel

/// Opens `path` (`-` is standard input) as a record source.
public func openRecordSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    let source = try openPlainSource(path, options: options)
    if !options.reshapes { return source }
    return ReshapingSource(source, options: options)
}

/// A record source over `bytes` in memory, named `name` in messages: what a file of that
/// format would give (the fuzz targets read this way).
public func openRecordSource(
    bytes: [UInt8], name: String, format: Format, options: ReadOptions
) throws(Diagnostic) -> any RecordSource {
    var options = options
    if options.uidScheme.namespace == nil {
        options.uidScheme.namespace = options.namespaceOfFile(name)
    }
    let plain: any RecordSource
    switch format {
    case .json:
        plain = CalendarCheckSource(
            try JSONRecordSource(data: Data(bytes), name: name, reading: options.reading))
    case .ndjson:
        plain = CalendarCheckSource(
            NDJSONRecordSource(bytes: bytes, name: name, reading: options.reading))
    case .jcal: plain = try JCalRecordSource(bytes: bytes, name: name, options: options)
    case .jscalendar:
        plain = SubtaskNestingSource(
            CalendarCheckSource(
                try JSCalendarRecordSource(bytes: bytes, name: name, options: options)),
            uidScheme: options.uidScheme)
    case .ics:
        plain = SubtaskNestingSource(
            ICSRecordSource(bytes: bytes, name: name, options: options),
            uidScheme: options.uidScheme)
    }
    if !options.reshapes { return plain }
    return ReshapingSource(plain, options: options)
}

private func openPlainSource(_ path: String, options: ReadOptions) throws(Diagnostic)
    -> any RecordSource
{
    var options = options
    if options.uidScheme.namespace == nil {
        options.uidScheme.namespace = options.namespaceOfFile(path)
    }
    let location = Location(file: path)
    guard let format = options.format ?? Format(path: path) else {
        throw Diagnostic(
            .error, location,
            "cannot tell the format from the file name; name it .json, .ndjson, .jsonl, .ics, .jcal or .jscal.json, or use --input-format json|ndjson|ics|jcal|jscalendar",
            code: .usage)
    }
    switch format {
    case .json:
        return CalendarCheckSource(try JSONRecordSource(path: path, reading: options.reading))
    case .ndjson:
        // Lines are decoded on --jobs threads (outputs are the same as on one).
        return CalendarCheckSource(
            try NDJSONRecordSource(
                path: path, workers: path == "-" ? 1 : options.parallelism,
                reading: options.reading))
    case .ics:
        if options.parallelism > 1, path != "-",
            let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int,
            size >= options.parallelMinimumBytes
        {
            return SubtaskNestingSource(
                try ParallelICSSource(path: path, options: options, workers: options.parallelism),
                uidScheme: options.uidScheme)
        }
        return SubtaskNestingSource(
            try ICSRecordSource(path: path, options: options), uidScheme: options.uidScheme)
    case .jcal:
        return try JCalRecordSource(path: path, options: options)
    case .jscalendar:
        return SubtaskNestingSource(
            CalendarCheckSource(try JSCalendarRecordSource(path: path, options: options)),
            uidScheme: options.uidScheme)
    }
}
