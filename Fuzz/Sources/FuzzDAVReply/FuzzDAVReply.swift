import Foundation
import FuzzSupport
import WebDAV

/// What a CalDAV server answers, as taskcal reads it: the multistatus (hrefs, statuses,
/// properties, ETags, sync tokens, calendar data inside XML), then each href placed in the
/// calendar or refused. A refusal is a thrown error, never a crash, a hang or a leak; and a
/// member an answer names is always inside the calendar.
@_cdecl("FuzzDAVReply_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    let calendar = URL(string: "https://dav.example.org/anna/diary/")!
    return FuzzDriver.run(argc, argv) { bytes in
        let data = Data(bytes)
        _ = XMLTree.declaresDocumentType(data)
        guard let status = try? MultiStatus(data) else { return }
        _ = status.syncToken
        for resource in status.resources {
            _ = (resource.etag, resource.isCalendar, resource.isCollection, resource.status)
            _ = resource.hrefProperty(DAV.caldav, "calendar-home-set")
            _ = resource.property(DAV.caldav, "calendar-data")?.text.utf8.count
            guard let path = try? DAVMember.path(resource.href, in: calendar) else { continue }
            // A member is a direct child of the calendar: never outside it.
            if !path.hasPrefix("/anna/diary/") || path == "/anna/diary/" {
                fatalError("href \(resource.href) placed at \(path), outside the calendar")
            }
        }
    }
}
