import Foundation
import TaskModel

/// What `convert --verify` found: the output read back and compared, as `taskcal diff`
/// compares, with the records the conversion wrote into it (after `--expand`, `--redact`,
/// `--drop-extra`, which change them on purpose; before `--for APP`, whose repairs are
/// differences it says as warnings).
public struct Verification: Sendable {
    /// Every difference between what was written and what reads back.
    public var difference: CalendarDiff
    /// The differences no warning of the conversion said (at the record's place, or for the
    /// calendar's own data anywhere in the output): each is an error.
    public var unsaid: CalendarDiff
    /// The problems of reading the output back (an output taskcal cannot read is an error).
    public var readBackErrors: [Diagnostic]

    /// True when the output reads back as written, or differs only where a warning said so.
    public var succeeded: Bool { unsaid.isEmpty && readBackErrors.isEmpty }

    /// Reads `outputs` back with `options` and compares them with `written`; a difference is
    /// said when one of the places of `said` (warnings, a sink's changes) is where its record
    /// came from, or, for one that is new in the output (a changed occurrence a repair made),
    /// where a record of its UID came from.
    public static func verify(
        written: CalendarDiff.Side, outputs: [String], options: ReadOptions, said: [Location]
    ) -> Verification {
        let back = CalendarDiff.read(outputs, name: outputs.first ?? "-", options: options)
        var difference = CalendarDiff(written, back)
        difference.sortByPlace()
        let places = Set(said.map(Place.init))
        let files = Set(said.map(\.file))
        var saidUIDs: Set<String> = []
        for record in written.records where places.contains(Place(record.source)) {
            saidUIDs.insert(record.uid)
        }
        func isSaid(_ item: CalendarDiff.Item) -> Bool {
            if places.contains(Place(item.source)) { return true }
            if let uid = item.uid, saidUIDs.contains(uid) { return true }
            // The calendar's data and components kept as written have no line: a warning
            // anywhere in their file or in the output says what became of them.
            let whole = item.uid == nil || item.source.line == nil && item.source.index == nil
            return whole
                && (files.contains(item.source.file) || outputs.contains { files.contains($0) })
        }
        var unsaid = difference
        unsaid.missing = difference.missing.filter { !isSaid($0) }
        unsaid.extra = difference.extra.filter { !isSaid($0) }
        unsaid.changed = difference.changed.filter { !isSaid($0) }
        return Verification(
            difference: difference, unsaid: unsaid, readBackErrors: back.report.errors)
    }

    /// A place a warning names: its file and line or index.
    struct Place: Hashable {
        var file: String
        var line: Int?
        var index: Int?
        init(_ location: Location) {
            file = location.file
            line = location.line
            index = location.index
        }
    }
}

extension CalendarDiff {
    /// The items in the order of their places (file, then line or index): the order the
    /// input was read in.
    mutating func sortByPlace() {
        func order(_ a: Item, _ b: Item) -> Bool {
            (a.source.file, a.source.line ?? a.source.index ?? 0)
                < (b.source.file, b.source.line ?? b.source.index ?? 0)
        }
        missing.sort(by: order)
        extra.sort(by: order)
        changed.sort(by: order)
    }
}
