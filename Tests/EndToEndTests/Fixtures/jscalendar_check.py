"""An independent reading of JSCalendar files (RFC 8984), for taskcal's tests.

usage: jscalendar_check.py FILE.jscal.json [RECORDS.ndjson]

Checks each object against the RFC's types (what is mandatory, how dates, durations, ids
and enumerations are spelt, that a non-standard property is a vendor one, "domain:name"),
then, with RECORDS (the task-format records of the same data), that each Event or Task
means the same instants: start read in its timeZone with Python's zoneinfo (the system tz
database, as taskcal's own), end as start plus duration (days on the wall clock, then the
exact part). Prints one line per problem and exits 1 if there is any; else "ok N".
"""

import json
import re
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

LOCAL = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?$")
UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$")
DURATION = re.compile(r"^P(?!$)(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$")
SIGNED = re.compile(r"^[+-]?P(?!$)(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$")
ID = re.compile(r"^[A-Za-z0-9_-]{1,255}$")

COMMON = {"@type", "uid", "updated", "created", "prodId", "sequence", "method", "title",
          "description", "descriptionContentType", "showWithoutTime", "locations",
          "virtualLocations", "links", "locale", "keywords", "categories", "color",
          "recurrenceId", "recurrenceIdTimeZone", "recurrenceRules",
          "excludedRecurrenceRules", "recurrenceOverrides", "excluded", "priority",
          "freeBusyStatus", "privacy", "replyTo", "sentBy", "participants", "requestStatus",
          "useDefaultAlerts", "alerts", "localizations", "timeZone", "timeZones",
          "relatedTo"}
EVENT = COMMON | {"start", "duration", "status"}
TASK = COMMON | {"due", "start", "estimatedDuration", "percentComplete", "progress",
                 "progressUpdated"}
FREQUENCIES = {"yearly", "monthly", "weekly", "daily", "hourly", "minutely", "secondly"}
DAYS = {"mo", "tu", "we", "th", "fr", "sa", "su"}

problems = []


def problem(path, message):
    problems.append(f"{path}: {message}")


def vendor(name):
    return ":" in name and "." in name.split(":", 1)[0]


def check_properties(obj, allowed, path):
    for name in obj:
        if name not in allowed and not vendor(name):
            problem(path, f"'{name}' is neither an RFC 8984 property nor a vendor one")


def check_type(obj, expected, path, required=True):
    if not isinstance(obj, dict):
        problem(path, "expected an object")
        return False
    if obj.get("@type", None if required else expected) != expected:
        problem(path, f"@type is {obj.get('@type')!r}, expected {expected!r}")
    return True


def check_ids(obj, path, what, check):
    if not isinstance(obj, dict):
        problem(path, f"{what}: expected an object")
        return
    for key, value in obj.items():
        if not ID.match(key):
            problem(path, f"{what} key {key!r} is no Id")
        check(value, f"{path}.{key}")


def check_duration(value, path, signed=False):
    if not isinstance(value, str) or not (SIGNED if signed else DURATION).match(value):
        problem(path, f"{value!r} is no {'SignedDuration' if signed else 'Duration'}")


