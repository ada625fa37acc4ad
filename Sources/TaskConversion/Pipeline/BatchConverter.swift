import Dispatch
import Foundation
import ICalendar
import Locking
import TaskModel

/// Many files converted at once: each input to its own output under one folder, in parallel,
/// one bad file never stopping the others (unless `failFast`), every output written atomically.
public struct BatchConverter: Sendable {
    /// One input and where its output goes.
    public struct Job: Sendable, Hashable {
        public var input: String
        public var output: String
        /// The namespace of the input's derived UIDs: its path inside the input folder,
        /// without extension (see ``UIDScheme``).
        public var namespace: String
    }

    /// What happened to one input.
    public struct Outcome: Sendable {
        public enum Status: String, Sendable { case converted, failed, skipped }
        public var job: Job
        public var status: Status
        public var records = 0
        public var errors: [Diagnostic] = []
        public var warnings: [Diagnostic] = []
        /// Why a skipped file was skipped.
        public var reason: String?
        /// With ``BatchConverter/verify``: the differences between the output read back and
        /// what was written that no warning said (each listed in ``errors``).
        public var differences: Int?
    }

    /// The whole run.
    public struct Summary: Sendable {
        public var outcomes: [Outcome]
        public var seconds: Double
        /// The share of the plan this run converted (`--shard`), if only one.
        public var shard: Shard?
        public func count(_ status: Outcome.Status) -> Int {
            outcomes.filter { $0.status == status }.count
        }
        public var records: Int { outcomes.reduce(0) { $0 + $1.records } }
        public var warnings: Int { outcomes.reduce(0) { $0 + $1.warnings.count } }
        /// Files whose output did not read back as written (`verify`).
        public var differing: Int { outcomes.filter { ($0.differences ?? 0) > 0 }.count }
    }

    public var read: ReadOptions
    public var write: WriteOptions
    /// The output format; `nil` means the other family (JSON/NDJSON → ics, ics → json).
    public var format: Format?
    public var jobs: Int
    public var force: Bool
    public var failFast: Bool
    /// Each output read back and compared with what was written (`convert --verify`).
    public var verify = false

    public init(
        read: ReadOptions, write: WriteOptions, format: Format?, jobs: Int, force: Bool,
        failFast: Bool
    ) {
        self.read = read
        self.write = write
        self.format = format
        self.jobs = max(1, jobs)
        self.force = force
        self.failFast = failFast
    }

    /// The jobs for `inputs` (files, or folders searched recursively for .json, .ndjson,
    /// .jsonl and .ics files) into `directory`, keeping each folder's relative layout.
    /// Returns the jobs and the problems: inputs that are neither, and two inputs that would
    /// write one output (`x.json` and `x.ndjson`), which is refused before anything is
    /// converted. The output folder is never searched for inputs, even inside an input folder.
    public func plan(inputs: [String], into directory: String) -> (
        jobs: [Job], problems: [Diagnostic]
    ) {
        var jobs: [Job] = []
        var problems: [Diagnostic] = []
        let manager = FileManager.default
        let outputRoot = URL(fileURLWithPath: directory).standardizedFileURL.path
        var outputs: [String: String] = [:]
        func add(_ path: String, relative: String) {
            guard let inputFormat = Format(path: path) else { return }
            let target = format ?? (inputFormat.isCalendar ? .json : .ics)
            // `a.jscal.json` is `a` in JSCalendar: `a.json` in the task format.
            let base =
                inputFormat == .jscalendar && relative.lowercased().hasSuffix(".jscal.json")
                ? String(relative.dropLast(11)) : (relative as NSString).deletingPathExtension
            let output = (directory as NSString).appendingPathComponent(
                base + "." + target.fileExtension)
            let key = URL(fileURLWithPath: output).standardizedFileURL.path
            if let other = outputs[key] {
                problems.append(
                    Diagnostic(
                        .error, Location(file: path),
                        "would write \(output), as \(other) does; rename one of them or convert them separately",
                        code: .usage))
                return
            }
            outputs[key] = path
            jobs.append(Job(input: path, output: output, namespace: base))
        }
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: input, isDirectory: &isDirectory) else {
                problems.append(Diagnostic(.error, Location(file: input), "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                let found = (manager.enumerator(atPath: input)?.allObjects as? [String] ?? [])
                    .sorted()
                for relative in found where Format(path: relative) != nil {
                    let path = (input as NSString).appendingPathComponent(relative)
                    let standard = URL(fileURLWithPath: path).standardizedFileURL.path
                    // The output folder may lie inside an input folder: never convert its
                    // files again.
                    if standard.hasPrefix(outputRoot + "/") { continue }
                    add(path, relative: relative)
                }
            } else if Format(path: input) != nil {
                add(input, relative: (input as NSString).lastPathComponent)
            } else {
                problems.append(
                    Diagnostic(
                        .error, Location(file: input),
                        "cannot tell the format from the file name (.json, .ndjson, .jsonl, .ics, .jcal, .jscal.json)"
                    ))
            }
        }
        return (jobs, problems)
    }

