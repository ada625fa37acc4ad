#!/usr/bin/env bash
# Scripts/install.sh [--uninstall] [PREFIX]
#
# Builds taskcal in release mode with both traits (CalDAV, PostgreSQL) and the Swift runtime and
# Foundation linked in (Scripts/release-build.sh: the installed binary needs no Swift toolchain
# where it runs, only Debian's libraries, starts in 15 ms instead of 22 and reads an .ics on two
# cores about 8% faster), and installs, under PREFIX (default /usr/local; ~/.local for one user):
#   PREFIX/bin/taskcal (stripped)
#   PREFIX/bin/.debug/taskcal.debug (its debug information, which gdb finds through the
#       binary's debug link: backtraces name functions)
#   PREFIX/share/man/man1/taskcal.1, taskcal.convert.1, … (generated from the command
#       definitions by swift-argument-parser's generate-manual tool: they match --help)
#   PREFIX/share/bash-completion/completions/taskcal
#   PREFIX/share/zsh/site-functions/_taskcal
#   PREFIX/share/fish/vendor_completions.d/taskcal.fish
#   PREFIX/share/taskcal/taskcal_Localization.resources (the Russian messages; without it,
#       taskcal speaks English)
# Man pages and completions are made in English (LC_ALL=C), whatever the installer's locale.
# --uninstall removes exactly those files. Needs what the build needs (README) and nothing else.
# TASKCAL_BUILD_PATH: the build folder (default .build-release; the debug build's .build is left
# alone).
set -euo pipefail
cd "$(dirname "$0")/.."

uninstall=false
if [ "${1:-}" = "--uninstall" ]; then
    uninstall=true
    shift
fi
prefix=${1:-${PREFIX:-/usr/local}}
bin="$prefix/bin"
man="$prefix/share/man/man1"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"
data_dir="$prefix/share/taskcal"

if $uninstall; then
    rm -f "$bin/taskcal" "$bin/.debug/taskcal.debug" "$man"/taskcal.*1 "$bash_dir/taskcal" \
        "$zsh_dir/_taskcal" "$fish_dir/taskcal.fish"
    rmdir "$bin/.debug" 2>/dev/null || true
    rm -rf "$data_dir/taskcal_Localization.resources"
    rmdir "$data_dir" 2>/dev/null || true
    echo "taskcal: removed from $prefix"
    exit 0
fi

scratch=${TASKCAL_BUILD_PATH:-.build-release}
export LC_ALL=C
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
built_dir=$(Scripts/release-build.sh "$scratch")
mkdir -p "$bin/.debug" "$man" "$bash_dir" "$zsh_dir" "$fish_dir" "$data_dir"
# The debug information apart (the binary is a quarter of the size without it), linked by name
# and checksum.
objcopy --only-keep-debug --compress-debug-sections "$built_dir/taskcal" "$work/taskcal.debug"
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
    -o "$work/taskcal" "$built_dir/taskcal"
(cd "$work" && objcopy --add-gnu-debuglink=taskcal.debug taskcal)
install -m 0644 "$work/taskcal.debug" "$bin/.debug/taskcal.debug"
install -m 0755 "$work/taskcal" "$bin/taskcal"
rm -rf "$data_dir/taskcal_Localization.resources"
cp -R "$built_dir/taskcal_Localization.resources" "$data_dir/"

# The pages come from swift-argument-parser's generate-manual tool run on the installed binary
# (what its package plugin does, without the plugin's debug build of every product first),
# mended by Scripts/man-pages.sh.
pages="$work/pages"
Scripts/man-pages.sh "$built_dir/generate-manual" "$bin/taskcal" "$pages"
install -m 0644 "$pages"/*.1 "$man/"
"$bin/taskcal" --generate-completion-script bash | sed '1{/^#!/d}' >"$bash_dir/taskcal"
"$bin/taskcal" --generate-completion-script zsh >"$zsh_dir/_taskcal"
"$bin/taskcal" --generate-completion-script fish >"$fish_dir/taskcal.fish"
echo "taskcal: installed $bin/taskcal, $(ls "$pages" | wc -l) man pages in $man, completions for bash, zsh and fish"
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "taskcal: $bin is not on PATH; add it to use taskcal by name" ;;
esac
