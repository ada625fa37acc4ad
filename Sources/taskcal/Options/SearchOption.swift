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

/// `--search TEXT`, as `diary list` and `diary today` take it.
struct SearchOption: ParsableArguments {
    @Option(
        help:
            .tr(
                "Only entries whose name, description or categories contain this text (any case, any accents: ёлка finds Елка)."
            )
    )
    var search: String?
}
