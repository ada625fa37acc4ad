// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

struct CalDAVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caldav",
        abstract: tr("Put records on a CalDAV server, get them back, list its calendars."),
        discussion: tr(
            """
            CalDAV (RFC 4791) is how Nextcloud, Fastmail, iCloud, Radicale, SOGo and Baïkal share \
            calendars. The address is https://HOST/PATH: a calendar's, or a server's root or a \
            user's home, where ls finds the calendars (RFC 6764 discovery). Plain http:// only to \
            this machine, unless --allow-http.

            The password never goes on the command line. It comes from, in turn:
              TASKCAL_CALDAV_PASSWORD_FILE  a file whose first line is the password
                                            (the user from the address or
                                            TASKCAL_CALDAV_USER)
              ~/.netrc (or $NETRC)          machine HOST login USER password PASSWORD
                                            (mode 600; one others can read is not used)
              the Secret Service            secret-tool store --label 'CalDAV HOST' \\
                                              application taskcal server HOST user USER
            and is sent (HTTP Basic) only to that server, only once it asks.

            Examples:
              taskcal caldav ls https://anna@cloud.example.org/remote.php/dav/
              taskcal caldav push tasks.json \\
                  https://cloud.example.org/…/calendars/anna/work/
              taskcal caldav pull https://…/work/ -o work.ics \\
                  --from 2026-12-01 --to 2027-01-01
              taskcal diary sync https://…/work/        (the diary both ways)
            """),
        subcommands: [List.self, Push.self, Pull.self, MakeCalendar.self])

}

#endif
