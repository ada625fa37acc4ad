#!/usr/bin/env bash
# How conversion throughput grows with the input and with --jobs, as CSV in Benchmarks/results
# and SVG charts beside them (Benchmarks/plot.py).
#
#   Benchmarks/curves.sh [SIZES] [JOBS]   (default SIZES "10000 100000 1000000", JOBS "1 2 4")
#
# For each size: NDJSON → .ics and .ics → NDJSON with --jobs 1, and the libical-only C
# baseline (Benchmarks/baseline.c) the same way, one after the other (the machines this runs
# on drift within minutes; a ratio is only worth anything between runs made close together).
# Then .ics → NDJSON and a batch of 10 NDJSON files → .ics at the middle size with each --jobs.
# Every output is compared with the --jobs 1 output (cmp): the curves are of the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-10000 100000 1000000}
JOBS=${2:-1 2 4}
WORK=${BENCH_DIR:-/tmp/taskcal-bench}
RESULTS=Benchmarks/results
mkdir -p "$WORK" "$RESULTS"
swift build -c release --product taskcal >/dev/null
TASKCAL=$(swift build -c release --show-bin-path)/taskcal
cc -O2 -o "$WORK/baseline" Benchmarks/baseline.c $(pkg-config --cflags --libs libical)
export SOURCE_DATE_EPOCH=1700000000
machine="$(nproc) cores $(uname -m), $(swift --version 2>/dev/null | head -1 | sed 's/ (.*//'), libical $(pkg-config --modversion libical), $(date -u +%Y-%m-%d)"

seconds() { # command... -> seconds
    /usr/bin/time -f "%e" -o "$WORK/time" "$@" >/dev/null
    cat "$WORK/time"
}

{
    echo "series,records,seconds"
    for n in $SIZES; do
        [ -s "$WORK/in-$n.ndjson" ] || python3 Benchmarks/generate.py "$n" >"$WORK/in-$n.ndjson"
        echo "NDJSON → .ics,$n,$(seconds "$TASKCAL" convert "$WORK/in-$n.ndjson" -o "$WORK/out-$n.ics" -q --uid-namespace bench --jobs 1)"
        echo "C baseline: build,$n,$(seconds "$WORK/baseline" build "$n" "$WORK/base-$n.ics")"
        echo ".ics → NDJSON,$n,$(seconds "$TASKCAL" convert "$WORK/out-$n.ics" -o "$WORK/back-$n.ndjson" -q --uid-namespace bench --jobs 1)"
        echo "C baseline: parse,$n,$(seconds "$WORK/baseline" parse "$WORK/out-$n.ics")"
        cmp -s "$WORK/in-$n.ndjson" "$WORK/back-$n.ndjson" || echo "# $n records: the round trip DIFFERS" >&2
    done
    echo "# $machine; taskcal --jobs 1, the baseline one thread"
} >"$RESULTS/convert-size.csv"

middle=$(echo $SIZES | awk '{print $((NF + 1) / 2)}')
rm -rf "$WORK/batch" && mkdir -p "$WORK/batch"
split -n l/10 -d --additional-suffix=.ndjson "$WORK/in-$middle.ndjson" "$WORK/batch/part-"
{
    echo "series,jobs,records,seconds"
    for jobs in $JOBS; do
        t=$(seconds "$TASKCAL" convert "$WORK/out-$middle.ics" -o "$WORK/jobs-$jobs.ndjson" -q --uid-namespace bench --jobs "$jobs")
        echo "one .ics → NDJSON,$jobs,$middle,$t"
        cmp -s "$WORK/back-$middle.ndjson" "$WORK/jobs-$jobs.ndjson" || echo "--jobs $jobs: output DIFFERS" >&2
        rm -rf "$WORK/batch-out"
        t=$(seconds "$TASKCAL" convert "$WORK/batch" --output-dir "$WORK/batch-out" -q --uid-namespace bench --jobs "$jobs")
        echo "10 NDJSON files → .ics,$jobs,$middle,$t"
    done
    echo "# $machine; $middle records"
} >"$RESULTS/convert-jobs.csv"
cat "$RESULTS/convert-size.csv" "$RESULTS/convert-jobs.csv"
python3 Benchmarks/plot.py
