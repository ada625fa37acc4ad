// PostgreSQL diary benchmark: one process, ratios to baselines measured in the same run.
//
//   swift run -c release --traits PostgreSQL postgres-diary-benchmark [N] [postgres://USER@HOST/DB]
//   swift run -c release --traits PostgreSQL postgres-diary-benchmark curve [SIZES] [WRITERS]
//
// (`curve`: Curve.swift.)
// Without a URL it starts a throw-away cluster of Debian's server (as the tests do). The
// password comes from PGPASSWORD or ~/.pgpass, as for taskcal.
//
// 1. Add N non-overlapping entries one by one through the library (each add its own
//    transaction: the diary's advisory lock, the habit check, the id, the insert that the
//    exclusion constraint checks), against N single-row inserts into a plain table with the
//    same columns and no constraint, over the same kind of connection.
// 2. One refused add in a diary of N entries (the check, the refusal read back, the
//    rollback), against a read of one entry by id.
#if PostgreSQL

import Diary
import DiaryBenchmarkSupport
import Foundation
import Logging
import NIOPosix
import PostgresDiary
import PostgresNIO
import TaskModel
import TestPostgres

if CommandLine.arguments.dropFirst().first == "curve" {
    let arguments = CommandLine.arguments.dropFirst(2)
    let sizes = arguments.first.map { $0.split(separator: ",").compactMap { Int($0) } }
    try runCurve(
        sizes: sizes ?? [10_000, 100_000, 1_000_000],
        writers: arguments.dropFirst().first.flatMap { Int($0) } ?? 16)
    exit(0)
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let server: TestPostgres? = CommandLine.arguments.count > 2 ? nil : try TestPostgres.shared.get()
var environment = ProcessInfo.processInfo.environment
if let server { environment.merge(server.environment) { $1 } }
let diaryName = "bench-\(getpid())"
let url =
    CommandLine.arguments.count > 2
    ? CommandLine.arguments[2] + (CommandLine.arguments[2].contains("?") ? "&" : "?")
        + "diary=\(diaryName)"
    : server!.url(diary: diaryName)
let address = try PostgresAddress(url: url, environment: environment)

// 1. Adds.
let diary = try PostgresDiary(address: address, environment: environment)
let addTime = try seconds {
    for index in 0..<count { _ = try diary.add(entry(index)) }
}

let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
let connection = try PostgresConnection.connect(
    on: MultiThreadedEventLoopGroup.singleton.next(),
    configuration: .init(
        host: address.host, port: address.port, username: address.user,
        password: address.password(environment: environment), database: address.database,
        tls: .disable),
    id: 2, logger: logger
).wait()
let table = "bench_plain_\(getpid())"
_ = try connection.query(
    PostgresQuery(
        unsafeSQL: """
            CREATE TABLE \(table) (diary text NOT NULL, id bigserial PRIMARY KEY,
                date_start bigint NOT NULL, date_finish bigint NOT NULL, name text NOT NULL,
                occupies boolean NOT NULL, repeats boolean NOT NULL, record text NOT NULL)
            """), logger: logger
).wait()
let rawTime = try seconds {
    for index in 0..<count {
        let record = entry(index)
        _ = try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(table) (diary, date_start, date_finish, name, occupies, repeats, record)
                    VALUES ($1, $2, $3, $4, true, false, $5)
                    """,
                binds: {
                    var binds = PostgresBindings()
                    binds.append(diaryName)
                    binds.append(record.dateStart)
                    binds.append(record.dateFinish)
                    binds.append(record.name)
                    binds.append(record.jsonLine)
                    return binds
                }()), logger: logger
        ).wait()
    }
}
_ = try connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table)"), logger: logger).wait()

// 2. Refused adds in the full diary.
let probes = 2000
let checkTime = refusedAdds(diary, count: count, probes: probes)
let lookupTime = try lookups(diary, count: count, probes: probes)
try connection.close().wait()

func format(_ value: Double) -> String { String(format: "%.3f", value) }
print(
    "PostgreSQL diary benchmark, N = \(count), \(ProcessInfo.processInfo.activeProcessorCount) cores, server \(address.host):\(address.port)"
)
print("| measure | taskcal | baseline | ratio |")
print("|---|---|---|---|")
print(
    "| add \(count) entries one by one | \(format(addTime)) s (\(Int(Double(count) / addTime)) adds/s) | \(format(rawTime)) s (\(Int(Double(count) / rawTime))/s): plain inserts, no rule | \(String(format: "%.2f", addTime / rawTime))x |"
)
let check = checkTime / Double(probes) * 1e6
let lookup = lookupTime / Double(probes) * 1e6
print(
    "| one refused add in \(count) entries | \(String(format: "%.1f", check)) µs | \(String(format: "%.1f", lookup)) µs: read by id | \(String(format: "%.2f", check / lookup))x |"
)

#else

import Foundation

FileHandle.standardError.write(
    Data(
        "postgres-diary-benchmark: built without the PostgreSQL trait; run it with swift run -c release --traits PostgreSQL postgres-diary-benchmark\n"
            .utf8))
exit(2)

#endif
