import Foundation
import Testing
import WebDAV

/// The fixtures: what the reply fuzzer (Fuzz/Sources/FuzzDAVReply) found that crashed
/// FoundationXML before the reader refused it (`nested-instruction.xml` as found; the other two
/// are the smallest of their kind).
private func fixture(_ name: String) throws -> Data {
    let url = try #require(
        Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

@Suite("A WebDAV server's answer is read as input: what would crash the parser is refused")
struct ReplyTests {
    @Test(
        "the fuzzer's findings are refused with a reason, not a crash",
        arguments: [
            ("unknown-encoding-name.xml", "not UTF-8"),
            ("empty-instruction.xml", "processing instruction without data"),
            ("nested-instruction.xml", "processing instruction without data"),
        ])
    func findings(name: String, reason: String) throws {
        let data = try fixture(name)
        #expect {
            try MultiStatus(data)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("a document type, an element nested past 64, invalid UTF-8: refused")
    func refusals() {
        let cases: [(String, String)] = [
            (
                #"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "x">]><d:multistatus xmlns:d="DAV:"/>"#,
                "declares a document type"
            ),
            (
                #"<d:multistatus xmlns:d="DAV:">"# + String(repeating: "<d:x>", count: 70)
                    + String(repeating: "</d:x>", count: 70) + "</d:multistatus>",
                "nests elements deeper than 64"
            ),
            (#"<d:multistatus xmlns:d="DAV:"><?pi?></d:multistatus>"#, "without data"),
        ]
        for (text, reason) in cases {
            #expect(throws: DAVReplyError.self) { try MultiStatus(Data(text.utf8)) }
            do {
                _ = try MultiStatus(Data(text.utf8))
            } catch {
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
        var bytes = Array(#"<d:multistatus xmlns:d="DAV:"><d:"#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#"/></d:multistatus>"#.utf8)
        #expect(throws: DAVReplyError.self) { try MultiStatus(Data(bytes)) }
    }

    @Test("a sound answer with an XML declaration, instructions with data and CDATA is read")
    func sound() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <?xml-stylesheet href="x.css"?>
            <d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
            <d:response><d:href>/anna/diary/a%20b.ics</d:href><d:propstat><d:prop>
            <d:getetag>"1"</d:getetag><c:calendar-data><![CDATA[BEGIN:VCALENDAR
            END:VCALENDAR]]></c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status>
            </d:propstat></d:response><d:sync-token>t-1</d:sync-token></d:multistatus>
            """
        let status = try MultiStatus(Data(text.utf8))
        #expect(status.syncToken == "t-1")
        #expect(status.resources.first?.etag == "\"1\"")
        #expect(
            status.resources.first?.property(DAV.caldav, "calendar-data")?.text
                == "BEGIN:VCALENDAR\nEND:VCALENDAR")
        let calendar = try #require(URL(string: "https://dav.example.org/anna/diary/"))
        #expect(try DAVMember.path("/anna/diary/a%20b.ics", in: calendar) == "/anna/diary/a b.ics")
        #expect(try DAVMember.path("/anna/diary/", in: calendar) == nil)
        for outside in [
            "/anna/other/x.ics", "/anna/diary/../other/x.ics",
            "https://evil.example/anna/diary/x.ics",
            "http://dav.example.org/anna/diary/x.ics", "/anna/diary/sub/x.ics",
        ] {
            #expect(throws: DAVReplyError.self, "\(outside)") {
                try DAVMember.path(outside, in: calendar)
            }
        }
    }
}
