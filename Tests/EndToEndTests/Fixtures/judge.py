#!/usr/bin/env python3
"""Independent judges: parse taskcal's .ics with Python's icalendar and vobject and compare
every event with the task records it came from.

usage: judge.py OUTPUT.ics RECORDS.json   -> prints "ok N events" or the differences; exit 1 on any
"""
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
    for check in (check_icalendar, check_vobject):
        try:
            check(ics, records, problems)
        except Exception as error:  # a parser that throws is a failure too
            problems.append(f"{check.__name__}: {type(error).__name__}: {error}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"ok {len(records)} events")


if __name__ == "__main__":
    main()
