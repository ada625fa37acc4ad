#!/usr/bin/env bash
# Fuzz/run.sh TARGET SECONDS [JOBS]   (FUZZ_PARALLEL=N: N targets at a time)
#
# Builds the fuzz targets (libFuzzer, AddressSanitizer and LeakSanitizer) and runs TARGET for
# SECONDS (FUZZ_TIMEOUT: seconds one input may take, default 5). TARGET is one of FuzzICS,
# FuzzJSON, FuzzExpand, FuzzReports, FuzzDiaryImport, FuzzDAVReply, or "all" (each in turn for SECONDS). The seed corpus comes from Samples/, the test fixtures and, when it has
# been fetched, the real-world corpus (.corpus-cache/); what the fuzzer learns stays in
# Fuzz/corpus/TARGET (not committed). A crash, a leak, an input that takes more than
# FUZZ_TIMEOUT seconds (-timeout, -report_slow_units) or more than 2 GB with AddressSanitizer's
# overhead (-rss_limit_mb) fails the run with exit 1; the input is kept in Fuzz/findings/TARGET/
# and becomes a regression test in Tests/EndToEndTests/Fixtures/fuzz/ (see Fuzz/README.md).
#
# Prints one summary line per target: executions, coverage (edges), corpus size, findings.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)

target=${1:-}
seconds=${2:-60}
jobs=${3:-1}
# Seconds one input may take under AddressSanitizer before it counts as a hang (CI gives
# slower machines more).
timeout=${FUZZ_TIMEOUT:-5}
# FuzzDiaryImport first: its first pass over the seeds outlasts a short round (about 100 s of
# a 30-s smoke in CI, an import into a fresh diary for each of some 290 calendars), and run
# first it overlaps the others instead of running alone at the end.
targets=(FuzzDiaryImport FuzzICS FuzzJSON FuzzExpand FuzzReports FuzzDAVReply)
if [ -z "$target" ]; then
    echo "usage: Fuzz/run.sh TARGET|all SECONDS [JOBS]   (targets: ${targets[*]})" >&2
    exit 2
fi
[ "$target" = all ] || targets=("$target")

# One build for all targets, with coverage and the sanitizers on every Swift module: release
# (FUZZ_CONFIG, default), or debug for a smoke (CI): built in a minute instead of three, it runs
# a quarter as many inputs a second, which a 30-second smoke does not need.
# A failed build stops here: never fuzz a binary an earlier build left.
config=${FUZZ_CONFIG:-release}
case "$config" in release | debug) ;; *)
    echo "Fuzz/run.sh: FUZZ_CONFIG is release or debug, not $config" >&2
    exit 2
    ;;
esac
build() {
    swift build -c "$config" --scratch-path ".build-fuzz-$config" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >.build-fuzz.log 2>&1
}
# SwiftPM can miss a source file added to the main package (a path dependency) and fail on a
# stale build description; a failed build is tried once more from scratch before giving up.
if ! build && ! { echo "Fuzz/run.sh: building again from scratch" >&2 && rm -rf ".build-fuzz-$config" && build; }; then
    grep -E "error" .build-fuzz.log | head -20 >&2
    echo "Fuzz/run.sh: the fuzz targets do not build (Fuzz/.build-fuzz.log)" >&2
    exit 1
fi
grep -E "Build complete" .build-fuzz.log || true
binaries=.build-fuzz-$config/$config

