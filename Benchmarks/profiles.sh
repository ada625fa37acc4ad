#!/usr/bin/env bash
# What an app profile costs: one .ics of N records (Benchmarks/generate.py's mix) converted
# .ics → .ics plain, with --for thunderbird (a profile that changes nothing) and with --for
# any (every repair looked for), RUNS times each, the median and its ratio to plain, in one
# run. The outputs of plain and thunderbird must be the same bytes.
#
#   Benchmarks/profiles.sh [N] [RUNS]        (default 100000 records, 5 runs)
#   TASKCAL=path Benchmarks/profiles.sh      (default: a release build, made here)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${2:-5}
WORK=$(mktemp -d /tmp/taskcal-profiles-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
if [ -z "${TASKCAL:-}" ]; then
    swift build -c release --product taskcal >/dev/null
    TASKCAL=$(swift build -c release --show-bin-path)/taskcal
fi
export SOURCE_DATE_EPOCH=1700000000
python3 Benchmarks/generate.py "$N" >"$WORK/tasks.ndjson"
"$TASKCAL" convert "$WORK/tasks.ndjson" -o "$WORK/in.ics" -q
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
run() { # label, options…: the median of RUNS conversions, in seconds
    local label=$1
    shift
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        "$TASKCAL" convert "$WORK/in.ics" -o "$WORK/$label.ics" -q "$@"
        end=$(date +%s.%N)
        python3 -c "print($end - $start)"
    done | median
}
plain=$(run plain)
thunderbird=$(run thunderbird --for thunderbird)
any=$(run any --for any)
cmp -s "$WORK/plain.ics" "$WORK/thunderbird.ics" || { echo "--for thunderbird changed the output" >&2; exit 1; }
echo "| $N records, .ics → .ics, median of $RUNS | seconds | × plain |"
echo "|---|---|---|"
for row in "plain $plain" "--for_thunderbird $thunderbird" "--for_any $any"; do
    # shellcheck disable=SC2086 # two words: the label and the seconds
    set -- $row
    python3 -c "print(f'| ${1//_/ } | {$2:.2f} | {$2 / $plain:.2f} |')"
done
