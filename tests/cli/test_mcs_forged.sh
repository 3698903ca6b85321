#!/usr/bin/env bash
# Archives damaged behind consistent checksums (tests/collector/reseal rewrites bytes, then the
# footer's checksums): only the checks beyond the checksums see the change, and every path
# sees it. A chunk-copying verb compares a chunk's header with its index entry as -export does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
RESEAL=$(cd "${BUILD:-build}" && pwd)/tests/reseal
RAW_INDEX=$(cd "${BUILD:-build}" && pwd)/tests/raw_index
N=40

# The index rewritten raw (writers compress it, FORMAT.md §5), so its entries lie in the file.
"$BIN/mchgen" --seed 5 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 &&
    "$M" -convert --chunk-size 64K "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 &&
    "$RAW_INDEX" "$T/a.mcz" ||
    fail "mchgen and -convert write a collection and its archive, raw_index makes its index raw"

# le64 FILE POS: the u64 at POS.
le64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }
size=$(stat -c %s "$T/a.mcz")
index=$(le64 "$T/a.mcz" $((size - 40))) # the footer's index offset (FORMAT.md §6)
# entry K FIELD: file offset of field FIELD of chunk K's index entry (from 0; FORMAT.md §5).
entry() { echo $((index + 36 + 32 * $1 + $2)); }
chunk1=$(le64 "$T/a.mcz" "$(entry 1 0)")

# no_output NAME FILE: nothing at FILE, nor a temporary beside it.
no_output() {
    if [ -e "$2" ] || ls -a "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.tmp"; then
        fail "$1"; else pass "$1"; fi
}

# ---- The checker: reseal's archive opens, so its checksums agree ----
cp "$T/a.mcz" "$T/same.mcz"
"$RESEAL" "$T/same.mcz" "$(entry 1 24)" "$(od -An -tu1 -j "$(entry 1 24)" -N1 "$T/a.mcz")"
same "reseal with the same byte changes nothing" "$T/a.mcz" "$T/same.mcz"

# ---- Chunk 1's raw checksum in the index is wrong; the chunk itself is intact ----
cp "$T/a.mcz" "$T/sum.mcz"
b=$(od -An -tu1 -j "$(entry 1 24)" -N1 "$T/a.mcz" | tr -d ' ')
"$RESEAL" "$T/sum.mcz" "$(entry 1 24)" $((b ^ 1))
ok_run "wrong index checksum: the archive still opens" "$M" -info "$T/sum.mcz"
fail_run "wrong index checksum: -export fails" "$M" -export "$T/sum.mcz" "$T/out.mch"
contains "wrong index checksum: -export names chunk 1 at its offset" "$T/err" \
    "at offset $chunk1: chunk 1: its header disagrees with the index"
cp "$T/err" "$T/export.err"
for args in "-copy 1-$N @ $T/out.mcz" "-strip 1 @ $T/out.mcz" "-merge $T/out.mcz @" \
    "-concat $T/out.mcz @"; do
    set -- ${args//@/$T/sum.mcz}
    rm -f "$T/out.mcz"
    [ "$1" = -concat ] && cp "$T/a.mcz" "$T/out.mcz"
    fail_run "wrong index checksum: $1 into an archive fails" "$M" "$@"
    same "wrong index checksum: $1 says what -export says" "$T/export.err" "$T/err"
    if [ "$1" = -concat ]; then same "wrong index checksum: -concat leaves its target" \
        "$T/a.mcz" "$T/out.mcz"
    else no_output "wrong index checksum: $1 leaves no output" "$T/out.mcz"; fi
done

# ---- Hostile values in the index and footer are quoted as values, never as locations ----
# located NAME AT: the error names the file at offset AT (the bad field's entry), and no
# offset outside the file.
located() {
    grep -q "^mcs: $T/f.mcz: .*at offset $2: " "$T/err" && pass "$1: names the file at offset $2" ||
        { fail "$1: names the file at offset $2"; sed 's/^/    /' "$T/err"; }
    local n bad=0
    for n in $(grep -o 'at offset [0-9]*' "$T/err" | awk '{ print $3 }'); do
        [ "$n" -lt "$size" ] || bad=1
    done
    [ $bad -eq 0 ] && pass "$1: no location outside the file" ||
        fail "$1: no location outside the file"
}
# forged NAME AT POS BYTE...: a copy of the archive with the bytes at POS, resealed, refused by
# -info, -verify and -copy alike, at AT.
forged() {
    local name=$1 at=$2 pos=$3; shift 3
    cp "$T/a.mcz" "$T/f.mcz"
    "$RESEAL" "$T/f.mcz" "$pos" "$@"
    for verb in -info -verify; do
        fail_run "$name: $verb fails" "$M" $verb "$T/f.mcz"
        located "$name: $verb" "$at"
    done
    fail_run "$name: -copy fails" "$M" -copy 1-$N "$T/f.mcz" "$T/out.mcz"
    located "$name: -copy" "$at"
}
huge="0 0 0 0 0 0 0 64" # 2^62, little-endian
forged "a footer index offset of 2^62" $((size - 40)) $((size - 40)) $huge
contains "a footer index offset of 2^62: quoted as a value" "$T/err" "offset 4611686018427387904,"
forged "a chunk offset of 2^62" "$(entry 1 0)" "$(entry 1 0)" $huge
contains "a chunk offset of 2^62: quoted as a value" "$T/err" "at 4611686018427387904)"
forged "a chunk stored size of 2^31" "$(entry 0 0)" "$(entry 0 8)" 0 0 0 128
k=$(od -An -tu4 -j $((size - 16)) -N4 "$T/a.mcz" | tr -d ' ') # K, chunks (footer)
column=$((index + 36 + 32 * k + 4 * 3)) # context 4's entry in the offset column
forged "a context offset of 2^31" $column $column 0 0 0 128
contains "a context offset of 2^31: names context 4" "$T/err" "context 4 at offset $column"

cli_done
