// `postgres-diary-benchmark curve [SIZES] [WRITERS]`: how the team diary's costs grow with its
// size, and what concurrent writers reach against the database's own limit.
//
// For each size (default 10000,100000,1000000) the diary is filled to it by imports, then 500
// adds, 500 refused adds and 500 reads by id are timed one by one. Then WRITERS (default 16)
// threads, each with a connection of its own, add entries at once, one slot in ten taken by
// all of them together (one wins, the others are refused); no overlap may be stored. Their
// rate is set against pgbench driving the same number of clients, each transaction one INSERT
// into a table with the same columns and the same EXCLUDE constraint, as full as the diary.
// Prints a table and writes Benchmarks/results/postgres-curve.csv for Benchmarks/plot.py.
#if PostgreSQL

import Diary
import DiaryBenchmarkSupport
import Foundation
import PostgresDiary
import Synchronization
import TaskModel
import TestPostgres

struct CurvePoint {
    var size: Int
    var fillSeconds: Double
    var add: Double
    var refused: Double
    var read: Double
}

func runCurve(sizes: [Int], writers: Int) throws {
    let server = try TestPostgres.shared.get()
    let name = "curve-\(getpid())"
    let address = try PostgresAddress(
        url: server.url(diary: name), environment: server.environment)
    let diary = try PostgresDiary(address: address, environment: server.environment)
    var points: [CurvePoint] = []
    var filled = 0
    let probes = 500
    for (step, size) in sizes.enumerated() {
        let fillSeconds = try seconds {
            for chunk in stride(from: filled, to: size, by: 50_000) {
                // Ids of their own within the import; the diary gives each the next free one.
                let records = (chunk..<min(size, chunk + 50_000)).map {
                    var record = entry($0)
                    record.id = Int64($0 + 1)
                    return IncomingRecord(record, source: "fill")
                }
                _ = try diary.importRecords(records, skipConflicts: false, newIDs: true)
            }
        }
        filled = size
        // Adds far after the filled hours, a block of its own for each size.
        let first = 2_000_000 + step * 10_000
        let add = try seconds {
            for index in first..<(first + probes) { _ = try diary.add(entry(index)) }
        }
        let refused = refusedAdds(diary, count: size, probes: probes)
        let read = try lookups(diary, count: size, probes: probes)
        let point = CurvePoint(
            size: size, fillSeconds: fillSeconds, add: add / Double(probes) * 1e6,
            refused: refused / Double(probes) * 1e6, read: read / Double(probes) * 1e6)
        points.append(point)
        print(
            "size \(size): filled in \(tenths(fillSeconds)) s; add \(tenths(point.add)) µs, refused add \(tenths(point.refused)) µs, read \(tenths(point.read)) µs"
        )
    }
    let writing = try concurrentWriters(writers, address: address, server: server)
    let limit = try pgbenchLimit(server, clients: writers, rows: filled)
    report(points, writing: writing, limit: limit, writers: writers)
}

private func tenths(_ value: Double) -> String { String(format: "%.1f", value) }

struct WritersResult {
    var attempts: Int
    var accepted: Int
    var refused: Int
    var seconds: Double
    var overlaps: Int
    var rate: Double { Double(attempts) / seconds }
}

