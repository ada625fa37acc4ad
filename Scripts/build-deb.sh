#!/usr/bin/env bash
# Scripts/build-deb.sh [OUTDIR]
#
# Builds the Debian packages of taskcal from this checkout, into OUTDIR (default: the current
# folder):
#   taskcal_VERSION_ARCH.deb          /usr/bin/taskcal (stripped; with CalDAV and PostgreSQL),
#                                     man pages, bash, zsh and fish completions, the Russian
#                                     catalogue, the copyright file and the changelog
#   taskcal-dbgsym_VERSION_ARCH.deb   the debug symbols, /usr/lib/debug/.build-id/XX/YYYY.debug,
#                                     which gdb, eu-stack and debuginfod find by the binary's
#                                     build id: install it and a backtrace names its functions
#
# The build is the release build Scripts/install.sh makes (Scripts/release-build.sh: both traits,
# the Swift runtime and Foundation linked in, no Swift toolchain needed where it runs, the paths
# of this checkout mapped to /usr/src/taskcal in the debug information). `Depends` comes from the
# binary (dpkg-shlibdeps). Reproducible: two builds from one commit with one SOURCE_DATE_EPOCH
# (default: the last commit's time) give byte-identical packages, wherever the checkout lies.
#
# Needs what the build needs (README), and dpkg-dev, binutils (objcopy, strip) and gzip.
# TASKCAL_BUILD_PATH: the build folder (default .build-release).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

out=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
version=$(sed -n 's/.*static let version = "taskcal \([0-9][^"]*\)".*/\1/p' \
    Sources/taskcal/TaskcalCommand.swift)
[ -n "$version" ] || { echo "build-deb: no version in TaskcalCommand.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export LC_ALL=C TZ=UTC
umask 022
scratch=${TASKCAL_BUILD_PATH:-.build-release}
case "$scratch" in /*) ;; *) scratch="$top/$scratch" ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- The build --------------------------------------------------------------------------------
built=$(Scripts/release-build.sh "$scratch")

# --- The files --------------------------------------------------------------------------------
root="$work/taskcal"
dbg="$work/taskcal-dbgsym"
doc="$root/usr/share/doc/taskcal"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$doc" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/taskcal"

# The binary without its debug information (as dh_strip does), the debug information apart,
# found by the build id.
build_id=$(readelf -n "$built/taskcal" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ ${#build_id} -ge 16 ] || { echo "build-deb: the binary has no build id" >&2; exit 1; }
debug_file="usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
mkdir -p "$dbg/DEBIAN" "$(dirname "$dbg/$debug_file")" "$dbg/usr/share/doc"
objcopy --only-keep-debug --compress-debug-sections "$built/taskcal" "$dbg/$debug_file"
chmod 0644 "$dbg/$debug_file"
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
    -o "$root/usr/bin/taskcal" "$built/taskcal"
chmod 0755 "$root/usr/bin/taskcal"
ln -s taskcal "$dbg/usr/share/doc/taskcal-dbgsym"

cp -R "$built/taskcal_Localization.resources" "$root/usr/share/taskcal/"
pages="$work/pages"
Scripts/man-pages.sh "$built/generate-manual" "$root/usr/bin/taskcal" "$pages"
for page in "$pages"/*.1; do
    gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
done
# A completion file is sourced, not run: no #! line (lintian: bash-completion-with-hashbang).
"$root/usr/bin/taskcal" --generate-completion-script bash | sed '1{/^#!/d}' \
    >"$root/usr/share/bash-completion/completions/taskcal"
"$root/usr/bin/taskcal" --generate-completion-script zsh \
    >"$root/usr/share/zsh/vendor-completions/_taskcal"
"$root/usr/bin/taskcal" --generate-completion-script fish \
    >"$root/usr/share/fish/vendor_completions.d/taskcal.fish"

Scripts/deb-copyright.sh "$scratch" >"$doc/copyright"
# The one lintian tag left on purpose, with its reason (docs/install.md, "The Debian package").
mkdir -p "$root/usr/share/lintian/overrides"
cat >"$root/usr/share/lintian/overrides/taskcal" <<'EOF'
# swift-nio-extras, which AsyncHTTPClient (the CalDAV client's HTTP library) uses to
# decompress responses, compiles its own copy of zlib into the binary, with hidden symbols;
# SwiftPM offers no way to link Debian's libz there instead. It is updated with the package.
taskcal: embedded-library zlib [usr/bin/taskcal]
EOF
date=$(date -u -d "@$SOURCE_DATE_EPOCH" -R)
{
    echo "taskcal ($version) unstable; urgency=medium"
    echo
    echo "  * taskcal $version, built from $(git rev-parse --short HEAD 2>/dev/null || echo a source tree)."
    echo "    The changes are the project's git history."
    echo
    echo " -- taskcal developers <taskcal@taskcal.invalid>  $date"
} | gzip -9n >"$doc/changelog.gz"

# --- The control files ------------------------------------------------------------------------
# dpkg-shlibdeps reads the packages' names from a debian/control beside it.
mkdir -p "$work/src/debian"
printf 'Source: taskcal\n\nPackage: taskcal\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/taskcal" 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size() { du -k -s --apparent-size --exclude=DEBIAN "$1" | cut -f1; }
cat >"$root/DEBIAN/control" <<EOF
Package: taskcal
Version: $version
Architecture: $arch
Maintainer: taskcal developers <taskcal@taskcal.invalid>
Installed-Size: $(size "$root")
Depends: $depends
Suggests: postgresql-client, libsecret-tools
Section: utils
Priority: optional
Description: convert task lists to iCalendar and back; a diary without double bookings
 taskcal moves diaries and task lists between a small JSON format and the
 calendar apps people use (Google Calendar, Apple Calendar, Outlook,
 Thunderbird), through libical: attachments, alarms, time zones, all-day
 events and recurrence go both ways, and nothing a calendar app exports is
 lost on the way back.
 .
 It keeps a diary (SQLite, a vdir folder, or a PostgreSQL server for a team)
 that refuses an entry overlapping another and names the one it meets,
 reports overlaps, free time and statistics, syncs with CalDAV servers, and
 speaks English and Russian.
EOF
cat >"$dbg/DEBIAN/control" <<EOF
Package: taskcal-dbgsym
Source: taskcal
Version: $version
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: taskcal developers <taskcal@taskcal.invalid>
Installed-Size: $(size "$dbg")
Depends: taskcal (= $version)
Section: debug
Priority: optional
Description: debug symbols for taskcal
Build-Ids: $build_id
EOF

# --- The packages -----------------------------------------------------------------------------
for tree in "$root" "$dbg"; do
    (cd "$tree" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z |
        xargs -0 md5sum >DEBIAN/md5sums)
    chmod 0644 "$tree/DEBIAN/control" "$tree/DEBIAN/md5sums"
    find "$tree" -type d -exec chmod 0755 {} +
    find "$tree" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +
done
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/taskcal_${version}_${arch}.deb" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$dbg" "$out/taskcal-dbgsym_${version}_${arch}.deb" \
    >/dev/null
echo "build-deb: $out/taskcal_${version}_${arch}.deb ($(du -h "$out/taskcal_${version}_${arch}.deb" | cut -f1)), $out/taskcal-dbgsym_${version}_${arch}.deb ($(du -h "$out/taskcal-dbgsym_${version}_${arch}.deb" | cut -f1))"
