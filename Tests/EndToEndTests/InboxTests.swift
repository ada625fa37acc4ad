import Foundation
import Testing

@Suite("taskcal inbox: invitations accepted into the diary, declined, cancelled")
struct InboxTests {
    static func invitation(
        _ uid: String, method: String, summary: String, start: String, end: String,
        organizer: String, attendees: [String]
    ) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Mail//EN", "METHOD:\(method)",
            "BEGIN:VEVENT",
            "UID:\(uid)", "DTSTAMP:20261120T100000Z", "SEQUENCE:1",
            "DTSTART;TZID=Europe/Berlin:\(start)", "DTEND;TZID=Europe/Berlin:\(end)",
            "SUMMARY:\(summary)",
            "ORGANIZER;CN=Boss:mailto:\(organizer)",
        ]
            + attendees.map { "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:\($0)" }
            + ["END:VEVENT", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    @Test(
        "list with collisions; accept, refused on a taken slot unless --force; decline; cancel",
        arguments: ["sqlite", "vdir"])
    func inbox(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        let environment = ["SOURCE_DATE_EPOCH": "1795000000"]
        func run(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(
                arguments + ["--store", store, "--tz", "Europe/Berlin"], environment: environment)
        }
        try FileManager.default.createDirectory(
            atPath: cli.path("invites"), withIntermediateDirectories: true)
        try cli.write(
            "invites/a-sync.ics",
            Self.invitation(
                "sync@example.com", method: "REQUEST", summary: "Team sync",
                start: "20261201T100000",
                end: "20261201T110000", organizer: "boss@example.com",
                attendees: ["me@example.com", "ann@example.com"]))
        try cli.write(
            "invites/b-lunch.ics",
            Self.invitation(
                "lunch@example.com", method: "REQUEST", summary: "Lunch", start: "20261202T120000",
                end: "20261202T130000", organizer: "ann@example.com", attendees: ["me@example.com"])
        )
        #expect(
            try run([
                "diary", "add", "--name", "Dentist", "--start", "2026-12-01T10:30", "--end",
                "2026-12-01T11:30",
            ]).stdout == "1\n")
        #expect(
            try run(["inbox", cli.path("invites")]).stdout == """
                1  sync@example.com  "Team sync"  2026-12-01 10:00–11:00 from Boss
                     collides with #1 "Dentist" (2026-12-01 10:30–11:30)
                2  lunch@example.com  "Lunch"  2026-12-02 12:00–13:00 from Boss

                """)
        let json = try run(["inbox", cli.path("invites"), "--format", "json"])
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["uid"] as? String } == ["sync@example.com", "lunch@example.com"])
        #expect(listed.first?["collides_with"] as? [Int] == [1])
        // A taken slot: refused, naming what is in the way.
        let refused = try run([
            "inbox", "accept", cli.path("invites"), "1", "--as", "me@example.com",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                #""Team sync" collides with #1 "Dentist" (2026-12-01 10:30–11:30)"#),
            "\(refused.stderr)")
        // Two attendees: which one answers must be said.
        let who = try run(["inbox", "accept", cli.path("invites"), "1", "--force"])
        #expect(who.status == 2)
        #expect(who.stderr.contains("say which is you with --as"))
        let forced = try run([
            "inbox", "accept", cli.path("invites"), "sync@example.com", "--as", "me@example.com",
            "--force", "-o", cli.path("sync-reply.ics"),
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(
            forced.stdout.contains(
                #""Team sync" added as #2 as free time: it overlaps #1 "Dentist""#),
            "\(forced.stdout)")
        let reply = try cli.read("sync-reply.ics")
        for line in [
            "METHOD:REPLY", "UID:sync@example.com",
            "ATTENDEE;PARTSTAT=ACCEPTED:mailto:me@example.com",
            "ORGANIZER;CN=Boss:mailto:boss@example.com", "SEQUENCE:1", "DTSTAMP:20261118T110640Z",
        ] {
            #expect(reply.contains(line + "\r\n"), "\(line): \(reply)")
        }
        #expect(!reply.contains("ann@example.com"))
        // The only attendee answers by default; declined, nothing enters the diary.
        let declined = try run([
            "inbox", "decline", cli.path("invites/b-lunch.ics"), "1", "-o",
            cli.path("lunch-reply.ics"),
        ])
        #expect(declined.status == 0, "\(declined.stderr)")
        #expect(
            try cli.read("lunch-reply.ics").contains(
                "ATTENDEE;PARTSTAT=DECLINED:mailto:me@example.com\r\n"))
        #expect(
            try run(["diary", "list"]).stdout == """
                #2  2026-12-01 Tue 10:00–11:00  Team sync  (free)
                #1  2026-12-01 Tue 10:30–11:30  Dentist

                """)
        // Python icalendar reads the reply as a reply.
        if pythonJudges || required {
            let python = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys, icalendar\nc = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())\ne = c.walk('VEVENT')[0]\nprint(c['METHOD'], e['ATTENDEE'].params['PARTSTAT'])",
                    cli.path("sync-reply.ics"),
                ],
                in: cli.directory)
            #expect(python.stdout == "REPLY ACCEPTED\n", "\(python.stdout)\(python.stderr)")
        }
        // The organizer cancels: accepting the cancellation removes the entry.
        try cli.write(
            "cancel.ics",
            Self.invitation(
                "sync@example.com", method: "CANCEL", summary: "Team sync",
                start: "20261201T100000",
                end: "20261201T110000", organizer: "boss@example.com", attendees: ["me@example.com"]
            ))
        #expect(
            try run(["inbox", cli.path("cancel.ics")]).stdout.contains(
                "accept removes #2 from the diary"))
        #expect(
            try run(["inbox", "accept", cli.path("cancel.ics"), "1"]).stdout
                == "#2 \"Team sync\" removed: the organizer cancelled it\n")
        #expect(try run(["diary", "list"]).stdout == "#1  2026-12-01 Tue 10:30–11:30  Dentist\n")
        // Every decision is in the log beside the diary.
        let log = try String(
            contentsOfFile: backend == "sqlite"
                ? cli.path("diary.sqlite.inbox.log") : cli.path("calendar/.taskcal-inbox.log"),
            encoding: .utf8)
        #expect(log.contains("accepted sync@example.com \"Team sync\""))
        #expect(log.contains("declined lunch@example.com \"Lunch\""))
        #expect(log.contains("cancelled sync@example.com \"Team sync\": removed #2"))
        let none = try run(["inbox", "accept", cli.path("invites"), "nothing@example.com"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no invitation 'nothing@example.com'"))
    }
}
