import Foundation
import TaskModel

/// What a conversion or validation did.
public struct ConversionReport: Sendable {
    /// Records read without problems (and written, for a conversion that succeeded).
    public var records = 0
    /// Problems: any makes a conversion fail and write nothing.
    public var errors: [Diagnostic] = []
    /// Things worth knowing that did not stop the conversion.
    public var warnings: [Diagnostic] = []
    /// Errors past ``Converter/maximumErrors`` that were counted but not kept.
    public var suppressedErrors = 0
    /// Inputs that could not be opened or read at all (as opposed to holding bad records).
    public var unreadableInputs = 0
    /// Records written (a conversion with skipInvalid writes the valid ones).
    public var written = 0
    /// The files written when they are not the output named (the parts of a split output).
    public var outputs: [String] = []
    /// With `verify`: the output read back and compared with what was written.
    public var verification: Verification?

    /// True when there was no error.
    public var succeeded: Bool { errors.isEmpty }

    /// Keeps `error`, or only counts it past ``Converter/maximumErrors``.
    mutating func record(_ error: Diagnostic) {
        if errors.count < Converter.maximumErrors {
            errors.append(error)
        } else {
            suppressedErrors += 1
        }
    }

    public init() {}
}

extension WriteOptions {
    /// These options with the default ``OutputLimit`` of an expansion when `read` expands
    /// and no limit is set: an expansion's output grows with its occurrences, not its input.
    func limitingExpansion(of read: ReadOptions, reading inputBytes: Int) -> WriteOptions {
        guard outputLimit == nil, read.expansion != nil else { return self }
        var limited = self
        limited.outputLimit = .standard(
            reading: inputBytes,
            advice: "or choose a shorter --expand window or fewer occurrences (--max-occurrences)")
        return limited
    }
}

/// JSON, NDJSON and iCalendar into one another, record by record.
public enum Converter {
    /// How many errors are kept for the report; the rest are only counted.
    public static let maximumErrors = 200

    /// Converts `inputs`, in order, into one `output`.
    ///
    /// Every input is read to the end so that every problem is reported; if there is any,
    /// the output is abandoned (no file appears, an existing one is untouched).
    ///
    /// `verify` reads the output back when it is written and compares it with the records
    /// written into it (``ConversionReport/verification``); standard output is then written
    /// to a temporary file first and copied out once it has been read back.
    public static func convert(
        inputs: [String], output: String, read: ReadOptions, write: WriteOptions,
        skipInvalid: Bool = false, verify: Bool = false
    ) -> ConversionReport {
        let write = write.limitingExpansion(of: read, reading: OutputLimit.inputBytes(inputs))
        guard verify else {
            return convert(
                inputs.map { ($0, nil) }, output: output, read: read, write: write,
                skipInvalid: skipInvalid, verify: false)
        }
        return verifying(output: output, format: write.format) { target in
            convert(
                inputs.map { ($0, nil) }, output: target, read: read, write: write,
                skipInvalid: skipInvalid, verify: true)
        }
    }

