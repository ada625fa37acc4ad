import Foundation
import Testing

@Suite("Diary attachments: attached, listed, saved safely and opened")
struct DiaryAttachmentTests {
    @Test(
        "attach files and links; list; extract; open through xdg-open",
        arguments: diaryBackends)
    func attachments(backend: String) throws {
        let cli = try Taskcal()
        defer { cli.cleanUp() }
        let store = cli.store(backend)
        // A stand-in xdg-open that notes what it was asked to open.
        let bin = cli.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try cli.write("bin/xdg-open", "#!/bin/sh\nprintf '%s' \"$1\" > \"\(cli.path("opened"))\"\n")
        chmod(cli.path("bin/xdg-open"), 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        func diary(_ arguments: [String]) throws -> Taskcal.Result {
            try cli.run(
                ["diary"] + arguments + ["--store", store, "--tz", "Europe/Berlin"],
                environment: ["PATH": path])
        }
        try cli.write("referral.txt", "Referral for the dentist.\nСпасибо!\n")
        #expect(
            try diary([
                "add", "--name", "Dentist", "--start", "2026-12-01T09:00", "--end",
                "2026-12-01T10:00", "--attach", cli.path("referral.txt"), "--attach",
                "https://example.com/maps/clinic.pdf",
            ]).stdout == "1\n")
        #expect(
            try diary(["attachments", "1"]).stdout
                == "1  referral.txt  text/plain  42 bytes\n2  clinic.pdf    https://example.com/maps/clinic.pdf\n"
        )
        // Saved under a safe name inside the folder, byte for byte.
        let saved = try diary(["attachment", "1", "1", "--extract", cli.path("out")])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout == cli.path("out/1-1-referral.txt") + "\n")
        #expect(try cli.read("out/1-1-referral.txt") == "Referral for the dentist.\nСпасибо!\n")
        let link = try diary(["attachment", "1", "2", "--extract", cli.path("out")])
        #expect(link.status == 1)
        #expect(
            link.stderr.contains("is a link, nothing to save: https://example.com/maps/clinic.pdf"))
        #expect(try diary(["attachment", "1", "2", "--open"]).status == 0)
        #expect(try cli.read("opened") == "https://example.com/maps/clinic.pdf")
        #expect(try diary(["attachment", "1", "1", "--open"]).status == 0)
        #expect(try cli.read("opened").hasSuffix("/1-1-referral.txt"))
        let missing = try diary(["attachment", "1", "3", "--extract", cli.path("out")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("has 2 attachments; there is no 3"))
        #expect(
            try diary([
                "add", "--name", "x", "--start", "2026-12-02T09:00", "--end", "2026-12-02T10:00",
                "--attach", cli.path("nothing.txt"),
            ]).status == 2)
        // Removed one by one; exported, the inline one is in the .ics, bytes and name.
        #expect(try diary(["edit", "1", "--detach", "2"]).status == 0)
        #expect(
            try diary(["attachments", "1"]).stdout == "1  referral.txt  text/plain  42 bytes\n")
        #expect(try diary(["export", "-o", cli.path("out.ics")]).status == 0)
        let ics = try cli.read("out.ics").replacingOccurrences(of: "\r\n ", with: "")
        #expect(
            ics.contains("X-FILENAME=referral.txt") || ics.contains("FILENAME=referral.txt"),
            "\(ics)")
        #expect(
            ics.contains(Data("Referral for the dentist.\nСпасибо!\n".utf8).base64EncodedString()))
    }
}
