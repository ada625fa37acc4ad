import Foundation

/// Reading the task format from JSON text: whole files (an array or one record) and single
/// NDJSON lines. Each record is decoded on its own, so one bad record does not hide the
/// problems of the others.
public enum TaskJSON {
    /// Text that is not JSON at all, with the position the parser gave up at.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// 1-based line, when the parser said.
        public var line: Int?
        /// What the parser said.
        public var message: String

        public var description: String { message }
    }

    /// The records of a JSON file: an array of records, or a single record object.
    public static func decodeFile(_ data: Data) throws(SyntaxError) -> [Result<
        TaskRecord, RecordProblems
    >] {
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        do {
            switch first {
            case UInt8(ascii: "["):
                return try JSONDecoder().decode([Lossy].self, from: data).map(\.result)
            case UInt8(ascii: "{"):
                return [try JSONDecoder().decode(Lossy.self, from: data).result]
            case nil:
                throw SyntaxError(
                    line: 1, message: "the file is empty; expected a JSON array of task records")
            default:
                throw SyntaxError(
                    line: 1,
                    message: "expected a JSON array of task records ([…]) or one record ({…})")
            }
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    /// One record from one line of NDJSON.
    public static func decodeLine(_ data: Data) throws(SyntaxError) -> Result<
        TaskRecord, RecordProblems
    > {
        do {
            return try JSONDecoder().decode(Lossy.self, from: data).result
        } catch {
            throw syntaxError(error, in: data)
        }
    }

    /// A syntax error with a line and column. Foundation's JSONDecoder on Linux says only
    /// "not valid JSON"; JSONSerialization says "around character N", which is turned into
    /// a line and column here.
    private static func syntaxError(_ error: any Error, in data: Data) -> SyntaxError {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let text =
                (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                ?? "not valid JSON"
            var line = 1
            var column = 1
            if let range = text.range(of: "character "),
                let offset = Int(text[range.upperBound...].prefix { $0.isNumber })
            {
                for byte in data.prefix(offset) {
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        column += 1
                    }
                }
                let reason = text[..<range.lowerBound].replacingOccurrences(
                    of: " around ", with: "")
                return SyntaxError(
                    line: line,
                    message: "not valid JSON: \(reason) at line \(line), column \(column)")
            }
            return SyntaxError(line: nil, message: "not valid JSON: \(text)")
        }
        return SyntaxError(line: nil, message: "not valid JSON: \(error)")
    }

    /// A record decoded with its problems caught instead of thrown.
    private struct Lossy: Decodable {
        var result: Result<TaskRecord, RecordProblems>

        init(from decoder: any Decoder) throws {
            do {
                let record = try TaskRecord(from: decoder)
                let problems = record.problems
                result = problems.isEmpty ? .success(record) : .failure(RecordProblems(problems))
            } catch let problems as RecordProblems {
                result = .failure(problems)
            }
        }
    }
}
