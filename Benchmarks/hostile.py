#!/usr/bin/env python3
"""Bounded work: the worst time and memory hostile inputs under 1 MB can provoke.

    python3 Benchmarks/hostile.py [TASKCAL] [--only SHAPE] [--timeout S]

Writes each shape (below) as a file just under 1 MB to a scratch folder, runs every command
that reads it (convert, validate, overlaps, agenda, month, convert --expand, diary import)
with the release binary under /usr/bin/time, and prints one row per shape and command:
seconds, peak RSS and exit code, plus the ratio to the same command on a plain 1 MB file of
ordinary events measured in the same run. The bound the project holds itself to (issue 12):
under 5 s and 500 MB on a 2-core machine. Exit 1 when any run breaks it.
"""
import base64
import os
import shutil
import subprocess
import sys
import tempfile

LIMIT = 1_000_000 - 1
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\n"
TAIL = "END:VCALENDAR\r\n"


def event(uid, start="20240101T100000Z", end="20240101T110000Z", extra=""):
    return (f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:{start}\r\n"
            f"DTEND:{end}\r\nSUMMARY:e{uid}\r\n{extra}END:VEVENT\r\n")


def fill(unit, head=HEAD, tail=TAIL, budget=LIMIT):
    """As many units (a function of the index) as fit in the budget."""
    parts, size, index = [head], len(head) + len(tail), 0
    while True:
        piece = unit(index)
        if size + len(piece.encode()) > budget:
            break
        parts.append(piece)
        size += len(piece.encode())
        index += 1
    parts.append(tail)
    return "".join(parts)


def one_event(extra_unit, head_extra=""):
    head = HEAD + head_extra + ("BEGIN:VEVENT\r\nUID:one\r\nDTSTAMP:20240101T000000Z\r\n"
                                "DTSTART:20240101T100000Z\r\nDTEND:20240101T110000Z\r\nSUMMARY:s\r\n")
    return fill(extra_unit, head=head, tail="END:VEVENT\r\n" + TAIL)


def single(lines, zone=""):
    """One event with these extra lines (after a zone definition, when given)."""
    return (HEAD + zone + "BEGIN:VEVENT\r\nUID:one\r\nDTSTAMP:20240101T000000Z\r\n"
            "DTSTART:20240101T100000Z\r\nDTEND:20240101T110000Z\r\nSUMMARY:s\r\n" + lines
            + "END:VEVENT\r\n" + TAIL)


def ndjson(unit):
    return fill(unit, head="", tail="")


def hostile_zone(rule):
    return ("BEGIN:VTIMEZONE\r\nTZID:Hostile\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
            "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\n" + rule + "END:STANDARD\r\n"
            "BEGIN:DAYLIGHT\r\nDTSTART:19700301T000000\r\nTZOFFSETFROM:+0000\r\n"
            "TZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n")


