#!/usr/bin/env bash
# Every mcs verb and a verify replay at two sizes, side by side: wall time and peak RSS at
# SMALL and LARGE contexts, their ratio, and a linear projection of peak RSS to 2.5 M contexts
# (what one platform's whole set of collections holds). Not a test: it prints figures.
#   BIN=bin bash bench/fullsize.sh [SMALL.mch LARGE.mch]
# Without arguments it generates its own collections (mchgen --seed 1, SMALL=25000 and
# LARGE=250000 contexts: about 3.1 GB in WORK). Given two .mch files, it reads them in place
# (nothing is written beside them: the verbs that write next to their input get a symbolic
# link in WORK). WORK (default: a new directory under TMPDIR) needs room for one export of
# LARGE. Each run is measured once with /usr/bin/time; a verb's output is deleted before the
# next one runs. STREAMED=1 adds the reading verbs with the index's columns streamed
# whatever their size (MCZ_INDEX_STREAM_MIN=0: the per-context columns, lengths and hashes;
# format/FORMAT.md §5 "What a reader holds").
set -eu
BIN=$(cd "${BIN:-bin}" && pwd)
SMALL=${SMALL:-25000}
LARGE=${LARGE:-250000}
PROJECT=${PROJECT:-2500000}
W=$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/fullsize.XXXXXX")
trap 'rm -rf "$W"' EXIT

if [ $# -ge 2 ]; then
    ln -s "$(realpath "$1")" "$W/s.mch"
    ln -s "$(realpath "$2")" "$W/l.mch"
else
    "$BIN/mchgen" --seed 1 --contexts "$SMALL" --out "$W/s.mch" >/dev/null
    "$BIN/mchgen" --seed 1 --contexts "$LARGE" --out "$W/l.mch" >/dev/null
fi
n_of() { "$BIN/mcs" -info "$1" | awk '/^Contexts|contexts/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9,]+$/) { gsub(",", "", $i); print $i; exit } }'; }

# measure SIZE LABEL CMD...: runs CMD once and records "LABEL WALL_S PEAK_KIB" in SIZE.tsv.
measure() {
    local size=$1 label=$2
    shift 2
    if ! /usr/bin/time -f '%e %M' -o "$W/time" "$@" >"$W/out.txt" 2>"$W/err.txt"; then
        echo "fullsize: $label failed at $size contexts:" >&2
        tail -5 "$W/err.txt" >&2
        exit 1
    fi
    printf '%s\t%s\n' "$label" "$(tail -1 "$W/time")" >>"$W/$size.tsv"
    rm -rf "$W/out.mch" "$W/out.mcz" "$W/out.txt" "$W/"*.mct
}

# verbs SIZE: every verb over SIZE's collection (s or l).
verbs() {
    local s=$1 m=$W/$1.mch z=$W/$1.mcz n
    measure "$s" "convert" "$BIN/mcs" -convert "$m" "$z"
    n=$(n_of "$z")
    mkdir -p "$W/dir$s" && ln -sf "$z" "$W/dir$s/a.mcz"
    measure "$s" "info" "$BIN/mcs" -info "$z"
    measure "$s" "verify" "$BIN/mcs" -verify "$z"
    measure "$s" "dumpMap" "$BIN/mcs" -dumpMap "$z"
    measure "$s" "export" "$BIN/mcs" -export "$z" "$W/out.mch"
    measure "$s" "removeDup .mch>.mch" "$BIN/mcs" -removeDup "$m" "$W/out.mch"
    measure "$s" "removeDup .mcz>.mcz" "$BIN/mcs" -removeDup "$z" "$W/out.mcz"
    measure "$s" "merge -dedup .mcz>.mcz" "$BIN/mcs" -merge "$W/out.mcz" "$W/dir$s" -dedup
    measure "$s" "copy half .mcz>.mch" "$BIN/mcs" -copy "1-$((n / 2))" "$z" "$W/out.mch"
    measure "$s" "strip 1-1000 .mcz>.mcz" "$BIN/mcs" -strip 1-1000 "$z" "$W/out.mcz"
    measure "$s" "toc .mch" "$BIN/mcs" -toc "$m"
    measure "$s" "toc .mcz" "$BIN/mcs" -toc "$z"
    measure "$s" "mcz-replay -j 2 (verify)" "$BIN/mcz-replay" -q -j 2 "$z"
    if [ -n "${STREAMED:-}" ]; then
        local streamed=(env MCZ_INDEX_STREAM_MIN=0)
        measure "$s" "info (streamed)" "${streamed[@]}" "$BIN/mcs" -info "$z"
        measure "$s" "verify (streamed)" "${streamed[@]}" "$BIN/mcs" -verify "$z"
        measure "$s" "dumpMap (streamed)" "${streamed[@]}" "$BIN/mcs" -dumpMap "$z"
        measure "$s" "toc .mcz (streamed)" "${streamed[@]}" "$BIN/mcs" -toc "$z"
        measure "$s" "mcz-replay (streamed)" "${streamed[@]}" "$BIN/mcz-replay" -q -j 2 "$z"
    fi
    echo "$n" >"$W/$s.n"
}

verbs s
verbs l
ns=$(cat "$W/s.n") nl=$(cat "$W/l.n")
printf 'collections: %s and %s contexts (.mch %s and %s bytes; .mcz %s and %s bytes)\n' \
    "$ns" "$nl" "$(stat -L -c %s "$W/s.mch")" "$(stat -L -c %s "$W/l.mch")" \
    "$(stat -c %s "$W/s.mcz")" "$(stat -c %s "$W/l.mcz")"
printf 'peak RSS projected linearly from the two sizes to %s contexts\n\n' "$PROJECT"
printf '| verb | wall %s | wall %s | RSS %s (MiB) | RSS %s (MiB) | RSS ratio | B/context | RSS at %s (MiB) |\n' \
    "$ns" "$nl" "$ns" "$nl" "$PROJECT"
echo '|---|---|---|---|---|---|---|---|'
paste "$W/s.tsv" "$W/l.tsv" | awk -F'\t' -v ns="$ns" -v nl="$nl" -v np="$PROJECT" '{
    split($2, a, " "); split($4, b, " ")
    ra = a[2] / 1024; rb = b[2] / 1024
    per = (b[2] - a[2]) * 1024 / (nl - ns)
    if (per < 0) per = 0
    proj = rb + per * (np - nl) / 1048576
    printf "| %s | %.2f s | %.2f s | %.1f | %.1f | %.2fx | %.0f | %.0f |\n", $1, a[1], b[1], ra, rb, rb / ra, per, proj
}'
