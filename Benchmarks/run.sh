#!/usr/bin/env bash
# Conversion throughput and peak memory of taskcal against libical alone, in one run.
#
#   Benchmarks/run.sh [N]      (default N = 100000 records)
#
# Builds taskcal (release) and the C baseline, generates N records with the samples' mix
# (Benchmarks/generate.py), then times each direction with /usr/bin/time and prints a table
# with the ratio to the baseline measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
WORK=${BENCH_DIR:-/tmp/taskcal-bench}
mkdir -p "$WORK"
swift build -c release --product taskcal >/dev/null
TASKCAL=$(swift build -c release --show-bin-path)/taskcal
cc -O2 -o "$WORK/baseline" Benchmarks/baseline.c $(pkg-config --cflags --libs libical)
[ -s "$WORK/in-$N.ndjson" ] || python3 Benchmarks/generate.py "$N" > "$WORK/in-$N.ndjson"
export SOURCE_DATE_EPOCH=1700000000

measure() { # label command... -> "seconds peak_kb"
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null
    cat "$WORK/time"
}

# One UID namespace both ways (by default it is each file's name), so the UIDs written read
# back as ids and the round trip gives the input back byte for byte.
read -r t_to_ics m_to_ics < <(measure "$TASKCAL" convert "$WORK/in-$N.ndjson" -o "$WORK/out-$N.ics" -q \
    --uid-namespace bench)
read -r t_to_json m_to_json < <(measure "$TASKCAL" convert "$WORK/out-$N.ics" -o "$WORK/back-$N.ndjson" -q \
    --uid-namespace bench)
read -r t_build m_build < <(measure "$WORK/baseline" build "$N" "$WORK/base-$N.ics")
read -r t_parse m_parse < <(measure "$WORK/baseline" parse "$WORK/out-$N.ics")
cmp -s "$WORK/in-$N.ndjson" "$WORK/back-$N.ndjson" && same=yes || same=NO

rate() { python3 -c "print(f'{$N / max($1, 0.001):,.0f}')"; }
ratio() { python3 -c "print(f'{$1 / max($2, 0.001):.2f}x')"; }
echo "records: $N   ($(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d))"
echo "| direction | taskcal s | records/s | peak RSS | libical-only baseline s | ratio |"
echo "|---|---|---|---|---|---|"
echo "| NDJSON → .ics | $t_to_ics | $(rate "$t_to_ics") | $((m_to_ics / 1024)) MB | $t_build (build + serialize) | $(ratio "$t_to_ics" "$t_build") |"
echo "| .ics → NDJSON | $t_to_json | $(rate "$t_to_json") | $((m_to_json / 1024)) MB | $t_parse (parse + walk) | $(ratio "$t_to_json" "$t_parse") |"
echo "round trip identical: $same"