def shapes():
    """name -> (file name, content). The plain file is the baseline."""
    s = {}
    s["plain"] = ("plain.ics", fill(lambda i: event(
        i, f"2024{1 + i // 28 % 12:02}{1 + i % 28:02}T{8 + i % 10:02}0000Z",
        f"2024{1 + i // 28 % 12:02}{1 + i % 28:02}T{8 + i % 10:02}3000Z")))
    s["same-slot"] = ("same.ics", fill(lambda i: event(i)))
    s["secondly-rules"] = ("secondly.ics", fill(lambda i: event(i, extra="RRULE:FREQ=SECONDLY\r\n")))
    s["secondly-count"] = ("count.ics", fill(lambda i: event(
        i, extra="RRULE:FREQ=SECONDLY;COUNT=2000000000\r\n")))
    s["impossible-rules"] = ("impossible.ics", fill(lambda i: event(
        i, extra="RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30\r\n")))
    s["long-events"] = ("long.ics", fill(lambda i: event(
        i, "00010101T000000Z", "99991231T000000Z", "RRULE:FREQ=DAILY\r\n")))
    s["every-second-lists"] = ("lists.ics", fill(lambda i: event(i, extra=(
        "RRULE:FREQ=YEARLY;BYHOUR=" + ",".join(map(str, range(24))) + ";BYMINUTE="
        + ",".join(map(str, range(60))) + ";BYSECOND=" + ",".join(map(str, range(60))) + "\r\n"))))
    s["sparse-yearly"] = ("sparse.ics", fill(lambda i: event(i, extra=(
        f"RRULE:FREQ=YEARLY;INTERVAL={1 + i % 97};BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYSETPOS=-1\r\n"))))
    s["exdates"] = ("exdates.ics", single("RRULE:FREQ=HOURLY\r\nEXDATE:" + ",".join(
        f"{2024 + j // 8760:04}{1 + j // 672 % 12:02}{1 + j // 24 % 28:02}T{j % 24:02}0000Z"
        for j in range(58000)) + "\r\n"))
    s["orphan-overrides"] = ("orphans.ics", fill(lambda i: event(
        f"gone-{i % 7}", extra=f"RECURRENCE-ID:2024{1 + i % 12:02}{1 + i % 28:02}T{i % 24:02}0000Z\r\n")))
    s["revisions"] = ("revisions.ics", fill(lambda i: event(
        "one-uid", extra=f"SEQUENCE:{i % 97}\r\n")))
    s["zone-rules"] = ("zones.ics", fill(lambda i: hostile_zone(
        "RRULE:FREQ=SECONDLY\r\n").replace("Hostile", f"H{i}") + event(i).replace(
        "DTSTART:20240101T100000Z", f"DTSTART;TZID=H{i}:20240101T100000")))
    s["zone-rdates"] = ("zrdates.ics", single("", zone=hostile_zone("RDATE:" + ",".join(
            f"{1970 + j // 365:04}{1 + j // 28 % 12:02}{1 + j % 28:02}T000000" for j in range(60000))
            + "\r\n")))
    s["deep-nesting"] = ("deep.ics", fill(lambda i: "BEGIN:VEVENT\r\n"))
    s["many-properties"] = ("props.ics", one_event(lambda i: f"X-P{i}:v\r\n"))
    s["many-attendees"] = ("attendees.ics", one_event(
        lambda i: f"ATTENDEE;CN=P{i};ROLE=REQ-PARTICIPANT:mailto:p{i}@example.org\r\n"))
    s["many-params"] = ("params.ics", single("X-P" + "".join(f";A{j}=v" for j in range(90000)) + ":v\r\n"))
    s["many-alarms"] = ("alarms.ics", one_event(
        lambda i: f"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:a\r\nTRIGGER:-PT{i}M\r\nEND:VALARM\r\n"))
    s["huge-base64"] = ("b64.ics", single("ATTACH;ENCODING=BASE64;VALUE=BINARY;FMTTYPE=application/octet-stream:"
        + base64.b64encode(os.urandom(700_000)).decode() + "\r\n"))
    s["folded-bytes"] = ("folds.ics", single("DESCRIPTION:x" + "\r\n y" * 240_000 + "\r\n"))
    s["rdates"] = ("rdates.ics", single("RDATE:" + ",".join(
            f"{2024 + j // 10000:04}{1 + j // 28 % 12:02}{1 + j % 28:02}T{j % 24:02}0000Z"
            for j in range(58000)) + "\r\n"))
    s["overrides"] = ("overrides.ics", fill(lambda i: (
        event("series", extra="RRULE:FREQ=HOURLY\r\n") if i == 0 else event(
            "series", f"2024{1 + i // 672 % 12:02}{1 + i // 24 % 28:02}T{i % 24:02}3000Z",
            f"2024{1 + i // 672 % 12:02}{1 + i // 24 % 28:02}T{i % 24:02}4000Z",
            f"RECURRENCE-ID:2024{1 + i // 672 % 12:02}{1 + i // 24 % 28:02}T{i % 24:02}0000Z\r\n"))))
    s["categories"] = ("cats.ics", single("CATEGORIES:" + ",".join(["c"] * 450_000) + "\r\n"))
    s["backslashes"] = ("escapes.ics", single("DESCRIPTION:" + "\\n\\," * 240_000 + "\r\n"))
    s["no-line-end"] = ("oneline.ics", "BEGIN:VCALENDAR" + "x" * 999_000)
    s["cr-only"] = ("cr.ics", fill(lambda i: event(i)).replace("\r\n", "\r"))
    s["json-same-slot"] = ("same.json", "[" + fill(
        lambda i: f'{{"id": {i + 1}, "date_start": "1704103200", "date_finish": "1704106800", "name": "n"}},\n',
        head="", tail="", budget=LIMIT - 200) + '{"id": 0, "date_start": "1", "date_finish": "2", "name": "z"}]')
    s["json-deep"] = ("deep.json", "[" * 400_000 + "]" * 400_000)
    s["json-rules"] = ("rules.ndjson", ndjson(
        lambda i: f'{{"id": {i + 1}, "date_start": "1704103200", "date_finish": "1704106800", "name": "n", "recurrence": {{"rule": "FREQ=SECONDLY"}}}}\n'))
    s["json-big-numbers"] = ("numbers.ndjson", ndjson(
        lambda i: f'{{"id": {10**30 + i}, "date_start": "{10**20}", "date_finish": "99999999999999999999", "name": "n"}}\n'))
    s["jscal-patches"] = ("patches.jscal.json", fill(
        lambda i: (f'"{2024 + i // 40320}-{1 + i // 3360 % 12:02}-{1 + i // 120 % 28:02}T'
                   f'{i // 5 % 24:02}:{i % 5 * 10:02}:00": {{"title": "p{i}"}}, '),
        head='{"@type": "Event", "uid": "u", "title": "t", "start": "2024-01-01T00:00:00", '
             '"timeZone": "Europe/Berlin", "duration": "PT1M", "recurrenceRules": '
             '[{"frequency": "minutely", "interval": 7}], "recurrenceOverrides": {',
        tail='"2030-01-01T00:00:00": {}}}'))
    s["jscal-rules"] = ("rules.jscal.json", fill(
        lambda i: (f'{{"@type": "Event", "uid": "u{i}", "start": "2024-01-01T10:00:00", '
                   f'"timeZone": "Europe/Berlin", "recurrenceRules": [{{"frequency": "secondly"}}]}}, '),
        head='{"@type": "Group", "uid": "g", "entries": [',
        tail='{"@type": "Task", "uid": "last"}]}'))
    return s


