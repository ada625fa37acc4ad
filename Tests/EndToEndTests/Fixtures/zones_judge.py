#!/usr/bin/env python3
"""Judges taskcal's local times and VTIMEZONEs against the system's tz database.

usage: zones_judge.py OUTPUT.ics RECORDS.ndjson [LIBICAL_JUDGE]

For every record (one per zone and date) the event taskcal wrote must say, read by zoneinfo
(the system's TZif files): DTSTART;TZID=<the record's zone>:<the wall-clock time zoneinfo
gives for the instant>; UTC only before 1970 or in a repeated hour. Every VTIMEZONE taskcal
wrote, read by Python's icalendar, must give zoneinfo's offset at each instant of its zone's
records. With the compiled libical judge, libical's own parser must place every DTSTART at
the record's instant through those VTIMEZONEs.

prints JSON: {"events": N, "zones": N, "utc": N, "problems": [...]}
"""
import datetime as dt
import json
import re
import subprocess
import sys
import zoneinfo

import icalendar

UTC = dt.timezone.utc
# Names of UTC itself: taskcal writes their times as UTC (…Z).
UTC_NAMES = {"UTC", "Etc/UTC", "GMT", "Etc/GMT", "Zulu", "Etc/Zulu", "Universal", "Etc/Universal",
             "UCT", "Etc/UCT", "Greenwich", "Etc/Greenwich", "GMT0", "GMT+0", "GMT-0", "Etc/GMT0",
             "Etc/GMT+0", "Etc/GMT-0"}


def main():
    ics_path, records_path = sys.argv[1], sys.argv[2]
    libical = sys.argv[3] if len(sys.argv) > 3 else None
    records = [json.loads(line) for line in open(records_path, encoding="utf-8") if line.strip()]
    data = open(ics_path, "rb").read()
    text = data.decode("utf-8").replace("\r\n ", "")
    # The VEVENTs' DTSTARTs, in order (the VTIMEZONEs' own come first in each block).
    event_starts = []
    for block in text.split("BEGIN:VEVENT")[1:]:
        match = re.search(r"^DTSTART(?:;TZID=([^:\r\n]*))?:(\d{8}T\d{6}Z?)\r?$", block, re.M)
        event_starts.append(match.groups() if match else (None, None))
    problems = []
    utc = 0
    if len(event_starts) != len(records):
        problems.append(f"{len(event_starts)} events for {len(records)} records")
    for record, (tzid, value) in zip(records, event_starts):
        zone = zoneinfo.ZoneInfo(record["time_zone"])
        instant = int(record["date_start"])
        local = dt.datetime.fromtimestamp(instant, tz=zone)
        if value is None:
            problems.append(f"{record['time_zone']} {instant}: no DTSTART")
        elif value.endswith("Z"):
            utc += 1
            wall = local.replace(tzinfo=None)
            ambiguous = wall.replace(tzinfo=zone, fold=0).utcoffset() != wall.replace(tzinfo=zone, fold=1).utcoffset()
            if instant >= 0 and not ambiguous and record["time_zone"] not in UTC_NAMES:
                problems.append(f"{record['time_zone']} {instant}: written in UTC ({value})")
            if int(dt.datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()) != instant:
                problems.append(f"{record['time_zone']} {instant}: UTC {value} is another instant")
        else:
            if tzid != record["time_zone"]:
                problems.append(f"{record['time_zone']} {instant}: TZID {tzid}")
            if value != local.strftime("%Y%m%dT%H%M%S"):
                problems.append(f"{record['time_zone']} {instant}: local {value}, zoneinfo says {local.strftime('%Y%m%dT%H%M%S')}")
    # Python icalendar's reading of each VTIMEZONE taskcal wrote.
    by_zone = {}
    for record in records:
        by_zone.setdefault(record["time_zone"], []).append(int(record["date_start"]))
    zones = 0
    # Only the VTIMEZONEs go to icalendar (80,000 events would take it half a minute).
    blocks = re.findall(r"BEGIN:VTIMEZONE\r\n.*?END:VTIMEZONE\r\n", data.decode("utf-8"), re.S)
    calendar = icalendar.Calendar.from_ical(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:judge\r\n" + "".join(blocks) + "END:VCALENDAR\r\n")
    for timezone in calendar.walk("VTIMEZONE"):
        tzid = str(timezone["TZID"])
        zones += 1
        try:
            tz = timezone.to_tz()
        except Exception as error:
            problems.append(f"icalendar cannot read the VTIMEZONE {tzid}: {error}")
            continue
        reference = zoneinfo.ZoneInfo(tzid)
        for instant in by_zone.get(tzid, []):
            if instant < 0:
                continue
            moment = dt.datetime.fromtimestamp(instant, tz=UTC)
            if moment.astimezone(tz).utcoffset() != moment.astimezone(reference).utcoffset():
                problems.append(f"icalendar reads the VTIMEZONE {tzid} at {instant} as "
                                f"{moment.astimezone(tz).utcoffset()}, zoneinfo says {moment.astimezone(reference).utcoffset()}")
    # vobject's reading of the same VTIMEZONEs.
    dateutil_limits = set()
    import vobject
    vcalendar = vobject.readOne(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:judge\r\n" + "".join(blocks) + "END:VCALENDAR\r\n")
    for component in getattr(vcalendar, "vtimezone_list", []):
        tzid = component.tzid.value
        try:
            tz = component.gettzinfo()
        except Exception as error:
            problems.append(f"vobject cannot read the VTIMEZONE {tzid}: {error}")
            continue
        reference = zoneinfo.ZoneInfo(tzid)
        for instant in by_zone.get(tzid, []):
            if instant < 0:
                continue
            moment = dt.datetime.fromtimestamp(instant, tz=UTC)
            try:
                read = moment.astimezone(tz).utcoffset()
            except ValueError as error:
                # dateutil cannot hold a change of a whole day (Pacific/Apia, 30 Dec 2011:
                # -10:00 to +14:00); icalendar and libical read the same VTIMEZONE right.
                if "strictly between" in str(error):
                    dateutil_limits.add(tzid)
                else:
                    problems.append(f"vobject fails on the VTIMEZONE {tzid} at {instant}: {error}")
                break
            if read != moment.astimezone(reference).utcoffset():
                problems.append(f"vobject reads the VTIMEZONE {tzid} at {instant} as "
                                f"{moment.astimezone(tz).utcoffset()}, zoneinfo says {moment.astimezone(reference).utcoffset()}")
    if libical:
        run = subprocess.run([libical, ics_path], capture_output=True, text=True)
        lines = run.stdout.splitlines()
        if run.returncode != 0 or not lines or lines[-1].split()[3] != "0":
            problems.append(f"libical: exit {run.returncode}, {lines[-1] if lines else run.stderr[:200]}")
        for record, line in zip(records, lines[:-1]):
            start = line.split()[2]
            if start != record["date_start"]:
                problems.append(f"libical places {record['time_zone']} {record['date_start']} at {start}")
    print(json.dumps({"events": len(event_starts), "zones": zones, "utc": utc,
                      "beyond dateutil": sorted(dateutil_limits),
                      "problems": problems[:50], "problem count": len(problems)}))


if __name__ == "__main__":
    main()
