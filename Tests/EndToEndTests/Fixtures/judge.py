#!/usr/bin/env python3
"""Independent judges: parse taskcal's .ics with Python's icalendar and vobject and compare
every event with the task records it came from.

usage: judge.py OUTPUT.ics RECORDS.json [LIBICAL_JUDGE]
    -> prints "ok N events" or the differences; exit 1 on any

Judges: Python's icalendar and vobject always; khal when it is installed (imported into a
fresh vdir, listed in UTC); libical's own whole-file parser when the compiled
libical_judge.c is given.
"""
import os
import shutil
import subprocess
import tempfile
import base64
import datetime as dt
import json
import sys
import zoneinfo

import icalendar
import vobject

UTC = dt.timezone.utc


def epoch(value, floating_zone=None):
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            if floating_zone is None:
                raise ValueError(f"floating time {value!r}")
            value = value.replace(tzinfo=zoneinfo.ZoneInfo(floating_zone))
        return int(value.timestamp())
    if isinstance(value, dt.date):
        return int(dt.datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    raise ValueError(f"not a time: {value!r}")


def seconds(delta):
    return int(delta.total_seconds())


def expected_trigger(alarm):
    if "trigger_at" in alarm:
        return ("absolute", int(alarm["trigger_at"]))
    text = alarm["trigger"]
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")[1:]
    total, number, in_time = 0, "", False
    for ch in body:
        if ch.isdigit():
            number += ch
        elif ch == "T":
            in_time = True
        else:
            n = int(number)
            number = ""
            total += n * {"W": 604800, "D": 86400, "H": 3600, "M": 60 if in_time else 0, "S": 1}[ch]
    return ("relative", sign * total, "END" if alarm.get("related") == "end" else "START")


def check_icalendar(path, records, problems):
    cal = icalendar.Calendar.from_ical(open(path, "rb").read())
    events = [c for c in cal.walk() if c.name == "VEVENT"]
    if len(events) != len(records):
        problems.append(f"icalendar: {len(events)} events, expected {len(records)}")
        return
    for index, (event, record) in enumerate(zip(events, records)):
        where = f"icalendar event {index}"
        floating = record.get("time_zone") if record.get("floating") else None
        if epoch(event.decoded("DTSTART"), floating) != int(record["date_start"]):
            problems.append(f"{where}: DTSTART {event.decoded('DTSTART')} != {record['date_start']}")
        # An event of no length has DTSTART alone (RFC 5545 §3.6.1).
        end = event.decoded("DTEND") if "DTEND" in event else event.decoded("DTSTART")
        if "DTEND" not in event and int(record["date_finish"]) != int(record["date_start"]):
            problems.append(f"{where}: no DTEND, but the record lasts")
        if epoch(end, floating) != int(record["date_finish"]):
            problems.append(f"{where}: DTEND {end} != {record['date_finish']}")
        if str(event.get("SUMMARY")) != record["name"]:
            problems.append(f"{where}: SUMMARY {str(event.get('SUMMARY'))!r} != {record['name']!r}")
        if "description" in record and str(event.get("DESCRIPTION")) != record["description"]:
            problems.append(f"{where}: DESCRIPTION {str(event.get('DESCRIPTION'))!r} != {record['description']!r}")
        attaches = event.get("ATTACH", [])
        if not isinstance(attaches, list):
            attaches = [attaches]
        for a_index, (prop, attachment) in enumerate(zip(attaches, record.get("attachments", []))):
            if "data" in attachment:
                raw = prop.to_ical()
                got = base64.b64decode(raw) if raw else b""
                if got != base64.b64decode(attachment["data"]):
                    problems.append(f"{where}: attachment {a_index} bytes differ")
            elif str(prop) != attachment["url"]:
                problems.append(f"{where}: attachment {a_index} URL {str(prop)!r}")
        # Enabled alarms are VALARMs; disabled ones are kept where no app fires them.
        enabled = [a for a in record.get("alarms", []) if a.get("enabled", True)]
        disabled = [a for a in record.get("alarms", []) if not a.get("enabled", True)]
        alarms = [c for c in event.subcomponents if c.name == "VALARM"]
        kept = [c for c in event.subcomponents if c.name == "X-TASKCAL-DISABLED-VALARM"]
        if len(alarms) != len(enabled):
            problems.append(f"{where}: {len(alarms)} alarms, expected {len(enabled)}")
        if len(kept) != len(disabled):
            problems.append(f"{where}: {len(kept)} disabled alarms kept, expected {len(disabled)}")
        for a_index, (valarm, alarm) in enumerate(zip(alarms, enabled)):
            trigger = valarm.decoded("TRIGGER")
            want = expected_trigger(alarm)
            if want[0] == "absolute":
                got = ("absolute", epoch(trigger))
            else:
                related = valarm["TRIGGER"].params.get("RELATED", "START")
                got = ("relative", seconds(trigger), related)
            if got != want:
                problems.append(f"{where}: alarm {a_index} trigger {got} != {want}")
            action = str(valarm.get("ACTION"))
            expected_action = alarm["action"].upper()
            if action != expected_action:
                problems.append(f"{where}: alarm {a_index} ACTION {action} != {expected_action}")


def check_vobject(path, records, problems):
    cal = vobject.readOne(open(path, encoding="utf-8").read())
    events = list(getattr(cal, "vevent_list", []))
    if len(events) != len(records):
        problems.append(f"vobject: {len(events)} events, expected {len(records)}")
        return
    for index, (event, record) in enumerate(zip(events, records)):
        where = f"vobject event {index}"
        floating = record.get("time_zone") if record.get("floating") else None
        if epoch(event.dtstart.value, floating) != int(record["date_start"]):
            problems.append(f"{where}: DTSTART {event.dtstart.value} != {record['date_start']}")
        end = event.dtend.value if hasattr(event, "dtend") else event.dtstart.value
        if epoch(end, floating) != int(record["date_finish"]):
            problems.append(f"{where}: DTEND {end} != {record['date_finish']}")
        if event.summary.value != record["name"]:
            problems.append(f"{where}: SUMMARY {event.summary.value!r} != {record['name']!r}")
        if "description" in record and event.description.value != record["description"]:
            problems.append(f"{where}: DESCRIPTION {event.description.value!r} != {record['description']!r}")
        for a_index, (prop, attachment) in enumerate(zip(getattr(event, "attach_list", []), record.get("attachments", []))):
            if "data" in attachment:
                value = prop.value
                if isinstance(value, str):
                    value = base64.b64decode(value)
                if value != base64.b64decode(attachment["data"]):
                    problems.append(f"{where}: attachment {a_index} bytes differ")
        alarms = list(getattr(event, "valarm_list", []))
        enabled = [a for a in record.get("alarms", []) if a.get("enabled", True)]
        if len(alarms) != len(enabled):
            problems.append(f"{where}: {len(alarms)} alarms, expected {len(enabled)}")


def local_text(record, key):
    """A floating record's wall-clock time, as its zone shows it: 20261123T230000."""
    instant = dt.datetime.fromtimestamp(int(record[key]), tz=zoneinfo.ZoneInfo(record["time_zone"]))
    return instant.strftime("%Y%m%dT%H%M%S")


def check_libical(path, records, problems, judge):
    """libical's whole-file parser reads the output: no X-LIC-ERROR, every event at its
    instants (placed through the file's own VTIMEZONEs)."""
    run = subprocess.run([judge, path], capture_output=True, text=True)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or not lines:
        problems.append(f"libical: exit {run.returncode}: {run.stdout[:200]} {run.stderr[:200]}")
        return
    summary = lines[-1].split()
    if summary[3] != "0":
        problems.append(f"libical: {summary[3]} X-LIC-ERROR(s) in taskcal's output")
    events = [line.split() for line in lines[:-1] if line.startswith("VEVENT ")]
    if len(events) != len(records):
        problems.append(f"libical: {len(events)} events, expected {len(records)}")
        return
    for index, ((_, uid, start, end), record) in enumerate(zip(events, records)):
        where = f"libical event {index}"
        if record.get("all_day"):
            want_start, want_end = f"date:{record['date_start']}", f"date:{record['date_finish']}"
        elif record.get("floating"):
            want_start = "floating:" + local_text(record, "date_start")
            want_end = "floating:" + local_text(record, "date_finish")
        else:
            want_start, want_end = record["date_start"], record["date_finish"]
        if start != want_start:
            problems.append(f"{where}: DTSTART {start} != {want_start}")
        if end == "-":
            end = start  # DTSTART alone: no length
        if end != want_end:
            problems.append(f"{where}: end {end} != {want_end}")


def check_khal(path, records, problems):
    """khal imports the output into a fresh calendar and lists it in UTC."""
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, "cal"))
        config = os.path.join(home, "config")
        with open(config, "w") as handle:
            handle.write(f"""[calendars]
[[main]]
path = {home}/cal
[locale]
local_timezone = UTC
default_timezone = UTC
timeformat = %H:%M
dateformat = %Y-%m-%d
longdateformat = %Y-%m-%d
datetimeformat = %Y-%m-%d %H:%M
longdatetimeformat = %Y-%m-%d %H:%M
[sqlite]
path = {home}/khal.db
""")
        run = subprocess.run(["khal", "-c", config, "import", "--batch", path],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"khal import: exit {run.returncode}: {run.stderr[:300]}")
            return
        starts = [int(r["date_start"]) for r in records]
        first = dt.datetime.fromtimestamp(min(starts) - 86400 * 2, tz=UTC).strftime("%Y-%m-%d")
        days = (max(int(r["date_finish"]) for r in records) - min(starts)) // 86400 + 5
        run = subprocess.run(["khal", "-c", config, "list", "--format", "{uid}|{start}|{end}|{title}",
                              first, f"{days}d"], capture_output=True, text=True)
        listed = {}
        for line in run.stdout.splitlines():
            parts = line.split("|")
            if len(parts) == 4:
                listed.setdefault(parts[0], []).append(parts)
        for index, record in enumerate(records):
            uid = record.get("uid") or None
            matches = [v for k, v in listed.items() if uid is None or k == uid]
            if uid is not None and uid not in listed:
                problems.append(f"khal: event {index} ({record['name'][:30]!r}) not listed")
                continue
            if uid is None:
                continue
            listed_starts = [entry[1] for entry in listed[uid]]
            if record.get("all_day"):
                want = dt.datetime.fromtimestamp(int(record["date_start"]), tz=UTC).strftime("%Y-%m-%d")
            elif record.get("floating"):
                want = dt.datetime.fromtimestamp(
                    int(record["date_start"]), tz=zoneinfo.ZoneInfo(record["time_zone"])).strftime("%Y-%m-%d %H:%M")
            else:
                want = dt.datetime.fromtimestamp(int(record["date_start"]), tz=UTC).strftime("%Y-%m-%d %H:%M")
            # A series and its moved occurrences share a UID: the wanted start is among them.
            if want not in listed_starts:
                problems.append(f"khal event {index}: start {want} not among {listed_starts[:4]}")


def main():
    ics, records_path = sys.argv[1], sys.argv[2]
    with open(records_path, encoding="utf-8") as handle:
        text = handle.read().strip()
    if text.startswith("["):
        records = json.loads(text)
    elif text.startswith("{\"calendar\"") and "\"records\"" in text:
        records = json.loads(text)["records"]
    else:
        records = [json.loads(line) for line in text.splitlines() if line]
        records = [r for r in records if "calendar" not in r]
    problems = []
    checks = [check_icalendar, check_vobject]
    if shutil.which("khal"):
        checks.append(check_khal)
    elif os.environ.get("CI"):
        problems.append("khal is not installed (.ci/run installs it)")
    if len(sys.argv) > 3:
        checks.append(lambda ics, records, problems: check_libical(ics, records, problems, sys.argv[3]))
    for check in checks:
        try:
            check(ics, records, problems)
        except Exception as error:  # a parser that throws is a failure too
            problems.append(f"{getattr(check, '__name__', 'check')}: {type(error).__name__}: {error}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"ok {len(records)} events")


if __name__ == "__main__":
    main()
