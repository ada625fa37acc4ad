import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

// MARK: - Batch mode

extension Convert {
    func runBatch(into directory: String) throws {
        let scheme = UIDScheme(domain: uidDomain, namespace: uidNamespace)
        var read = ReadOptions(format: from, uidScheme: scheme, floatingZone: tz)
        read.expansion = expansion
        read.dropExtra = dropExtra
        read.redaction = redaction
        read.strict = strict
        read.readsEveryRevision = revisions == .all
        var write = WriteOptions(uidScheme: scheme, zone: tz)
        write.uidNamespace = uidNamespace
        write.calendarName = calendarName
        write.app = app
        write.outputLimit = outputLimit
        var batch = BatchConverter(
            read: read, write: write, format: to, jobs: jobs, force: force, failFast: failFast)
        batch.verify = verify
        let (planned, problems) = batch.plan(inputs: inputs, into: directory)
        for problem in problems { Console.error(problem.description) }
        guard problems.isEmpty else { throw ExitCode(2) }
        var share = shard.flatMap(BatchConverter.Shard.init)
        let jobs = share?.of(planned) ?? planned
        let bar = ProgressBar(total: jobs.count, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let summary = batch.run(jobs) { outcome, done in
            if (outcome.status == .failed || (outcome.differences ?? 0) > 0) && !bar.enabled {
                for error in outcome.errors.prefix(20) { Console.error(error.description) }
            }
            bar.update(done: done, records: outcome.records)
        }
        bar.finish()
        if bar.enabled {
            for outcome in summary.outcomes
            where outcome.status == .failed || (outcome.differences ?? 0) > 0 {
                for error in outcome.errors.prefix(20) { Console.error(error.description) }
            }
        }
        var shared = summary
        shared.shard = share
        try finish(shared)
    }

    /// Writes `summary` to --report (when given), says it in one line and exits 1 when a file
    /// failed.
    private func finish(_ summary: BatchConverter.Summary) throws {
        if let report {
            do {
                try Data(summary.json.utf8).write(
                    to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                Console.error("\(report): cannot write the report: \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        let line =
            "converted \(summary.count(.converted)) file(s), failed \(summary.count(.failed)), skipped \(summary.count(.skipped)); \(summary.records) records written, \(summary.warnings) warning(s), in \(String(format: "%.1f", summary.seconds)) s"
        if !quiet || summary.count(.failed) > 0 { Console.note(line) }
        if verify {
            Console.note(
                "verified: \(summary.count(.converted) - summary.differing) output(s) read back as written, \(summary.differing) with differences no warning said"
            )
        }
        if summary.count(.failed) > 0 || summary.differing > 0 { throw ExitCode(1) }
    }

    /// `--merge-reports`: the inputs are the workers' reports.
    func runMerge() throws {
        var parts: [(name: String, summary: BatchConverter.Summary)] = []
        do {
            for input in inputs {
                guard let data = FileManager.default.contents(atPath: input) else {
                    throw Diagnostic(.error, Location(file: input), "cannot read the report")
                }
                parts.append((input, try BatchConverter.Summary(json: data, name: input)))
            }
            let merged = try BatchConverter.Summary.merged(parts)
            if report == nil { FileHandle.standardOutput.write(Data(merged.json.utf8)) }
            try finish(merged)
        } catch let problem as Diagnostic {
            Console.error(problem.description)
            throw ExitCode(2)
        }
    }
}
