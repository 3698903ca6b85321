#!/usr/bin/env bash
# bench/superpmi.sh - mcz-superpmi over an archive against superpmi over the same contexts as an
# .mch, both with -p 2 and superpmi.py's replay switches (-v ewi -f -details), the superpmi being
# the stand-in for today's superpmi (tests/collector/spmi_today.c) installed in a fake
# Core_Root. Figures: wall time (best of RUNS), the peak of the temporary files under a private
# TMPDIR (du, sampled every 50 ms), and the input's size on disk.
# Not a test: it prints figures. Usage: bash bench/superpmi.sh [BIN] [BUILD] [CONTEXTS]
# The stand-in's cost per context: STANDIN_SPIN_US microseconds of CPU (default 1000: a JIT
# compiles a method in about a millisecond); STANDIN_SLEEP_MS adds a wait; STANDIN_START_MS
# what each start costs (a process and a JIT load: tens of ms). MCH=FILE.mch MCZ=FILE.mcz
# replay those (linked, not copied: a large generated collection, say) instead of a corpus made here.
set -euo pipefail
BIN=$(cd "${1:-bin}" && pwd)
BUILD=$(cd "${2:-build}" && pwd)
CONTEXTS=${3:-20000}
RUNS=${RUNS:-3}
export STANDIN_SPIN_US=${STANDIN_SPIN_US:-1000}
SP=$BUILD/tests/spmi_today
[ -x "$SP" ] || { echo "bench/superpmi.sh: $SP is not built (make $SP)" >&2; exit 1; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

mkdir "$D/core" "$D/tmp"
cp "$SP" "$D/core/superpmi"
"$BIN/mcz-superpmi" --install "$D/core" >/dev/null
if [ -n "${MCH:-}" ] && [ -n "${MCZ:-}" ]; then
    echo "== corpus: $MCH and $MCZ"
    ln -s "$(realpath "$MCZ")" "$D/core/x.mch"
    ln -s "$(realpath "$MCH")" "$D/core/ref.mch"
else
    echo "== corpus: mchgen --seed 1 --contexts $CONTEXTS, mcs -convert (default options)"
    "$BIN/mchgen" --seed 1 --contexts "$CONTEXTS" --out "$D/corpus.mch" >/dev/null
    "$BIN/mcs" -convert "$D/corpus.mch" "$D/corpus.mcz" >/dev/null
    cp "$D/corpus.mcz" "$D/core/x.mch"
    mv "$D/corpus.mch" "$D/core/ref.mch"
    rm "$D/corpus.mcz"
fi
: >"$D/core/base.so"
export MCZ_REPLAY=${MCZ_REPLAY:-$BIN/mcz-replay}
printf 'ref.mch (the .mch): %d bytes; x.mch (the archive): %d bytes; %d cores online; load average %s\n' \
    "$(stat -L -c %s "$D/core/ref.mch")" "$(stat -L -c %s "$D/core/x.mch")" \
    "$(getconf _NPROCESSORS_ONLN)" "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "stand-in: STANDIN_SPIN_US=$STANDIN_SPIN_US of CPU per context, STANDIN_SLEEP_MS=${STANDIN_SLEEP_MS:-0}, STANDIN_START_MS=${STANDIN_START_MS:-0} per start"

# measure PROGRAM INPUT: one run from Core_Root; prints "MS PEAK_KB RC".
measure() {
    local prog=$1 input=$2 t0 t1 pid peak=0 kb rc
    rm -rf "$D/tmp"/* "$D/core/fail.mcl" "$D/core/d.csv"
    t0=$(date +%s%N)
    (cd "$D/core" && TMPDIR="$D/tmp" exec "$prog" -v ewi -p 2 -f fail.mcl -details d.csv \
        base.so "$input" >/dev/null 2>&1) &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        kb=$(du -sk "$D/tmp" 2>/dev/null | cut -f1) || true # (a directory may go mid-walk)
        [ "${kb:-0}" -gt "$peak" ] && peak=$kb
        sleep 0.05
    done
    set +e; wait "$pid"; rc=$?; set -e
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $peak $rc"
}

# rows CSV: the details rows (header excluded); 0 when there is no file.
rows() { if [ -s "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }

# best LABEL PROGRAM INPUT: the fastest of RUNS, the highest peak.
best() {
    local label=$1 ms=0 peak=0 rc r m p
    for _ in $(seq 1 "$RUNS"); do
        read -r m p r < <(measure "$2" "$3")
        { [ "$ms" -eq 0 ] || [ "$m" -lt "$ms" ]; } && ms=$m
        [ "$p" -gt "$peak" ] && peak=$p
        rc=$r
    done
    printf '%-44s %8d ms   peak temporary %8d KB   exit %d   rows %d\n' "$label" "$ms" "$peak" "$rc" \
        "$(rows "$D/core/d.csv")"
    echo "$ms $peak" >"$D/$label.fig"
}

best "superpmi -p 2 over the .mch" ./superpmi.real ref.mch
best "mcz-superpmi -p 2 over the archive" ./superpmi x.mch
read -r ms_ref _ <"$D/superpmi -p 2 over the .mch.fig"
read -r ms_mcz _ <"$D/mcz-superpmi -p 2 over the archive.fig"
awk -v a="$ms_mcz" -v b="$ms_ref" 'BEGIN { printf "wall time mcz-superpmi / superpmi: %.3f\n", a / b }'
