#!/usr/bin/env bash
# Draws the README's pictures from Samples/ with taskcal itself: each report as SVG, then as
# PNG through rsvg-convert (Debian's librsvg2-bin). Run from anywhere:
#   Scripts/pictures.sh            (taskcal from `swift build`, pictures into docs/images/)
#   TASKCAL=taskcal Scripts/pictures.sh /tmp/pictures
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images}
taskcal=${TASKCAL:-}
if [ -z "$taskcal" ]; then
    swift build --product taskcal >/dev/null
    taskcal="$(swift build --show-bin-path)/taskcal"
fi
command -v rsvg-convert >/dev/null || { echo "pictures.sh: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 2; }
mkdir -p "$out"
export TZ=Europe/Berlin LANG=C.UTF-8
draw() {  # NAME, then the taskcal command that writes its SVG
    local name=$1
    shift
    "$taskcal" "$@" --format svg > "$out/$name.svg" || [ $? -eq 1 ]  # overlaps exits 1 when it finds some
    rsvg-convert --background-color white "$out/$name.svg" -o "$out/$name.png"
    rm "$out/$name.svg"
    echo "$out/$name.png"
}
draw stats stats Samples/tracker/habits.json --tz Europe/Berlin --from 2026-08-03 --to 2026-11-23
draw month month 2026-11 Samples/tracker/habits.json Samples/overlaps.json --tz Europe/Berlin
draw overlaps overlaps Samples/overlaps.json --tz Europe/Berlin
