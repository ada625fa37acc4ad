import Foundation
import Testing

@Suite("To-dos in the diary: subtasks, done and undo, a tree, exported as VTODOs")
struct DiaryTodoTests {
    @Test("the to-do verbs as the README shows them", arguments: diaryBackends)
    func todos(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(
                ["diary"] + arguments + ["--store", store, "--tz", "Europe/Moscow"],
                environment: ["SOURCE_DATE_EPOCH": "1796000000"])
        }
        for (arguments, id) in [
            (["--name", "Move to the new flat", "--due", "2026-12-15", "--category", "Home"], "1"),
            (["--name", "Buy boxes", "--parent", "1"], "2"),
            (["--name", "Book the van", "--parent", "1", "--due", "2026-12-10T12:00"], "3"),
            (["--name", "Small van", "--parent", "3"], "4"),
        ] {
            let added = try diary(["add", "--todo"] + arguments)
            #expect(added.stdout == id + "\n", "\(added.stderr)")
        }
        // A to-do takes no time: an entry at any time beside it is fine, and gets a fresh id.
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-10T11:00", "--end",
                "2026-12-10T13:00",
            ]).stdout == "5\n")
        #expect(
            try diary(["list", "--todo"]).stdout == """
                #1  [ ] Move to the new flat  (due 2026-12-15)  [Home]
                #2    [ ] Buy boxes
                #3    [ ] Book the van  (due 2026-12-10 12:00)
                #4      [ ] Small van

                """)
        // A parent with open subtasks is not done unless --all.
        let refused = try diary(["done", "1"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                #"#1 "Move to the new flat" has open subtasks: #2 "Buy boxes", #3 "Book the van", #4 "Small van"; finish them first, or give --all"#
            ), "\(refused.stderr)")
        #expect(try diary(["done", "2"]).stdout == "#2 \"Buy boxes\" is done\n")
        // The last open subtask done: its parents are done too, and it says so.
        #expect(
            try diary(["done", "4"]).stdout
                == "#4 \"Small van\" is done; #3 \"Book the van\" is done too: all its subtasks are; #1 \"Move to the new flat\" is done too: all its subtasks are\n"
        )
        #expect(try diary(["list", "--todo", "--open"]).stdout == "No to-dos.\n")
        #expect(
            try diary(["undo", "3"]).stdout
                == "#3 \"Book the van\" is open again; #1 \"Move to the new flat\" is open again too\n"
        )
        #expect(
            try diary(["list", "--todo", "--done"]).stdout == """
                #1  [ ] Move to the new flat  (due 2026-12-15)  [Home]
                #2    [x] Buy boxes
                #3    [ ] Book the van  (due 2026-12-10 12:00)
                #4      [x] Small van

                """)
        // The plain list shows a to-do without a time as a to-do, not at 1970.
        let list = try diary(["list"]).stdout
        #expect(list.contains("#1  to-do, due 2026-12-15  Move to the new flat  [Home]"), "\(list)")
        // Exported: one VTODO each, subtasks naming their parent, done ones COMPLETED.
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let ics = try cli.read("out.ics")
        #expect(ics.components(separatedBy: "BEGIN:VTODO").count - 1 == 4)
        #expect(ics.contains("STATUS:COMPLETED\r\nCOMPLETED:20261130T005320Z\r\n"), "\(ics)")
        #expect(ics.contains("DUE;VALUE=DATE:20261215\r\n"))
        if pythonJudges || required {
            let python = try Taskcal.execute(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sys, icalendar\ncal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())\nuids = {str(t['UID']): str(t['SUMMARY']) for t in cal.walk('VTODO')}\nfor t in cal.walk('VTODO'):\n    print(t['SUMMARY'], '|', t.get('STATUS'), '|', uids.get(str(t.get('RELATED-TO', '')), '-'))",
                    cli.path("out.ics"),
                ], in: cli.directory)
            #expect(python.status == 0, "\(python.stderr)")
            #expect(
                python.stdout.contains("Small van | COMPLETED | Book the van"), "\(python.stdout)")
            #expect(python.stdout.contains("Book the van | NEEDS-ACTION | Move to the new flat"))
        }
        if calcurse || required {
            try FileManager.default.createDirectory(
                atPath: cli.path("calcurse"), withIntermediateDirectories: true)
            let imported = try Taskcal.execute(
                "/usr/bin/env",
                ["calcurse", "-D", cli.path("calcurse"), "-i", cli.path("out.ics")],
                in: cli.directory)
            #expect(imported.stdout.contains("4 todos / 0 skipped"), "\(imported.stdout)")
            // calcurse marks a completed to-do with a minus sign.
            let todo = try String(contentsOfFile: cli.path("calcurse/todo"), encoding: .utf8)
            #expect(todo.contains("[-0] Small van"), "\(todo)")
        }
        // And back: the diary's export reads as the same tree.
        #expect(
            try cli.run(["convert", cli.path("out.ics"), "-o", cli.path("back.json")]).status == 0)
        let back = try Taskcal.recordList(cli.read("back.json"))
        let move = back.first { $0["name"] as? String == "Move to the new flat" }
        #expect((move?["subtasks"] as? [[String: Any]])?.count == 2)
        // A subtask is deleted from its entry; the entry stays.
        #expect(try diary(["delete", "4"]).status == 0)
        #expect(!(try diary(["list", "--todo"]).stdout.contains("Small van")))
        #expect(try diary(["list", "--todo"]).stdout.contains("#3    [ ] Book the van"))
        // An entry is done once (a habit day by day: HabitTests); a second time says so.
        let entryDone = try diary(["done", "5"])
        #expect(entryDone.status == 0, "\(entryDone.stderr)")
        #expect(entryDone.stdout == "#5 \"Dentist\" is done\n")
        #expect(try diary(["done", "5"]).stdout == "#5 \"Dentist\" was done already\n")
        #expect(try diary(["undo", "5"]).stdout == "#5 \"Dentist\" is open again\n")
        let noParent = try diary(["add", "--todo", "--name", "x", "--parent", "5"])
        #expect(noParent.status == 2)
        #expect(noParent.stderr.contains("only a to-do has subtasks"))
        let noTimes = try diary(["add", "--name", "y"])
        #expect(noTimes.status == 2)
        #expect(noTimes.stderr.contains("an entry needs --start and --end"))
    }
}
