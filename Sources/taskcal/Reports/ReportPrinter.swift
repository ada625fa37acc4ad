import ArgumentParser
import Foundation
import TaskConversion

/// Where a report goes: standard output, held until the report is whole and written at
/// ``finish()``, so that standard output gets what a file would, and held to an
/// ``OutputLimit``: past it the report stops with a message that names the limit, and
/// nothing is written (a pipe gets no half of a JSON array).
final class ReportPrinter {
    private let output: OutputFile

    /// A printer for a report that read `inputs` (or the diary at `store`), limited by
    /// `--max-output` or else by ``OutputLimit/standard(reading:advice:)``; `advice` says
    /// how to ask the report for less.
    init(_ options: ReportInputs, inputs: [String], advice: String) throws {
        do {
            output = try OutputFile(path: "-")
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
        }
        let read = OutputLimit.inputBytes(options.store.map { [$0] } ?? inputs)
        output.limit =
            options.outputLimit.map { OutputLimit(bytes: $0, advice: advice) }
            ?? .standard(reading: read, advice: advice)
    }

    /// Adds `text` to the report.
    func write(_ text: String) throws {
        do { try output.write(text) } catch { try fail(error) }
    }

    /// Adds UTF-8 `bytes` to the report.
    func write(bytes: [UInt8]) throws {
        do { try output.write(bytes: bytes) } catch { try fail(error) }
    }

    /// Writes the report to standard output.
    func finish() throws {
        do { try output.commit() } catch { try fail(error) }
    }

    private func fail(_ error: Diagnostic) throws -> Never {
        output.abandon()
        // Standard output needs no name ("-: the output would pass …").
        Console.error(error.location.file == "-" ? error.message : error.description)
        throw ExitCode(2)
    }
}
