#!/usr/bin/env bash
# Scripts/release-build.sh BUILD_PATH
#
# The release build Scripts/install.sh and Scripts/build-deb.sh install from: taskcal with both
# traits (CalDAV, PostgreSQL), the Swift runtime and Foundation linked in (--static-swift-stdlib:
# no Swift toolchain needed where it runs, 15 ms to start instead of 22), immediate binding
# (-z now, full RELRO) and C's buffer checks (_FORTIFY_SOURCE=2).
#
# Two builds in one place give the same binary, and where the checkout lies shows little (what
# is left is in docs/install.md): the paths of this checkout and of BUILD_PATH are written as
# /usr/src/taskcal in the debug information; #file is the module and file name in every
# module (ConciseMagicFile, as in Swift 6 mode: the dependencies in Swift 5 mode wrote the full
# path); no module keeps a .swift_modhash (a hash of its LLVM IR, paths included, kept only to
# skip code generation when nothing changed); and the debug information names no clang module
# (their cache's folders are hashes of the include paths, and a module's signature changes
# from one build to the next: LLDB reads the C types from the Swift modules instead).
#
# Also builds swift-argument-parser's generate-manual, for the man pages.
# Prints the folder the binaries are in; the build's own output goes to standard error only
# when it fails (static Foundation's link prints notes about mktemp on success).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
scratch=$1
case "$scratch" in /*) ;; *) scratch="$top/$scratch" ;; esac
flags=(-c release --static-swift-stdlib --traits CalDAV,PostgreSQL --scratch-path "$scratch"
    -Xswiftc -debug-prefix-map -Xswiftc "$scratch=/usr/src/taskcal/.build"
    -Xswiftc -debug-prefix-map -Xswiftc "$top=/usr/src/taskcal"
    -Xcc "-ffile-prefix-map=$scratch=/usr/src/taskcal/.build"
    -Xcc "-ffile-prefix-map=$top=/usr/src/taskcal"
    -Xswiftc -enable-upcoming-feature -Xswiftc ConciseMagicFile
    -Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen
    -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs
    -Xcc -D_FORTIFY_SOURCE=2 -Xlinker -z -Xlinker now)
# The executable exports only the symbols libical must reach (CLibicalLookups' look-ups, value
# writer and TEXT reader), not all 49,000 of its own: 5 MB less, and nothing else interposes on
# the libraries it loads.
# Both products are built with the same flags: with other linker flags for one, each build
# planned the other anew, and a second run on a finished build took 150 s instead of 3.
exports=(-Xlinker --no-export-dynamic)
for symbol in icalproperty_string_to_kind icalproperty_kind_to_string \
    icalproperty_kind_to_value_kind icalproperty_kind_is_valid icalvalue_kind_is_valid \
    icaltime_from_string icalvalue_as_ical_string_r icalvalue_new_from_string; do
    exports+=(-Xlinker "--export-dynamic-symbol=$symbol")
done
# SwiftPM plans the build anew, and links every product again (140 s of CPU here), when the
# environment differs from the last run's: CI's release stage, then InstallTests (under the
# test harness's SOURCE_DATE_EPOCH and TZ, and install.sh's LC_ALL=C), then build-deb.sh each
# relinked it. So the build always sees one environment: PATH, HOME and TMPDIR, nothing else
# (nothing in the build reads the rest).
build() {
    env -i PATH="$PATH" HOME="$HOME" ${TMPDIR:+TMPDIR="$TMPDIR"} swift build "$@"
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! build "${flags[@]}" "${exports[@]}" --product taskcal >"$log" 2>&1 ||
    ! build "${flags[@]}" "${exports[@]}" --product generate-manual >>"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
build "${flags[@]}" --show-bin-path
