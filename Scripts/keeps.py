#!/usr/bin/env python3
"""What each reader keeps: every calendar, as `taskcal convert --for any` writes it for every
reader, goes through a real reader and back out, and `taskcal diff` judges what came back
against what went in, by property kind.

usage: keeps.py [--markdown] [--readers R,R] TASKCAL LIBICAL_ROUNDTRIP FILE.ics...
       keeps.py --from REPORT.json      (the table of a JSON report written before)
    -> JSON {"files": N, "readers": {READER: {KIND: {"present": n, "kept": n, "changed": n,
             "dropped": n, "example": "..."}}}}, or with --markdown the table of
             docs/calendar-apps.md

A reader reads the file and writes what it holds, as an app that imported it and exported it
again would:
  libical     libical's whole-file parser and printer (Fixtures/libical_roundtrip.c)
  icalendar   Python icalendar 7: Calendar.from_ical, then to_ical
  khal        khal import --batch into an empty vdir (in this process); the vdir is read back
  calcurse    calcurse -i into an empty folder, then calcurse -x ical
  radicale    Radicale 3 in this process: the file PUT as a new calendar, the calendar GET
  xandikos    Xandikos in this process: each UID's components PUT as an object, each GET
  davical     DAViCal (Tests/EndToEndTests/Fixtures/davical_server.py): the same over HTTP
Then `taskcal diff FILE BACK --format json` says what differs by meaning, and for the time
zones also `--strict` (a time written in another zone or as UTC is the same instant, but no
longer in its zone); each difference counts for the kind of its property:
  attachments ATTACH; alarms VALARM; categories CATEGORIES; attendees ATTENDEE, ORGANIZER;
  x-properties X-… of a record or of the calendar; time zones DTSTART, DTEND, DUE and TZID
  of records in a zone; recurrence RRULE, RDATE, EXDATE, RANGE and the changed occurrences.
A kind is present in a file when a record read from it has it (taskcal convert --to json);
it is kept when nothing of that kind differs, dropped when a value of it is gone (or its
record is), changed otherwise. A file a reader refuses counts as dropped for every kind it has.
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import acceptance  # Scripts/acceptance.py: the judges, Radicale set up as they use it

KINDS = ["attachments", "alarms", "categories", "attendees", "x-properties", "time zones",
         "recurrence"]
READERS = ["libical", "icalendar", "khal", "calcurse", "radicale", "xandikos", "davical"]
EVENTS = ("VEVENT", "VTODO", "VJOURNAL")


def kind_of(name):
    if name == "ATTACH":
        return "attachments"
    if name == "VALARM":
        return "alarms"
    if name == "CATEGORIES":
        return "categories"
    if name in ("ATTENDEE", "ORGANIZER"):
        return "attendees"
    if name.startswith("X-"):
        return "x-properties"
    if name in ("DTSTART", "DTEND", "DUE", "TZID"):
        return "time zones"
    if name in ("RRULE", "RDATE", "EXDATE", "RANGE"):
        return "recurrence"
    return None


def record_kinds(record):
    """The kinds a record of the task format holds."""
    kinds = set()
    if record.get("attachments"):
        kinds.add("attachments")
    if record.get("alarms"):
        kinds.add("alarms")
    if record.get("categories"):
        kinds.add("categories")
    if record.get("attendees") or record.get("organizer"):
        kinds.add("attendees")
    if any(line.upper().startswith("X-") for line in record.get("ical_extra", [])):
        kinds.add("x-properties")
    if record.get("time_zone") and not record.get("floating") and not record.get("all_day") \
            and record["time_zone"] not in ("UTC", "Etc/UTC"):
        kinds.add("time zones")
    if record.get("recurrence") or record.get("recurrence_id"):
        kinds.add("recurrence")
    for subtask in record.get("subtasks", []):
        kinds |= record_kinds(subtask)
    return kinds


# MARK: - Readers: each writes what it read into OUT (a file, or a folder for a vdir).

def libical(path, out, tools):
    with open(out, "wb") as handle:
        run = subprocess.run([tools["libical"], path], stdout=handle, stderr=subprocess.PIPE,
                             timeout=600)
    return None if run.returncode == 0 else f"exit {run.returncode}"


def icalendar_reader(path, out, _):
    import icalendar
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    with open(out, "wb") as handle:
        handle.write(calendar.to_ical())


def khal(path, out, _):
    from khal import controllers
    from khal.cli_utils import build_collection
    from khal.settings import get_config
    home = tempfile.mkdtemp()
    os.makedirs(out)
    config = os.path.join(home, "config")
    with open(config, "w") as handle:
        handle.write(f"[calendars]\n[[main]]\npath = {out}\n[locale]\nlocal_timezone = UTC\n"
                     f"default_timezone = UTC\n[sqlite]\npath = {home}/khal.db\n")
    conf = get_config(config)
    collection = build_collection(conf, None)
    with open(path, "rb") as handle:
        controllers.import_ics(collection, conf, ics=handle.read(), batch=True,
                               env={"calendars": conf["calendars"]})


def calcurse(path, out, _):
    with tempfile.TemporaryDirectory() as home:
        run = subprocess.run(["calcurse", "-D", home, "-q", "-i", path], capture_output=True,
                             text=True, timeout=600)
        if run.returncode != 0:
            return f"exit {run.returncode}"
        with open(out, "wb") as handle:
            run = subprocess.run(["calcurse", "-D", home, "--export=ical"], stdout=handle,
                                 stderr=subprocess.PIPE, timeout=600)
        return None if run.returncode == 0 else f"export exit {run.returncode}"


def wsgi(app, method, path, body=b"", content_type="text/calendar; charset=utf-8"):
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
        "SERVER_NAME": "localhost", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": io.StringIO(),
        "CONTENT_LENGTH": str(len(body)), "HTTP_AUTHORIZATION": "Basic anVkZ2U6anVkZ2U=",
    }
    if content_type:
        environ["CONTENT_TYPE"] = content_type
    status = []
    answer = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
    return int(status[0].split()[0]), answer


class Radicale(acceptance.Radicale):
    """Radicale as Scripts/acceptance.py starts it (in this process, one user), here as a
    reader that writes back."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __call__(self, path, out, _):
        self.count += 1
        collection = f"/judge/keeps{self.count}/"
        with open(path, "rb") as handle:
            code, _ = wsgi(self.app, "PUT", collection, handle.read())
        if code // 100 != 2:
            return f"PUT {code}"
        code, body = wsgi(self.app, "GET", collection)
        if code // 100 != 2:
            return f"GET {code}"
        with open(out, "wb") as handle:
            handle.write(body)