seed() {
    # Seeds by format: iCalendar for the .ics targets, JSON for the JSON target; the expand and
    # diary targets read a leading byte that chooses the format.
    local dir=$1 kind=$2
    mkdir -p "$dir"
    [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return
    local files=()
    # FUZZ_SEED_FINDINGS=no leaves out the fuzzers' past findings
    # (Tests/EndToEndTests/Fixtures/fuzz/): five of them are centuries of a habit, which a
    # debug build imports and checks in 10-48 s each, 150 s of the 250 a smoke's first pass
    # over FuzzDiaryImport's 297 seeds took. Each is a regression test through every command
    # in the suite already.
    local skip=()
    [ "${FUZZ_SEED_FINDINGS:-yes}" = no ] && skip=(-path "$root/Tests/EndToEndTests/Fixtures/fuzz" -prune -o)
    case $kind in
    ics) mapfile -t files < <(find "$root/Samples" "$root/Tests" "${skip[@]}" -name '*.ics' -print
        [ -d "$root/.corpus-cache" ] && find "$root/.corpus-cache" -name '*.ics' -size -64k) ;;
    json) mapfile -t files < <(find "$root/Samples" "$root/Tests" "${skip[@]}" \( -name '*.json' -o -name '*.ndjson' \) -size -64k -print) ;;
    dav) mapfile -t files < <(find "$root/Fuzz/seeds/dav" -type f) ;;
    esac
    local index=0
    for file in "${files[@]}"; do
        index=$((index + 1))
        case $3 in
        plain) cp "$file" "$dir/seed-$index" ;;
        prefixed) { printf '\x00\x11\x22\x33\x44\x00\x00\x00'; cat "$file"; } >"$dir/seed-$index" ;;
        chooser) { printf '\x00'; cat "$file"; } >"$dir/seed-$index" ;;
        esac
    done
}

# Leaks of the toolchain's own libraries, not taskcal's (each named with why in the file).
export LSAN_OPTIONS="suppressions=$root/Scripts/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# Runs one target for its time; prints its summary line; returns 1 on a finding.
fuzz_target() {
    local name=$1 corpus=corpus/$1 findings=findings/$1 log started round result left this
    local elapsed executions coverage found parallel=()
    mkdir -p "$corpus" "$findings"
    case $name in
    FuzzICS) seed "$corpus" ics plain ;;
    FuzzJSON) seed "$corpus" json plain ;;
    FuzzExpand | FuzzReports) seed "$corpus" ics prefixed ;;
    FuzzDiaryImport) seed "$corpus" ics chooser ;;
    FuzzDAVReply) seed "$corpus" dav plain ;;
    esac
    log=$(mktemp)
    started=$SECONDS
    [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
    # FuzzDAVReply runs in rounds of two minutes on one corpus: FoundationXML leaks memory with
    # each malformed answer (lsan-suppressions.txt), which in one long run adds up to the
    # 2 GB limit after some 700,000 inputs; a new process each round starts from nothing.
    round=$seconds
    [ "$name" = FuzzDAVReply ] && round=120
    result=0
    left=$seconds
    while [ "$left" -gt 0 ] && [ $result -eq 0 ]; do
        this=$((left < round ? left : round))
        "$binaries/$name" "$corpus" -max_total_time="$this" -timeout="$timeout" -rss_limit_mb=2048 \
            -report_slow_units="$timeout" \
            -max_len=65536 "${parallel[@]}" -print_final_stats=1 \
            -artifact_prefix="$findings/" >>"$log" 2>&1
        result=$?
        left=$((left - this))
    done
    elapsed=$((SECONDS - started))
    if [ "$jobs" -gt 1 ]; then cat fuzz-*.log >>"$log" 2>/dev/null || true; rm -f fuzz-*.log; fi
    executions=$({ grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" || true; } |
        awk '{s+=$2} END {print s+0}')
    coverage=$({ grep -Eo 'cov: [0-9]+' "$log" || true; } | awk '{c=$2} END {print c+0}')
    found=$(find "$findings" -type f | wc -l)
    echo "$name: $elapsed s, $executions executions, coverage ${coverage:-0} edges," \
        "corpus $(ls "$corpus" | wc -l) inputs, findings $found"
    local status=0
    if [ $result -ne 0 ] || [ "$found" -gt 0 ]; then
        echo "$name: the fuzzer stopped with exit $result; see below and $findings/" >&2
        grep -E "ERROR|SUMMARY|Test unit written|timeout|leak" "$log" | head -20 >&2
        status=1
    fi
    rm -f "$log"
    return $status
}

# FUZZ_PARALLEL=N: N targets at a time (each fuzzer uses one core; CI's smoke runs two).
# Not with JOBS > 1, whose workers share the folder's fuzz-*.log files.
parallel_targets=${FUZZ_PARALLEL:-1}
[ "$jobs" -gt 1 ] && parallel_targets=1
# A target starts as soon as any running one ends (wait -n), not when the oldest does.
status=0
set +e
running=0
for name in "${targets[@]}"; do
    if [ "$running" -ge "$parallel_targets" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
    fuzz_target "$name" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
set -e
exit $status