def check_entry(obj, path):
    if not isinstance(obj, dict) or obj.get("@type") not in ("Event", "Task"):
        problem(path, "expected an Event or a Task")
        return
    kind = obj["@type"]
    check_properties(obj, EVENT if kind == "Event" else TASK, path)
    if not isinstance(obj.get("uid"), str) or not obj["uid"]:
        problem(path, "uid is mandatory")
    if "updated" in obj and not UTC.match(str(obj["updated"])):
        problem(path, f"updated {obj['updated']!r} is no UTCDateTime")
    if kind == "Event" and "start" not in obj:
        problem(path, "an Event has a start")
    for name in ("start", "due", "recurrenceId"):
        if name in obj and not LOCAL.match(str(obj[name])):
            problem(path, f"{name} {obj[name]!r} is no LocalDateTime")
    if obj.get("timeZone") is not None:
        try:
            ZoneInfo(obj["timeZone"])
        except Exception:
            problem(path, f"timeZone {obj['timeZone']!r} is no IANA zone")
    for name in ("duration", "estimatedDuration"):
        if name in obj:
            check_duration(obj[name], f"{path}.{name}")
    enums = {"status": {"confirmed", "cancelled", "tentative"},
             "freeBusyStatus": {"free", "busy"},
             "privacy": {"public", "private", "secret"},
             "progress": {"needs-action", "in-process", "completed", "failed", "cancelled"}}
    for name, allowed in enums.items():
        if name in obj and obj[name] not in allowed:
            problem(path, f"{name} {obj[name]!r} is not one of {sorted(allowed)}")
    for name in ("sequence", "priority"):
        if name in obj and (not isinstance(obj[name], int) or obj[name] < 0):
            problem(path, f"{name} is an UnsignedInt")
    if "showWithoutTime" in obj and not isinstance(obj["showWithoutTime"], bool):
        problem(path, "showWithoutTime is a Boolean")
    if "keywords" in obj and not (isinstance(obj["keywords"], dict)
                                  and all(v is True for v in obj["keywords"].values())):
        problem(path, "keywords is a String[Boolean] of true values")

    def location(value, at):
        if check_type(value, "Location", at, required=False):
            check_properties(value, {"@type", "name", "description", "locationTypes",
                                     "relativeTo", "timeZone", "coordinates", "links"}, at)

    def link(value, at):
        if check_type(value, "Link", at, required=False):
            check_properties(value, {"@type", "href", "cid", "contentType", "size", "rel",
                                     "display", "title"}, at)
            if not isinstance(value.get("href"), str) or not value["href"]:
                problem(at, "href is mandatory")
            if "size" in value and (not isinstance(value["size"], int) or value["size"] < 0):
                problem(at, "size is an UnsignedInt")

    def participant(value, at):
        if check_type(value, "Participant", at, required=False):
            check_properties(value, {"@type", "name", "email", "description", "sendTo",
                                     "kind", "roles", "locationId", "language",
                                     "participationStatus", "participationComment",
                                     "expectReply", "scheduleAgent", "scheduleForceSend",
                                     "scheduleSequence", "scheduleStatus", "scheduleUpdated",
                                     "sentBy", "invitedBy", "delegatedTo", "delegatedFrom",
                                     "memberOf", "links", "progress", "progressUpdated",
                                     "percentComplete"}, at)
            roles = value.get("roles", {})
            if not isinstance(roles, dict) or not roles or any(v is not True for v in roles.values()):
                problem(at, "roles is a non-empty String[Boolean] of true values")
            if not isinstance(value.get("sendTo", {}), dict):
                problem(at, "sendTo is a String[String]")

    def alert(value, at):
        if check_type(value, "Alert", at, required=False):
            check_properties(value, {"@type", "trigger", "acknowledged", "relatedTo",
                                     "action"}, at)
            trigger = value.get("trigger")
            if not isinstance(trigger, dict):
                problem(at, "trigger is mandatory")
            elif trigger.get("@type") == "OffsetTrigger":
                check_duration(trigger.get("offset"), f"{at}.trigger.offset", signed=True)
                if trigger.get("relativeTo", "start") not in ("start", "end"):
                    problem(at, "relativeTo is start or end")
            elif trigger.get("@type") == "AbsoluteTrigger":
                if not UTC.match(str(trigger.get("when"))):
                    problem(at, "when is a UTCDateTime")
            else:
                problem(at, f"trigger @type {trigger.get('@type')!r}")
            if value.get("action", "display") not in ("display", "email"):
                problem(at, "action is display or email")

    for name, check in (("locations", location), ("links", link),
                        ("participants", participant), ("alerts", alert)):
        if name in obj:
            check_ids(obj[name], path, name, check)
    for index, rule in enumerate(obj.get("recurrenceRules", [])):
        at = f"{path}.recurrenceRules[{index}]"
        if check_type(rule, "RecurrenceRule", at, required=False):
            if rule.get("frequency") not in FREQUENCIES:
                problem(at, f"frequency {rule.get('frequency')!r}")
            if "until" in rule and not LOCAL.match(str(rule["until"])):
                problem(at, "until is a LocalDateTime")
            for day in rule.get("byDay", []):
                if not isinstance(day, dict) or day.get("day") not in DAYS:
                    problem(at, f"byDay {day!r}")
            for month in rule.get("byMonth", []):
                if not isinstance(month, str):
                    problem(at, "byMonth holds strings")
    for key in obj.get("recurrenceOverrides", {}):
        if not LOCAL.match(key):
            problem(path, f"recurrenceOverrides key {key!r} is no LocalDateTime")
    for uid, relation in obj.get("relatedTo", {}).items():
        if not isinstance(relation, dict) or relation.get("@type", "Relation") != "Relation":
            problem(path, f"relatedTo {uid!r} is a Relation")


