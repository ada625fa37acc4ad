#!/usr/bin/env python3
"""Occurrences as calendar apps see them: taskcal's `convert --expand` against
recurring-ical-events (the most used expansion library, on icalendar), file by file.

usage: occurrences_judge.py TASKCAL WINDOW_START WINDOW_END REVIEWED.json FILE.ics...
    -> one JSON object on stdout:
       {"files": N, "agree": N, "occurrences": N, "agreeing": N,
        "disagreements": [{"file", "only_taskcal": [...], "only_peer": [...], "reviewed"}],
        "skipped": [{"file", "why"}]}

Events only (VEVENT): the peer stops at a to-do without DTSTART. An occurrence is its UID and
its start in UTC (Unix seconds; a date is its midnight in UTC,
a floating time is read in UTC, as `--tz UTC` reads it). Both sides expand in the same window
([START, END), ISO dates); an occurrence is in it when it overlaps it. A file whose every
difference is in REVIEWED.json (path in the corpus -> the section of RFC 5545, why taskcal is
right, and the counts [only taskcal, only the peer] reviewed) counts as reviewed.
"""
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile

import icalendar
import recurring_ical_events

UTC = dt.timezone.utc


def epoch(value):
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return int(value.timestamp())
    if isinstance(value, dt.date):
        return int(dt.datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    raise ValueError(f"not a time: {value!r}")


def peer(path, start, end):
    # Each file on its own: icalendar caches the zones a file's VTIMEZONEs define, by TZID, for
    # every file read after it; choosing the provider again empties the cache.
    icalendar.use_zoneinfo()
    with open(path, "rb") as handle:
        calendars = icalendar.Calendar.from_ical(handle.read(), multiple=True)
    found = set()
    for calendar in calendars:  # several VCALENDARs in one file: taskcal reads them all
        # An event without DTSTART is no occurrence for either side (taskcal keeps it with the
        # calendar as written, with a warning); the peer stops at one, so it does not see them.
        calendar.subcomponents = [
            c for c in calendar.subcomponents if c.name != "VEVENT" or "DTSTART" in c]
        query = recurring_ical_events.of(calendar, components=["VEVENT"])
        for component in query.between(start, end):
            uid = str(component.get("UID", ""))
            begin = component.get("DTSTART")
            if begin is None:
                continue
            found.add((uid, epoch(begin.dt)))
    return found


def ours(taskcal, path, start, end):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out.ndjson")
        window = f"{start.isoformat()}..{end.isoformat()}"
        run = subprocess.run(
            [taskcal, "convert", path, "--expand", window, "--tz", "UTC", "-o", out, "-q",
             "--max-occurrences", "1000000"],
            capture_output=True, text=True, env={**os.environ, "TZ": "UTC"})
        if run.returncode != 0:
            return None, run.stderr.strip().splitlines()[:3]
        found = set()
        with open(out, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if "calendar" in record and "id" not in record:
                    continue
                if record.get("kind", "event") != "event":
                    continue
                # A component without UID gets a fresh id and no `uid`: "" on both sides.
                uid = record.get("uid", "")
                begin = record.get("date_start")
                if begin is None:
                    continue
                found.add((uid, int(begin)))
        return found, []


def main():
    taskcal, start_text, end_text, reviewed_path = sys.argv[1:5]
    files = sys.argv[5:]
    start = dt.date.fromisoformat(start_text)
    end = dt.date.fromisoformat(end_text)
    reviewed = {}
    if os.path.exists(reviewed_path):
        with open(reviewed_path, encoding="utf-8") as handle:
            reviewed = json.load(handle)
    report = {"files": 0, "agree": 0, "reviewed": 0, "occurrences": 0, "agreeing": 0,
              "disagreements": [], "skipped": []}
    for path in files:
        # Named by its path in the corpus (two packages ship an example.ics each).
        name = path.split(".corpus-cache/", 1)[-1] if ".corpus-cache/" in path else os.path.basename(path)
        try:
            theirs = peer(path, start, end)
        except Exception as error:  # the peer cannot read it: nothing to compare
            report["skipped"].append({"file": name, "why": f"peer: {type(error).__name__}: {error}"[:200]})
            continue
        mine, errors = ours(taskcal, path, start, end)
        if mine is None:
            report["skipped"].append({"file": name, "why": "taskcal: " + " / ".join(errors)[:200]})
            continue
        report["files"] += 1
        report["occurrences"] += len(theirs | mine)
        report["agreeing"] += len(theirs & mine)
        if theirs == mine:
            report["agree"] += 1
            continue
        entry = {"file": name,
                 "only_taskcal": sorted(mine - theirs)[:20], "only_peer": sorted(theirs - mine)[:20],
                 "counts": [len(mine - theirs), len(theirs - mine)]}
        # Reviewed: the file is listed and differs as the list says, no more.
        if name in reviewed and reviewed[name].get("counts") == entry["counts"]:
            entry["reviewed"] = reviewed[name]
            report["reviewed"] += 1
        report["disagreements"].append(entry)
    json.dump(report, sys.stdout, indent=1, default=list)
    print()


if __name__ == "__main__":
    main()
