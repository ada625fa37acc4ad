import Diary
import FuzzSupport
import TaskConversion
import TaskModel

/// `diary import`: the records of .ics or JSON into a fresh diary (in memory), all or
/// nothing and with --skip-conflicts, then the diary's own check, a habit moved, an edit of a
/// changed occurrence (or of an entry) and a delete.
@_cdecl("FuzzDiaryImport_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    FuzzDriver.run(argc, argv) { bytes in
        guard let first = bytes.first else { return }
        let format: Format = first % 2 == 0 ? .ics : .json
        var incoming: [IncomingRecord] = []
        _ = Converter.read(
            bytes: Array(bytes.dropFirst()), name: "input", format: format,
            options: ReadOptions(floatingZone: "UTC")
        ) { record, location in
            incoming.append(IncomingRecord(record, source: location.description))
        }
        guard let diary = try? SQLiteDiary(inMemory: ()) else { return }
        _ = try? diary.importRecords(
            incoming, skipConflicts: first & 2 != 0, newIDs: first & 4 != 0)
        _ = try? diary.check()
        let stored = (try? diary.allEntries()) ?? []
        // A habit moved an hour later, taking its changed and skipped occurrences along.
        if var series = stored.first(where: { $0.recurrence != nil && $0.recurrenceID == nil }) {
            series.dateStart += 3_600
            series.dateFinish += 3_600
            try? diary.update(series)
            _ = try? diary.check()
        }
        if var edited = stored.first(where: { $0.recurrenceID != nil }) ?? stored.first {
            edited.dateFinish = edited.dateStart + 3_600
            edited.name = "edited"
            try? diary.update(edited)
            try? diary.delete(edited.id)
            _ = try? diary.check()
        }
    }
}