def local(text):
    return datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")


def instant(text, zone):
    wall = local(text)
    if zone is None:
        return wall.replace(tzinfo=timezone.utc)
    return wall.replace(tzinfo=ZoneInfo(zone))


def duration(text):
    groups = DURATION.match(text).groups()
    weeks, days, hours, minutes, seconds = (int(g[:-1]) if g else 0
                                            for g in (groups[0], groups[1], *groups[3:]))
    return weeks * 7 + days, hours * 3600 + minutes * 60 + seconds


def main():
    document = json.load(open(sys.argv[1]))
    if isinstance(document, dict) and document.get("@type") == "Group":
        check_properties(document, {"@type", "uid", "updated", "entries", "source", "title",
                                    "description", "color", "prodId", "keywords",
                                    "categories", "locale"}, "group")
        if not isinstance(document.get("uid"), str):
            problem("group", "uid is mandatory")
        entries = document.get("entries", [])
    else:
        entries = document if isinstance(document, list) else [document]
    for index, entry in enumerate(entries):
        check_entry(entry, f"entries[{index}]")
    checked = 0
    if len(sys.argv) > 2:
        records = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
        records = [r for r in records if "calendar" not in r]

        def flatten(record):
            yield record
            for subtask in record.get("subtasks", []):
                yield from flatten(subtask)

        records = [r for record in records for r in flatten(record)]
        if len(records) != len(entries):
            problem("file", f"{len(entries)} objects for {len(records)} records")
        for index, (entry, record) in enumerate(zip(entries, records)):
            kept = entry.get("taskcal.invalid:fields", {})
            if any(k in kept for k in ("date_start", "date_finish", "due", "time_zone",
                                       "floating", "all_day")) or "start" not in entry:
                continue  # times taskcal keeps itself: nothing to judge here
            zone = entry.get("timeZone")
            if entry.get("showWithoutTime") or zone is None:
                # Dates and floating times: wall-clock fields, compared as such.
                start = local(entry["start"]).replace(tzinfo=timezone.utc)
                read_in = record.get("time_zone") if record.get("floating") else None
                if read_in:
                    start = local(entry["start"]).replace(tzinfo=ZoneInfo(read_in))
            else:
                start = instant(entry["start"], zone)
            if int(start.timestamp()) != int(record["date_start"]):
                problem(f"entries[{index}]", f"start {entry['start']} {zone} is "
                        f"{int(start.timestamp())}, the record says {record['date_start']}")
                continue
            days, exact = duration(entry.get("duration") or entry.get("estimatedDuration")
                                   or "PT0S")
            wall = start.replace(tzinfo=None) + timedelta(days=days)
            end = wall.replace(tzinfo=start.tzinfo)
            finish = int(end.timestamp()) + exact
            if finish != int(record["date_finish"]):
                problem(f"entries[{index}]", f"ends at {finish}, the record at "
                        f"{record['date_finish']}")
            checked += 1
    for line in problems:
        print(line)
    if problems:
        sys.exit(1)
    print(f"ok {len(entries)} objects, {checked} times judged")


main()