/// `count` threads adding 400 entries each, every tenth round on one shared slot.
func concurrentWriters(_ count: Int, address: PostgresAddress, server: TestPostgres) throws
    -> WritersResult
{
    let rounds = 400
    let tally = Mutex((accepted: 0, refused: 0, failed: [String]()))
    let diaries = try (0..<count).map { _ in
        try PostgresDiary(address: address, environment: server.environment)
    }
    let done = DispatchGroup()
    let time = seconds {
        for writer in 0..<count {
            done.enter()
            let diary = diaries[writer]
            Thread.detachNewThread {
                defer { done.leave() }
                for round in 0..<rounds {
                    let slot = 3_000_000 + round * count + (round % 10 == 0 ? 0 : writer)
                    do {
                        _ = try diary.add(entry(slot))
                        tally.withLock { $0.accepted += 1 }
                    } catch DiaryError.conflict {
                        tally.withLock { $0.refused += 1 }
                    } catch {
                        tally.withLock { $0.failed.append("\(error)") }
                    }
                }
            }
        }
        done.wait()
    }
    let (accepted, refused, failed) = tally.withLock { ($0.accepted, $0.refused, $0.failed) }
    precondition(failed.isEmpty, "writes failed: \(failed.prefix(3))")
    let overlaps =
        Int(
            try server.psql(
                """
                SELECT count(*) FROM taskcal_entry a JOIN taskcal_entry b ON a.diary = b.diary
                    AND a.id < b.id AND a.slot && b.slot AND a.occupies AND b.occupies
                WHERE a.diary = '\(address.diary)' AND a.date_start >= \(3_000_000 * 3600)
                """
            ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    return WritersResult(
        attempts: count * rounds, accepted: accepted, refused: refused, seconds: time,
        overlaps: overlaps)
}

/// pgbench's rate (transactions per second) with `clients` clients, each transaction one
/// INSERT into a table shaped like the diary's, with its EXCLUDE constraint, holding `rows`.
func pgbenchLimit(_ server: TestPostgres, clients: Int, rows: Int) throws -> Double {
    let table = "bench_exclude_\(getpid())"
    try server.psql(
        """
        CREATE TABLE \(table) (diary text NOT NULL, id bigserial, date_start bigint NOT NULL,
            date_finish bigint NOT NULL, name text NOT NULL, occupies boolean NOT NULL,
            repeats boolean NOT NULL, record text NOT NULL,
            slot tstzrange GENERATED ALWAYS AS
                (tstzrange(to_timestamp(date_start), to_timestamp(date_finish), '[)')) STORED,
            EXCLUDE USING gist (diary WITH =, id WITH <>, slot WITH &&) WHERE (occupies));
        INSERT INTO \(table) (diary, date_start, date_finish, name, occupies, repeats, record)
            SELECT 'bench', i::bigint * 3600, i::bigint * 3600 + 1800, 'entry', true, false, '{}'
            FROM generate_series(0, \(rows - 1)) AS i;
        ANALYZE \(table);
        """)
    defer { _ = try? server.psql("DROP TABLE \(table)") }
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("\(table).sql")
    try Data(
        """
        \\set slot random(\(rows + 10), 100000000)
        INSERT INTO \(table) (diary, date_start, date_finish, name, occupies, repeats, record)
            VALUES ('bench', :slot::bigint * 3600, :slot::bigint * 3600 + 1800, 'entry', true, false, '{}')
            ON CONFLICT DO NOTHING;

        """.utf8
    ).write(to: script)
    defer { try? FileManager.default.removeItem(at: script) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: server.binaries + "/pgbench")
    process.arguments = [
        "-n", "-c", "\(clients)", "-j", "2", "-T", "10", "-f", script.path, "-h", "127.0.0.1",
        "-p", "\(server.port)", "-U", server.user, "taskcal",
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(server.environment) {
        $1
    }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
        let tps = Double(line.dropFirst(6).prefix { $0 != " " })
    else { throw CocoaError(.featureUnsupported, userInfo: ["pgbench": text]) }
    return tps
}

func report(_ points: [CurvePoint], writing: WritersResult, limit: Double, writers: Int) {
    print("| entries | fill (import) | add | refused add | read by id |")
    print("|---|---|---|---|---|")
    for point in points {
        print(
            "| \(point.size) | \(tenths(point.fillSeconds)) s (\(Int(Double(point.size) / max(point.fillSeconds, 1e-9))) entries/s) | \(tenths(point.add)) µs | \(tenths(point.refused)) µs | \(tenths(point.read)) µs |"
        )
    }
    print(
        "\(writers) writers: \(writing.attempts) adds in \(String(format: "%.2f", writing.seconds)) s (\(Int(writing.rate))/s): \(writing.accepted) accepted, \(writing.refused) refused, \(writing.overlaps) overlaps stored"
    )
    print(
        "pgbench, \(writers) clients, one INSERT under the same EXCLUDE constraint: \(Int(limit)) tps; ratio \(String(format: "%.2f", writing.rate / limit))x"
    )
    var csv = "entries,fill_s,add_us,refused_us,read_us\n"
    for point in points {
        csv +=
            "\(point.size),\(point.fillSeconds),\(point.add),\(point.refused),\(point.read)\n"
    }
    csv +=
        "# \(writers) writers at once: \(Int(writing.rate)) adds/s, \(writing.overlaps) overlaps stored; pgbench, \(writers) clients, one INSERT under the same EXCLUDE: \(Int(limit)) tps (\(String(format: "%.2f", writing.rate / limit))x)\n"
    csv +=
        "# \(ProcessInfo.processInfo.activeProcessorCount) cores shared by client and server, PostgreSQL on loopback (fsync off), release build, \(Date().formatted(.iso8601.year().month().day()))\n"
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try? Data(csv.utf8).write(to: folder.appendingPathComponent("postgres-curve.csv"))
}

#endif
