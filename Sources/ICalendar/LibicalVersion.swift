import CLibical
import Foundation

/// Which libical taskcal runs on: its behaviour differs between 3.0 and 3.1, so bug reports
/// need both the version built against and the one loaded.
public enum LibicalVersion {
    /// The headers' version at build time (`ICAL_MAJOR_VERSION` …), such as `3.0.16`.
    public static let built = "\(ICAL_MAJOR_VERSION).\(ICAL_MINOR_VERSION).\(ICAL_PATCH_VERSION)"

    /// The version of the library loaded now, from its file name (`libical.so.3.0.16`; libical
    /// 3.0 has no call that says it) as the process maps it, or `nil` when it cannot be told.
    public static var loaded: String? {
        // /proc files say they are empty: read to the end, not by their size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        defer { try? handle.close() }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/"), line.contains("/libical.so") else {
                continue
            }
            let path = URL(fileURLWithPath: String(line[slash...])).resolvingSymlinksInPath()
            let file = path.lastPathComponent
            guard let range = file.range(of: ".so.") else { continue }
            return String(file[range.upperBound...])
        }
        return nil
    }
}
