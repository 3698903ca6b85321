#!/usr/bin/env bash
# bench/run.sh BIN BUILD - the archive benchmark (`make bench`). Generates the corpus once with
# bin/mchgen (fixed seed; 20,000 contexts, and 10,000 to show that convert memory does not grow
# with the input), then runs BUILD/bench/mczbench, which prints every figure side by side.
# Not a test: it measures. Set MCZBENCH_ARGS to pass options (e.g. "--sweep-mb 0 --no-cli").
set -eu
BIN=${1:-bin}
BUILD=${2:-build}
data="$BUILD/bench/data"
mkdir -p "$data"
for n in 20000 10000; do
    out="$data/seed1-$n.mch"
    if [ ! -s "$out" ]; then
        "$BIN/mchgen" --seed 1 --contexts "$n" --out "$out.tmp"
        mv "$out.tmp" "$out"
    fi
done
# shellcheck disable=SC2086
exec "$BUILD/bench/mczbench" "$data/seed1-20000.mch" "$data/seed1-10000.mch" ${MCZBENCH_ARGS:-}
