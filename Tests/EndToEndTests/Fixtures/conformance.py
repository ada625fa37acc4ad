#!/usr/bin/env python3
"""The conformance suite over real-world .ics files that nobody here wrote.

For every file of the corpus (and the Samples) it runs the taskcal binary and checks:

1. It converts (exit 0), unless it is no iCalendar at all (vCards, bare alarms, custom
   top-level components, NUL bytes): those are refused with exit 2 and a message, and are
   listed in NOT_CALENDARS (the README lists them with the reason).
2. Every VEVENT/VTODO/VJOURNAL is converted, or reported (a warning or an error naming a line
   inside it).
3. Times and text agree with an independent reading by Python's icalendar + zoneinfo: start,
   end, due, summary, recurrence rule.
4. .ics -> JSON -> .ics keeps, per component matched by UID and RECURRENCE-ID: the instants
   and value types of DTSTART, DTEND, DUE, RECURRENCE-ID, EXDATE; SUMMARY, DESCRIPTION,
   LOCATION; RRULE; the number of alarms and attachments; every property name and every
   parameter; and every calendar-level property. Content lines are compared as written,
   read by the small parser below (not by icalendar, which normalises).
   Differences are allowed only where the two forms are equivalent (EQUIVALENCES) or where
   taskcal announced the change with a warning naming the line.
5. Every output is valid UTF-8.

usage: conformance.py TASKCAL CORPUS_DIR WORK_DIR [EXTRA_FILE ...]
prints one JSON object: figures, the reasons components were reported, and every
disagreement (the test asserts there are none).
"""
import collections
import datetime as dt
import json
import os
import re
import subprocess
import sys
import zoneinfo

import icalendar

try:
    from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON as WINDOWS
except ImportError:  # pragma: no cover
    WINDOWS = {}

UTC = dt.timezone.utc
KINDS = ("VEVENT", "VTODO", "VJOURNAL")

# Files that are no iCalendar at all: refused whole, with a message.
NOT_CALENDARS = {
    "icalendar-7.3.0/src/icalendar/tests/alarms/example.ics": "a bare VALARM",
    "icalendar-7.3.0/src/icalendar/tests/alarms/rfc_5545_absolute_alarm_example.ics": "a bare VALARM",
    "icalendar-7.3.0/src/icalendar/tests/alarms/rfc_5545_end.ics": "a bare VALARM",
    "icalendar-7.3.0/src/icalendar/tests/alarms/start_date.ics": "a bare VALARM",
    "icalendar-7.3.0/src/icalendar/tests/calendars/fuzz_testcase_0_char_in_component_name.ics": "a NUL byte",
    "icalendar-7.3.0/src/icalendar/tests/calendars/fuzz_testcase_invalid_month.ics": "BEGIN:V, no calendar",
    "icalendar-7.3.0/src/icalendar/tests/calendars/issue_178_component_with_invalid_name_represented.ics": "a custom top-level component",
    "icalendar-7.3.0/src/icalendar/tests/calendars/issue_178_custom_component_contains_other.ics": "a custom top-level component",
    "vobject-0.9.9/test_files/quoted-printable.ics": "a vCard",
    "vobject-0.9.9/test_files/radicale-1238-0.ics": "a vCard",
    "vobject-0.9.9/test_files/radicale-1238-1.ics": "a vCard",
    "vobject-0.9.9/test_files/radicale-1238-2.ics": "a vCard",
    "vobject-0.9.9/test_files/radicale-1238-3.ics": "a vCard",
    "vobject-0.9.9/test_files/silly_test.ics": "no calendar at all",
    "vobject-0.9.9/test_files/simple_3_0_test.ics": "a vCard",
    "vobject-0.9.9/test_files/vcard_with_groups.ics": "a vCard",
}

