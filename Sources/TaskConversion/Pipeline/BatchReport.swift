import Foundation

/// A migration larger than one machine: each of N workers converts its share of the same plan
/// (``BatchConverter/Shard``), and their `--report` files merge into the summary one run would
/// have written (``BatchConverter/Summary/merged(_:)``).
extension BatchConverter {
    /// Share `index` of `count`: the files at positions index, index + count, index + 2·count…
    /// of the whole plan. Every worker plans the same inputs, so the shares cover the plan once.
    public struct Shard: Sendable, Hashable, CustomStringConvertible {
        public var index: Int
        public var count: Int
        /// How many files the whole plan holds, and a digest of their paths in order (FNV-1a,
        /// 64 bits): the shares of one plan agree on both.
        public var planned: Int?
        public var plan: String?

        /// `K/N`, with 0 ≤ K < N.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
                count >= 1, (0..<count).contains(index)
            else { return nil }
            self.index = index
            self.count = count
        }

        public var description: String { "\(index)/\(count)" }

        /// This share of `jobs`, the whole plan, which it remembers (``planned``, ``plan``).
        public mutating func of(_ jobs: [Job]) -> [Job] {
            planned = jobs.count
            plan = UIDScheme.hash(jobs.map(\.input).joined(separator: "\0"))
            return stride(from: index, to: jobs.count, by: count).map { jobs[$0] }
        }

        var json: String {
            "\"shard\": {\"index\": \(index), \"count\": \(count)"
                + (planned.map { ", \"planned\": \($0)" } ?? "")
                + (plan.map { ", \"plan\": \"\($0)\"" } ?? "") + "}, "
        }
    }
}

extension BatchConverter.Summary {
    /// A summary read back from its JSON (`--report`), named `name` in errors.
    public init(json data: Data, name: String) throws(Diagnostic) {
        func fail(_ field: String, _ message: String) -> Diagnostic {
            Diagnostic(.error, Location(file: name, field: field), message, code: .usage)
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let files = root["files"] as? [[String: Any]]
        else {
            throw fail("", "is not a batch report (taskcal convert --output-dir … --report FILE)")
        }
        var outcomes: [BatchConverter.Outcome] = []
        for (index, file) in files.enumerated() {
            outcomes.append(try Self.outcome(file, at: "files[\(index)]", fail: fail))
        }
        self.init(outcomes: outcomes, seconds: root["seconds"] as? Double ?? 0)
        if let shard = root["shard"] as? [String: Any] {
            guard let index = shard["index"] as? Int, let count = shard["count"] as? Int,
                var parsed = BatchConverter.Shard("\(index)/\(count)")
            else { throw fail("shard", "is not a share {\"index\": K, \"count\": N}") }
            parsed.planned = shard["planned"] as? Int
            parsed.plan = shard["plan"] as? String
            self.shard = parsed
        }
    }

    private static func outcome(
        _ file: [String: Any], at place: String, fail: (String, String) -> Diagnostic
    ) throws(Diagnostic) -> BatchConverter.Outcome {
        guard let input = file["input"] as? String, let output = file["output"] as? String,
            let status = (file["status"] as? String).flatMap(BatchConverter.Outcome.Status.init),
            let records = file["records"] as? Int
        else {
            throw fail(
                place, "needs input, output, status (converted, failed or skipped) and records")
        }
        func diagnostics(_ key: String) throws(Diagnostic) -> [Diagnostic] {
            var found: [Diagnostic] = []
            for (index, item) in (file[key] as? [[String: Any]] ?? []).enumerated() {
                guard let name = item["file"] as? String, let message = item["message"] as? String,
                    let severity = (item["severity"] as? String).flatMap(Diagnostic.Severity.init)
                else {
                    throw fail("\(place).\(key)[\(index)]", "needs file, severity and message")
                }
                let location = Location(
                    file: name, line: item["line"] as? Int, index: item["index"] as? Int,
                    field: item["field"] as? String)
                found.append(
                    Diagnostic(
                        severity, location, message,
                        code: DiagnosticCode(rawValue: item["code"] as? String ?? "invalid")))
            }
            return found
        }
        return BatchConverter.Outcome(
            job: BatchConverter.Job(input: input, output: output, namespace: ""), status: status,
            records: records, errors: try diagnostics("errors"),
            warnings: try diagnostics("warnings"), reason: file["reason"] as? String)
    }

    /// One summary of `parts` (each with the name errors give it): the shares of one plan
    /// (`--shard K/N`, every K once) put back in the plan's order, else runs of their own one
    /// after the other. Its `seconds` is the longest part's: the workers run side by side.
    public static func merged(_ parts: [(name: String, summary: Self)]) throws(Diagnostic) -> Self {
        let shards = parts.compactMap(\.summary.shard)
        let seconds = parts.map(\.summary.seconds).max() ?? 0
        guard !shards.isEmpty else {
            return Self(outcomes: parts.flatMap(\.summary.outcomes), seconds: seconds)
        }
        let name = parts.first?.name ?? ""
        guard shards.count == parts.count else {
            let whole = parts.first { $0.summary.shard == nil }?.name ?? name
            throw Diagnostic(
                .error, Location(file: whole),
                "is the report of a whole run, the others of shares (--shard): merge one or the other",
                code: .usage)
        }
        let count = shards[0].count
        for (part, shard) in zip(parts, shards) {
            if shard.count != count {
                throw Diagnostic(
                    .error, Location(file: part.name),
                    "is share \(shard) and \(name) share \(shards[0]): the workers split the plan differently",
                    code: .usage)
            }
            if shard.plan != shards[0].plan || shard.planned != shards[0].planned {
                throw Diagnostic(
                    .error, Location(file: part.name),
                    "is a share of other files than \(name) (\(shard.planned ?? 0) planned, not \(shards[0].planned ?? 0), or other names): did every worker see the same inputs?",
                    code: .usage)
            }
        }
        var byIndex: [Int: (name: String, outcomes: [BatchConverter.Outcome])] = [:]
        for (part, shard) in zip(parts, shards) {
            if let other = byIndex[shard.index] {
                throw Diagnostic(
                    .error, Location(file: part.name), "is share \(shard), as \(other.name) is",
                    code: .usage)
            }
            byIndex[shard.index] = (part.name, part.summary.outcomes)
        }
        if let missing = (0..<count).first(where: { byIndex[$0] == nil }) {
            throw Diagnostic(
                .error, Location(file: "--merge-reports"),
                "share \(missing)/\(count) is missing: merge the reports of all \(count) workers",
                code: .usage)
        }
        // Share K of a plan of T files holds the files at K, K + N, K + 2N… below T.
        let total = byIndex.values.reduce(0) { $0 + $1.outcomes.count }
        for index in 0..<count {
            let share = byIndex[index]!
            guard share.outcomes.count == (total - index + count - 1) / count else {
                throw Diagnostic(
                    .error, Location(file: share.name),
                    "holds \(share.outcomes.count) files, which does not fit a plan of \(total) split \(count) ways: did every worker see the same inputs?",
                    code: .usage)
            }
        }
        let outcomes = (0..<total).map { byIndex[$0 % count]!.outcomes[$0 / count] }
        return Self(outcomes: outcomes, seconds: seconds)
    }
}
