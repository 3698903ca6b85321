#!/usr/bin/env bash
# bench/compare-builds.sh OLD_BIN NEW_BIN [OLD_BUILD NEW_BUILD] - two builds side by side, on
# the same input, interleaved in one run (the machine is shared: a figure taken minutes apart
# measures the neighbours as much as the code). Per round each build runs, in turn (old then
# new, then new then old, so a drift of the load favours neither), the figures a change must keep:
#   - BUILD/bench/mczbench (bench/run.sh's benchmark, its library linked in): convert MB/s of
#     the default options, full decompression MB/s, random access p99 (wall and CPU);
#   - BIN/mcz-replay -j $REPLAY_JOBS (the verify replayer, as bench/replay.sh runs it) over
#     the archive that build's mcs -convert wrote: wall time.
# It prints the median of the rounds for each build and the ratio new/old, and whether the two
# builds' archives are byte-identical. A BUILD defaults to the directory beside its BIN named
# build (BIN=/tmp/a/bin: /tmp/a/build). Environment: CONTEXTS (20000, mchgen --seed 1 as
# bench/run.sh), ROUNDS (5), REPLAY_JOBS (2). Not a test: it measures.
#
#   make BUILD=/tmp/old/build BIN=/tmp/old/bin      (in the old tree)
#   make BUILD=/tmp/new/build BIN=/tmp/new/bin      (in the new tree)
#   bash bench/compare-builds.sh /tmp/old/bin /tmp/new/bin
set -euo pipefail
if [ $# -ne 2 ] && [ $# -ne 4 ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
absdir() { (cd "$1" && pwd); }
OLD_BIN=$(absdir "$1")
NEW_BIN=$(absdir "$2")
OLD_BUILD=$(absdir "${3:-$(dirname "$OLD_BIN")/build}")
NEW_BUILD=$(absdir "${4:-$(dirname "$NEW_BIN")/build}")
CONTEXTS=${CONTEXTS:-20000}
ROUNDS=${ROUNDS:-5}
REPLAY_JOBS=${REPLAY_JOBS:-2}
for f in "$OLD_BIN/mcs" "$OLD_BIN/mcz-replay" "$OLD_BUILD/bench/mczbench" \
         "$NEW_BIN/mcs" "$NEW_BIN/mcz-replay" "$NEW_BUILD/bench/mczbench" "$NEW_BIN/mchgen"; do
    [ -x "$f" ] || { echo "compare-builds: $f: not built" >&2; exit 2; }
done
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

echo "== corpus: mchgen --seed 1 --contexts $CONTEXTS (the new build's mchgen), $ROUNDS rounds"
"$NEW_BIN/mchgen" --seed 1 --contexts "$CONTEXTS" --out "$D/corpus.mch" >/dev/null
for b in old new; do
    bin=$OLD_BIN; [ "$b" = new ] && bin=$NEW_BIN
    "$bin/mcs" -convert "$D/corpus.mch" "$D/$b.mcz" >/dev/null
done
if cmp -s "$D/old.mcz" "$D/new.mcz"; then
    echo "archives (mcs -convert, default options): identical, $(stat -c %s "$D/new.mcz") bytes"
else
    echo "archives (mcs -convert, default options): DIFFER, old $(stat -c %s "$D/old.mcz")" \
         "bytes, new $(stat -c %s "$D/new.mcz") bytes"
fi
printf 'cores online %d, load average %s\n' "$(getconf _NPROCESSORS_ONLN)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"

# One round of build $1: its figures appended to $D/$1.FIGURE, one value a line.
FIGURES="convert_wall convert_cpu decode p99_wall p99_cpu replay"
round() {
    local b=$1 bin=$OLD_BIN build=$OLD_BUILD out t0 t1
    [ "$b" = new ] && bin=$NEW_BIN build=$NEW_BUILD
    out="$D/$b.mczbench"
    TMPDIR=$D "$build/bench/mczbench" "$D/corpus.mch" --sweep-mb 0 --no-cli --no-strong >"$out"
    # the first convert line is the default options'; the first random access line the default
    # layout's
    sed -n 's/.* convert \([0-9.]*\) MB\/s wall, \([0-9.]*\) MB per CPU-second.*/\1 \2/p' "$out" |
        head -1 >"$D/conv"
    read -r cw cc <"$D/conv"
    echo "$cw" >>"$D/$b.convert_wall"
    echo "$cc" >>"$D/$b.convert_cpu"
    sed -n 's/^full decompression.*: mcz \([0-9.]*\) MB\/s.*/\1/p' "$out" >>"$D/$b.decode"
    sed -n 's/^random access.* p99 \([0-9.]*\) ms wall; .* p99 \([0-9.]*\) ms CPU$/\1 \2/p' \
        "$out" >"$D/p99"
    read -r pw pc <"$D/p99"
    echo "$pw" >>"$D/$b.p99_wall"
    echo "$pc" >>"$D/$b.p99_cpu"
    t0=$(date +%s%N)
    "$bin/mcz-replay" -q -j "$REPLAY_JOBS" "$D/$b.mcz" >"$D/$b.replay.out"
    t1=$(date +%s%N)
    grep -qE "^Loaded $CONTEXTS  (Jitted|Verified) $CONTEXTS  (FailedCompile|Failed) 0" \
        "$D/$b.replay.out" || { echo "$b: mcz-replay: $(cat "$D/$b.replay.out")" >&2; exit 1; }
    echo $(( (t1 - t0) / 1000000 )) >>"$D/$b.replay"
    for f in $FIGURES; do
        [ -s "$D/$b.$f" ] || { echo "$b: no $f figure in $out:" >&2; cat "$out" >&2; exit 1; }
    done
}

for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for b in $order; do round "$b"; done
    printf '  round %d of %d done (%s)\n' "$r" "$ROUNDS" "$order"
done

median() {
    sort -g "$1" | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo
echo "== medians of $ROUNDS rounds (ratio new/old; for MB/s higher is better, for times lower)"
printf '  %-36s %12s %12s %8s\n' figure old new new/old
row() {
    local name=$1 f=$2 old new
    old=$(median "$D/old.$f")
    new=$(median "$D/new.$f")
    printf '  %-36s %12s %12s %8s\n' "$name" "$old" "$new" \
        "$(awk -v a="$new" -v b="$old" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')x"
}
row "convert, MB/s wall" convert_wall
row "convert, MB per CPU-second" convert_cpu
row "full decompression, MB/s (CPU)" decode
row "random access p99, ms wall" p99_wall
row "random access p99, ms CPU" p99_cpu
row "replay -j $REPLAY_JOBS (verify), ms wall" replay
