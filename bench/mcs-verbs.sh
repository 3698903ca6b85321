#!/usr/bin/env bash
# Times -removeDup, -merge -dedup and -strip on a generated 20000-context collection, reading
# the .mch file and reading its .mcz archive, side by side, into an .mch and into an .mcz
# output. Not a test: it prints figures.
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

# seconds VERB ARGS...: "WALL CPU" of one run (output discarded), each the best of 3. CPU time
# (user + system, threads included) is the steadier figure on a machine shared with other work.
seconds() {
    local best="" cpu="" t
    for _ in 1 2 3; do
        t=$( { TIMEFORMAT='%R %U %S'; time "$BIN/mcs" "$@" >/dev/null; } 2>&1 | tail -1)
        best=$(awk -v t="${t%% *}" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
        cpu=$(echo "$t" | awk -v b="$cpu" '{ c = $2 + $3; print (b == "" || c < b) ? c : b }')
    done
    printf '%.3f %.3f' "$best" "$cpu"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }'; }

printf 'collection: %s contexts, .mch %s bytes, .mcz %s bytes\n' "$N" \
    "$(stat -c %s "$W/a.mch")" "$(stat -c %s "$W/a.mcz")"
# table EXT: every verb into an .EXT output, reading the .mch and reading the .mcz.
table() {
    local out=$W/out.$1
    printf '%-28s %9s %9s %7s %9s %9s %7s\n' "verb (output .$1)" ".mch wall" ".mcz wall" \
        "mcz/mch" ".mch cpu" ".mcz cpu" "mcz/mch"
    # line LABEL "WALL CPU" "WALL CPU": one row.
    line() {
        local a=($2) b=($3)
        printf '%-28s %9s %9s %7.2f %9s %9s %7.2f\n' "$1" "${a[0]}" "${b[0]}" \
            "$(ratio "${b[0]}" "${a[0]}")" "${a[1]}" "${b[1]}" "$(ratio "${b[1]}" "${a[1]}")"
    }
    row() { line "$1" "$(seconds "${@:2}" "$W/a.mch" "$out")" "$(seconds "${@:2}" "$W/a.mcz" "$out")"; }
    row "-removeDup" -removeDup
    row "-removeDup -thin" -removeDup -thin
    row "-strip 1-1000" -strip 1-1000
    line "-merge -dedup (one file)" "$(seconds -merge "$out" "$W/mch" -dedup)" \
        "$(seconds -merge "$out" "$W/mcz" -dedup)"
}
table mch
# Into an archive, a chunk kept whole is copied from an archive input, not recompressed.
table mcz