    /// Runs `convert` into `output`, or, for standard output, into a temporary file of the
    /// same format that is copied out when the conversion and its verification are done (so
    /// standard output gets the bytes a file gets, and nothing when the conversion fails).
    private static func verifying(
        output: String, format: Format?, _ convert: (String) -> ConversionReport
    ) -> ConversionReport {
        guard output == "-" else { return convert(output) }
        let suffix = (format ?? .json).fileExtension
        let staged = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taskcal-verify-\(getpid())-\(UUID().uuidString).\(suffix)"
        ).path
        defer { unlink(staged) }
        var report = convert(staged)
        guard report.succeeded else { return report }
        do {
            let out = try OutputFile(path: "-")
            try out.write(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: staged))))
            try out.commit()
        } catch let error as Diagnostic {
            report.errors.append(error)
        } catch {
            report.errors.append(
                Diagnostic(.error, Location(file: "-"), "cannot write: \(error)", code: .io))
        }
        return report
    }

    /// Converts `bytes` in memory (named `name` in messages, read as `format`) into
    /// `output`, as ``convert(inputs:output:read:write:skipInvalid:)`` converts a file.
    public static func convert(
        bytes: [UInt8], name: String, format: Format, output: String, read: ReadOptions,
        write: WriteOptions
    ) -> ConversionReport {
        convert(
            [
                (
                    name,
                    { () throws(Diagnostic) in
                        try openRecordSource(
                            bytes: bytes, name: name, format: format, options: read)
                    }
                )
            ], output: output, read: read,
            write: write.limitingExpansion(of: read, reading: bytes.count), skipInvalid: false,
            verify: false)
    }

    private static func convert(
        _ inputs: [(name: String, open: (() throws(Diagnostic) -> any RecordSource)?)],
        output: String, read: ReadOptions, write: WriteOptions, skipInvalid: Bool, verify: Bool
    ) -> ConversionReport {
        var report = ConversionReport()
        // With verify, what is handed to the sink, as `diff` compares it.
        var handedOver = CalendarDiff.Side(name: inputs.first?.name ?? output)
        let sink: any RecordSink
        do {
            sink = try openRecordSink(output, options: write)
        } catch {
            report.errors.append(error)
            return report
        }
        var written = 0
        var calendar = CalendarInfo()
        // With several threads, records are handed to the sink in batches that it may render
        // while the next batch is gathered. What a batch refuses is reported before any later
        // problem of the input, so problems come in the order one-by-one writing gives them.
        let batchSize = write.parallelism > 1 ? 256 * write.parallelism : 0
        var pending: [(record: TaskRecord, location: Location)] = []
        var refused: [Diagnostic] = []
        func add(_ outcome: (written: Int, errors: [Diagnostic])) {
            written += outcome.written
            refused += outcome.errors
        }
        /// Hands the pending records to the sink; `completing`: and waits until every record
        /// handed over is written or refused.
        func flush(completing: Bool) {
            if !pending.isEmpty {
                add(sink.submit(batch: pending, keepGoing: skipInvalid))
                pending.removeAll(keepingCapacity: true)
            }
            if completing { add(sink.completeBatches()) }
        }
        func settle(_ report: inout ConversionReport, flushing: Bool) {
            if flushing { flush(completing: true) }
            for error in refused { report.record(error) }
            refused.removeAll()
        }
        for (input, open) in inputs {
            let before = calendar
            var current = CalendarInfo()
            var scheme = write.uidScheme
            scheme.namespace = write.uidNamespace ?? write.namespaceOfFile(input)
            drain(
                input, options: read, into: &report, keepGoing: skipInvalid, open: open,
                settle: settle
            ) {
                record, location, info throws(Diagnostic) in
                if info != current {
                    flush(completing: true)
                    current = info
                    var merged = before
                    merged.merge(info)
                    sink.calendar = merged
                }
                if verify { handedOver.add(record, at: location, scheme: scheme) }
                if batchSize > 0 {
                    pending.append((record, location))
                    if pending.count >= batchSize { flush(completing: false) }
                } else {
                    try sink.write(record, from: location)
                    written += 1
                }
            } done: { info in
                calendar.merge(info)
            }
            settle(&report, flushing: true)
        }
        sink.calendar = calendar
        report.written = written
        // With skipInvalid, the valid records are written unless an input was unreadable
        // (then what is missing is not known record by record).
        if report.errors.isEmpty || (skipInvalid && report.unreadableInputs == 0) {
            do {
                try sink.finish()
                report.outputs = sink.writtenFiles
                report.warnings += sink.notes
            } catch {
                report.errors.append(error)
            }
            if verify, report.succeeded {
                handedOver.calendar = named(calendar, write.calendarName)
                // Read back as written: records without a UID of their own are derived in
                // the first input's namespace, as they were written.
                var back = ReadOptions(format: write.format ?? Format(path: output))
                back.uidScheme = write.uidScheme
                back.uidScheme.namespace =
                    write.uidNamespace ?? write.namespaceOfFile(inputs.first?.name ?? output)
                back.floatingZone = read.floatingZone
                // Read back on as many threads as the conversion wrote with.
                back.parallelism = max(read.parallelism, write.parallelism)
                report.verification = Verification.verify(
                    written: handedOver,
                    outputs: report.outputs.isEmpty ? [output] : report.outputs,
                    options: back,
                    said: report.warnings.map(\.location) + sink.changedPlaces)
            }
        } else {
            sink.abandon()
        }
        return report
    }

    /// Writes `records` to `output`, atomically: all of them or, on an error, no file.
    public static func write(
        _ records: [TaskRecord], to output: String, options write: WriteOptions
    ) -> ConversionReport {
        var report = ConversionReport()
        do {
            let sink = try openRecordSink(output, options: write)
            for record in records {
                try sink.write(record, from: Location(file: output))
                report.records += 1
            }
            try sink.finish()
            report.warnings += sink.notes
        } catch {
            report.errors.append(error)
        }
        return report
    }

    /// Reads every valid record of `inputs` into `body`, in order, and reports every problem.
    /// The reports (overlaps, agenda, month) are built on this.
    public static func read(
        inputs: [String], options: ReadOptions, _ body: (TaskRecord, Location) -> Void
    ) -> ConversionReport {
        var report = ConversionReport()
        for input in inputs {
            drain(input, options: options, into: &report) {
                record, location, _ throws(Diagnostic) in
                body(record, location)
            }
        }
        return report
    }

    /// Reads the records of `bytes` in memory (named `name` in messages) into `body`, as
    /// ``read(inputs:options:_:)`` reads a file.
    public static func read(
        bytes: [UInt8], name: String, format: Format, options: ReadOptions,
        _ body: (TaskRecord, Location) -> Void
    ) -> ConversionReport {
        var report = ConversionReport()
        drain(
            name, options: options, into: &report,
            open: { () throws(Diagnostic) in
                try openRecordSource(bytes: bytes, name: name, format: format, options: options)
            }
        ) { record, location, _ throws(Diagnostic) in
            body(record, location)
        }
        return report
    }

    /// Reads `inputs` and reports every problem without writing anything.
    public static func validate(inputs: [String], read: ReadOptions) -> ConversionReport {
        var report = ConversionReport()
        for input in inputs {
            drain(input, options: read, into: &report) { _, _, _ throws(Diagnostic) in }
        }
        return report
    }

    /// Reads every record of `input`, handing valid ones to `body` while no error has been
    /// found (after one, nothing more would be kept) and collecting every problem.
    ///
    /// `settle` lets a caller that holds records back (to write them in batches) report
    /// what it refused: after each record it was given, and before a problem of the input
    /// is recorded, when it should first write what it holds, so problems keep their order.
    static func drain(
        _ input: String, options: ReadOptions, into report: inout ConversionReport,
        keepGoing: Bool = false,
        open: (() throws(Diagnostic) -> any RecordSource)? = nil,
        settle: (inout ConversionReport, _ flushing: Bool) -> Void = { _, _ in },
        _ body: (TaskRecord, Location, CalendarInfo) throws(Diagnostic) -> Void,
        done: (CalendarInfo) -> Void = { _ in }
    ) {
        func record(_ error: Diagnostic) {
            settle(&report, true)
            report.record(error)
        }
        let source: any RecordSource
        do {
            if let open {
                source = try open()
            } else {
                source = try openRecordSource(input, options: options)
            }
        } catch {
            report.unreadableInputs += 1
            record(error)
            return
        }
        defer {
            report.warnings += source.warnings
            done(source.calendar)
        }
        while true {
            let item: SourceItem
            do {
                guard let next = try source.next() else { return }
                item = next
            } catch {
                record(error)  // the rest of this input cannot be read
                return
            }
            switch consume item {
            case .record(let taskRecord, let location):
                report.records += 1
                guard report.errors.isEmpty || keepGoing else { continue }
                do {
                    try body(taskRecord, location, source.calendar)
                } catch {
                    record(error)
                }
                settle(&report, false)
            case .failed(let diagnostics):
                diagnostics.forEach(record)
            }
        }
    }
}
