#!/usr/bin/env python3
"""The conversion taskcal does, done with Python icalendar: a peer row for Benchmarks/run.sh.

    peer_icalendar.py to-ics IN.ndjson OUT.ics     task records -> one VCALENDAR
    peer_icalendar.py to-ndjson IN.ics OUT.ndjson  every VEVENT -> a task record

Each direction does what taskcal's does for the records generate.py writes: UID, DTSTAMP,
DTSTART and DTEND in UTC, SUMMARY, DESCRIPTION, VALARMs (ACTION, TRIGGER, DESCRIPTION) and
inline attachments (ATTACH;ENCODING=BASE64;VALUE=BINARY with FMTTYPE and FILENAME) one way,
and the same fields back as JSON lines the other way. It is not a converter anyone should
use: it knows only those fields. Needs icalendar (pip install icalendar==7.3.0).
"""
import base64
import datetime
import json
import sys

import icalendar

UTC = datetime.timezone.utc


def to_ics(source, target):
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//peer//icalendar//EN")
    calendar.add("version", "2.0")
    stamp = datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    with open(source, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            event = icalendar.Event()
            event.add("uid", f"taskcal-{record['id']}@bench")
            event.add("dtstamp", stamp)
            event.add("dtstart", datetime.datetime.fromtimestamp(int(record["date_start"]), UTC))
            event.add("dtend", datetime.datetime.fromtimestamp(int(record["date_finish"]), UTC))
            event.add("summary", record["name"])
            if "description" in record:
                event.add("description", record["description"])
            for attachment in record.get("attachments", []):
                event.add("attach", icalendar.vBinary(base64.b64decode(attachment["data"])), parameters={
                    "FMTTYPE": attachment["mime_type"], "FILENAME": attachment["filename"]})
            for alarm in record.get("alarms", []):
                valarm = icalendar.Alarm()
                valarm.add("action", alarm["action"].upper())
                valarm.add("trigger", icalendar.vDuration.from_ical(alarm["trigger"]))
                valarm.add("description", alarm["description"])
                event.add_component(valarm)
            calendar.add_component(event)
    with open(target, "wb") as out:
        out.write(calendar.to_ical())


def to_ndjson(source, target):
    with open(source, "rb") as data:
        calendar = icalendar.Calendar.from_ical(data.read())
    with open(target, "w", encoding="utf-8") as out:
        for index, event in enumerate(calendar.walk("VEVENT"), start=1):
            record = {
                "id": index,
                "date_start": str(int(event.decoded("dtstart").timestamp())),
                "date_finish": str(int(event.decoded("dtend").timestamp())),
                "name": str(event.get("summary", "")),
            }
            if "description" in event:
                record["description"] = str(event["description"])
            attachments = event.get("attach")
            if attachments is not None:
                attachments = attachments if isinstance(attachments, list) else [attachments]
                record["attachments"] = [{
                    "filename": str(item.params.get("FILENAME", "")),
                    "mime_type": str(item.params.get("FMTTYPE", "")),
                    "data": item.to_ical().decode()}
                    for item in attachments]
            alarms = [{"action": str(alarm["action"]).lower(),
                       "trigger": alarm["trigger"].to_ical().decode(),
                       "description": str(alarm.get("description", ""))}
                      for alarm in event.walk("VALARM")]
            if alarms:
                record["alarms"] = alarms
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("to-ics", "to-ndjson"):
        sys.exit(__doc__)
    (to_ics if sys.argv[1] == "to-ics" else to_ndjson)(sys.argv[2], sys.argv[3])
