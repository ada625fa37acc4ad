import Foundation
import ICalendar
import TaskModel

extension CalendarDiff {
    /// Reads `inputs` as one side, as `convert` reads them with `options` (`--expand` gives
    /// the occurrences); a folder is a vdir: its `.ics` files in name order. The UID of a
    /// record without one is derived in its file's namespace (`options.uidScheme`'s when
    /// set), as `convert` derives it.
    public static func read(_ inputs: [String], name: String, options: ReadOptions) -> Side {
        var side = Side(name: name)
        for input in inputs.flatMap(Self.files) {
            var scheme = options.uidScheme
            if scheme.namespace == nil { scheme.namespace = options.namespaceOfFile(input) }
            var read: [(TaskRecord, Location)] = []
            var report = ConversionReport()
            Converter.drain(input, options: options, into: &report) {
                record, location, _ throws(Diagnostic) in
                read.append((record, location))
            } done: { info in
                side.calendar.merge(info)
            }
            // A component without a UID was given a fresh id, which means nothing on the
            // other side: it is matched by its start and name.
            let withoutUID = Set(
                report.warnings.filter { $0.code == .noUID }.map {
                    Location(file: $0.location.file, line: $0.location.line)
                })
            for (record, location) in read {
                let place = Location(file: location.file, line: location.line)
                side.add(
                    record, at: location, scheme: scheme,
                    hasUID: record.uid != nil || !withoutUID.contains(place))
            }
            side.report.records += report.records
            side.report.errors += report.errors
            side.report.warnings += report.warnings
            side.report.suppressedErrors += report.suppressedErrors
            side.report.unreadableInputs += report.unreadableInputs
        }
        return side
    }

    /// `path`, or the `.ics` files of a folder (a vdir), in name order.
    static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
            isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return [path] }
        return names.filter { $0.lowercased().hasSuffix(".ics") && !$0.hasPrefix(".") }.sorted()
            .map { (path as NSString).appendingPathComponent($0) }
    }
}
