#!/usr/bin/env python3
"""Which readers accept each calendar: the clients a migration's output meets.

usage: acceptance.py [--jobs N] LIBICAL_JUDGE FILE.ics...   (Scripts/acceptance.sh runs it)
    -> one JSON object: {"readers": [...], "files": {FILE: {READER: "ok" | reason}}}

A reader accepts a file when it reads it without an error and finds every event, to-do and
journal entry in it (counted in the file itself):
  libical      libical's whole-file parser: no X-LIC-ERROR (the compiled libical_judge.c)
  icalendar    Python icalendar 7, strict: no exception, no component with parse errors
  vobject      vobject 0.9: read with validate=True, then validate() of the calendar
  calcurse     calcurse -i into an empty folder: exit 0, nothing skipped
  khal         khal import --batch into an empty vdir: no error (khal's command, in process)
  radicale     Radicale 3 in process: the file PUT whole to a new calendar, then each UID's
               components PUT as one object (100 to a calendar); every answer 2xx
  icaljs       Thunderbird's reader: ical.js from the installed thunderbird package's omni.ja,
               run by Node (Tests/EndToEndTests/Fixtures/icaljs_judge.mjs says how it reads)
  kcalendarcore  KDE's reader (KOrganizer, Kontact): KCalendarCore's ICalFormat::load into a
               MemoryCalendar (Tests/EndToEndTests/Fixtures/kcalendarcore_judge.cpp)
  homeassistant  Home Assistant's local calendar: the `ical` package's
               IcsCalendarStream.calendar_from_ics, then each event's times and occurrences

The two app readers are made from what Debian installs (Scripts/app_readers.py), once per
version, in a cache folder; SKIP_READERS=a,b leaves readers out.
"""
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile

READERS = ["libical", "icalendar", "vobject", "calcurse", "khal", "radicale", "icaljs",
           "kcalendarcore", "homeassistant"]
KINDS = ("VEVENT", "VTODO", "VJOURNAL")


from app_readers import Readers, components  # noqa: E402 - beside this script


def libical(path, text, judge):
    run = subprocess.run([judge, path], capture_output=True, text=True, timeout=600)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or not lines:
        return f"exit {run.returncode}"
    summary = lines[-1].split()
    if summary[3] != "0":
        return f"{summary[3]} X-LIC-ERROR"
    found = sum(1 for line in lines[:-1] if line.split()[0] in KINDS)
    return "ok" if found == components(text) else f"{found} of {components(text)} components"


def strict_icalendar(path, text, _):
    import icalendar
    try:
        calendar = icalendar.Calendar.from_ical(text.encode())
    except Exception as error:  # noqa: BLE001 - any refusal counts
        return f"{type(error).__name__}: {str(error)[:80]}"
    errors = [c.errors for c in calendar.walk() if getattr(c, "errors", None)]
    if errors:
        return f"errors: {str(errors[0])[:80]}"
    found = sum(1 for c in calendar.walk() if c.name in KINDS)
    return "ok" if found == components(text) else f"{found} of {components(text)} components"


def vobject_reader(path, text, _):
    import vobject
    try:
        calendar = vobject.readOne(text, validate=True)
        calendar.validate()
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {str(error)[:80]}"
    found = sum(len(calendar.contents.get(k.lower(), [])) for k in KINDS)
    return "ok" if found == components(text) else f"{found} of {components(text)} components"


def calcurse(path, text, _):
    with tempfile.TemporaryDirectory() as home:
        run = subprocess.run(["calcurse", "-D", home, "-q", "-i", path], capture_output=True,
                             text=True, timeout=600)
        out = run.stdout + run.stderr
        if run.returncode != 0:
            return f"exit {run.returncode}: {out.strip()[:80]}"
        if "skipped" in out and not re.search(r"\b0 (?:\w+ )?skipped", out):
            return f"skipped: {out.strip()[:80]}"
        return "ok"


def khal(path, text, _):
    """`khal import --batch PATH` into an empty vdir, in this process: khal's own command
    (its cli.import_ics) without a Python start of its own for every file, which made the
    judge take half a second a file. A FatalError or any exception is what the command
    exits 1 with."""
    from khal import controllers
    from khal.cli_utils import build_collection
    from khal.settings import get_config
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, "cal"))
        config = os.path.join(home, "config")
        with open(config, "w") as handle:
            handle.write(f"[calendars]\n[[main]]\npath = {home}/cal\n[locale]\nlocal_timezone = UTC\n"
                         f"default_timezone = UTC\n[sqlite]\npath = {home}/khal.db\n")
        try:
            conf = get_config(config)
            collection = build_collection(conf, None)
            with open(path, "rb") as handle:  # as the command reads it (click.File("rb"))
                ics = handle.read()
            controllers.import_ics(collection, conf, ics=ics, batch=True,
                                   env={"calendars": conf["calendars"]})
        except BaseException as error:  # noqa: BLE001 - the command would exit non-zero
            return f"exit 1: {type(error).__name__}: {str(error).strip()[:80]}"
        return "ok"


def homeassistant(path, text, _):
    """Home Assistant's local calendar: the `ical` package reads the file as
    IcsCalendarStream.calendar_from_ics (a pydantic model of RFC 5545, strict about values,
    time zones and structure), then its timeline gives the first occurrences in order."""
    from ical.calendar_stream import IcsCalendarStream
    try:
        calendar = IcsCalendarStream.calendar_from_ics(text)
        found = len(calendar.events) + len(calendar.todos) + len(calendar.journal)
        for _, _ in zip(range(200), iter(calendar.timeline)):
            pass
    except Exception as error:  # noqa: BLE001 - any refusal counts
        return f"{type(error).__name__}: {' '.join(str(error).split())[:120]}"
    return "ok" if found == components(text) else f"{found} of {components(text)} components"


