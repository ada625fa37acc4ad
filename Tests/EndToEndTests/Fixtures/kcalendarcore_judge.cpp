// KDE's reader as a judge: KCalendarCore (Debian's libkf5calendarcore-dev), which KOrganizer
// and Kontact read calendars with. For each file named on stdin, one line per path on stdout:
//   PATH<TAB>ok|REASON<TAB>EVENTS TODOS JOURNALS
// Read as KOrganizer's import reads a file: ICalFormat::load into a MemoryCalendar (its
// default zone UTC), then every event's start and end read, and a recurring event's next
// occurrences after its start asked for. A file is refused when load() fails (the format's
// exception says why) or when an event's start is not a valid time.
//
// build: c++ -std=c++17 -fPIC kcalendarcore_judge.cpp $(pkg-config --cflags --libs KF5CalendarCore Qt5Core)
#include <KCalendarCore/Event>
#include <KCalendarCore/Exceptions>
#include <KCalendarCore/ICalFormat>
#include <KCalendarCore/Journal>
#include <KCalendarCore/MemoryCalendar>
#include <KCalendarCore/Recurrence>
#include <KCalendarCore/Todo>
#include <QCoreApplication>
#include <QTimeZone>
#include <cstdio>
#include <iostream>
#include <string>

using namespace KCalendarCore;

static QString judge(const QString &path, int counts[3]) {
    MemoryCalendar::Ptr calendar(new MemoryCalendar(QTimeZone::utc()));
    ICalFormat format;
    if (!format.load(calendar, path)) {
        const Exception *exception = format.exception();
        if (!exception) return QStringLiteral("load failed");
        QString reason = QStringLiteral("load failed: code %1").arg(int(exception->code()));
        if (!exception->arguments().isEmpty())
            reason += QStringLiteral(" (%1)").arg(exception->arguments().join(QStringLiteral(", ")));
        return reason;
    }
    const Event::List events = calendar->rawEvents();
    for (const Event::Ptr &event : events) {
        if (!event->dtStart().isValid())
            return QStringLiteral("event %1: no valid start").arg(event->uid().left(40));
        (void)event->dtEnd();
        if (event->recurs()) {
            QDateTime next = event->dtStart();
            for (int n = 0; n < 20 && next.isValid(); n++) next = event->recurrence()->getNextDateTime(next);
        }
    }
    counts[0] = events.size();
    counts[1] = calendar->rawTodos().size();
    counts[2] = calendar->rawJournals().size();
    return QStringLiteral("ok");
}

int main(int argc, char **argv) {
    QCoreApplication application(argc, argv);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        int counts[3] = {0, 0, 0};
        const QString verdict = judge(QString::fromStdString(line), counts);
        std::printf("%s\t%s\t%d %d %d\n", line.c_str(), verdict.simplified().toStdString().c_str(),
                    counts[0], counts[1], counts[2]);
        std::fflush(stdout);
    }
    return 0;
}
