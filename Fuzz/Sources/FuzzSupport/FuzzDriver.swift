import Foundation
import TaskConversion
import TaskModel

/// Runs libFuzzer over one body: each target's entry calls ``run(_:_:body:)``.
///
/// SwiftPM gives an executable its own entry point, which hides libFuzzer's `main`; the
/// targets hand control to libFuzzer's `LLVMFuzzerRunDriver` instead. libFuzzer calls back a
/// C function, which calls the body the target registered (one per process).
public enum FuzzDriver {
    nonisolated(unsafe) static var body: ([UInt8]) -> Void = { _ in }

    /// Registers `body` and runs libFuzzer with the command line.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        body: @escaping ([UInt8]) -> Void
    ) -> CInt {
        self.body = body
        var count = argc
        var arguments = argv
        return runDriver(&count, &arguments, testOneInput)
    }

    /// The records of `bytes` read as `format` (problems are not failures: bad input is what
    /// fuzzing feeds), then written back to .ics and JSON in memory.
    public static func readAndWrite(_ bytes: [UInt8], format: Format, options: ReadOptions) {
        var records: [TaskRecord] = []
        _ = Converter.read(bytes: bytes, name: "input", format: format, options: options) {
            record, _ in records.append(record)
        }
        write(records)
    }

    /// Reads `bytes` as `format` whole and times only (as reports do), and stops the run
    /// (a finding) when they disagree: every record read whole must be read times-only as
    /// its ``TaskRecord/timeSkeleton`` at the same place, and a JSON syntax error must be the
    /// same error. Times-only may read more records: it never checks the fields it skips (so
    /// a record whole reading refuses there may take an id that a later one then repeats).
    public static func compareTimesOnly(_ bytes: [UInt8], format: Format) {
        func place(_ location: Location) -> Location {
            Location(file: location.file, line: location.line, index: location.index)
        }
        func read(_ reading: TaskJSON.Reading) -> (
            records: [Location: TaskRecord], syntax: [String], repeated: Set<Location>, cut: Bool
        ) {
            var options = ReadOptions()
            options.reading = reading
            var records: [Location: TaskRecord] = [:]
            let report = Converter.read(
                bytes: bytes, name: "input", format: format, options: options
            ) {
                record, location in records[place(location)] = record.timeSkeleton
            }
            let syntax = report.errors.filter { $0.code == .invalidJSON }.map(\.description)
            let repeated = report.errors.filter { $0.code == .duplicateID }.map {
                place($0.location)
            }
            return (records, syntax, Set(repeated), report.suppressedErrors > 0)
        }
        let whole = read(.whole)
        let timesOnly = read(.timesOnly)
        // Past Converter.maximumErrors the errors kept differ with how many there are.
        guard !whole.cut, !timesOnly.cut else { return }
        precondition(whole.syntax == timesOnly.syntax, "times-only reading: other syntax errors")
        for (location, record) in whole.records {
            precondition(
                timesOnly.records[location] == record || timesOnly.repeated.contains(location),
                "times-only reading of \(location) differs from the whole record's skeleton")
        }
    }

    /// Writes `records` as iCalendar, JSON and JSCalendar, in memory.
    public static func write(_ records: [TaskRecord]) {
        let writer = EventWriter(timestamp: 0)
        var buffer: [UInt8] = []
        // One buffer for all records, as a library caller might hold it (the CLI empties it per
        // record): serializing into it must stay linear.
        for record in records {
            _ = record.jsonLine
            _ = try? record.jscalendarObjects()
            guard let components = try? writer.components(for: record) else { continue }
            for component in components { component.serialize(into: &buffer) }
        }
    }
}

typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: TestOneInput
) -> CInt

/// The function libFuzzer calls for each input (also the symbol its runtime expects).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzDriver.body(bytes)
    return 0
}
