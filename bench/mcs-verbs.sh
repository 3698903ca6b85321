#!/usr/bin/env bash
# Times -removeDup, -merge -dedup and -strip on a generated 20000-context collection, reading
# the .mch file and reading its .mcz archive, side by side. Not a test: it prints figures.
#   BIN=build/bin bash bench/mcs-verbs.sh [CONTEXTS]
set -eu
BIN=$(cd "${BIN:-bin}" && pwd)
N=${1:-20000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

"$BIN/mchgen" --seed 1 --contexts "$N" --out "$W/a.mch" >/dev/null
"$BIN/mcs" -convert "$W/a.mch" "$W/a.mcz" >/dev/null
mkdir "$W/mch" "$W/mcz"
cp "$W/a.mch" "$W/mch/a.mch"
cp "$W/a.mcz" "$W/mcz/a.mcz"

# seconds VERB ARGS...: wall time of one run (output discarded), best of 3.
seconds() {
    local best="" t
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$BIN/mcs" "$@" >/dev/null
        end=$(date +%s.%N)
        t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
        if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
    done
    printf '%.3f' "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }'; }

printf 'collection: %s contexts, .mch %s bytes, .mcz %s bytes\n' "$N" \
    "$(stat -c %s "$W/a.mch")" "$(stat -c %s "$W/a.mcz")"
printf '%-34s %10s %10s %8s\n' "verb (output .mch)" ".mch in s" ".mcz in s" "mcz/mch"
row() {
    local label=$1 a b
    a=$(seconds "${@:2}" "$W/a.mch" "$W/out.mch")
    b=$(seconds "${@:2}" "$W/a.mcz" "$W/out.mch")
    printf '%-34s %10s %10s %8.2f\n' "$label" "$a" "$b" "$(ratio "$b" "$a")"
}
row "-removeDup" -removeDup
row "-removeDup -thin" -removeDup -thin
row "-strip 1-1000" -strip 1-1000
a=$(seconds -merge "$W/out.mch" "$W/mch" -dedup)
b=$(seconds -merge "$W/out.mch" "$W/mcz" -dedup)
printf '%-34s %10s %10s %8.2f\n' "-merge -dedup (one file)" "$a" "$b" "$(ratio "$b" "$a")"
