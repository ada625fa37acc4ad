#!/usr/bin/env bash
# Scripts/man-pages.sh GENERATE_MANUAL TASKCAL OUTDIR
#
# A man page per command, from the command definitions (swift-argument-parser's generate-manual
# run on the built binary, so the pages say what --help says), in English, dated
# SOURCE_DATE_EPOCH (default: the last commit's time) so that a rebuild gives the same pages.
# generate-manual drops every character that is not ASCII (the en dash of 14:00–15:00, the
# Cyrillic of an example); so it reads the help through a filter that writes each as an ASCII
# token, which the pages then turn into groff's \[uXXXX]. Then mended where generate-manual's
# mdoc trips man-db and lintian:
#   - NAME holds the page's own name (taskcal.diary.add), which whatis and man -k read
#     (lexgrog cannot read a name with a space); the SYNOPSIS still shows the command as typed;
#   - a blank line between paragraphs becomes .Pp (a blank line is an mdoc error);
#   - no hyphenation (groff mdoc's doc-hyphen-flags): a path or option broken at a hyphen
#     cannot be copied.
# Used by Scripts/install.sh and Scripts/build-deb.sh.
set -euo pipefail
generate=$1
taskcal=$2
out=$3
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$(dirname "$0")" log -1 --format=%ct 2>/dev/null || date +%s)}
date=$(date -u -d "@$epoch" +%Y-%m-%d)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/taskcal" <<WRAPPER
#!/bin/sh
"$(realpath "$taskcal")" "\$@" | perl -CSD -pe 's/([^\\x00-\\x7F])/sprintf("UNICODE%04XEND", ord(\$1))/ge'
WRAPPER
chmod +x "$work/taskcal"
# In English, whatever the installer's locale.
LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE= "$generate" "$work/taskcal" --multi-page --date "$date" \
    --output-directory "$out" >/dev/null
for page in "$out"/*.1; do
    name=$(basename "$page" .1)
    command=${name//./ }
    awk -v name="$name" -v command="$command" '
        /^\.Sh NAME$/ { inName = 1; print; next }
        /^\.Sh / { inName = 0; inSynopsis = ($0 == ".Sh SYNOPSIS") }
        inName && /^\.Nm / { print ".Nm " name; next }
        inSynopsis && $0 == ".Nm" { print ".Nm \"" command "\""; inSynopsis = 0; next }
        /^$/ { print ".Pp"; next }
        # No hyphenation: a path or an option broken at a hyphen cannot be copied.
        /^\.Os/ { print; print ".nr doc-hyphen-flags 0"; next }
        { print }
    ' "$page" | perl -pe 's/UNICODE([0-9A-F]{4,6})END/\\[u$1]/g' | awk '
        # A line that starts with a space is an example: shown as it is written.
        /^ / && !inDisplay { print ".Bd -literal"; inDisplay = 1 }
        !/^ / && inDisplay { print ".Ed"; inDisplay = 0 }
        { print }
        END { if (inDisplay) print ".Ed" }
    ' >"$page.new"
    mv "$page.new" "$page"
done
