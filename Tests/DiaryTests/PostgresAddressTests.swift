// The PostgreSQL diary's addresses: with the PostgreSQL trait only.
#if PostgreSQL

import Diary
import Foundation
import PostgresDiary
import Testing

@Suite("PostgreSQL addresses read as psql reads them, never holding a password")
struct PostgresAddressTests {
    @Test("the URL's parts, then PG… variables, then libpq's defaults")
    func defaults() throws {
        let full = try PostgresAddress(
            url: "postgres://anna@db.example.org:6543/team?diary=rooms&sslmode=require",
            environment: [:])
        #expect(full.host == "db.example.org" && full.port == 6543)
        #expect(full.user == "anna" && full.database == "team" && full.diary == "rooms")
        #expect(full.tls == .require && !full.isSocket)
        #expect(full.description == "postgres://anna@db.example.org:6543/team?diary=rooms")
        let bare = try PostgresAddress(
            url: "postgres://", environment: ["PGUSER": "bob", "PGPORT": "5433"])
        #expect(bare.isSocket && bare.host == "/var/run/postgresql" && bare.port == 5433)
        #expect(bare.user == "bob" && bare.database == "bob" && bare.diary == "default")
        #expect(bare.tls == .prefer)
        let socket = try PostgresAddress(
            url: "postgresql://me@/db?host=/tmp/pg&diary=Команда", environment: [:])
        #expect(socket.isSocket && socket.host == "/tmp/pg" && socket.diary == "Команда")
    }

    @Test("a password, an unknown parameter or a bad value is refused, the password unsaid")
    func refusals() throws {
        let cases: [(String, String)] = [
            ("postgres://me:hunter2@db/team", "give it in ~/.pgpass or PGPASSWORD"),
            ("postgres://me@db/team?password=hunter2", "give it in ~/.pgpass or PGPASSWORD"),
            ("postgres://me@db/team?diray=rooms", "unknown parameter 'diray'"),
            ("postgres://me@db/team?sslmode=always", "sslmode 'always' is unknown"),
            ("postgres://me@db/team?diary=", "must be a name of 1 to 100 printable characters"),
            ("postgres://me@db:0/team", "is not a number from 1 to 65535"),
        ]
        for (url, expected) in cases {
            do {
                _ = try PostgresAddress(url: url, environment: [:])
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.description.contains(expected), "\(url): \(error)")
                #expect(!error.description.contains("hunter2"), "\(url): \(error)")
            }
        }
        #expect(throws: DiaryError.self) { try StoreLocation.resolve("mysql://me@db/team") }
        #expect(
            try StoreLocation.resolve("postgres://me@db/team") == .postgres("postgres://me@db/team")
        )
    }

    @Test("~/.pgpass: the first line that matches, escapes read, ignored when others can read it")
    func passwordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("pgpass").path
        try Data(
            """
            # comment
            other.example.org:5432:team:anna:wrong
            db.example.org:*:team:anna:pa\\:ss\\\\word
            *:*:*:*:fallback

            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o600)
        let address = try PostgresAddress(
            url: "postgres://anna@db.example.org/team", environment: [:])
        #expect(address.password(environment: ["PGPASSFILE": file]) == #"pa:ss\word"#)
        #expect(address.password(environment: ["PGPASSFILE": file, "PGPASSWORD": "env"]) == "env")
        let socket = try PostgresAddress(url: "postgres://anna@/team", environment: [:])
        #expect(socket.password(environment: ["PGPASSFILE": file]) == "fallback")
        chmod(file, 0o644)
        var warnings: [String] = []
        #expect(
            address.password(environment: ["PGPASSFILE": file], warn: { warnings.append($0) })
                == nil)
        #expect(warnings.first?.contains("others can read it") == true)
    }
}

#endif
