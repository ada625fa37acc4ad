#!/usr/bin/env python3
"""The readers inside calendar apps, made from what Debian installs, as judges.

  icaljs         Thunderbird's ical.js: modules/calendar/Ical.sys.mjs taken out of the installed
                 thunderbird package's omni.ja (never copied into the repository), run by Node
                 with Tests/EndToEndTests/Fixtures/icaljs_judge.mjs
  kcalendarcore  KDE's KCalendarCore (libkf5calendarcore-dev): Fixtures/kcalendarcore_judge.cpp
                 compiled against it

Each is made once per installed version and source, in a cache folder ($TASKCAL_JUDGE_CACHE,
or taskcal-judges in the temporary folder), and runs as one long-lived process that is given
paths one a line: a file costs a read, not a start. A judge that dies or hangs on a file is
started again; that file is refused with the reason.

usage: app_readers.py FILE...   -> one JSON object {FILE: {READER: "ok" | reason}}
(Scripts/acceptance.py imports it and counts the two with its other readers.)
"""
import hashlib
import json
import os
import select
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "EndToEndTests", "Fixtures")
OMNI_JA = ["/usr/lib/thunderbird/omni.ja", "/usr/share/thunderbird/omni.ja"]
KINDS = ("VEVENT", "VTODO", "VJOURNAL")


def _cache():
    folder = os.environ.get("TASKCAL_JUDGE_CACHE") or os.path.join(
        tempfile.gettempdir(), "taskcal-judges")
    os.makedirs(folder, exist_ok=True)
    return folder


def _digest(*parts):
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def _publish(path, write):
    """Writes `path` through a temporary file beside it: judges made at once by parallel
    workers never see each other's half-written file."""
    if os.path.exists(path):
        return path
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path))
    os.close(handle)
    try:
        write(temporary)
        os.chmod(temporary, 0o755)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return path


def icaljs_command():
    """`node icaljs_judge.mjs ical.mjs`, the module taken from Thunderbird's omni.ja."""
    omni = next((p for p in OMNI_JA if os.path.exists(p)), None)
    if omni is None:
        raise RuntimeError("Thunderbird is not installed (apt-get install thunderbird)")
    status = os.stat(omni)
    module = os.path.join(_cache(), "ical-%s.mjs" % _digest(
        os.path.realpath(omni).encode(), str(status.st_size).encode(),
        str(int(status.st_mtime)).encode()))

    def extract(temporary):
        with zipfile.ZipFile(omni) as archive, open(temporary, "wb") as out:
            out.write(archive.read("modules/calendar/Ical.sys.mjs"))
    _publish(module, extract)
    return ["node", os.path.join(FIXTURES, "icaljs_judge.mjs"), module]


def kcalendarcore_command():
    """The compiled Fixtures/kcalendarcore_judge.cpp."""
    source = os.path.join(FIXTURES, "kcalendarcore_judge.cpp")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "KF5CalendarCore", "Qt5Core"],
                           capture_output=True, text=True)
    if flags.returncode != 0:
        raise RuntimeError("KCalendarCore is not installed (apt-get install libkf5calendarcore-dev)")
    with open(source, "rb") as handle:
        binary = os.path.join(_cache(), "kcalendarcore-%s" % _digest(
            handle.read(), flags.stdout.encode()))

    def compile_judge(temporary):
        run = subprocess.run(["c++", "-std=c++17", "-O1", "-fPIC", "-o", temporary, source]
                             + flags.stdout.split(), capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("kcalendarcore_judge.cpp did not compile: " + run.stderr[-400:])
    return [_publish(binary, compile_judge)]


class LineJudge:
    """A judge process that answers one line for each path written to it."""

    def __init__(self, command, timeout=300):
        self.command, self.timeout, self.process = command, timeout, None

    def _start(self):
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def ask(self, path):
        """The judge's line for `path`, or None when it died or hung (it is stopped)."""
        if self.process is None or self.process.poll() is not None:
            self._start()
        try:
            self.process.stdin.write(path + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return None
        ready, _, _ = select.select([self.process.stdout], [], [], self.timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line.endswith("\n"):
            self.stop()
            return None
        return line.rstrip("\n")


def components(text):
    """The events, to-dos and journal entries of a file, by a scan of its BEGIN lines."""
    return sum(1 for line in text.splitlines() if line.strip().upper() in {f"BEGIN:{k}" for k in KINDS})


def _found(found, text):
    expected = components(text)
    return "ok" if found == expected else f"{found} of {expected} components"


class Readers:
    """The two app readers, started on first use."""

    def __init__(self):
        self.judges = {}

    def _judge(self, name, make):
        if name not in self.judges:
            self.judges[name] = LineJudge(make())
        return self.judges[name]

    def icaljs(self, path, text, _=None):
        line = self._judge("icaljs", icaljs_command).ask(os.path.abspath(path))
        if line is None:
            return "ical.js died or hung on this file"
        answer = json.loads(line)
        if answer["verdict"] != "ok":
            return answer["verdict"]
        return _found(answer["events"] + answer["todos"] + answer["journals"], text)

    def kcalendarcore(self, path, text, _=None):
        line = self._judge("kcalendarcore", kcalendarcore_command).ask(os.path.abspath(path))
        if line is None:
            return "KCalendarCore died or hung on this file"
        _, verdict, counts = line.rsplit("\t", 2)
        if verdict != "ok":
            return verdict
        return _found(sum(int(n) for n in counts.split()), text)

    def stop(self):
        for judge in self.judges.values():
            judge.stop()


def main():
    readers = Readers()
    result = {}
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        result[path] = {"icaljs": readers.icaljs(path, text),
                        "kcalendarcore": readers.kcalendarcore(path, text)}
    readers.stop()
    json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
