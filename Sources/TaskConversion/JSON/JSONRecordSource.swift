import Foundation
import ICalendar
import TaskModel

/// A JSON array of records (or one record, or the object form with calendar data), read
/// whole: JSON arrays cannot be streamed without a streaming parser; NDJSON is the format for
/// very large files.
final class JSONRecordSource: RecordSource {
    private let path: String
    private var results: [Result<TaskRecord, RecordProblems>]
    private var index = 0
    private var duplicates = DuplicateRecords()
    private var pendingProblems: [Problem]
    let warnings: [Diagnostic] = []
    let calendar: CalendarInfo

    convenience init(path: String, reading: TaskJSON.Reading = .whole) throws(Diagnostic) {
        try self.init(data: try Self.contents(of: path), name: path, reading: reading)
    }

    /// The whole of `path` (`-`: standard input), for formats read whole (JSON, jCal).
    static func contents(of path: String) throws(Diagnostic) -> Data {
        do {
            if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            if SpooledInput.isReadOnce(path) {
                // A pipe named by a path (`<(curl …)`): Data(contentsOf:) refuses it.
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                return try handle.readToEnd() ?? Data()
            }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Diagnostic(
                .error, Location(file: path), "cannot read: \(Self.reason(error))", code: .io)
        }
    }

    /// One JSON value, the whole of a file read whole (jCal, JSCalendar); a syntax error
    /// names its line.
    static func document(_ bytes: [UInt8], name: String) throws(Diagnostic) -> JSONValue {
        let parsed = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONValue.SyntaxError) -> JSONValue in try JSONValue.parse(raw) }
        }
        let document: JSONValue
        switch parsed {
        case .success(let value): document = value
        case .failure(let error):
            let line = error.offset.map { offset in
                bytes[..<min(offset, bytes.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            }
            throw Diagnostic(
                .error, Location(file: name, line: line), "not JSON: \(error.reason)",
                code: .invalidJSON)
        }
        return document
    }

    init(data: Data, name path: String, reading: TaskJSON.Reading = .whole) throws(Diagnostic) {
        self.path = path
        do {
            let file = try TaskJSON.decodeFile(data, reading: reading)
            results = file.records
            calendar = file.calendar ?? CalendarInfo()
            pendingProblems = file.problems
        } catch {
            throw Diagnostic(
                .error, Location(file: path, line: error.line), error.message, code: .invalidJSON)
        }
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            posix.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(posix.code)))
        }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError {
            return "no such file"
        }
        return nsError.localizedDescription
    }

    func next() throws(Diagnostic) -> SourceItem? {
        if !pendingProblems.isEmpty {
            defer { pendingProblems = [] }
            return .failed(
                pendingProblems.map {
                    Diagnostic(.error, Location(file: path, field: $0.field), $0.message)
                })
        }
        guard index < results.count else { return nil }
        defer { index += 1 }
        let location = Location(file: path, index: index)
        switch results[index] {
        case .success(let record):
            if let duplicate = duplicates.check(record, at: location) {
                return .failed([duplicate])
            }
            return .record(record, location)
        case .failure(let problems):
            return .failed(
                problems.problems.map {
                    Diagnostic(
                        .error, Location(file: path, index: index, field: $0.field), $0.message)
                })
        }
    }
}
