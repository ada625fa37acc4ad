#!/usr/bin/env bash
# Conversion throughput and peak memory of taskcal against libical alone, in one run.
#
#   Benchmarks/run.sh [N]      (default N = 100000 records)
#   RUNS=9 Benchmarks/run.sh   (rounds; default 5)
#   STATIC=1 Benchmarks/run.sh (taskcal as Scripts/install.sh builds it: the Swift runtime and
#                               Foundation linked in, --static-swift-stdlib, built here in
#                               .build-static: ~7 ms less to start, about 8% faster reading an
#                               .ics on two cores)
#
# Builds taskcal (release) and the C baseline, generates N records with the samples' mix
# (Benchmarks/generate.py), then times each direction with /usr/bin/time against the
# baseline, RUNS rounds, each round running taskcal and the baseline one after the other:
# the machines this runs on are shared, and their speed drifts by 20% and more within a
# minute, so a ratio is only worth anything between runs made close together. The table
# gives the median time of each and the median of the rounds' ratios. Then the same
# conversion done by Python icalendar (Benchmarks/peer_icalendar.py), once, against the
# median of taskcal's rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${RUNS:-5}
WORK=${BENCH_DIR:-/tmp/taskcal-bench}
mkdir -p "$WORK"
if [ -n "${STATIC:-}" ]; then
    # Static Foundation's own link notes (mktemp) go to stderr; they are not taskcal's.
    swift build -c release --product taskcal --static-swift-stdlib --scratch-path .build-static \
        >/dev/null 2>"$WORK/static-link.log" || { cat "$WORK/static-link.log" >&2; exit 1; }
    TASKCAL=$(swift build -c release --scratch-path .build-static --show-bin-path)/taskcal
else
    swift build -c release --product taskcal >/dev/null
    TASKCAL=$(swift build -c release --show-bin-path)/taskcal
fi
cc -O2 -o "$WORK/baseline" Benchmarks/baseline.c $(pkg-config --cflags --libs libical)
[ -s "$WORK/in-$N.ndjson" ] || python3 Benchmarks/generate.py "$N" > "$WORK/in-$N.ndjson"
export SOURCE_DATE_EPOCH=1700000000

measure() { # command... -> "seconds peak_kb"
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null
    cat "$WORK/time"
}

# One UID namespace both ways (by default it is each file's name), so the UIDs written read
# back as ids and the round trip gives the input back byte for byte.
to_ics=()
to_json=()
build=()
parse=()
for _ in $(seq "$RUNS"); do
    read -r t m_to_ics < <(measure "$TASKCAL" convert "$WORK/in-$N.ndjson" -o "$WORK/out-$N.ics" \
        -q --uid-namespace bench)
    to_ics+=("$t")
    read -r t _ < <(measure "$WORK/baseline" build "$N" "$WORK/base-$N.ics")
    build+=("$t")
    read -r t m_to_json < <(measure "$TASKCAL" convert "$WORK/out-$N.ics" -o "$WORK/back-$N.ndjson" \
        -q --uid-namespace bench)
    to_json+=("$t")
    read -r t _ < <(measure "$WORK/baseline" parse "$WORK/out-$N.ics")
    parse+=("$t")
done
cmp -s "$WORK/in-$N.ndjson" "$WORK/back-$N.ndjson" && same=yes || same=NO

# median of the arguments; ratio: median of the element-wise ratios of two lists
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@"; }
ratio() {
    python3 -c "
import statistics, sys
a, b = sys.argv[1].split(), sys.argv[2].split()
print(f'{statistics.median(float(x) / max(float(y), 0.001) for x, y in zip(a, b)):.2f}x')" "$1" "$2"
}
rate() { python3 -c "print(f'{$N / max($1, 0.001):,.0f}')"; }
t_to_ics=$(median "${to_ics[@]}")
t_to_json=$(median "${to_json[@]}")
t_build=$(median "${build[@]}")
t_parse=$(median "${parse[@]}")
echo "records: $N   ($(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)), medians of $RUNS rounds"
echo "| direction | taskcal s | records/s | peak RSS | libical-only baseline s | ratio (median of rounds) |"
echo "|---|---|---|---|---|---|"
echo "| NDJSON → .ics | $t_to_ics | $(rate "$t_to_ics") | $((m_to_ics / 1024)) MB | $t_build (build + serialize) | $(ratio "${to_ics[*]}" "${build[*]}") |"
echo "| .ics → NDJSON | $t_to_json | $(rate "$t_to_json") | $((m_to_json / 1024)) MB | $t_parse (parse + walk) | $(ratio "${to_json[*]}" "${parse[*]}") |"
echo "rounds, NDJSON → .ics: ${to_ics[*]} (baseline ${build[*]}); .ics → NDJSON: ${to_json[*]} (baseline ${parse[*]})"
echo "round trip identical: $same"

# The peer: Python icalendar doing the same conversion (Benchmarks/peer_icalendar.py), on the
# same input and on taskcal's .ics, in the same run. Skipped when icalendar is not installed.
if python3 -c "import icalendar" 2>/dev/null; then
    peer=Benchmarks/peer_icalendar.py
    read -r p_to_ics m_p_to_ics < <(measure python3 "$peer" to-ics "$WORK/in-$N.ndjson" "$WORK/peer-$N.ics")
    read -r p_to_json m_p_to_json < <(measure python3 "$peer" to-ndjson "$WORK/out-$N.ics" "$WORK/peer-back-$N.ndjson")
    version=$(python3 -c "import icalendar; print(icalendar.__version__)")
    faster() { python3 -c "print(f'{$1 / max($2, 0.001):.2f}x')"; }
    echo
    echo "| direction | taskcal s (median) | Python icalendar $version s | peak RSS (icalendar) | taskcal is |"
    echo "|---|---|---|---|---|"
    echo "| NDJSON → .ics | $t_to_ics | $p_to_ics | $((m_p_to_ics / 1024)) MB | $(faster "$p_to_ics" "$t_to_ics") faster |"
    echo "| .ics → NDJSON | $t_to_json | $p_to_json | $((m_p_to_json / 1024)) MB | $(faster "$p_to_json" "$t_to_json") faster |"
else
    echo "(Python icalendar not installed: pip install icalendar==7.3.0 for the peer rows)"
fi