EQUIVALENCES = """
DTSTAMP is written anew. DURATION and DTEND say the same end. TRANSP:OPAQUE is the default.
A property with an empty value says nothing. VALUE=<the default type> may come or go.
A TZID may be written as the IANA zone it matched, and a zoned time in UTC (before 1970, in a
repeated hour): the instants are compared. EXDATE, RDATE and CATEGORIES may be split over
lines or joined: their values are compared. Parameter order and quoting do not matter.
X-TASKCAL-FILLED marks a DESCRIPTION taskcal had to add to an alarm. A disabled alarm is kept
as X-TASKCAL-DISABLED-VALARM. A second UID in a file gets a suffix. PRODID names the writer.
"""

DATE_PROPERTIES = ("DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE")
DEFAULT_PARAMETERS = {("TRIGGER", "RELATED", "START"), ("RELATED-TO", "RELTYPE", "PARENT")}
DEFAULT_VALUES = {("VALUE", "DATE-TIME"), ("VALUE", "TEXT"), ("VALUE", "URI"), ("VALUE", "DURATION"),
                  ("VALUE", "CAL-ADDRESS"), ("VALUE", "RECUR"), ("VALUE", "INTEGER")}
LIST_PROPERTIES = ("EXDATE", "RDATE", "CATEGORIES")


# MARK: - A small content-line reader (the judge's own, not taskcal's)

def unfold(data):
    text = data.decode("utf-8", "replace")
    lines = []
    for number, line in enumerate(re.split(r"\r\n|\n|\r", text), start=1):
        if line[:1] in (" ", "\t") and lines:
            lines[-1][1] += line[1:]
        elif line.strip():
            lines.append([number, line])
    return lines


def split_line(line):
    """NAME, [(PARAM, VALUE)], value — quote-aware."""
    i, n = 0, len(line)
    while i < n and (line[i].isalnum() or line[i] == "-"):
        i += 1
    name = line[:i].upper()
    params = []
    while i < n and line[i] == ";":
        i += 1
        start = i
        while i < n and line[i] not in "=;:":
            i += 1
        pname = line[start:i].upper()
        values = []
        if i < n and line[i] == "=":
            i += 1
            while True:
                if i < n and line[i] == '"':
                    end = line.find('"', i + 1)
                    end = n if end < 0 else end
                    values.append(line[i + 1:end])
                    i = end + 1
                else:
                    start = i
                    while i < n and line[i] not in ",;:":
                        i += 1
                    values.append(line[start:i])
                if i < n and line[i] == ",":
                    i += 1
                    continue
                break
        params.append((pname, ",".join(decode_caret(v) for v in values)))
    value = line[i + 1:] if i < n and line[i] == ":" else ""
    return name, params, value


def decode_caret(text):
    """RFC 6868: ^n, ^' and ^^ in parameter values; any other caret stays."""
    return re.sub(r"\^([n'^])", lambda m: {"n": "\n", "'": '"', "^": "^"}[m.group(1)], text)


class Node:
    def __init__(self, name, line):
        self.name, self.line, self.props, self.children = name, line, [], []


def tree(data):
    """Top-level nodes: VCALENDAR(s) and whatever stands outside them."""
    roots, stack = [], []
    for number, line in unfold(data):
        name, params, value = split_line(line)
        if name == "BEGIN":
            node = Node(value.strip().upper(), number)
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
        elif name == "END":
            if stack:
                stack.pop()
        elif stack:
            stack[-1].props.append((name, params, value, number))
    return roots


def components(roots):
    """Every VEVENT/VTODO/VJOURNAL, top-level in a calendar or bare."""
    found = []
    for root in roots:
        if root.name in KINDS:
            found.append(root)
        for child in root.children:
            if child.name in KINDS:
                found.append(child)
    return found


def calendar_lines(roots):
    lines = []
    for root in roots:
        if root.name == "VCALENDAR":
            lines += [p for p in root.props if p[0] not in ("VERSION", "PRODID", "CALSCALE")]
    return lines