    /// Runs `jobs` on ``jobs`` threads; `progress` is called (from any thread) after each file.
    public func run(_ jobs: [Job], progress: @Sendable (Outcome, _ done: Int) -> Void = { _, _ in })
        -> Summary
    {
        let start = ContinuousClock.now
        let state = Locked(
            (next: 0, done: 0, stop: false, outcomes: [Outcome?](repeating: nil, count: jobs.count))
        )
        // libical's zone tables are filled lazily and without locks: touch them once here.
        for zone in [read.floatingZone, write.zone, TimeZones.localName].compactMap({ $0 }) {
            _ = try? LocalTime(zone: zone)
        }
        DispatchQueue.concurrentPerform(iterations: min(self.jobs, max(1, jobs.count))) { _ in
            while true {
                let index: Int? = state.withLock { state in
                    guard !state.stop, state.next < jobs.count else { return nil }
                    defer { state.next += 1 }
                    return state.next
                }
                guard let index else { return }
                let outcome = convert(jobs[index])
                let done = state.withLock { state in
                    state.outcomes[index] = outcome
                    state.done += 1
                    if failFast && outcome.status == .failed { state.stop = true }
                    return state.done
                }
                progress(outcome, done)
            }
        }
        let elapsed = ContinuousClock.now - start
        let outcomes = state.withLock { $0.outcomes }.enumerated().map { index, outcome in
            outcome
                ?? Outcome(
                    job: jobs[index], status: .skipped,
                    reason: "not started: an earlier file failed (--fail-fast)")
        }
        return Summary(
            outcomes: outcomes,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds)
                / 1e18)
    }

    private func convert(_ job: Job) -> Outcome {
        if !force && FileManager.default.fileExists(atPath: job.output) {
            return Outcome(
                job: job, status: .skipped, reason: "the output exists; --force replaces it")
        }
        var options = write
        options.format = Format(path: job.output)
        var read = self.read
        let namespace = job.namespace
        read.namespaceOfFile = { _ in namespace }
        options.namespaceOfFile = { _ in namespace }
        let report = Converter.convert(
            inputs: [job.input], output: job.output, read: read, write: options, verify: verify)
        var outcome = Outcome(
            job: job, status: report.succeeded ? .converted : .failed,
            records: report.succeeded ? report.records : 0,
            errors: report.errors, warnings: report.warnings)
        if let verification = report.verification {
            let unsaid = verification.unsaid
            outcome.differences =
                unsaid.missing.count + unsaid.extra.count + unsaid.changed.count
                + verification.readBackErrors.count
            for line in unsaid.text(zone: "UTC").split(separator: "\n").dropLast() {
                outcome.errors.append(
                    Diagnostic(.error, Location(file: job.output), "--verify: \(line)"))
            }
            outcome.errors += verification.readBackErrors
        }
        return outcome
    }
}

extension BatchConverter.Summary {
    /// The run as JSON, one entry per input with its errors (file, line or index, message).
    public var json: String {
        func diagnostics(_ list: [Diagnostic]) -> String {
            "[" + list.map(\.json).joined(separator: ", ") + "]"
        }
        let files = outcomes.map { outcome in
            var writer = JSONWriter()
            writer.begin()
            writer.field("input", string: outcome.job.input)
            writer.field("output", string: outcome.job.output)
            writer.field("status", string: outcome.status.rawValue)
            writer.field("records", number: Int64(outcome.records))
            if let reason = outcome.reason { writer.field("reason", string: reason) }
            if let differences = outcome.differences {
                writer.field("differences", number: Int64(differences))
            }
            writer.end()
            var text = writer.text
            text.removeLast()
            return text
                + ", \"errors\": \(diagnostics(outcome.errors)), \"warnings\": \(diagnostics(outcome.warnings))}"
        }
        return """
            {"converted": \(count(.converted)), "failed": \(count(.failed)), "skipped": \(count(.skipped)), \
            \(outcomes.contains { $0.differences != nil } ? "\"differing\": \(differing), " : "")\
            "records": \(records), "warnings": \(warnings), "seconds": \(String(format: "%.3f", seconds)), \
            \(shard?.json ?? "")"files": [
            \(files.joined(separator: ",\n"))
            ]}

            """
    }
}
