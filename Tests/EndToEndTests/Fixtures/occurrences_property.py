#!/usr/bin/env python3
"""Random recurring series, expanded by taskcal and by recurring-ical-events; every
occurrence compared.

usage: occurrences_property.py TASKCAL SEED SERIES WORK_DIR
    -> one JSON object on stdout:
       {"seed", "series", "occurrences", "agreeing", "disagreements": [{"uid", "only_taskcal",
        "only_peer", "event"}], "reviewed": {kind: series}, "reasons": {kind: why},
        "features": {feature: series}}

A disagreement in a series of a kind REVIEWED lists (with the section of RFC 5545 and why) is
counted there, not as a disagreement.

Each series is one VEVENT (and the overrides that move or cancel some of its occurrences) of
its own UID, drawn from a seeded generator: FREQ and INTERVAL, COUNT or UNTIL or neither,
BYDAY with ordinals, BYMONTHDAY (negative too), BYMONTH, BYSETPOS, EXDATE, RDATE, moved and
cancelled occurrences, zones with DST changes (no VTIMEZONE: the TZID is an IANA name both
sides know), floating times and all-day series. The series go into files of 500; taskcal
reads each with `convert --expand WINDOW --tz UTC`, the peer with `between(WINDOW)`. An
occurrence is its UID and start in UTC (Unix seconds; a date at its midnight in UTC).

The same SEED gives the same series, so a disagreement found once can be found again.
"""
import datetime as dt
import json
import os
import random
import subprocess
import sys

import dateutil.rrule
import icalendar
import recurring_ical_events

UTC = dt.timezone.utc
WINDOW = (dt.date(2024, 1, 1), dt.date(2027, 1, 1))
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Europe/London",
         "America/Sao_Paulo", "Asia/Tokyo"]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
PER_FILE = 500


def epoch(value):
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return int(value.timestamp())
    return int(dt.datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())


INSIDE = (epoch(WINDOW[0]) + 2 * 86400, epoch(WINDOW[1]) - 2 * 86400)