def first(node, name):
    for prop in node.props:
        if prop[0] == name:
            return prop
    return None


def unescape(text):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) in "nN" else m.group(1), text)


# MARK: - Instants, read independently

def zone_named(name):
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except Exception:
        return None


def instant(prop, zones, floating_zone):
    """(kind, seconds) of a DATE or DATE-TIME property value: kind is 'date', 'utc', 'zoned'
    or 'floating'. Zones: the file's VTIMEZONE reading through icalendar, by TZID."""
    name, params, value, _ = prop
    value = value.strip().split(",")[0]
    params = dict(params)
    try:
        if params.get("VALUE", "").upper() == "DATE" or re.fullmatch(r"\d{8}", value):
            day = dt.datetime.strptime(value[:8], "%Y%m%d").replace(tzinfo=UTC)
            return ("date", int(day.timestamp()))
        moment = dt.datetime.strptime(value.rstrip("Zz")[:15], "%Y%m%dT%H%M%S")
    except ValueError:
        return ("unreadable", value)
    if value.upper().endswith("Z"):
        return ("utc", int(moment.replace(tzinfo=UTC).timestamp()))
    tzid = params.get("TZID")
    if tzid:
        zone = zones.get(tzid) or zone_named(tzid) or zone_named(WINDOWS.get(tzid))
        if zone is None:
            return ("zoned?", value)
        return ("zoned", int(moment.replace(tzinfo=zone).timestamp()))
    return ("floating", int(moment.replace(tzinfo=floating_zone or UTC).timestamp()))


def file_zones(data):
    """TZID -> tzinfo for the file's own VTIMEZONEs, as icalendar reads them."""
    zones = {}
    try:
        for calendar in icalendar.Calendar.from_ical(data, multiple=True):
            for timezone in calendar.walk("VTIMEZONE"):
                try:
                    zones[str(timezone["TZID"])] = timezone.to_tz()
                except Exception:
                    pass
    except Exception:
        pass
    return zones


def same_instant(a, b):
    """Two readings of one time: equal, where 'zoned' and 'utc' count as the same kind. A
    zone neither the file nor zoneinfo defines cannot be checked here: it passes."""
    if "zoned?" in (a[0], b[0]):
        return True
    kinds = {"zoned": "timed", "utc": "timed", "floating": "floating", "date": "date"}
    return kinds.get(a[0], a[0]) == kinds.get(b[0], b[0]) and a[1] == b[1]


# MARK: - Comparing one component with its round trip

def parameters(params, name):
    kept = set()
    for key, value in params:
        if (key, value.upper()) in DEFAULT_VALUES or key in ("X-TASKCAL-FILLED",):
            continue
        if (name, key, value.upper()) in DEFAULT_PARAMETERS:
            continue
        if name in DATE_PROPERTIES and key in ("TZID", "VALUE"):
            continue  # the zone and the value type are compared through the instants
        if key in ("ENCODING", "VALUE") and name == "ATTACH":
            kept.add((key, value.upper()))
            continue
        kept.add((key, value))
    return frozenset(kept)


def property_view(node):
    """What must survive of a component's lines: per name, the multiset of parameter sets
    (lists by their values)."""
    view = collections.defaultdict(collections.Counter)
    values = collections.defaultdict(set)
    for name, params, value, _ in node.props:
        if name in ("DTSTAMP",):
            continue
        if name == "DURATION" and node.name != "VALARM":
            name = "DTEND"
        if not value.strip() and name not in ("ATTACH",):
            continue
        if name == "TRANSP" and value.strip().upper() == "OPAQUE":
            continue
        if name in LIST_PROPERTIES:
            items = re.split(r"(?<!\\),", value) if name == "CATEGORIES" else value.split(",")
            values[name] |= {item.strip() for item in items if item.strip()}
            view[name][parameters(params, name)] += 0
            view[name] = collections.Counter({key: 1 for key in view[name]})
            continue
        view[name][parameters(params, name)] += 1
    return view, values