class Radicale:
    def __init__(self, parent=None):
        import radicale
        from radicale import config
        self.folder = tempfile.mkdtemp(dir=parent)
        htpasswd = os.path.join(self.folder, "htpasswd")
        with open(htpasswd, "w") as handle:
            handle.write("judge:judge\n")
        configuration = config.load()
        configuration.update({
            "auth": {"type": "htpasswd", "htpasswd_filename": htpasswd,
                     "htpasswd_encryption": "plain", "delay": "0"},
            "rights": {"type": "owner_only"},
            "storage": {"filesystem_folder": os.path.join(self.folder, "storage")},
            "logging": {"level": "critical"},
        }, "test", privileged=True)
        self.app = radicale.Application(configuration)
        self.count = 0

    def request(self, method, path, body=b""):
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
            "SERVER_NAME": "localhost", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": io.StringIO(),
            "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "text/calendar; charset=utf-8",
            "HTTP_AUTHORIZATION": "Basic anVkZ2U6anVkZ2U=",
        }
        status = []
        b"".join(self.app(environ, lambda s, h, e=None: status.append(s)))
        return int(status[0].split()[0])

    def check(self, path, text, _):
        import icalendar
        self.count += 1
        whole = f"/judge/whole{self.count}/"
        code = self.request("PUT", whole, text.encode())
        if code // 100 != 2:
            return f"whole file: {code}"
        try:
            calendar = icalendar.Calendar.from_ical(text.encode())
        except Exception:  # noqa: BLE001 - the whole-file PUT was the test
            return "ok"
        groups = {}
        zones = [c for c in calendar.subcomponents if c.name == "VTIMEZONE"]
        for c in calendar.subcomponents:
            if c.name in KINDS:
                groups.setdefault(str(c.get("UID", "")), []).append(c)
        for index, (uid, members) in enumerate(groups.items()):
            # A new collection every 100 objects: Radicale looks through the whole collection
            # on each PUT, which made a file of 5,000 UIDs take minutes.
            collection = f"/judge/objects{self.count}-{index // 100}/"
            if index % 100 == 0 and self.request("MKCALENDAR", collection, b"") // 100 != 2:
                return "MKCALENDAR refused"
            single = icalendar.Calendar()
            single.add("VERSION", "2.0")
            single.add("PRODID", "-//judge//EN")
            for z in zones:
                single.add_component(z)
            for m in members:
                single.add_component(m)
            code = self.request("PUT", f"{collection}{index}.ics", single.to_ical())
            if code // 100 != 2:
                return f"UID {uid[:40]}: {code}"
        return "ok"


_worker = {}


def _start_worker(judge, readers, parent=None):
    logging.disable(logging.CRITICAL)  # Radicale says why it refuses; the result says it too
    radicale = Radicale(parent)
    apps = Readers()
    _worker.update(judge=judge, readers=readers, radicale=radicale, apps=apps, checks={
        "libical": libical, "icalendar": strict_icalendar, "vobject": vobject_reader,
        "calcurse": calcurse, "khal": khal, "radicale": radicale.check,
        "icaljs": apps.icaljs, "kcalendarcore": apps.kcalendarcore,
        "homeassistant": homeassistant})


def _judge(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    verdicts = {}
    for reader in _worker["readers"]:
        try:
            verdicts[reader] = _worker["checks"][reader](path, text, _worker["judge"])
        except Exception as error:  # noqa: BLE001 - a judge that fails refuses
            verdicts[reader] = f"{type(error).__name__}: {str(error)[:80]}"
    return path, verdicts


def main():
    arguments = sys.argv[1:]
    jobs = 1
    if arguments[:1] == ["--jobs"]:
        jobs, arguments = max(1, int(arguments[1])), arguments[2:]
    judge, paths = arguments[0], arguments[1:]
    readers = [r for r in READERS if r not in os.environ.get("SKIP_READERS", "").split(",")]
    # The app readers made once here, not by each worker at once (a missing one says why).
    import app_readers
    for reader, make in (("icaljs", app_readers.icaljs_command),
                         ("kcalendarcore", app_readers.kcalendarcore_command)):
        if reader in readers:
            make()
    if jobs == 1:
        _start_worker(judge, readers)
        result = dict(map(_judge, paths))
        _worker["apps"].stop()
        shutil.rmtree(_worker["radicale"].folder, ignore_errors=True)
    else:
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
        # Each worker its own Radicale, in one folder removed at the end.
        parent = tempfile.mkdtemp()
        result = {}
        try:
            with ProcessPoolExecutor(jobs, initializer=_start_worker,
                                     initargs=(judge, readers, parent)) as pool:
                for path, verdicts in pool.map(_judge, paths):
                    result[path] = verdicts
        except BrokenProcessPool:
            # A worker died (killed from outside, or a reader took it down): the rest is judged
            # here, one file at a time, instead of waiting forever for the file it held.
            print("acceptance.py: a worker died; judging the rest in this process",
                  file=sys.stderr)
            _start_worker(judge, readers, parent)
            for path in paths:
                if path not in result:
                    result[path] = _judge(path)[1]
        shutil.rmtree(parent, ignore_errors=True)
    json.dump({"readers": readers, "files": result}, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
