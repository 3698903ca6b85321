#!/usr/bin/env bash
# bench/collect-sim.sh BIN BUILD [collect-sim options] - the collector simulation (`make
# collect-sim`) on a generated collection: mchgen --seed 3 --contexts 5000 (55 MiB), made once
# into BUILD/bench/data/. Options go to BUILD/bench/collect-sim, e.g. a long rolling run:
#   bench/collect-sim.sh bin build --modes rolling --seconds 300 --every 30
# Not a test: it measures.
set -eu
BIN=${1:-bin}
BUILD=${2:-build}
shift $(($# < 2 ? $# : 2))
data="$BUILD/bench/data"
mkdir -p "$data"
source="$data/seed3-5000.mch"
[ -s "$source" ] || "$BIN/mchgen" --seed 3 --contexts 5000 --out "$source" >/dev/null
exec "$BUILD/bench/collect-sim" "$source" --dir "$data" "$@"
