#!/usr/bin/env bash
# The test suite under a sanitizer: every test target, the taskcal binary the end-to-end tests
# run included, built with AddressSanitizer (and LeakSanitizer) or ThreadSanitizer, in a build
# folder of its own (.build-asan, .build-tsan).
#
#   Scripts/sanitizers.sh address [FILTER]   # memory errors and leaks
#   Scripts/sanitizers.sh thread [FILTER]    # data races
#
# FILTER is `swift test --filter`'s regular expression; without it the whole suite runs (about
# 45 minutes for either on two cores, after a 6-minute build). CI runs the suites of untrusted
# input under address (.ci/run names them); Scripts/deep-check.sh runs the whole suite under
# both (docs/development.md). A report fails the run: in a taskcal process the tests start, as
# its exit status (ASan and LSan 1 or 23, TSan 66); in the test process, the same.
#
# SANITIZE_IN=.build (CI): instead, taskcal's own Swift code in the finished debug build in
# that folder is compiled again with the sanitizer (TASKCAL_SANITIZE_OWN: Package.swift adds
# -sanitize=KIND to its own targets), and the dependencies and the C targets are left as they
# were built, not instrumented: SwiftNIO, PostgresNIO, BoringSSL's thousand files, the libical
# look-ups. A fraction of the build of a folder of its own (457 s on two cores), which
# recompiles everything, C included; the folder's build is sanitized from then on. What it
# leaves out, the dependencies' and the C code's instrumented checks, the deep check's build
# of its own covers.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:?usage: Scripts/sanitizers.sh address|thread [FILTER]}
filter=${2:-}
case "$kind" in
address) folder=.build-asan ;;
thread) folder=.build-tsan ;;
*)
    echo "Scripts/sanitizers.sh: the sanitizer is address or thread, not $kind" >&2
    exit 2
    ;;
esac

# Leaks of the toolchain's libraries and of the test harness, each named with why.
export LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan-suppressions.txt:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
# The tests leave out what needs libfaketime: it and the sanitizer's runtime both hook
# clock_gettime as a process starts, and the process hangs there (ReadmeTests' examples with
# a fixed "today", ReportCommandTests' month of today).
export TASKCAL_SANITIZER="$kind"
# A race report ends the process that found it, so that no test can pass over one.
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$PWD/Scripts/tsan-suppressions.txt"

how=(--sanitize="$kind")
if [ -n "${SANITIZE_IN:-}" ]; then
    folder=$SANITIZE_IN
    how=()
    export TASKCAL_SANITIZE_OWN="$kind"
fi
log=$(mktemp)
if ! swift build --build-tests --enable-all-traits "${how[@]}" --scratch-path "$folder" \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
rm -f "$log"
swift test --skip-build --enable-all-traits "${how[@]}" --scratch-path "$folder" \
    ${filter:+--filter "$filter"}
