#!/usr/bin/env bash
# bench/replay-rss.sh - mcz-replay's peak memory against the size of the collection: each run
# over a small and a large collection (e.g. 25,000 and 250,000 contexts, mchgen --seed 1) side
# by side, with
#   - /usr/bin/time -v's "Maximum resident set size": the largest of mcz-replay and the
#     processes it waited for (a worker, an --exec command), and
#   - the parent's own peak (VmHWM of /proc/PID/status, read every 20 ms while it runs: the
#     last reading before it exits), the figure the results table governs.
# Runs: the verify replayer; the test plugin (every context failing with a message) with
# --details and -f; --exec with the stand-in of today's superpmi (build/tests/spmi_today) with
# --details and -f. Not a test: it prints figures.
# Usage: bash bench/replay-rss.sh [BIN] [BUILD] SMALL LARGE   (collections: .mcz or .mch)
set -euo pipefail
BIN=$(cd "${1:-bin}" && pwd)
BUILD=$(cd "${2:-build}" && pwd)
SMALL=$3
LARGE=$4
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cc -std=c11 -shared -fPIC -I"$ROOT/parallel-replay" -o "$D/tp.so" \
    "$ROOT/parallel-replay/plugins/replay_test_plugin.c"
: > "$D/base.so"

# peak COLLECTION ARGS...: "TIME_KIB PARENT_KIB SECONDS" of one run
peak() {
    local input=$1 hwm=0 h pid t0 t1; shift
    t0=$(date +%s%N)
    /usr/bin/time -v -o "$D/time" "$BIN/mcz-replay" -q -j 2 "$@" "$input" > "$D/out" 2> "$D/err" &
    pid=$!
    local child=
    while kill -0 "$pid" 2>/dev/null; do
        [ -n "$child" ] || child=$(pgrep -P "$pid" -x mcz-replay | head -1 || true)
        if [ -n "$child" ]; then
            h=$(awk '/^VmHWM/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
            [ -n "$h" ] && hwm=$h
        fi
        sleep 0.02
    done
    wait "$pid" || true
    t1=$(date +%s%N)
    echo "$(awk -F': ' '/Maximum resident/ {print $2}' "$D/time") $hwm $(((t1 - t0) / 1000000))"
}

row() {
    local name=$1; shift
    local a b
    a=$(peak "$SMALL" "$@")
    b=$(peak "$LARGE" "$@")
    set -- $a $b
    printf '| %s | %d | %d | %d | %d | %.2fx | %.2fx | %d / %d |\n' "$name" \
        $(($1 / 1024)) $(($4 / 1024)) $(($2 / 1024)) $(($5 / 1024)) \
        "$(echo "$4 / $1" | bc -l)" "$(echo "$5 / $2" | bc -l)" "$3" "$6"
}

echo "small: $SMALL; large: $LARGE; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | time -v small MiB | large MiB | parent small MiB | large MiB | time -v ratio | parent ratio | wall ms small / large |"
echo "|---|---|---|---|---|---|---|---|"
row "verify" --stats
row "plugin, --details, -f" --plugin "$D/tp.so" --plugin-arg failall --details "$D/d.csv" \
    -f "$D/f.mcl"
row "--exec spmi_today, --details, -f" --exec "$BUILD/tests/spmi_today $D/base.so" \
    --details "$D/d.csv" -f "$D/f.mcl"
