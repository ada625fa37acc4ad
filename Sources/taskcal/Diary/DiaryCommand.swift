import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

#if PostgreSQL
import PostgresDiary
#endif

struct DiaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary",
        abstract: tr("Keep a diary where no two entries occupy the same time."),
        discussion: tr(
            """
            An entry whose time overlaps another is refused with a message that names the entry it \
            collides with. Intervals are half-open: 14:00–15:00 and 15:00–16:00 may both stand. \
            Cancelled entries, free ones and entries of no length block nothing. Times: Unix \
            seconds, or ISO 8601 (2026-11-22T14:00 in --tz, …Z, …+03:00). Every verb takes \
            --store: a SQLite file, vdir:DIR, or postgres://USER@HOST/DB?diary=NAME for a diary a \
            team shares on a PostgreSQL server, where the database itself refuses double booking \
            (password from ~/.pgpass or PGPASSWORD).

            Examples:
              taskcal diary add --name Dentist --start 2026-11-27T09:00 \\
                  --end 2026-11-27T10:00
              taskcal diary list --day 2026-11-27
              taskcal diary add --todo --name "Pay rent" --due 2026-12-01 --alarm -1d
              taskcal diary list --todo
              taskcal diary free --hours 09:00-18:00 --days MO-FR --min 1h
              taskcal diary edit 3 --end 2026-11-27T10:30
              taskcal diary import export.ics --skip-conflicts
              taskcal diary export -o backup.json
              taskcal diary list --store vdir:~/.calendars/diary   (a folder khal reads)
              taskcal diary add --store 'postgres://anna@db/team?diary=rooms' \\
                  --name Retro --start 2026-11-27T15:00 --end 2026-11-27T16:00

            Exit codes: 0 done; 1 refused (an overlap, an invalid entry, no such id); 2 bad usage \
            or an unreadable store or file.
            """),
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Delete.self, Import.self, Export.self,
            Check.self, Free.self, Stats.self, Today.self, Done.self, Undo.self, AlarmSwitch.self,
            AlarmList.self, Remind.self, AttachmentList.self, AttachmentGet.self, KeyCommand.self,
            Sync.self,
        ]
    )

    /// "3 entries", or "3 entries (4 records: 1 changed occurrence)" when changed occurrences
    /// of repeating entries came with them (`ids`: one per record).
    static func counted(_ ids: [Int64]) -> String {
        let entries = Set(ids).count
        let changes = ids.count - entries
        let counted = tr("%@ entr%@", entries, entries == 1 ? "y" : "ies")
        guard changes > 0 else { return counted }
        return tr(
            "%@ (%@ records: %@ changed occurrence%@)", counted, ids.count, changes,
            changes == 1 ? "" : "s")
    }

}

func rangeText(_ record: TaskRecord, _ time: LocalTime) -> String {
    record.allDay ? tr("all day") : OverlapReport.range(time.occupied(by: record), time)
}

func alarmText(_ trigger: Alarm.Trigger) -> String {
    switch trigger {
    case .relative(let duration, let fromEnd):
        return fromEnd ? tr("%@ from the end", duration) : duration
    case .absolute(let epoch): return tr("at %@", epoch)
    }
}
