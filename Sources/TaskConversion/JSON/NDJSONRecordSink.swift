import Foundation
import ICalendar
import TaskModel

/// One record a line; the calendar data, when there is any, on the first line.
final class NDJSONRecordSink: RecordSink {
    private let output: OutputFile
    private let name: String?
    private var started = false
    /// One buffer for every record of the file.
    private var writer = JSONWriter()
    private var prefix = (length: 0, calendar: CalendarInfo())
    var calendar = CalendarInfo()

    init(_ output: OutputFile, name: String?) {
        self.output = output
        self.name = name
    }

    private static func opening(_ info: CalendarInfo) -> String {
        info.isEmpty ? "" : info.jsonLine + "\n"
    }

    private func begin() throws(Diagnostic) {
        started = true
        let info = named(calendar, name)
        let text = Self.opening(info)
        try output.write(text)
        prefix = (text.utf8.count, info)
    }

    func write(_ record: TaskRecord, from location: Location) throws(Diagnostic) {
        if !started { try begin() }
        writer.reset()
        record.write(to: &writer)
        try output.write(bytes: writer.bytes)
        try output.write(bytes: Self.newline)
    }

    private static let newline: [UInt8] = [0x0A]

    func finish() throws(Diagnostic) {
        if !started { try begin() }
        let final = named(calendar, name)
        if final != prefix.calendar && output.canRewrite {
            try output.commit(replacingPrefix: prefix.length, with: Array(Self.opening(final).utf8))
        } else {
            try output.commit()
        }
    }

    func abandon() { output.abandon() }
}