class Xandikos:
    def __init__(self):
        from xandikos.web import SingleUserFilesystemBackend, XandikosApp
        storage = tempfile.mkdtemp()
        backend = SingleUserFilesystemBackend(storage)
        backend._mark_as_principal("/judge/")
        backend.create_principal("/judge/", create_defaults=False)
        self.app = XandikosApp(backend, "/judge/", state_dir=os.path.join(storage, ".state"))
        self.count = 0

    def __call__(self, path, out, _):
        self.count += 1
        collection = f"/judge/keeps{self.count}/"
        code, _ = wsgi(self.app, "MKCALENDAR", collection, content_type="")
        if code // 100 != 2:
            return f"MKCALENDAR {code}"
        return put_each_uid(path, out, lambda method, name, body=b"": wsgi(
            self.app, method, collection + name, body if body is not None else b""))


class DAViCal:
    """Debian's DAViCal (PHP on PostgreSQL), started by the tests' fixture on a free port:
    a calendar made (MKCALENDAR) for each file, each UID's components PUT as an object, each
    GET back. Needs root and `apt-get install davical php-cli`."""

    def __init__(self):
        import atexit
        import base64
        fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests",
                               "EndToEndTests", "Fixtures", "davical_server.py")
        self.storage = tempfile.mkdtemp()
        self.server = subprocess.Popen([sys.executable, fixture, self.storage],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        atexit.register(self.server.kill)
        self.port = int(self.server.stdout.readline())
        self.auth = "Basic " + base64.b64encode(b"anna:s3cret-Radicale").decode()
        self.count = 0

    def request(self, method, path, body=None):
        import urllib.error
        import urllib.request
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/caldav.php/anna/{path}",
                                         data=body, method=method)
        request.add_header("Authorization", self.auth)
        if body is not None:
            request.add_header("Content-Type", "text/calendar; charset=utf-8")
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def __call__(self, path, out, _):
        self.count += 1
        collection = f"keeps{self.count}/"
        code, _ = self.request("MKCALENDAR", collection)
        if code // 100 != 2:
            return f"MKCALENDAR {code}"
        return put_each_uid(path, out, lambda method, name, body=None: self.request(
            method, collection + name, body))


