#!/usr/bin/env bash
# Instructions, not seconds: each conversion direction of the release build counted by
# callgrind against the same work done by libical alone (Benchmarks/baseline.c), on one
# thread. A count does not move with the machine's load (the same binary, input and
# environment give the same total, whatever else runs), so a change is judged by it where a
# time would drift by 20% within a minute.
#
#   Benchmarks/instructions.sh [N]          (default N = 10000 records, the samples' mix)
#   RECORD=1 Benchmarks/instructions.sh     writes the counts to Benchmarks/instructions.tsv
#   TASKCAL=path Benchmarks/instructions.sh (default: the release build Scripts/release-build.sh
#                                            makes in .build-install, as CI and the package do)
#   CACHE=1 Benchmarks/instructions.sh      also each program's cache misses a record, simulated
#                                            by cachegrind (another 2 minutes)
#
# Exits 1 when a direction takes more than 5% more instructions than Benchmarks/instructions.tsv
# records for it (the same N), and says which. About a minute and a half on 2 cores
# (callgrind runs a program some 50 times slower). Needs valgrind, gcc, libical-dev.
# valgrind 3.19 cannot read the release build's debug information, so a copy without it is
# counted (objcopy --strip-debug): the same code.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
WORK=${BENCH_DIR:-/tmp/taskcal-instructions}
RECORDED=Benchmarks/instructions.tsv
mkdir -p "$WORK"
taskcal=${TASKCAL:-}
if [ -z "$taskcal" ]; then
    taskcal=$(Scripts/release-build.sh .build-install)/taskcal
fi
objcopy --strip-debug "$taskcal" "$WORK/taskcal"
rm -rf "$WORK/taskcal_Localization.resources"
cp -R "$(dirname "$taskcal")/taskcal_Localization.resources" "$WORK/" 2>/dev/null || true
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -O2 -o "$WORK/baseline" Benchmarks/baseline.c $(pkg-config --cflags --libs libical)
[ -s "$WORK/in-$N.ndjson" ] || python3 Benchmarks/generate.py "$N" >"$WORK/in-$N.ndjson"
# One environment for every count: the clock, the zone and the locale fixed.
export SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C.UTF-8

count() { # command... -> instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

write=$(count "$WORK/taskcal" convert "$WORK/in-$N.ndjson" -o "$WORK/out.ics" -q \
    --uid-namespace bench --jobs 1)
build=$(count "$WORK/baseline" build "$N" "$WORK/base.ics")
read=$(count "$WORK/taskcal" convert "$WORK/out.ics" -o "$WORK/back.ndjson" -q \
    --uid-namespace bench --jobs 1)
parse=$(count "$WORK/baseline" parse "$WORK/out.ics")
for value in "$write" "$build" "$read" "$parse"; do
    [ -n "$value" ] || { echo "instructions.sh: callgrind counted nothing (above)" >&2; exit 2; }
done

ratio() { python3 -c "print(f'{$1 / $2:.2f}x')"; }
millions() { python3 -c "print(f'{$1 / 1e6:,.1f}')"; }
echo "records: $N, one thread, instructions (millions) counted by callgrind, $(date -u +%Y-%m-%d)"
echo "| direction | taskcal | libical-only baseline | ratio |"
echo "|---|---|---|---|"
echo "| NDJSON → .ics | $(millions "$write") | $(millions "$build") (build + serialize) | $(ratio "$write" "$build") |"
echo "| .ics → NDJSON | $(millions "$read") | $(millions "$parse") (parse + walk) | $(ratio "$read" "$parse") |"

# Each program's instructions and cache misses a record, as cachegrind simulates this
# machine's caches: deterministic as the counts are. What a miss costs in time is not simulated,
# nor the kernel's share (syscalls, page faults), so these say where to look, not how long.
if [ -n "${CACHE:-}" ]; then
    echo
    echo "| program | instructions | L1 code misses | L1 data misses | last-level misses |"
    echo "|---|---|---|---|---|"
    misses() { # label command... -> a table row, a record at a time
        local label=$1
        shift
        valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$@" 2>&1 \
            >/dev/null | python3 -c "
import re, sys
text = sys.stdin.read()
def total(name):
    m = re.search(r'==\d+== ' + re.escape(name) + r':\s+([\d,]+)', text)
    if not m: sys.exit('instructions.sh: cachegrind printed no ' + name)
    return int(m.group(1).replace(',', '')) / $N
print('| $label | ' + ' | '.join(f'{total(name):,.0f}' for name in
    ('I   refs', 'I1  misses', 'D1  misses', 'LL misses')) + ' |')
"
    }
    misses "baseline build + serialize" "$WORK/baseline" build "$N" "$WORK/base.ics"
    misses "taskcal NDJSON → .ics" "$WORK/taskcal" convert "$WORK/in-$N.ndjson" \
        -o "$WORK/out.ics" -q --uid-namespace bench --jobs 1
    misses "baseline parse + walk" "$WORK/baseline" parse "$WORK/out.ics"
    misses "taskcal .ics → NDJSON" "$WORK/taskcal" convert "$WORK/out.ics" \
        -o "$WORK/back.ndjson" -q --uid-namespace bench --jobs 1
fi

if [ -n "${RECORD:-}" ]; then
    {
        echo "# Benchmarks/instructions.sh: instructions counted by callgrind (RECORD=1 writes this)."
        echo "# direction	records	taskcal	baseline"
        printf 'write\t%s\t%s\t%s\n' "$N" "$write" "$build"
        printf 'read\t%s\t%s\t%s\n' "$N" "$read" "$parse"
    } >"$RECORDED"
    echo "recorded in $RECORDED"
    exit 0
fi
status=0
while IFS=$'\t' read -r direction records recorded _; do
    case "$direction" in '#'* | '') continue ;; esac
    [ "$records" = "$N" ] || continue
    now=$write
    [ "$direction" = read ] && now=$read
    if python3 -c "import sys; sys.exit(0 if $now <= $recorded * 1.05 else 1)"; then
        echo "$direction: $(millions "$now") million instructions, recorded $(millions "$recorded"): within 5%"
    else
        echo "$direction: $(millions "$now") million instructions, recorded $(millions "$recorded"): more than 5% more" >&2
        status=1
    fi
done <"$RECORDED"
exit "$status"