def compare(original, back, zones_before, zones_after, floating_zone, announced):
    """Differences between a component and its round trip, except announced ones."""
    problems = []

    def note(line, text):
        if line not in announced:
            problems.append(f"line {line}: {text}")

    # Times.
    end_a = first(original, "DTEND")
    for name in ("DTSTART", "DUE", "RECURRENCE-ID"):
        a, b = first(original, name), first(back, name)
        if (a is None) != (b is None):
            note(original.line, f"{name} {'lost' if b is None else 'added'}")
        elif a and not same_instant(instant(a, zones_before, floating_zone),
                                    instant(b, zones_after, floating_zone)):
            # A DTEND before DTSTART, announced, comes back in order: both change.
            if name == "DTSTART" and end_a and end_a[3] in announced:
                continue
            note(a[3], f"{name} {a[2]!r} came back as {b[2]!r}")
    end_b = first(back, "DTEND")
    start_a = first(original, "DTSTART")
    # An end equal to the start (RFC 5545 wants it later) says what no end says.
    end_is_start = bool(end_a and not end_b and start_a and same_instant(
        instant(end_a, zones_before, floating_zone), instant(start_a, zones_before, floating_zone)))
    if end_a and end_b and not same_instant(instant(end_a, zones_before, floating_zone),
                                            instant(end_b, zones_after, floating_zone)):
        note(end_a[3], f"DTEND {end_a[2]!r} came back as {end_b[2]!r}")
    # Text and rules.
    for name in ("SUMMARY", "DESCRIPTION", "LOCATION"):
        a, b = first(original, name), first(back, name)
        text_a = unescape(a[2]) if a else ""
        text_b = unescape(b[2]) if b else ""
        if text_a != text_b and not (name == "SUMMARY" and not text_a):
            note(a[3] if a else original.line, f"{name} {text_a[:60]!r} came back as {text_b[:60]!r}")
    rule_a, rule_b = first(original, "RRULE"), first(back, "RRULE")
    if (rule_a and rule_a[2]) and (not rule_b or set(rule_a[2].upper().split(";")) != set(rule_b[2].upper().split(";"))):
        note(rule_a[3], f"RRULE {rule_a[2]!r} came back as {rule_b[2] if rule_b else None!r}")
    exdates_a = {instant((n, p, v, l), zones_before, floating_zone)[1]
                 for n, p, value, l in original.props if n == "EXDATE" for v in value.split(",") if v.strip()}
    exdates_b = {instant((n, p, v, l), zones_after, floating_zone)[1]
                 for n, p, value, l in back.props if n == "EXDATE" for v in value.split(",") if v.strip()}
    if exdates_a != exdates_b:
        note(original.line, f"EXDATE {sorted(exdates_a)[:3]} came back as {sorted(exdates_b)[:3]}")
    # Alarms and attachments.
    alarms_a = [c for c in original.children if c.name in ("VALARM", "X-TASKCAL-DISABLED-VALARM")]
    alarms_b = [c for c in back.children if c.name in ("VALARM", "X-TASKCAL-DISABLED-VALARM")]
    if len(alarms_a) != len(alarms_b):
        note(original.line, f"{len(alarms_a)} alarms came back as {len(alarms_b)}")
    attaches_a = sum(1 for p in original.props if p[0] == "ATTACH")
    attaches_b = sum(1 for p in back.props if p[0] == "ATTACH")
    if attaches_a != attaches_b:
        note(original.line, f"{attaches_a} ATTACH came back as {attaches_b}")
    # Every property name and parameter.
    view_a, values_a = property_view(original)
    view_b, values_b = property_view(back)
    if end_is_start:
        del view_a["DTEND"]
    if "DTEND" not in view_a and "DTEND" in view_b and end_b and first(original, "DTSTART"):
        # No end given: one day for a DATE, none for a DATE-TIME; written out, the same end.
        start = instant(first(original, "DTSTART"), zones_before, floating_zone)
        implied = (start[0], start[1] + (86400 if start[0] == "date" else 0))
        if same_instant(implied, instant(end_b, zones_after, floating_zone)):
            del view_b["DTEND"]
    for name in sorted(set(view_a) | set(view_b)):
        if view_a[name] != view_b[name]:
            names = (name, "DURATION") if name == "DTEND" else (name,)
            lines = [p[3] for p in original.props if p[0] in names] or [original.line]
            if any(line in announced for line in lines):
                continue
            note(lines[0], f"{name}: {dict(view_a[name])} came back as {dict(view_b[name])}")
    for name in ("CATEGORIES", "RDATE"):
        if {unescape(v) for v in values_a[name]} != {unescape(v) for v in values_b[name]} and name != "RDATE":
            note(original.line, f"{name} values {sorted(values_a[name])} came back as {sorted(values_b[name])}")
    # Alarms' own lines.
    for alarm_a, alarm_b in zip(alarms_a, alarms_b):
        if alarm_a.name != alarm_b.name:
            continue
        view_a, _ = property_view(alarm_a)
        view_b, _ = property_view(alarm_b)
        for name in sorted(set(view_a) | set(view_b)):
            if view_a[name] != view_b[name] and name != "DESCRIPTION":
                note(alarm_a.line, f"alarm {name}: {dict(view_a[name])} came back as {dict(view_b[name])}")
    return problems


