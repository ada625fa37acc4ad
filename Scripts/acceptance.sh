#!/usr/bin/env bash
# Which readers accept what taskcal writes: every calendar of the real-world corpus converted
# .ics → .ics (with the options given, e.g. --for caldav; --as-exported: the files as they are),
# then given to libical, Python icalendar (strict), vobject (validate), calcurse, khal,
# Radicale, and the readers inside Thunderbird (ical.js), KOrganizer (KCalendarCore) and Home
# Assistant (ical) (Scripts/acceptance.py says how each is asked). Prints acceptances per reader and
# the commonest reasons for a refusal; the JSON of every answer goes to $OUT (default
# /tmp/taskcal-acceptance.json).
#
#   Scripts/acceptance.sh [--as-exported] [CONVERT OPTIONS…]
#   TASKCAL=path Scripts/acceptance.sh     (default: .build/debug/taskcal)
#   RECORD=Tests/EndToEndTests/Fixtures/acceptance-any.tsv Scripts/acceptance.sh --for any
#       also writes what each reader took, file by file (the suite's record; "-": no output)
#
# Needs the corpus (.corpus-cache, fetched by the tests), gcc and libical-dev, calcurse, khal,
# icalendar, vobject, radicale, ical, thunderbird, libkf5calendarcore-dev, g++ and Node
# (Scripts/ci-packages.sh installs them). Takes about five minutes on 2 cores (JOBS readers at
# once, default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
taskcal=${TASKCAL:-.build/debug/taskcal}
out=${OUT:-/tmp/taskcal-acceptance.json}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
as_exported=""
if [ "${1:-}" = "--as-exported" ]; then as_exported=1; shift; fi
# shellcheck disable=SC2046 # pkg-config prints several flags
gcc -O1 -o "$work/libical_judge" Tests/EndToEndTests/Fixtures/libical_judge.c \
    $(pkg-config --cflags --libs libical)
mkdir "$work/files"
index=0
: >"$work/names.tsv"
while IFS=$'\t' read -r _ _ path; do
    index=$((index + 1))
    # Only calendars taskcal reads: the same files both ways.
    SOURCE_DATE_EPOCH=1700000000 TZ=UTC "$taskcal" convert ".corpus-cache/$path" -o "$work/files/$index.ics" \
        -q "$@" 2>/dev/null || { rm -f "$work/files/$index.ics"; continue; }
    if [ -n "$as_exported" ]; then cp ".corpus-cache/$path" "$work/files/$index.ics"; fi
    printf '%s\t%s\n' "$work/files/$index.ics" "$path" >>"$work/names.tsv"
done < <(tail -n +2 .corpus-cache/MANIFEST.tsv)
tail -n +2 .corpus-cache/MANIFEST.tsv | cut -f3 >"$work/all.txt"
python3 Scripts/acceptance.py --jobs "${JOBS:-$(nproc)}" "$work/libical_judge" "$work/files"/*.ics >"$work/answers.json" 2>/dev/null
# The answers by corpus path, not by the temporary copy's name.
python3 - "$work/answers.json" "$work/names.tsv" >"$out" <<'PY'
import json, sys
answers = json.load(open(sys.argv[1]))
names = dict(line.rstrip("\n").split("\t", 1) for line in open(sys.argv[2]))
answers["files"] = {names.get(k, k): v for k, v in answers["files"].items()}
json.dump(answers, sys.stdout, ensure_ascii=False, indent=1)
PY
if [ -n "${RECORD:-}" ]; then
    python3 - "$out" "$work/all.txt" "$RECORD" "$work/names.tsv" <<'PY'
import hashlib, json, sys
answers = json.load(open(sys.argv[1]))
files, readers = answers["files"], answers["readers"]
# The SHA-256 of each output as written (SOURCE_DATE_EPOCH and TZ fixed, as the suite writes
# it): an output that has not changed since is not judged again by the suite.
outputs = {path: output for output, path in
           (line.rstrip("\n").split("\t", 1) for line in open(sys.argv[4]))}
try:  # the record's comment lines stay
    header = [line for line in open(sys.argv[3]) if line.startswith("#")]
except OSError:
    header = []
with open(sys.argv[3], "w") as record:
    record.writelines(header)
    for path in sorted(line.strip() for line in open(sys.argv[2]) if line.strip()):
        took = [r for r in readers if files.get(path, {}).get(r) == "ok"]
        digest = "-"
        if path in outputs:
            digest = hashlib.sha256(open(outputs[path], "rb").read()).hexdigest()
        record.write(f"{path}\t{','.join(took) or '-'}\t{digest}\n")
PY
fi
python3 - "$out" <<'PY'
import collections, json, sys
answers = json.load(open(sys.argv[1]))
files = answers["files"]
print(f"| reader | accepts (of {len(files)}) | commonest refusals |")
print("|---|---|---|")
for reader in answers["readers"]:
    reasons = collections.Counter(v[reader].split("\n")[0][:60] for v in files.values() if v[reader] != "ok")
    accepted = sum(1 for v in files.values() if v[reader] == "ok")
    common = "; ".join(f"{n}× {r}" for r, n in reasons.most_common(3))
    print(f"| {reader} | {accepted} | {common} |")
PY
