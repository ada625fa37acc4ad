import Foundation
import Testing

/// `caldav push` run again: only what is new or changed is sent, counted on the server.
extension CalDAVTests {
    /// `count` records, two hours apart, named "Task N" (or as `rename` says).
    static func tasks(_ count: Int, rename: [Int: String] = [:]) -> String {
        let records = (1...count).map { id in
            let start = 1_800_000_000 + id * 7200
            return
                #"{"id": \#(id), "date_start": "\#(start)", "date_finish": "\#(start + 3600)", "name": "\#(rename[id] ?? "Task \(id)")"}"#
        }
        return "[" + records.joined(separator: ",\n") + "]"
    }

    @Test(
        "push again: the same records send nothing, a changed one is sent alone, one changed on the server is kept"
    )
    func pushAgain() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let server = try Self.setUp(cli, writeLog: cli.path("writes.log"))
        defer { server.stop() }
        func writes() -> Int {
            ((try? cli.read("writes.log")) ?? "").split(separator: "\n").count
        }
        let work = server.calendar("work")
        #expect(try Self.run(cli, ["caldav", "mkcal", work]).status == 0)
        try cli.write("tasks.json", Self.tasks(30))
        let first = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "pushed 30 of 30 calendar objects to \(work): 30 new, 0 updated, 0 unchanged"),
            "\(first.stderr)")
        #expect(writes() == 30)

        // The same again: nothing sent.
        let again = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(again.status == 0)
        #expect(
            again.stderr.contains(
                "pushed 0 of 30 calendar objects to \(work): 0 new, 0 updated, 30 unchanged"),
            "\(again.stderr)")
        #expect(writes() == 30, "no PUT for what the server has")

        // One record changed: --dry-run says so and sends nothing; the push sends it alone.
        try cli.write("tasks.json", Self.tasks(30, rename: [1: "Task 1, moved"]))
        let dry = try Self.run(cli, ["caldav", "push", "tasks.json", work, "--dry-run"])
        #expect(
            dry.stderr.contains(
                "would push 1 of 30 calendar objects to \(work): 0 new, 1 updated, 29 unchanged"),
            "\(dry.stderr)")
        #expect(writes() == 30)
        let one = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(one.stderr.contains("0 new, 1 updated, 29 unchanged"), "\(one.stderr)")
        #expect(writes() == 31)

        // Another client changes record 2 on the server (a machine with its own record of
        // pushes); pushing over it is refused and said, until --force.
        try cli.write(
            "theirs.json", Self.tasks(2, rename: [1: "Task 1, moved", 2: "Task 2, theirs"]))
        let theirs = try Self.run(
            cli, ["caldav", "push", "theirs.json", work, "--uid-namespace", "tasks"],
            ["XDG_STATE_HOME": cli.path("other-machine")])
        #expect(theirs.stderr.contains("0 new, 1 updated, 1 unchanged"), "\(theirs.stderr)")
        #expect(writes() == 32)
        try cli.write(
            "tasks.json", Self.tasks(30, rename: [1: "Task 1, moved", 2: "Task 2, mine"]))
        let held = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(held.status == 1)
        #expect(
            held.stderr.contains(
                ": changed on the server since the last push; not overwritten (--force replaces it)"
            ), "\(held.stderr)")
        #expect(
            held.stderr.contains("0 new, 0 updated, 29 unchanged, 1 not written"), "\(held.stderr)")
        #expect(writes() == 32)
        #expect(try Self.run(cli, ["caldav", "pull", work, "-o", "now.json"]).status == 0)
        #expect(try cli.read("now.json").contains("Task 2, theirs"))
        let forced = try Self.run(cli, ["caldav", "push", "tasks.json", work, "--force"])
        #expect(forced.status == 0)
        #expect(forced.stderr.contains("0 new, 30 updated, 0 unchanged"), "\(forced.stderr)")
        #expect(writes() == 62)
    }

    @Test("a push cut short and run again sends only what is missing, no duplicate")
    func pushResumed() throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        var server = try Self.setUp(cli, dieAfterWrites: 10)
        #expect(try Self.run(cli, ["caldav", "mkcal", server.calendar("work")]).status == 0)
        try cli.write("tasks.json", Self.tasks(30))
        let cut = try Self.run(cli, ["caldav", "push", "tasks.json", server.calendar("work")])
        #expect(cut.status == 2)
        #expect(cut.stderr.contains("run the push again to finish it"), "\(cut.stderr)")
        server.stop()
        // Back on the same storage (another port: the record of pushes does not apply, the
        // server's copies are compared).
        let log = cli.path("writes.log")
        server = try Radicale(
            storage: cli.path("server"), htpasswd: cli.path("htpasswd"), writeLog: log)
        defer { server.stop() }
        let work = server.calendar("work")
        let resumed = try Self.run(cli, ["caldav", "push", "tasks.json", work])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(
            resumed.stderr.contains(
                "pushed 20 of 30 calendar objects to \(work): 20 new, 0 updated, 10 unchanged"),
            "\(resumed.stderr)")
        #expect(try cli.read("writes.log").split(separator: "\n").count == 20)
        #expect(try Self.run(cli, ["caldav", "pull", work, "-o", "all.json"]).status == 0)
        #expect(try Taskcal.recordList(cli.read("all.json")).count == 30)
    }
}
