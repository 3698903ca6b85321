#!/usr/bin/env bash
# bench/replay.sh - mcz-replay with the verify replayer on a generated corpus (fixed seed):
#   1. wall time with -j 1 and -j 2 (chunk sharding, dynamic hand-out): the speedup;
#   2. against SuperPMI's stride/offset sharding (hidden --stride: each worker walks and
#      decompresses every chunk and replays every N-th context): bytes read and decompressed
#      per worker, and the wall-time ratio;
#   3. -j 1 against -j 2 with a replayer as costly as a JIT (the test plugin, 200 us a context);
#   4. --exec with a stand-in command that costs 50 ms to start (as superpmi loading a JIT):
#      wall time per --exec-batch rule (bytes of contexts per command start).
# Not a test: it prints figures. Usage: bash bench/replay.sh [BIN] [CONTEXTS]
set -euo pipefail
BIN=$(cd "${1:-bin}" && pwd)
CONTEXTS=${2:-20000}
RUNS=${RUNS:-5}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

echo "== corpus: mchgen --seed 42 --contexts $CONTEXTS, mcs -convert (default options)"
"$BIN/mchgen" --seed 42 --contexts "$CONTEXTS" --out "$D/corpus.mch" >/dev/null
"$BIN/mcs" -convert "$D/corpus.mch" "$D/corpus.mcz" >/dev/null
printf '%s: %d bytes; %s: %d bytes; %d cores online; load average %s\n' corpus.mch "$(stat -c %s "$D/corpus.mch")" \
    corpus.mcz "$(stat -c %s "$D/corpus.mcz")" "$(getconf _NPROCESSORS_ONLN)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" # wall-time ratios need idle cores

# fastest N CMD...: the fastest of N runs of CMD, in milliseconds.
fastest() {
    local n=$1 best= t0 t1 ms; shift
    for _ in $(seq 1 "$n"); do
        t0=$(date +%s%N)
        "$@"
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}

# expect NAME FILE CONTEXTS: the run's summary says every context passed.
expect() {
    grep -qE "^Loaded $3  (Jitted|Verified) $3  (FailedCompile|Failed) 0" "$2" ||
        { echo "$1: unexpected result: $(cat "$2")"; exit 1; }
}

# replay_stats NAME ARGS...: one verify run, its summary in NAME.out and stats in NAME.stats.
replay_stats() {
    local name=$1; shift
    "$BIN/mcz-replay" -q --stats "$@" "$D/corpus.mcz" >"$D/$name.out" 2>"$D/$name.stats"
}
# best_of NAME ARGS...: the fastest of $RUNS of those, in milliseconds; the last run's files kept.
best_of() {
    local ms
    ms=$(fastest "$RUNS" replay_stats "$@")
    expect "$1" "$D/$1.out" "$CONTEXTS"
    echo "$ms"
}

ms_j1=$(best_of j1 -j 1)
ms_j2=$(best_of j2 -j 2)
ms_stride=$(best_of stride -j 2 --stride)

# The machine's own ceiling for this work: two independent -j 1 runs at once, against one alone.
# Decompression streams through memory, so two cores sharing caches and memory bandwidth may do
# less than twice the work of one; -j 2 cannot beat that.
replay_pair() {
    "$BIN/mcz-replay" -q -j 1 "$D/corpus.mcz" >/dev/null &
    "$BIN/mcz-replay" -q -j 1 "$D/corpus.mcz" >/dev/null
    wait
}
ms_pair=$(fastest "$RUNS" replay_pair)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "== wall time, verify replayer, best of $RUNS"
printf '  -j 1 (chunk sharding)          %6d ms\n' "$ms_j1"
printf '  -j 2 (chunk sharding)          %6d ms   speedup over -j 1: %sx (target >= 1.8x on 2 cores)\n' \
    "$ms_j2" "$(ratio "$ms_j1" "$ms_j2")"
printf '  two -j 1 runs at once           %6d ms   machine ceiling for -j 2: %sx (2 x one run / the pair)\n' \
    "$ms_pair" "$(ratio $((2 * ms_j1)) "$ms_pair")"
printf '  -j 2 --stride (SuperPMI-style) %6d ms   stride / chunk wall time: %sx\n' \
    "$ms_stride" "$(ratio "$ms_stride" "$ms_j2")"
echo
echo "== per worker, -j 2 chunk sharding"
sed 's/^/  /' "$D/j2.stats"
echo "== per worker, -j 2 stride/offset sharding"
sed 's/^/  /' "$D/stride.stats"
sum() { awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) } END { print s + 0 }' "$1"; }
chunk_dec=$(sum "$D/j2.stats" bytes-decompressed)
stride_dec=$(sum "$D/stride.stats" bytes-decompressed)
chunk_read=$(sum "$D/j2.stats" bytes-read)
stride_read=$(sum "$D/stride.stats" bytes-read)
echo
echo "== totals over both workers"
printf '  bytes read:         chunk %d, stride %d (%sx)\n' "$chunk_read" "$stride_read" \
    "$(ratio "$stride_read" "$chunk_read")"
printf '  bytes decompressed: chunk %d, stride %d (%sx)\n' "$chunk_dec" "$stride_dec" \
    "$(ratio "$stride_dec" "$chunk_dec")"

# A replayer that costs what a JIT costs: the test plugin keeps the CPU busy 200 us per context
# (contexts 1-5000, or all of a smaller corpus; 1 s of work), so the driver's own overhead is
# what remains of the gap to 2x.
SPIN=$(( CONTEXTS < 5000 ? CONTEXTS : 5000 ))
PLUGIN_SRC="$(dirname "$0")/../parallel-replay/plugins/replay_test_plugin.c"
cc -std=c11 -O2 -shared -fPIC -I"$(dirname "$0")/../parallel-replay" -o "$D/tp.so" "$PLUGIN_SRC"
replay_plugin() {
    "$BIN/mcz-replay" -q -j "$1" --plugin "$D/tp.so" --plugin-arg spin:200 -c "1-$SPIN" \
        "$D/corpus.mcz" >"$D/plugin.out"
}
best_plugin() {
    local ms
    ms=$(fastest 3 replay_plugin "$1")
    expect plugin "$D/plugin.out" "$SPIN"
    echo "$ms"
}
ms_p1=$(best_plugin 1)
ms_p2=$(best_plugin 2)
echo
echo "== wall time, a JIT-like replayer (200 us of CPU per context, contexts 1-$SPIN), best of 3"
printf '  -j 1 %6d ms, -j 2 %6d ms: speedup %sx\n' "$ms_p1" "$ms_p2" "$(ratio "$ms_p1" "$ms_p2")"

# --exec: every command start costs what loading a JIT costs (a stand-in sleeping 50 ms, then
# passing every context); how much each start is handed decides how often that is paid.
printf '#!/bin/sh\nsleep 0.05\nexit 0\n' > "$D/start50.sh"
chmod +x "$D/start50.sh"
replay_exec() {
    "$BIN/mcz-replay" -q -j 2 --exec-batch "$1" --exec "$D/start50.sh" "$D/corpus.mcz" >"$D/exec.out"
}
echo
echo "== wall time, --exec with a 50 ms start per command, -j 2, best of 3"
for batch in 0 1M 4M 16M 64M; do
    ms=$(fastest 3 replay_exec "$batch")
    expect exec "$D/exec.out" "$CONTEXTS"
    printf '  --exec-batch %-4s %6d ms\n' "$batch" "$ms"
done
