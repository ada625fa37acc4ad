import ArgumentParser
import Foundation
import ICalendar
import Localization
import Locking
import TaskConversion
import TaskModel

extension Convert {
    func validate() throws {
        try Zone.validate(tz)
        if expand != nil && expansion == nil {
            throw ValidationError(
                "--expand '\(expand ?? "")' is not a window FROM..TO such as 2026-12-01..2027-01-01 (FROM before TO; Unix seconds or ISO 8601)"
            )
        }
        if inputs.contains("-") && from == nil {
            throw ValidationError(
                "reading standard input needs --input-format json|ndjson|ics|jcal|jscalendar")
        }
        if outputDir != nil && output != "-" {
            throw ValidationError(
                "use either -o (one output) or --output-dir (one output per input)")
        }
        if outputDir != nil && skipInvalid {
            throw ValidationError("--skip-invalid writes one output; batch mode skips whole files")
        }
        if mergeReports {
            if outputDir != nil || output != "-" || shard != nil {
                throw ValidationError(
                    "--merge-reports writes one summary to --report: give it neither --output-dir, -o nor --shard"
                )
            }
            return
        }
        if let shard, BatchConverter.Shard(shard) == nil {
            throw ValidationError(
                "--shard '\(shard)' is not a share K/N such as 0/4 (K from 0 to N-1)")
        }
        if outputDir == nil && shard != nil {
            throw ValidationError("--shard belongs to batch mode (--output-dir)")
        }
        if outputDir == nil && (report != nil || force || failFast) {
            throw ValidationError(
                "--report, --force and --fail-fast belong to batch mode (--output-dir)")
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let attachmentBaseURL {
            guard app == .google, extractAttachments != nil else {
                throw ValidationError(
                    "--attachment-base-url links attachments for Google: give it with --for google and --extract-attachments DIR"
                )
            }
            guard let url = URL(string: attachmentBaseURL), url.scheme != nil, url.host != nil
            else {
                throw ValidationError(
                    "--attachment-base-url '\(attachmentBaseURL)' is not a URL such as https://files.example.org/calendar"
                )
            }
        }
        if let app, outputDir != nil, to != .ics {
            throw ValidationError(
                "--for \(app.rawValue) shapes .ics: in batch mode add --to ics, so that every output is one"
            )
        }
        if attachmentBaseURL != nil, outputDir != nil {
            throw ValidationError(
                "--attachment-base-url links the attachments of one output (-o), not of batch mode")
        }
        if let splitSize, SplitLimit.bytes(splitSize) == nil {
            throw ValidationError(
                "--split-size '\(splitSize)' is not a size such as 1MB, 500KB, 64KiB or 2000000")
        }
        if let splitCount, splitCount < 1 {
            throw ValidationError("--split-count must be at least 1")
        }
        if split != nil
            && (outputDir != nil || output == "-" || (to ?? Format(path: output)) != .ics)
        {
            throw ValidationError(
                "--split-size and --split-count need one .ics output file (-o out.ics); its parts are out-001.ics, …"
            )
        }
        if maxOccurrences < 1 { throw ValidationError("--max-occurrences must be at least 1") }
        if let maxOutput, OutputLimit.bytes(maxOutput) == nil {
            throw ValidationError(
                "--max-output '\(maxOutput)' is not a size such as 200MB, 1GiB or 5000000, nor none"
            )
        }
        if uidDomain.isEmpty || uidDomain.contains(where: { $0.isWhitespace || $0 == "@" }) {
            throw ValidationError("--uid-domain '\(uidDomain)' is not a domain such as example.org")
        }
    }

    func run() throws {
        if mergeReports { return try runMerge() }
        if let outputDir { return try runBatch(into: outputDir) }
        let inputFormat = from ?? inputs.lazy.compactMap { Format(path: $0) }.first
        var outputFormat = to
        if outputFormat == nil && (output == "-" || Format(path: output) == nil) {
            outputFormat = inputFormat?.isCalendar == true ? .json : .ics
        }
        if output != "-", FileManager.default.fileExists(atPath: output),
            inputs.contains(where: { sameFile($0, output) })
        {
            throw ValidationError(
                "the output \(output) is also an input; choose another output file")
        }
        let scheme = UIDScheme(domain: uidDomain, namespace: uidNamespace)
        var extraction: AttachmentExtraction?
        if let extractAttachments {
            // Linked for Google, the files are found by their full paths.
            let relativeTo =
                output == "-" || attachmentBaseURL != nil
                ? nil : URL(fileURLWithPath: output).deletingLastPathComponent()
            extraction = AttachmentExtraction(
                directory: URL(fileURLWithPath: extractAttachments), relativeTo: relativeTo)
        }
        var read = ReadOptions(
            format: from, uidScheme: scheme, floatingZone: tz, extraction: extraction)
        // A large .ics input is parsed on --jobs threads (outputs are the same as on one).
        read.parallelism = jobs
        read.expansion = expansion
        read.dropExtra = dropExtra
        read.redaction = redaction
        read.strict = strict
        read.readsEveryRevision = revisions == .all
        var write = WriteOptions(format: outputFormat, uidScheme: scheme, zone: tz)
        write.uidNamespace = uidNamespace
        write.calendarName = calendarName
        write.split = split
        write.app = app
        write.outputLimit = outputLimit
        if let attachmentBaseURL, let extractAttachments {
            write.attachmentLinks = AttachmentLinks(
                directory: URL(fileURLWithPath: extractAttachments), baseURL: attachmentBaseURL)
        }
        // .ics records are rendered on --jobs threads too (the bytes are those of one).
        write.parallelism = jobs
        let report = Converter.convert(
            inputs: inputs, output: output, read: read, write: write, skipInvalid: skipInvalid,
            verify: verify)
        Console.show(report, quiet: quiet)
        if skipInvalid && !report.succeeded && report.unreadableInputs == 0 {
            let skipped = report.errors.count + report.suppressedErrors
            Console.error(
                "wrote \(report.written) record\(report.written == 1 ? "" : "s") to \(output); skipped what the \(skipped) error(s) above name"
            )
            throw ExitCode(1)
        }
        guard report.succeeded else {
            Console.error(
                "nothing written: fix the \(report.errors.count + report.suppressedErrors) error(s) above"
            )
            throw ExitCode(2)
        }
        if !quiet && output != "-" {
            let target =
                switch report.outputs.count {
                case 0: output
                case 1: report.outputs[0]
                default:
                    "\(report.outputs.count) parts, \(report.outputs[0]) … \(report.outputs[report.outputs.count - 1])"
                }
            Console.note(
                "wrote \(report.records) record\(report.records == 1 ? "" : "s") to \(target)")
        }
        if let verification = report.verification { try Self.show(verification, quiet: quiet) }
    }

    /// Says what `--verify` found; exit 1 when a difference was not said before.
    static func show(_ verification: Verification, quiet: Bool) throws {
        for error in verification.readBackErrors {
            Console.error("--verify: the output does not read back: \(error.description)")
        }
        let unsaid = verification.unsaid
        if !unsaid.isEmpty {
            let lines = unsaid.text(zone: TimeZones.localName).split(separator: "\n").dropLast()
            for line in lines { Console.error("--verify: \(line)") }
        }
        let all = verification.difference
        let differences = all.missing.count + all.extra.count + all.changed.count
        let notSaid = unsaid.missing.count + unsaid.extra.count + unsaid.changed.count
        if verification.succeeded {
            if !quiet {
                Console.note(
                    differences == 0
                        ? "verified: \(all.same) record(s) read back as written"
                        : "verified: \(all.same) record(s) read back as written, \(differences) differ as the warnings above say"
                )
            }
            return
        }
        Console.error(
            "--verify: the output is kept, but \(notSaid) difference(s) no warning said (above)")
        throw ExitCode(1)
    }

    private func sameFile(_ first: String, _ second: String) -> Bool {
        guard first != "-" else { return false }
        return URL(fileURLWithPath: first).standardizedFileURL.path
            == URL(fileURLWithPath: second).standardizedFileURL.path
    }
}
