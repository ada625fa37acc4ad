#!/usr/bin/env bash
# Scripts/deep-check.sh [STAGE...]
#
# What CI (.ci/run) leaves out to stay under 45 minutes, in full. Run it before resolving an
# issue that touches what it covers, and give its stage lines in the closing note;
# docs/development.md has the table of what runs where and why. About four and a half
# hours on two cores (asan two of them): where one sitting is too short, run the stages in
# parts on one commit (docs/development.md). As root on a machine like CI's: it installs the
# same packages first (Scripts/ci-packages.sh; DEEP_SKIP_PACKAGES=1 skips that where they
# are in already).
#
# Stages, in this order (name some to run only those):
#   asan         the whole suite under AddressSanitizer and LeakSanitizer, against the sanitized
#                debug binary, the random series at full size (10,000 a run) and 100 mutated
#                inputs for the bounds (BoundedOutputTests). CI: the suites that read untrusted
#                input, 2,000 random series and 24 mutated inputs, against the release binary
#   tsan         the whole suite under ThreadSanitizer, the random series at CI's 2,000
#                (CI: none)
#   debug        what the sanitizers skip, against the plain debug binary: the tests that fix
#                the clock with libfaketime (it hangs a sanitized process as it starts), and what
#                each reader keeps over the corpus too (CI: the samples)
#   reproducible the Debian packages built twice from nothing in one place, compared byte for
#                byte (CI: built once)
#   docs         the DocC archive of every library product, and Examples/LibraryTour built and run
#   fuzz         every fuzz target for DEEP_FUZZ_SECONDS (default 600; CI: 30 each, debug)
#   instructions each conversion direction's instructions (callgrind) against those recorded in
#                Benchmarks/instructions.tsv: more than 5% more fails (CI: none)
#
# Each stage prints `deep stage NAME: N s` as it ends; the run ends with `deep total: N s`.
# A failing stage does not stop the others: every stage runs, the failures are listed at the
# end, and the exit status is 1 when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
STAGE_PREFIX=deep
source Scripts/stages.sh

all=(asan tsan debug reproducible docs fuzz instructions)
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${all[@]}")
for name in "${wanted[@]}"; do
    [[ " ${all[*]} " == *" $name "* ]] || { echo "deep-check: no stage $name (${all[*]})" >&2; exit 2; }
done
runs() { [[ " ${wanted[*]} " == *" $1 "* ]]; }

failed=()
# Runs a stage's commands in a subshell that stops at the first failure (not inside an `if`:
# there bash would ignore the subshell's set -e); records the failure.
run_stage() {
    local name=$1 status
    shift
    stage "$name"
    (set -e; "$@")
    status=$?
    if [ "$status" -ne 0 ]; then
        failed+=("$name")
        stage_end "failed, exit $status"
    fi
}

if [ "${DEEP_SKIP_PACKAGES:-0}" != 1 ]; then
    stage packages
    Scripts/ci-packages.sh || { echo "deep-check: the packages did not install" >&2; exit 1; }
fi
# The judges and servers must be there: a missing one fails its test instead of skipping it.
export CI=1
# The corpus the conformance suites read (fetched once into .corpus-cache/).
[ -d .corpus-cache ] || ../shared/corpus/fetch.sh .corpus-cache >/dev/null || true

# Not TASKCAL_BINARY: the binary built beside the tests, sanitized or not.
asan() {
    env -u TASKCAL_BINARY TASKCAL_RANDOM_SERIES=10000 TASKCAL_BOUNDED_CASES=100 \
        TASKCAL_JUDGE_ALL=1 Scripts/sanitizers.sh address
}
# The random series are drawn at CI's size: they are a conformance campaign, which asan runs in
# full; what a race needs is every path taken, not 8,000 more series through the Python peer.
tsan() { env -u TASKCAL_BINARY TASKCAL_RANDOM_SERIES=2000 Scripts/sanitizers.sh thread; }
debug() {
    env -u TASKCAL_BINARY TASKCAL_KEEPS_CORPUS=1 swift test --enable-all-traits \
        --filter "ReadmeTests|ReportCommandTests|ReaderKeepsTests"
}
fuzz() { FUZZ_TIMEOUT=30 FUZZ_PARALLEL=2 Fuzz/run.sh all "${DEEP_FUZZ_SECONDS:-600}"; }
reproducible() {
    local first second
    first=$(mktemp -d)
    second=$(mktemp -d)
    rm -rf .build-deep-release
    TASKCAL_BUILD_PATH=.build-deep-release Scripts/build-deb.sh "$first"
    rm -rf .build-deep-release
    TASKCAL_BUILD_PATH=.build-deep-release Scripts/build-deb.sh "$second"
    for deb in "$first"/*.deb; do
        cmp "$deb" "$second/$(basename "$deb")" ||
            { echo "deep-check: $(basename "$deb") differs between two builds of one commit" >&2; return 1; }
    done
    echo "deep-check: the Debian packages are reproducible ($(cd "$first" && ls))"
    rm -rf "$first" "$second" .build-deep-release
}
instructions() { Benchmarks/instructions.sh; }
docs() {
    for target in ICalendar TaskModel TaskConversion Reports Diary PostgresDiary CalDAV; do
        swift package --enable-all-traits generate-documentation --target "$target" >/dev/null
    done
    swift build --package-path Examples/LibraryTour
    Examples/LibraryTour/.build/debug/LibraryTour >/dev/null
}

for name in "${all[@]}"; do
    runs "$name" && run_stage "$name" "$name"
done
stage_end
if [ ${#failed[@]} -gt 0 ]; then
    echo "deep-check: failed: ${failed[*]}" >&2
    exit 1
fi
echo "deep-check: every stage passed: ${wanted[*]}"
