#!/usr/bin/env python3
"""The conformance suite over real-world .ics files that nobody here wrote.

For every file of the corpus it runs the taskcal binary and checks, against an independent
computation with Python's `icalendar` and `zoneinfo`:

- no crash: the exit code is 0, 1 or 2 and never a signal;
- every VEVENT/VTODO is converted, or reported with a reason naming its line;
- times agree: each converted component's start, end (or due) are the instants icalendar
  computes (floating times in the calendar's X-WR-TIMEZONE, else UTC as the test runs with
  TZ=UTC; DATEs as UTC midnights, taskcal's all-day convention);
- .ics -> JSON -> .ics keeps the number of components and each one's start, end, summary and
  recurrence rule.

usage: conformance.py TASKCAL CORPUS_DIR WORK_DIR
prints one JSON object: the figures, and every disagreement (the test asserts there are none).
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

UTC = dt.timezone.utc
KINDS = ("VEVENT", "VTODO")


def zone_named(name):
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except Exception:
        return None


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
    """An RRULE as a comparable dict: parts upper-cased, lists sorted, INTERVAL=1 dropped,
    UNTIL as an instant."""
    if not text:
        return None
    parts = {}
    for piece in text.upper().split(";"):
        if "=" not in piece:
            continue
        key, value = piece.split("=", 1)
        if (key, value) in (("INTERVAL", "1"), ("WKST", "MO")):
            continue  # the defaults (RFC 5545 §3.3.10); libical leaves them out
        if key == "BYDAY":
            value = value.replace("+", "")
        if key == "UNTIL":
            digits = value.rstrip("Z")
            try:
                if "T" in digits:
                    parsed = dt.datetime.strptime(digits, "%Y%m%dT%H%M%S")
                else:
                    parsed = dt.datetime.strptime(digits, "%Y%m%d")
                value = parsed.strftime("%Y%m%dT%H%M%S")
            except ValueError:
                pass
        elif "," in value:
            value = ",".join(sorted(value.split(",")))
        parts[key] = value
    return parts


def python_view(component, floating_zone):
    """What icalendar says about one VEVENT/VTODO: the fields the suite compares."""
    kind = component.name
    start_value = decoded(component, "DTSTART")
    start = epoch(start_value, floating_zone)
    all_day = isinstance(start_value, dt.date) and not isinstance(start_value, dt.datetime)
    finish = None
    due = None
    if kind == "VEVENT":
        end_value = decoded(component, "DTEND")
        duration = decoded(component, "DURATION")
        if end_value is not None:
            finish = epoch(end_value, floating_zone)
        elif duration is not None and start_value is not None:
            value = start_value
            if isinstance(value, dt.datetime) and value.tzinfo is None:
                value = value.replace(tzinfo=floating_zone or UTC)
            finish = epoch(value + duration, floating_zone)
        elif start is not None:
            finish = start + 86400 if all_day else start
        if all_day and finish == start and start is not None:
            finish = start + 86400  # taskcal's documented reading of DTEND == DTSTART
    else:
        due = epoch(decoded(component, "DUE"), floating_zone)
        duration = decoded(component, "DURATION")
        if start is not None:
            finish = start + int(duration.total_seconds()) if duration is not None else start
    summary = str(component.get("SUMMARY", "")) or "(untitled)"
    uid = str(component.get("UID", ""))
    if re.fullmatch(r"taskcal-\d+@taskcal\.invalid", uid):
        uid = ""  # derived by taskcal for a component that had none
    rule = component.get("RRULE")
    if isinstance(rule, list):
        rule = rule[0]
    rule_text = rule.to_ical().decode() if rule is not None else None
    recurrence_id = epoch(decoded(component, "RECURRENCE-ID"), floating_zone)
    return {
        "kind": "todo" if kind == "VTODO" else "event",
        "uid": uid,
        "recurrence_id": recurrence_id,
        "start": start,
        "finish": finish,
        "due": due,
        "summary": summary,
        "rule": normalized_rule(rule_text),
    }


def taskcal_view(record):
    scheduled = "date_start" in record
    return {
        "kind": record.get("kind", "event"),
        # A component without UID gets a fresh id; the file's own UIDs stay in "uid".
        "uid": record.get("uid", ""),
        "recurrence_id": int(record["recurrence_id"]) if "recurrence_id" in record else None,
        "start": int(record["date_start"]) if scheduled else None,
        "finish": int(record["date_finish"]) if scheduled else None,
        "due": int(record["due"]) if "due" in record else None,
        "summary": record["name"],
        "rule": normalized_rule((record.get("recurrence") or {}).get("rule")),
    }


def flatten(records):
    for record in records:
        yield record
        yield from flatten(record.get("subtasks", []))


def parse_views(data):
    """Every VEVENT/VTODO of every VCALENDAR in `data`, as python_view sees them."""
    views = []
    for calendar in icalendar.Calendar.from_ical(data, multiple=True):
        floating_zone = zone_named(str(calendar.get("X-WR-TIMEZONE", "")) or None)
        for component in calendar.walk():
            if component.name in KINDS:
                views.append(python_view(component, floating_zone))
    return views


def component_lines(data, kinds=KINDS):
    """1-based BEGIN lines of components (VEVENT/VTODO), and the END line of each."""
    spans = []
    stack = []
    physical = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    for number, line in enumerate(physical, start=1):
        if line[:1] in (" ", "\t"):
            continue
        upper = line.strip().upper()
        if upper.startswith("BEGIN:"):
            stack.append((upper[6:], number))
        elif upper.startswith("END:") and stack:
            name, begin = stack.pop()
            if kinds is None or name in kinds:
                spans.append((begin, number))
    return spans


def trustworthy(view):
    """Whether icalendar computed what it is compared on: a start and end for an event, and a
    rule it did not misread (it keeps escaped commas in `FREQ=DAILY\\;…` as text)."""
    if view["kind"] == "event" and (view["start"] is None or view["finish"] is None):
        return False
    return not any("\\" in value for value in (view["rule"] or {}).values())


def key(view):
    # Components without a UID are told apart by their start.
    return (view["uid"], view["recurrence_id"], None if view["uid"] else view["start"])


def compare(expected, actual, fields):
    """Differences between two lists of views with the same key, field by field."""
    differences = []
    if len(expected) != len(actual):
        return [f"{len(expected)} components in the file, {len(actual)} converted"]
    order = lambda v: json.dumps([v.get(f) for f in fields], sort_keys=True, default=str)
    for e, a in zip(sorted(expected, key=order), sorted(actual, key=order)):
        for field in fields:
            if e.get(field) != a.get(field):
                differences.append(f"{field}: icalendar {e.get(field)!r}, taskcal {a.get(field)!r}")
    return differences


def main():
    taskcal, corpus, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, TZ="UTC", SOURCE_DATE_EPOCH="1700000000")
    manifest = os.path.join(corpus, "MANIFEST.tsv")
    files = [line.split("\t")[2] for line in open(manifest, encoding="utf-8").read().splitlines()[1:]]
    figures = collections.Counter()
    reasons = collections.Counter()
    disagreements = []
    out_json = os.path.join(work, "out.json")
    back_ics = os.path.join(work, "back.ics")
    for relative in files:
        path = os.path.join(corpus, relative)
        data = open(path, "rb").read()
        figures["files"] += 1
        spans = component_lines(data)
        figures["components"] += len(spans)
        try:
            original = parse_views(data)
            python_ok = True
        except Exception:
            original = []
            python_ok = False
            figures["files icalendar cannot parse"] += 1
        for name in (out_json, back_ics):
            if os.path.exists(name):
                os.remove(name)
        run = subprocess.run(
            [taskcal, "convert", path, "-o", out_json, "--skip-invalid"],
            capture_output=True, env=env, timeout=120)
        stderr = run.stderr.decode("utf-8", "replace")
        if run.returncode not in (0, 1, 2):
            disagreements.append({"file": relative, "problem": f"exit {run.returncode}: {stderr[:300]}"})
            figures["crashes"] += 1
            continue
        # Which components were reported: an error line inside a component's span.
        reported = set()
        error_lines = []
        containers = component_lines(data, None)
        for line in stderr.splitlines():
            warning = re.match(r"taskcal: warning: .*?:(?: line )?(\d+): (\S+) is not converted", line)
            if warning:
                # A component inside one taskcal does not convert (a custom X- component).
                number = int(warning.group(1))
                for outer in containers:
                    if outer[0] == number:
                        for span in spans:
                            if outer[0] < span[0] and span[1] < outer[1] and span not in reported:
                                reported.add(span)
                                reasons["inside a " + warning.group(2) + ", which is not converted"] += 1
                continue
            match = re.match(r"taskcal: .*?:(\d+):(?: [^:]*:)? (.*)$", line)
            if match and "warning" not in line:
                number = int(match.group(1))
                error_lines.append(number)
                for span in spans:
                    if span[0] <= number <= span[1] and span not in reported:
                        reported.add(span)
                        reasons[re.sub(r"'[^']*'", "'…'", match.group(2))[:90]] += 1
        records = []
        if os.path.exists(out_json):
            records = list(flatten(json.load(open(out_json, encoding="utf-8"))))
        if run.returncode == 2 and not records:
            # The whole file was refused (not iCalendar, unreadable): every component with it.
            if not stderr.startswith("taskcal: "):
                disagreements.append({"file": relative, "problem": "refused without a message"})
            figures["components reported"] += len(spans)
            figures["files refused whole"] += 1
            reasons["(file refused whole) " + stderr.splitlines()[0][9:][:80] if stderr else "?"] += len(spans)
            continue
        converted = [taskcal_view(r) for r in records]
        figures["components converted"] += len(converted)
        figures["components reported"] += len(reported)
        unaccounted = len(spans) - len(converted) - len(reported)
        if unaccounted > 0 and error_lines:
            # An error in the file's structure (END:VTOOD) stops reading: what follows it is
            # reported with that error.
            after = [span for span in spans if span[0] > min(error_lines) and span not in reported]
            if len(after) >= unaccounted:
                figures["components reported"] += unaccounted
                reasons["after an error that stops reading the file"] += unaccounted
                unaccounted = 0
        if unaccounted != 0:
            disagreements.append({
                "file": relative,
                "problem": f"{len(spans)} components, {len(converted)} converted, {len(reported)} reported",
                "stderr": stderr[:500]})
        if not python_ok:
            continue
        # Times and text agree with icalendar, for every component taskcal converted.
        by_key = collections.defaultdict(list)
        for view in original:
            by_key[key(view)].append(view)
        converted_by_key = collections.defaultdict(list)
        for view in converted:
            converted_by_key[key(view)].append(view)
        fields = ["kind", "start", "finish", "due", "summary", "rule"]
        agreed = 0
        for k, views in converted_by_key.items():
            expected = by_key.get(k, [])
            if any(not trustworthy(v) for v in expected):
                figures["components icalendar cannot read"] += len(views)
                continue
            differences = compare(expected, views, fields)
            if differences:
                disagreements.append({"file": relative, "uid": k[0], "recurrence_id": k[1],
                                      "problem": "differs from icalendar", "details": differences})
            else:
                agreed += len(views)
        figures["components agreeing with icalendar"] += agreed
        # .ics -> JSON -> .ics keeps count, start, end, summary and recurrence.
        back = subprocess.run([taskcal, "convert", out_json, "-o", back_ics, "-q"],
                              capture_output=True, env=env, timeout=120)
        if back.returncode != 0:
            disagreements.append({"file": relative, "problem": "JSON -> .ics failed",
                                  "stderr": back.stderr.decode("utf-8", "replace")[:500]})
            continue
        try:
            again = parse_views(open(back_ics, "rb").read())
        except Exception as error:
            disagreements.append({"file": relative, "problem": f"icalendar cannot read taskcal's output: {error}"})
            continue
        again_by_key = collections.defaultdict(list)
        for view in again:
            again_by_key[key(view)].append(view)
        lossless = 0
        for k, views in converted_by_key.items():
            expected = [v for v in by_key.get(k, [])]
            if any(not trustworthy(v) for v in expected):
                expected = views  # compare with taskcal's own reading instead
            differences = compare(expected, again_by_key.get(k, []), fields)
            if differences:
                disagreements.append({"file": relative, "uid": k[0], "recurrence_id": k[1],
                                      "problem": "changed by .ics -> JSON -> .ics", "details": differences})
            else:
                lossless += len(views)
        figures["components round-tripped losslessly"] += lossless
    print(json.dumps({"figures": dict(figures), "reasons": reasons.most_common(),
                      "disagreements": disagreements}, indent=1, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