def put_each_uid(path, out, request):
    """PUTs each UID's components of `path` as an object (with the calendar's zones), GETs
    each back into the folder `out`; `request(method, name, body)` -> (status, body)."""
    import icalendar
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    zones = [c for c in calendar.subcomponents if c.name == "VTIMEZONE"]
    groups = {}
    for component in calendar.subcomponents:
        if component.name in EVENTS:
            groups.setdefault(str(component.get("UID", "")), []).append(component)
    back = []
    for index, members in enumerate(groups.values()):
        single = icalendar.Calendar()
        for line in ("VERSION", "PRODID"):
            if line in calendar:
                single.add(line, calendar[line])
        for zone in zones:
            single.add_component(zone)
        for member in members:
            single.add_component(member)
        code, _ = request("PUT", f"{index}.ics", single.to_ical())
        if code // 100 != 2:
            return f"PUT {code}"
        code, body = request("GET", f"{index}.ics")
        if code // 100 != 2:
            return f"GET {code}"
        back.append(body)
    os.makedirs(out)
    for index, body in enumerate(back):
        with open(os.path.join(out, f"{index:05d}.ics"), "wb") as handle:
            handle.write(body)
    return None


# MARK: - Judging

def judge(taskcal, path, back, records, problem=None):
    """Per kind present in `records`: kept, changed or dropped, with an example."""
    present = {}
    by_uid = {}
    for record in records:
        kinds = record_kinds(record)
        for kind in kinds:
            present[kind] = True
        if record.get("uid"):
            by_uid.setdefault(record["uid"], set()).update(kinds)
    found = {}
    if back is None:
        return {kind: ("dropped", f"the reader refused the file ({problem})") for kind in present}
    reports = []
    for strict in ([], ["--strict"]):
        run = subprocess.run([taskcal, "diff", path, back, "--format", "json", "-q", "--tz",
                              "UTC"] + strict, capture_output=True, text=True, timeout=600)
        if run.returncode == 2:
            return {kind: ("dropped", "taskcal cannot read what the reader wrote")
                    for kind in present}
        reports.append(json.loads(run.stdout))
    report, strict_report = reports

    def mark(kind, status, example):
        if kind not in present:
            return
        order = {"kept": 0, "changed": 1, "dropped": 2}
        if order[status] > order[found.get(kind, ("kept", ""))[0]]:
            found[kind] = (status, example)

    for item in report["missing"]:
        for kind in by_uid.get(item["uid"] or "", set()):
            mark(kind, "dropped", f"{item['name'][:40]!r} gone")
        if item.get("recurrence_id"):
            mark("recurrence", "dropped", f"changed occurrence {item['recurrence_id']} gone")
    # By meaning for every kind; time zones also by form (--strict): a time written in
    # another zone, or as UTC, is the same instant but no longer in its zone.
    changed = [(item, field, False) for item in report["changed"]
               for field in item.get("fields", [])]
    changed += [(item, field, True) for item in strict_report["changed"]
                for field in item.get("fields", [])]
    for item, field, strict in changed:
        kind = kind_of(field["name"])
        if kind is None or (strict and kind != "time zones"):
            continue
        gone = field["new"] is None or (isinstance(field["old"], list)
                                        and isinstance(field["new"], list)
                                        and len(field["new"]) < len(field["old"]))
        example = f"{field['name']}: {str(field['old'])[:60]} → {str(field['new'])[:60]}"
        mark(kind, "dropped" if gone else "changed", example)
    return {kind: found.get(kind, ("kept", "")) for kind in present}