def key(node):
    uid = first(node, "UID")
    rid = first(node, "RECURRENCE-ID")
    return (node.name, uid[2].strip() if uid else None, rid is not None)


# MARK: - Agreement with Python icalendar (as before)

def epoch(value, floating_zone):
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=floating_zone or UTC)
        return int(value.timestamp())
    if isinstance(value, dt.date):
        return int(dt.datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    return None


def decoded(component, name):
    if name not in component:
        return None
    try:
        return component.decoded(name)
    except Exception:
        return None


def normalized_rule(text):
    if not text:
        return None
    parts = {}
    for piece in text.upper().split(";"):
        if "=" not in piece:
            continue
        k, v = piece.split("=", 1)
        if (k, v) in (("INTERVAL", "1"), ("WKST", "MO")):
            continue
        if k == "BYDAY":
            v = v.replace("+", "")
        if k == "UNTIL":
            digits = v.rstrip("Z")
            try:
                parsed = dt.datetime.strptime(digits, "%Y%m%dT%H%M%S" if "T" in digits else "%Y%m%d")
                v = parsed.strftime("%Y%m%dT%H%M%S")
            except ValueError:
                pass
        elif "," in v:
            v = ",".join(sorted(v.split(",")))
        parts[k] = v
    return parts


def python_view(component, floating_zone):
    try:
        return _python_view(component, floating_zone)
    except Exception:
        return {"kind": component.name, "uid": str(component.get("UID", "")), "unreadable": True,
                "recurrence_id": None}


def _python_view(component, floating_zone):
    start_value = decoded(component, "DTSTART")
    start = epoch(start_value, floating_zone)
    all_day = isinstance(start_value, dt.date) and not isinstance(start_value, dt.datetime)
    finish = due = None
    if component.name == "VEVENT":
        end_value, duration = decoded(component, "DTEND"), decoded(component, "DURATION")
        if end_value is not None:
            finish = epoch(end_value, floating_zone)
        elif duration is not None and start_value is not None:
            value = start_value
            if isinstance(value, dt.datetime) and value.tzinfo is None:
                value = value.replace(tzinfo=floating_zone or UTC)
            finish = epoch(value + duration, floating_zone)
        elif start is not None:
            finish = start + 86400 if all_day else start
        if all_day and start is not None and finish is not None and finish <= start:
            finish = start + 86400
        if finish is not None and start is not None and finish < start:
            finish = start
    elif component.name == "VTODO":
        due = epoch(decoded(component, "DUE"), floating_zone)
        duration = decoded(component, "DURATION")
        if start is not None:
            finish = start + int(duration.total_seconds()) if duration is not None else start
        if due is not None and start is not None and due < start:
            due = None
    else:
        finish = start
    rule = component.get("RRULE")
    if isinstance(rule, list):
        rule = rule[0]
    return {"kind": component.name, "uid": str(component.get("UID", "")),
            "recurrence_id": epoch(decoded(component, "RECURRENCE-ID"), floating_zone),
            "start": start, "finish": finish, "due": due,
            "summary": str(component.get("SUMMARY", "")) or "(untitled)",
            "rule": normalized_rule(rule.to_ical().decode()) if rule is not None else None}


def taskcal_view(record):
    scheduled = "date_start" in record
    kind = {"todo": "VTODO", "journal": "VJOURNAL"}.get(record.get("kind"), "VEVENT")
    return {"kind": kind, "uid": record.get("uid", ""),
            "recurrence_id": int(record["recurrence_id"]) if "recurrence_id" in record else None,
            "start": int(record["date_start"]) if scheduled else None,
            "finish": int(record["date_finish"]) if scheduled else None,
            "due": int(record["due"]) if "due" in record else None,
            "summary": record["name"],
            "rule": normalized_rule((record.get("recurrence") or {}).get("rule"))}


def flatten(records):
    for record in records:
        yield record
        yield from flatten(record.get("subtasks", []))


def load_records(path):
    text = open(path, encoding="utf-8").read().strip()
    data = json.loads(text)
    return data["records"] if isinstance(data, dict) else data


# MARK: - The run

def main():
    taskcal, corpus, work = sys.argv[1], sys.argv[2], sys.argv[3]
    extra = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, TZ="UTC", SOURCE_DATE_EPOCH="1700000000")
    manifest = os.path.join(corpus, "MANIFEST.tsv")
    files = [(line.split("\t")[2], os.path.join(corpus, line.split("\t")[2]))
             for line in open(manifest, encoding="utf-8").read().splitlines()[1:]]
    files += [(os.path.basename(path), path) for path in extra]
    figures = collections.Counter()
    reasons = collections.Counter()
    disagreements = []
    for relative, path in files:
        data = open(path, "rb").read()
        figures["files"] += 1
        work_json = os.path.join(work, "file.json")
        work_ics = os.path.join(work, "file.ics")
        for name in (work_json, work_ics):
            if os.path.exists(name):
                os.remove(name)
        run = subprocess.run([taskcal, "convert", path, "-o", work_json],
                             capture_output=True, env=env, timeout=120)
        stderr = run.stderr.decode("utf-8", "replace")
        if run.returncode not in (0, 2):
            disagreements.append({"file": relative, "problem": f"exit {run.returncode}: {stderr[:300]}"})
            figures["crashes"] += 1
            continue
        if relative in NOT_CALENDARS:
            if run.returncode != 2 or not stderr.startswith("taskcal: "):
                disagreements.append({"file": relative, "problem": "expected a refusal: " + NOT_CALENDARS[relative]})
            figures["files refused: no iCalendar"] += 1
            continue
        if run.returncode != 0:
            disagreements.append({"file": relative, "problem": "refused", "stderr": stderr[:400]})
            continue
        figures["files converted"] += 1
        roots = tree(data)
        originals = components(roots)
        figures["components"] += len(originals)
        announced = set()
        for line in stderr.splitlines():
            match = re.match(r"taskcal: (?:warning: )?.*?:(\d+):", line)
            if match:
                announced.add(int(match.group(1)))
        records = list(flatten(load_records(work_json)))
        figures["components converted"] += len(records)
        # A component is reported when a warning names a line inside it.
        spans = []
        stack = []
        for number, line in unfold(data):
            upper = line.strip().upper()
            if upper.startswith("BEGIN:"):
                stack.append((upper[6:], number))
            elif upper.startswith("END:") and stack:
                name, begin = stack.pop()
                if name in KINDS:
                    spans.append((begin, number))
        reported = [s for s in spans if any(s[0] <= n <= s[1] for n in announced)
                    and "left out" in stderr]
        skipped = len(originals) - len(records)
        # Not a record, kept with the calendar as written: a component that cannot become one,
        # and the revisions a newer one of the same UID supersedes.
        skipped_announced = len([line for line in stderr.splitlines() if "cannot become a record" in line])
        skipped_announced += sum(int(n) - 1 for n in re.findall(r" has (\d+) revisions: ", stderr))
        figures["components kept as written, with a warning"] += skipped_announced
        if skipped != skipped_announced and skipped > 0:
            disagreements.append({"file": relative, "problem": f"{len(originals)} components, {len(records)} converted, {skipped_announced} announced as kept as written"})
        for line in stderr.splitlines():
            match = re.match(r"taskcal: (warning: )?.*?:\d+: (.*)$", line)
            if match:
                reasons[re.sub(r"'[^']*'", "'…'", re.sub(r"\d+", "N", match.group(2)))[:90]] += 1
        # 3. Agreement with icalendar (whose zone cache must not carry one file's VTIMEZONEs
        # into the next).
        getattr(icalendar.timezone.tzp, "_TZP__tz_cache", {}).clear()
        try:
            calendars = icalendar.Calendar.from_ical(data, multiple=True)
            python_ok = True
        except Exception:
            python_ok = False
            figures["files icalendar cannot parse"] += 1
        floating_zone = None
        for name, params, value, _ in calendar_lines(roots):
            if name == "X-WR-TIMEZONE":
                floating_zone = zone_named(value.strip())
        if python_ok:
            views = collections.defaultdict(list)
            for calendar in calendars:
                for component in calendar.walk():
                    if component.name in KINDS:
                        view = python_view(component, floating_zone)
                        views[(view["kind"], view["uid"], view["recurrence_id"])].append(view)
            agreed = 0
            swapped = "DTEND is before DTSTART; read as the time between them" in stderr
            for record in records:
                mine = taskcal_view(record)
                uid = mine["uid"] or ""
                candidates = views.get((mine["kind"], uid, mine["recurrence_id"]), [])
                if not candidates:
                    continue  # a UID taskcal derived or renamed: compared by the round trip
                if any(v.get("unreadable") or (v["kind"] != "VTODO" and (v["start"] is None or v["finish"] is None))
                       or any("\\" in str(x) for x in (v["rule"] or {}).values()) for v in candidates):
                    # icalendar computed no start or end, or kept a rule's escapes as text.
                    figures["components icalendar cannot read"] += 1
                    continue
                if any(v["start"] == mine["start"] and v["finish"] == mine["finish"] and v["due"] == mine["due"]
                       and v["summary"] == mine["summary"] and (v["rule"] == mine["rule"] or mine["rule"] is None)
                       for v in candidates):
                    agreed += 1
                elif swapped and any(v["start"] == mine["finish"] and v["summary"] == mine["summary"]
                                     for v in candidates):
                    # DTEND before DTSTART, read as the time between them (as recurring-ical-events
                    # reads it) with a warning; icalendar reads the end as the start.
                    figures["components with DTEND before DTSTART, read in order, announced"] += 1
                else:
                    disagreements.append({"file": relative, "uid": uid, "problem": "differs from icalendar",
                                          "icalendar": candidates[:2], "taskcal": mine})
            figures["components agreeing with icalendar"] += agreed
        # 4. The round trip.
        back = subprocess.run([taskcal, "convert", work_json, "-o", work_ics, "-q"],
                              capture_output=True, env=env, timeout=120)
        if back.returncode != 0:
            disagreements.append({"file": relative, "problem": "JSON -> .ics failed",
                                  "stderr": back.stderr.decode("utf-8", "replace")[:500]})
            continue
        back_data = open(work_ics, "rb").read()
        try:
            back_data.decode("utf-8")
        except UnicodeDecodeError as error:
            disagreements.append({"file": relative, "problem": f"output is not UTF-8: {error}"})
            continue
        figures["outputs valid UTF-8"] += 1
        back_roots = tree(back_data)
        zones_before, zones_after = file_zones(data), file_zones(back_data)
        # Calendar-level lines.
        def calendar_view(lines, skip):
            # Several VCALENDARs go into one: the same line twice is one line.
            return {(n, parameters(p, n), v.strip()) for n, p, v, l in lines
                    if v.strip() and l not in skip}
        before = calendar_view(calendar_lines(roots), announced)
        after = calendar_view(calendar_lines(back_roots), set())
        if before - after:
            disagreements.append({"file": relative, "problem": "calendar-level lines lost",
                                  "details": [str(x) for x in (before - after)][:5]})
        figures["calendar-level lines kept"] += len(before)
        # Components, matched by kind, UID and RECURRENCE-ID.
        by_key = collections.defaultdict(list)
        for node in components(back_roots):
            by_key[key(node)].append(node)
        differences = 0
        compared = 0
        original_uids = {key(node)[1] for node in originals if key(node)[1]}
        used = set()
        for node in originals:
            k = key(node)
            candidates = by_key.get(k, [])
            if not candidates and k[1]:
                # A second component with one UID comes back with a suffix.
                candidates = [n for (kind, uid, rid), nodes in by_key.items()
                              if kind == k[0] and uid and uid.startswith(k[1] + "-") and rid == k[2] for n in nodes]
            if not k[1]:
                # No UID: it comes back with one taskcal made, or none when kept as written.
                candidates = [n for (kind, uid, rid), nodes in by_key.items()
                              if kind == k[0] and rid == k[2] and uid not in original_uids for n in nodes]
            candidates = [n for n in candidates if id(n) not in used]
            if not candidates:
                disagreements.append({"file": relative, "line": node.line, "problem": "component lost"})
                continue
            # Several with one key (overrides): the one whose RECURRENCE-ID instant matches.
            match = candidates[0]
            if len(candidates) > 1:
                rid = first(node, "RECURRENCE-ID")
                if rid:
                    want = instant(rid, zones_before, floating_zone)
                    for candidate in candidates:
                        other = first(candidate, "RECURRENCE-ID")
                        if other and same_instant(want, instant(other, zones_after, floating_zone)):
                            match = candidate
                            break
                else:
                    start = first(node, "DTSTART")
                    for candidate in candidates:
                        other = first(candidate, "DTSTART")
                        if start and other and same_instant(instant(start, zones_before, floating_zone),
                                                            instant(other, zones_after, floating_zone)):
                            match = candidate
                            break
            problems = compare(node, match, zones_before, zones_after, floating_zone, announced)
            # Revisions of one UID (kept as written) share a key and often a DTSTART: the one
            # that came back unchanged is the match, if one did.
            for candidate in candidates:
                if problems and candidate is not match:
                    others = compare(node, candidate, zones_before, zones_after, floating_zone, announced)
                    if len(others) < len(problems):
                        match, problems = candidate, others
            used.add(id(match))
            compared += 1
            if problems:
                differences += len(problems)
                disagreements.append({"file": relative, "line": node.line, "problem": "changed by .ics -> JSON -> .ics",
                                      "details": problems[:6]})
        figures["components compared after the round trip"] += compared
        figures["differences after the round trip"] += differences
    print(json.dumps({"figures": dict(figures), "reasons": reasons.most_common(40),
                      "equivalences": EQUIVALENCES.strip(),
                      "disagreements": disagreements}, indent=1, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