class Series:
    """One random series: its lines, and what it uses (for the feature counts)."""

    def __init__(self, rng, uid):
        self.uid = uid
        self.features = set()
        self.all_day = rng.random() < 0.2
        self.zone = None
        if not self.all_day:
            kind = rng.random()
            if kind < 0.6:
                self.zone = rng.choice(ZONES)
                self.features.add("zone with DST" if self.zone != "Asia/Tokyo" else "zone")
            elif kind < 0.8:
                self.features.add("UTC")
                self.zone = "UTC"
            else:
                self.features.add("floating")
        self.features.add("all-day" if self.all_day else "timed")
        day = dt.date(2023, 6, 1) + dt.timedelta(days=rng.randrange(0, 900))
        if self.all_day:
            self.start = day
            self.length = dt.timedelta(days=rng.choice([1, 1, 1, 2]))
        else:
            # Hours near 2–3 o'clock meet the DST changes.
            hour = rng.choice([0, 1, 2, 3, 9, 12, 17, 23])
            self.start = dt.datetime(day.year, day.month, day.day, hour, rng.choice([0, 30]))
            self.length = dt.timedelta(minutes=rng.choice([15, 30, 60, 90, 240]))
        parts = self.rule_parts(rng)
        if rng.random() < 0.9:
            # DTSTART on the rule (RFC 5545 §3.8.5.3: "SHOULD be synchronized"; the set of
            # one that is not is undefined), as calendar apps write it.
            first = next(iter(dateutil.rrule.rrulestr(";".join(parts), dtstart=self.as_datetime(self.start))), None)
            if first is not None:
                self.start = first if not self.all_day else first.date()
        else:
            self.features.add("DTSTART not on the rule")
        self.rule = ";".join(parts + self.rule_end(rng))
        self.lines = ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20240101T000000Z",
                      self.prop("DTSTART", self.start), self.prop("DTEND", self.start + self.length),
                      f"SUMMARY:series {uid}", f"RRULE:{self.rule}"]
        self.overrides = []
        self.add_dates(rng)
        self.lines.append("END:VEVENT")

    def value(self, when):
        if isinstance(when, dt.datetime):
            text = when.strftime("%Y%m%dT%H%M%S")
            return text + "Z" if self.zone == "UTC" else text
        return when.strftime("%Y%m%d")

    def prop(self, name, when):
        if self.all_day:
            return f"{name};VALUE=DATE:{self.value(when)}"
        if self.zone and self.zone != "UTC":
            return f"{name};TZID={self.zone}:{self.value(when)}"
        return f"{name}:{self.value(when)}"

    @staticmethod
    def as_datetime(when):
        return when if isinstance(when, dt.datetime) else dt.datetime(when.year, when.month, when.day)

    def rule_parts(self, rng):
        freq = rng.choice(["DAILY", "WEEKLY", "WEEKLY", "MONTHLY", "MONTHLY", "YEARLY"])
        self.features.add(f"FREQ={freq}")
        parts = [f"FREQ={freq}"]
        if rng.random() < 0.4:
            parts.append(f"INTERVAL={rng.choice([2, 3, 4])}")
            self.features.add("INTERVAL")
        if freq == "WEEKLY" and rng.random() < 0.6:
            parts.append("BYDAY=" + ",".join(sorted(rng.sample(DAYS, rng.randint(1, 3)), key=DAYS.index)))
            self.features.add("BYDAY")
        elif freq in ("MONTHLY", "YEARLY"):
            choice = rng.random()
            if choice < 0.35:
                ordinal = rng.choice([1, 2, 3, 4, -1, -2])
                parts.append(f"BYDAY={ordinal}{rng.choice(DAYS)}")
                self.features.add("BYDAY with ordinal")
            elif choice < 0.6:
                parts.append(f"BYMONTHDAY={rng.choice([1, 15, 28, 30, 31, -1, -2, -7])}")
                self.features.add("BYMONTHDAY")
            elif choice < 0.8:
                parts.append("BYDAY=" + ",".join(sorted(rng.sample(DAYS[:5], rng.randint(2, 5)), key=DAYS.index)))
                parts.append(f"BYSETPOS={rng.choice([1, 2, -1, -2])}")
                self.features.add("BYSETPOS")
            if freq == "YEARLY" and rng.random() < 0.5 and choice < 0.8:
                parts.append(f"BYMONTH={rng.randint(1, 12)}")
                self.features.add("BYMONTH")
        elif freq == "DAILY" and rng.random() < 0.2:
            parts.append("BYDAY=MO,TU,WE,TH,FR")
            self.features.add("BYDAY")
        return parts

    def rule_end(self, rng):
        parts = []
        end = rng.random()
        if end < 0.4:
            parts.append(f"COUNT={rng.randint(1, 40)}")
            self.features.add("COUNT")
        elif end < 0.8:
            until = self.start + dt.timedelta(days=rng.randint(0, 700))
            if isinstance(until, dt.datetime):
                # UNTIL is UTC when DTSTART has a zone (RFC 5545 §3.3.10); floating if floating.
                suffix = "" if self.zone is None else "Z"
                parts.append(f"UNTIL={until.strftime('%Y%m%dT%H%M%S')}{suffix}")
            else:
                parts.append(f"UNTIL={until.strftime('%Y%m%d')}")
            self.features.add("UNTIL")
        return parts

    def occurrences_guess(self, rng, count):
        """Some of the series' own starts (from the peer's reading of the bare series)."""
        calendar = icalendar.Calendar.from_ical(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n" + "\r\n".join(self.lines + ["END:VEVENT"]) + "\r\nEND:VCALENDAR\r\n")
        starts = []
        for component in recurring_ical_events.of(calendar).between(*WINDOW):
            starts.append(component["DTSTART"].dt)
            if len(starts) >= 60:
                break
        return rng.sample(starts, min(count, len(starts)))

    def add_dates(self, rng):
        if rng.random() < 0.3:
            # An RDATE: an extra occurrence, on the hour the series has.
            extra = self.start + dt.timedelta(days=rng.randint(1, 400))
            self.lines.append(self.prop("RDATE", extra))
            self.features.add("RDATE")
        if rng.random() < 0.45:
            chosen = self.occurrences_guess(rng, rng.randint(1, 3))
            if not chosen:
                return
            kind = rng.random()
            for when in chosen:
                naive = when.replace(tzinfo=None) if isinstance(when, dt.datetime) else when
                if kind < 0.4:
                    self.lines.append(self.prop("EXDATE", naive))
                    self.features.add("EXDATE")
                    continue
                moved = naive + (dt.timedelta(days=1) if self.all_day else dt.timedelta(hours=rng.choice([-3, 2, 26])))
                override = ["BEGIN:VEVENT", f"UID:{self.uid}", "DTSTAMP:20240101T000000Z",
                            self.prop("RECURRENCE-ID", naive)]
                if kind < 0.75:
                    override += [self.prop("DTSTART", moved), self.prop("DTEND", moved + self.length),
                                 f"SUMMARY:moved {self.uid}"]
                    self.features.add("moved occurrence")
                else:
                    override += [self.prop("DTSTART", naive), self.prop("DTEND", naive + self.length),
                                 "STATUS:CANCELLED", f"SUMMARY:cancelled {self.uid}"]
                    self.features.add("cancelled occurrence")
                override.append("END:VEVENT")
                self.overrides.append(override)

    def until_before_start(self):
        parts = dict(part.split("=", 1) for part in self.rule.split(";"))
        until = parts["UNTIL"]
        if len(until) == 8:
            return until < self.start.strftime("%Y%m%d")
        start = self.as_datetime(self.start)
        if until.endswith("Z"):
            # UTC: the start placed in its zone.
            import zoneinfo
            zone = UTC if self.zone in (None, "UTC") else zoneinfo.ZoneInfo(self.zone)
            start = start.replace(tzinfo=zone).astimezone(UTC).replace(tzinfo=None)
        return dt.datetime.strptime(until.rstrip("Z"), "%Y%m%dT%H%M%S") < start

    def text(self):
        return "\r\n".join(self.lines + [line for o in self.overrides for line in o]) + "\r\n"


# Disagreements reviewed, by the kind of series they come from: where taskcal reads a series
# as the calendar app that wrote it does, or RFC 5545 leaves the answer open.
REVIEWED = {
    "YEARLY with BYMONTHDAY and no BYMONTH": (
        "RFC 5545 §3.3.10's table has BYMONTHDAY expand a YEARLY rule, so by its letter the day "
        "comes every month, as the peer reads it. Google Calendar and Windows' Calendar write "
        "YEARLY;BYMONTHDAY=N for a yearly event and show it once a year, in DTSTART's month; "
        "libical (and so taskcal, Evolution) reads it as they mean it."),
    "UNTIL before DTSTART": (
        "RFC 5545 §3.8.5.3: DTSTART always counts as the first instance, so the series has that "
        "one occurrence; the peer shows none."),
    "DTSTART not on the rule": (
        "RFC 5545 §3.8.5.3: the recurrence set of a DTSTART not synchronized with its rule is "
        "undefined; libical and the peer start the weeks of an INTERVAL differently from it."),
}


def reviewed_kind(series):
    parts = dict(part.split("=", 1) for part in series.rule.split(";"))
    if parts["FREQ"] == "YEARLY" and "BYMONTHDAY" in parts and "BYMONTH" not in parts:
        return "YEARLY with BYMONTHDAY and no BYMONTH"
    if "UNTIL" in parts and series.until_before_start():
        return "UNTIL before DTSTART"
    if "DTSTART not on the rule" in series.features:
        return "DTSTART not on the rule"
    return None


def peer(path):
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    found = {}
    for component in recurring_ical_events.of(calendar).between(*WINDOW):
        found.setdefault(str(component["UID"]), set()).add(epoch(component["DTSTART"].dt))
    return found


def ours(taskcal, path, out):
    window = f"{WINDOW[0].isoformat()}..{WINDOW[1].isoformat()}"
    run = subprocess.run(
        [taskcal, "convert", path, "--expand", window, "--tz", "UTC", "-o", out, "-q",
         "--max-occurrences", "10000000"],
        capture_output=True, text=True, env={**os.environ, "TZ": "UTC"})
    if run.returncode != 0:
        raise SystemExit(f"taskcal refused {path}: {run.stderr[:500]}")
    found = {}
    with open(out, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if "date_start" not in record:
                continue
            found.setdefault(record.get("uid", ""), set()).add(int(record["date_start"]))
    return found


def main():
    taskcal, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    os.makedirs(work, exist_ok=True)
    rng = random.Random(seed)
    report = {"seed": seed, "series": 0, "occurrences": 0, "agreeing": 0, "disagreements": [],
              "reviewed": {}, "features": {}}
    for first in range(0, count, PER_FILE):
        series = [Series(rng, f"s{seed}-{n}") for n in range(first, min(count, first + PER_FILE))]
        path = os.path.join(work, f"series-{first}.ics")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//taskcal tests//random series//EN\r\n")
            for one in series:
                handle.write(one.text())
            handle.write("END:VCALENDAR\r\n")
        theirs = peer(path)
        mine = ours(taskcal, path, os.path.join(work, "out.ndjson"))
        for one in series:
            report["series"] += 1
            for feature in one.features:
                report["features"][feature] = report["features"].get(feature, 0) + 1
            # Well inside the window: at its edges the peer compares a date with a start in the
            # event's own zone, taskcal in UTC.
            a = {x for x in mine.get(one.uid, set()) if INSIDE[0] <= x < INSIDE[1]}
            b = {x for x in theirs.get(one.uid, set()) if INSIDE[0] <= x < INSIDE[1]}
            report["occurrences"] += len(a | b)
            report["agreeing"] += len(a & b)
            if a != b and reviewed_kind(one):
                kind = reviewed_kind(one)
                report["reviewed"][kind] = report["reviewed"].get(kind, 0) + 1
            elif a != b:
                report["disagreements"].append({
                    "uid": one.uid, "only_taskcal": sorted(a - b)[:5], "only_peer": sorted(b - a)[:5],
                    "event": one.text()})
    report["features"] = dict(sorted(report["features"].items()))
    report["reasons"] = {kind: REVIEWED[kind] for kind in report["reviewed"]}
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
