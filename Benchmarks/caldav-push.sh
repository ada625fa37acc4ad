#!/usr/bin/env bash
# A push run again costs next to nothing: N records pushed to a Radicale started here, the
# same push again, then again with one record changed, timed in one run, the PUTs of each
# counted on the server's side (radicale_server.py --log-writes).
#
#   Benchmarks/caldav-push.sh [N]           (default N = 1000 records; Radicale from PyPI)
#   TASKCAL=path Benchmarks/caldav-push.sh  (a taskcal built with the CalDAV trait; default:
#                                            a release build with every trait, made here)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
WORK=$(mktemp -d /tmp/taskcal-push-bench.XXXXXX)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
if [ -z "${TASKCAL:-}" ]; then
    swift build -c release --enable-all-traits --product taskcal >/dev/null
    TASKCAL=$(swift build -c release --enable-all-traits --show-bin-path)/taskcal
fi
python3 Benchmarks/generate.py "$N" >"$WORK/tasks.ndjson"
echo "anna:bench" >"$WORK/htpasswd"
printf 'machine 127.0.0.1 login anna password bench\n' >"$WORK/netrc"
chmod 600 "$WORK/netrc"
python3 Tests/EndToEndTests/Fixtures/radicale_server.py "$WORK/server" "$WORK/htpasswd" \
    --log-writes "$WORK/writes.log" >"$WORK/port" 2>"$WORK/server.log" &
server=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$WORK/port")/anna/bench/"
export NETRC="$WORK/netrc" XDG_STATE_HOME="$WORK/state"
"$TASKCAL" caldav mkcal "$url" 2>/dev/null
puts() { if [ -f "$WORK/writes.log" ]; then wc -l <"$WORK/writes.log"; else echo 0; fi; }
push() { # label: one push of tasks.ndjson, a table row; the report line on stderr
    local before start end
    before=$(puts)
    start=$(date +%s.%N)
    "$TASKCAL" caldav push "$WORK/tasks.ndjson" "$url" --uid-namespace bench 2>"$WORK/err" \
        || { cat "$WORK/err" >&2; exit 1; }
    end=$(date +%s.%N)
    last=$(python3 -c "print(f'{$end - $start:.2f}')")
    echo "| $1 | $last s | $(($(puts) - before)) | $(tail -1 "$WORK/err" | sed 's/.*: //') |"
}
echo "| push of $N records to Radicale | time | PUTs | report |"
echo "|---|---|---|---|"
push "first"
first=$last
push "the same again"
again=$last
# One record renamed.
python3 - "$WORK/tasks.ndjson" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
record = json.loads(lines[0]); record["name"] += " (changed)"; lines[0] = json.dumps(record, ensure_ascii=False)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
push "one record changed"
# What a push cut short (or run from another machine) meets: no record of pushes, so the
# server's copies are read (calendar-multiget) and compared as records.
rm -rf "$WORK/state"
push "the same, without the record of pushes"
echo
python3 -c "print(f'the same again / first: {$again / $first:.3f}; without the record: {$last / $first:.3f}')"
