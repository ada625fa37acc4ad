import Foundation
import ICalendar
import TaskModel

/// A JSON array of records; the object form `{"calendar": {…}, "records": […]}` when there
/// is calendar data to keep. Calendar data found only after the first record (a zone a later
/// event defines) is put in front when the file is committed.
final class JSONRecordSink: RecordSink {
    private let output: OutputFile
    private let name: String?
    private var count = 0
    private var started = false
    /// One buffer for every record of the file.
    private var writer = JSONWriter()
    /// The opening written: its length, and the calendar data it holds.
    private var prefix = (length: 0, calendar: CalendarInfo())
    var calendar = CalendarInfo()

    init(_ output: OutputFile, name: String?) {
        self.output = output
        self.name = name
    }

    private static func opening(_ info: CalendarInfo) -> String {
        guard !info.isEmpty else { return "" }
        var writer = JSONWriter()
        info.write(to: &writer)
        return "{\"calendar\": " + writer.text + ",\n\"records\": "
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
        try output.write(count == 0 ? "[\n" : ",\n")
        try output.write(bytes: writer.bytes)
        count += 1
    }

    func finish() throws(Diagnostic) {
        if !started { try begin() }
        let final = named(calendar, name)
        let rewrite = final != prefix.calendar && output.canRewrite
        let objectForm = !(rewrite ? final : prefix.calendar).isEmpty
        try output.write(count == 0 ? "[]" : "\n]")
        try output.write(objectForm ? "}\n" : "\n")
        if rewrite {
            try output.commit(replacingPrefix: prefix.length, with: Array(Self.opening(final).utf8))
        } else {
            try output.commit()
        }
    }

    func abandon() { output.abandon() }
}
