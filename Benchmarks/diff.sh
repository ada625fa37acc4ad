#!/usr/bin/env bash
# What proving a migration costs: `taskcal diff` of two calendars against reading both, and
# `convert --verify` against the same conversion without it, in one run.
#
#   Benchmarks/diff.sh [N]          (default N = 100000 records)
#   RUNS=7 Benchmarks/diff.sh       (rounds; default 5)
#   TASKCAL=path Benchmarks/diff.sh (a taskcal already built; default: swift build -c release)
#
# N records with the samples' mix (Benchmarks/generate.py) are written as .ics (old.ics) and
# again through JSON (new.ics: the same calendar, every line written anew). Each round runs,
# one after the other so that the machine's drift falls on both alike:
#   read     taskcal validate old.ics new.ics      (reading both, as diff must; one thread)
#   read2    taskcal convert old.ics --to ndjson, then new.ics (reading both on every core,
#            as diff reads them, and writing NDJSON to /dev/null)
#   diff     taskcal diff old.ics new.ics
#   convert  taskcal convert in.ndjson -o out.ics
#   verify   taskcal convert in.ndjson -o out.ics --verify
#   toj      taskcal convert old.ics -o out.ndjson, and again with --verify (toj_v)
# and prints the medians (seconds, peak memory) and the median of the rounds' ratios
# diff/read and verify/convert. Benchmarks/README.md keeps the results.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/taskcal-bench}
mkdir -p "$WORK"
if [ -z "${TASKCAL:-}" ]; then
    swift build -c release --product taskcal >/dev/null
    TASKCAL=$(swift build -c release --show-bin-path)/taskcal
fi
export SOURCE_DATE_EPOCH=1700000000 TZ=UTC
[ -s "$WORK/in-$N.ndjson" ] || python3 Benchmarks/generate.py "$N" >"$WORK/in-$N.ndjson"
"$TASKCAL" convert "$WORK/in-$N.ndjson" -o "$WORK/old-$N.ics" -q --uid-namespace bench
"$TASKCAL" convert "$WORK/old-$N.ics" -o "$WORK/mid-$N.json" -q --uid-namespace bench
"$TASKCAL" convert "$WORK/mid-$N.json" -o "$WORK/new-$N.ics" -q --uid-namespace bench

measure() { # expected-status command... -> "seconds peak_kb"
    local expected=$1 status=0
    shift
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || status=$?
    if [ "$status" -ne "$expected" ]; then
        echo "diff.sh: $* exited $status, not $expected:" >&2
        cat "$WORK/stderr" >&2
        exit 1
    fi
    cat "$WORK/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

: >"$WORK/rounds"
for round in $(seq "$RUNS"); do
    read_t=$(measure 0 "$TASKCAL" validate -q "$WORK/old-$N.ics" "$WORK/new-$N.ics")
    read2_t=$(measure 0 sh -c "'$TASKCAL' convert '$WORK/old-$N.ics' --to ndjson -q >/dev/null && '$TASKCAL' convert '$WORK/new-$N.ics' --to ndjson -q >/dev/null")
    diff_t=$(measure 0 "$TASKCAL" diff -q "$WORK/old-$N.ics" "$WORK/new-$N.ics" --uid-namespace bench)
    conv_t=$(measure 0 "$TASKCAL" convert "$WORK/in-$N.ndjson" -o "$WORK/out.ics" -q)
    veri_t=$(measure 0 "$TASKCAL" convert "$WORK/in-$N.ndjson" -o "$WORK/out.ics" -q --verify)
    toj_t=$(measure 0 "$TASKCAL" convert "$WORK/old-$N.ics" -o "$WORK/out.ndjson" -q)
    tojv_t=$(measure 0 "$TASKCAL" convert "$WORK/old-$N.ics" -o "$WORK/out.ndjson" -q --verify)
    echo "$read_t $diff_t $conv_t $veri_t $read2_t $toj_t $tojv_t" >>"$WORK/rounds"
    echo "round $round: read $read_t, diff $diff_t, convert $conv_t, verify $veri_t, read on every core $read2_t (s KB)" >&2
done
column() { awk -v c="$1" '{print $c}' "$WORK/rounds" | median; }
ratio() { awk -v a="$1" -v b="$2" '{printf "%.3f\n", $a / $b}' "$WORK/rounds" | median; }
echo "N = $N, $RUNS rounds, $(nproc) cores"
printf "| %-30s | %9s | %10s |\n" "command" "median s" "peak MB"
printf "| %-30s | %9s | %10s |\n" "validate old.ics new.ics" "$(column 1)" "$(($(column 2 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "both --to ndjson, all cores" "$(column 9)" "$(($(column 10 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "diff old.ics new.ics" "$(column 3)" "$(($(column 4 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "convert in.ndjson out.ics" "$(column 5)" "$(($(column 6 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "the same with --verify" "$(column 7)" "$(($(column 8 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "convert old.ics out.ndjson" "$(column 11)" "$(($(column 12 | cut -d. -f1) / 1024))"
printf "| %-30s | %9s | %10s |\n" "the same with --verify" "$(column 13)" "$(($(column 14 | cut -d. -f1) / 1024))"
echo "diff / reading both: $(ratio 3 1)x on one thread, $(ratio 3 9)x on every core (median of the rounds' ratios; goal: under 2x)"
echo "--verify / without: $(ratio 7 5)x NDJSON to .ics, $(ratio 13 11)x .ics to NDJSON (goal: under 1.5x)"
