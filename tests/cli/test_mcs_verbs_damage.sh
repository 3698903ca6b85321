#!/usr/bin/env bash
# The printing and copying verbs on damaged input: each exits 1 (never crashes), names the
# file, the context and its offset, and leaves no output behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 7 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -toc "$T/a.mch" >/dev/null 2>&1 && "$M" -dumpToc "$T/a.mch.mct" >"$T/toc.txt"
rm -f "$T/a.mch.mct"

offset_of() { echo $((16#$(awk -v k="$1" 'NR == k { print $2 }' "$T/toc.txt"))); }
put_byte() {
    printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# no_output NAME FILE: nothing at FILE, nor a temporary beside it.
no_output() {
    if [ -e "$2" ] || ls -a "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.tmp"; then
        fail "$1"; else pass "$1"; fi
}

# verbs_fail LABEL FILE WHERE: every verb refuses FILE and names FILE and WHERE.
verbs_fail() {
    local label=$1 f=$2 where=$3 v
    for v in "-dump" "-dump -simple" "-dumpMap" "-ildump" "-jitflags"; do
        fail_run "$label: $v fails" "$M" $v "$f"
        contains "$label: $v names the context and offset" "$T/err" "$f: $where"
    done
    fail_run "$label: -stat fails" "$M" -stat "$f" "$T/out.csv"
    contains "$label: -stat names the context and offset" "$T/err" "$where"
    no_output "$label: -stat leaves no output" "$T/out.csv"
    for v in "-removeDup" "-removeDup -legacy" "-removeDup -thin" "-strip 1" "-copy -thin 1-$N"; do
        fail_run "$label: $v fails" "$M" $v "$f" "$T/out.mch"
        contains "$label: $v names the context and offset" "$T/err" "$where"
        no_output "$label: $v leaves no output" "$T/out.mch"
        fail_run "$label: $v into an archive fails" "$M" $v "$f" "$T/out.mcz"
        no_output "$label: $v leaves no archive" "$T/out.mcz"
    done
    fail_run "$label: -fracture fails" "$M" -fracture 100 "$f" "$T/piece"
    contains "$label: -fracture names the context and offset" "$T/err" "$where"
    if ls "$T" | grep -q "^piece\|^\.piece"; then fail "$label: -fracture leaves no piece"
    else pass "$label: -fracture leaves no piece"; fi
    mkdir -p "$T/tree"
    cp "$T/a.mch" "$T/tree/1.mch"
    cp "$f" "$T/tree/2.mch"
    for v in "" "-dedup" "-dedup -thin"; do
        fail_run "$label: -merge $v fails" "$M" -merge "$T/out.mch" "$T/tree" $v
        contains "$label: -merge $v names the context and offset" "$T/err" "$where"
        no_output "$label: -merge $v leaves no output" "$T/out.mch"
    done
    rm -rf "$T/tree"
}

size=$(stat -c %s "$T/a.mch")
head -c $((size - 10)) "$T/a.mch" >"$T/trunc.mch"
verbs_fail "truncated" "$T/trunc.mch" "context $N at offset"

# The first packet of context 200 claims more bytes than its context has: the container is
# intact, only the parse that every verb does finds it.
cp "$T/a.mch" "$T/packet.mch"
put_byte "$T/packet.mch" $(($(offset_of 200) + 6 + 1 + 3)) 127
verbs_fail "overrunning packet" "$T/packet.mch" "context 200 at offset"

# An archive holding that context: the verbs refuse it there too.
"$M" -convert "$T/packet.mch" "$T/packet.mcz" >/dev/null 2>&1
for v in "-dump" "-dumpMap" "-ildump" "-jitflags"; do
    fail_run "archive with a bad context: $v fails" "$M" $v "$T/packet.mcz"
    contains "archive with a bad context: $v names the context" "$T/err" "context 200"
done
for v in "-removeDup -legacy" "-strip 1"; do
    fail_run "archive with a bad context: $v fails" "$M" $v "$T/packet.mcz" "$T/out.mch"
    no_output "archive with a bad context: $v leaves no output" "$T/out.mch"
done

# A damaged archive: a flipped byte in the middle.
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null
asize=$(stat -c %s "$T/a.mcz")
cp "$T/a.mcz" "$T/flip.mcz"
b=$(od -An -tu1 -j $((asize / 2)) -N1 "$T/flip.mcz" | tr -d ' ')
put_byte "$T/flip.mcz" $((asize / 2)) $((b ^ 255))
for v in "-dump" "-dumpMap" "-jitflags"; do
    fail_run "flipped archive: $v fails" "$M" $v "$T/flip.mcz"
    contains "flipped archive: $v names the file" "$T/err" "$T/flip.mcz"
done
for v in "-removeDup" "-strip 1"; do
    fail_run "flipped archive: $v fails" "$M" $v "$T/flip.mcz" "$T/out.mch"
    no_output "flipped archive: $v leaves no output" "$T/out.mch"
done

# Empty and missing inputs.
: >"$T/empty.mch"
fail_run "empty input: -dump fails" "$M" -dump "$T/empty.mch"
fail_run "missing input: -removeDup fails" "$M" -removeDup "$T/none.mch" "$T/out.mch"
no_output "missing input: -removeDup leaves no output" "$T/out.mch"

cli_done