def main():
    args = sys.argv[1:]
    markdown = "--markdown" in args
    if markdown:
        args.remove("--markdown")
    readers = READERS
    if "--readers" in args:
        at = args.index("--readers")
        readers = args[at + 1].split(",")
        del args[at:at + 2]
    if "--from" in args:
        # The table of a report written before (keeps.py TASKCAL LIBICAL FILE... > report.json).
        with open(args[args.index("--from") + 1]) as handle:
            table = json.load(handle)["readers"]
        print_markdown(table, list(table))
        return
    taskcal, libical_tool, files = args[0], args[1], args[2:]
    tools = {"libical": libical_tool}
    makers = {"libical": libical, "icalendar": icalendar_reader, "khal": khal,
              "calcurse": calcurse}
    if "radicale" in readers:
        makers["radicale"] = Radicale()
    if "xandikos" in readers:
        makers["xandikos"] = Xandikos()
    if "davical" in readers:
        makers["davical"] = DAViCal()
    import logging
    logging.disable(logging.CRITICAL)
    table = {reader: {kind: {"present": 0, "kept": 0, "changed": 0, "dropped": 0, "example": ""}
                      for kind in KINDS} for reader in readers}
    counted = 0
    work = tempfile.mkdtemp()
    for number, original in enumerate(files):
        # What the readers get: the calendar as taskcal writes it for every reader (nothing
        # written: nothing a reader could take).
        path = os.path.join(work, f"{number}-{os.path.basename(original)}")
        if not path.endswith(".ics"):
            path += ".ics"
        run = subprocess.run([taskcal, "convert", original, "-o", path, "--for", "any", "-q",
                              "--tz", "UTC"], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"})
        if run.returncode != 0:
            continue
        run = subprocess.run([taskcal, "convert", path, "--to", "json", "-q", "--tz", "UTC"],
                             capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            continue
        data = json.loads(run.stdout)
        records = data["records"] if isinstance(data, dict) else data
        if isinstance(data, dict) and any(
                line.upper().startswith("X-") for line in data["calendar"].get("ical_extra", [])):
            records = records + [{"ical_extra": ["X-CALENDAR:1"]}]
        counted += 1
        for reader in readers:
            back = os.path.join(work, f"{number}-{reader}.ics")
            try:
                problem = makers[reader](path, back, tools)
            except Exception as error:  # noqa: BLE001 - a reader that refuses the file
                problem = f"{type(error).__name__}: {str(error)[:80]}"
            verdicts = judge(taskcal, path, None if problem else back, records, problem)
            for kind, (status, example) in verdicts.items():
                cell = table[reader][kind]
                cell["present"] += 1
                cell[status] += 1
                if status != "kept" and not cell["example"]:
                    cell["example"] = f"{os.path.basename(original)}: {example}"
    if not markdown:
        json.dump({"files": counted, "readers": table}, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return
    print_markdown(table, readers)


def print_markdown(table, readers):
    print("| reader | " + " | ".join(KINDS) + " |")
    print("|---|" + "---|" * len(KINDS))
    for reader in readers:
        cells = []
        for kind in KINDS:
            cell = table[reader][kind]
            if cell["present"] == 0:
                cells.append("—")
            elif cell["dropped"] and cell["changed"]:
                cells.append(f"dropped ({cell['dropped']}), changed ({cell['changed']}) "
                             f"of {cell['present']}")
            elif cell["dropped"]:
                cells.append(f"dropped ({cell['dropped']} of {cell['present']})")
            elif cell["changed"]:
                cells.append(f"changed ({cell['changed']} of {cell['present']})")
            else:
                cells.append(f"kept ({cell['present']})")
        print(f"| {reader} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