COMMANDS = {
    "convert": lambda f, o: ["convert", f, "-o", o + (".ics" if f.endswith("json") else ".json")],
    "validate": lambda f, o: ["validate", f],
    "overlaps": lambda f, o: ["overlaps", f, "--tz", "UTC"],
    "agenda": lambda f, o: ["agenda", "2024-01-01", f, "--tz", "UTC"],
    "month": lambda f, o: ["month", "2024-01", f, "--tz", "UTC"],
    "expand": lambda f, o: ["convert", f, "-o", o + ".x.json", "--expand", "2024-01-01..2025-01-01",
                            "--tz", "UTC"],
    "import": lambda f, o: ["diary", "import", "--store", o + ".sqlite", f, "--tz", "UTC"],
    "vdir import": lambda f, o: ["diary", "import", "--store", "vdir:" + o + ".vdir", f, "--tz",
                                 "UTC"],
}


def run(taskcal, args, folder, timeout):
    timing = os.path.join(folder, "time.txt")
    # timeout(1) kills taskcal itself; a run it kills must not go on loading the machine.
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", timing, "timeout", "-s",
                             "KILL", str(timeout), taskcal] + args,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, SOURCE_DATE_EPOCH="0"))
    seconds, kb = open(timing).read().split()[-2:]
    if result.returncode in (-9, 137):
        return float(seconds), int(kb) // 1024, "killed"
    return float(seconds), int(kb) // 1024, result.returncode


def main():
    taskcal = next((a for a in sys.argv[1:] if not a.startswith("--") and os.path.exists(a)),
                   ".build/release/taskcal")
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    timeout = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 60
    folder = tempfile.mkdtemp(prefix="taskcal-hostile-")
    baseline = {}
    slowest, largest = (0.0, ""), (0, "")
    broken = []
    print(f"| shape | size | " + " | ".join(COMMANDS) + " |")
    print("|---" * (len(COMMANDS) + 2) + "|")
    for name, (file_name, content) in shapes().items():
        if only and name not in (only, "plain"):
            continue
        path = os.path.join(folder, file_name)
        data = content.encode()
        assert len(data) < 1_000_000, (name, len(data))
        open(path, "wb").write(data)
        cells = []
        for command, make in COMMANDS.items():
            output = os.path.join(folder, f"out-{name}-{command}")
            seconds, mb, code = run(taskcal, make(path, output), folder, timeout)
            if name == "plain":
                baseline[command] = seconds
            ratio = seconds / max(baseline.get(command, seconds), 0.01)
            cells.append(f"{seconds:.2f} s {mb} MB ({ratio:.1f}x) exit {code}")
            slowest = max(slowest, (seconds, f"{name}/{command}"))
            largest = max(largest, (mb, f"{name}/{command}"))
            if code == "killed" or seconds > 5 or mb > 500 or (isinstance(code, int) and code < 0):
                broken.append(f"{name}/{command}: {seconds:.2f} s, {mb} MB, exit {code}")
            for leftover in (output + ".sqlite", output + ".sqlite-wal", output + ".sqlite-shm"):
                if os.path.exists(leftover):
                    os.remove(leftover)
            shutil.rmtree(output + ".vdir", ignore_errors=True)
        print(f"| {name} | {len(data) // 1024} KB | " + " | ".join(cells) + " |", flush=True)
    print()
    print(f"slowest: {slowest[1]} {slowest[0]:.2f} s; largest: {largest[1]} {largest[0]} MB")
    if "--keep" not in sys.argv:
        shutil.rmtree(folder, ignore_errors=True)
    for line in broken:
        print("over the bound:", line)
    print("none over 5 s or 500 MB" if not broken else f"{len(broken)} over the bound")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
