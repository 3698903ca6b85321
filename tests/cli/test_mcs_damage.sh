#!/usr/bin/env bash
# mcs on damaged input: truncated files, flipped bytes in a context and in an archive, empty
# files, random bytes. Every verb must exit 1 (never crash), name the file and where the damage
# is, and leave no output file behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 7 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -toc "$T/a.mch" >/dev/null 2>&1 || fail "-toc of the good collection"
"$M" -dumpToc "$T/a.mch.mct" >"$T/toc.txt" || fail "-dumpToc of the good collection"
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null || fail "-convert of the good collection"
rm -f "$T/a.mch.mct" # the damaged copies below must not borrow the good table

# offset_of K: file offset of context K (from the good table of contents).
offset_of() { echo $((16#$(awk -v k="$1" 'NR == k { print $2 }' "$T/toc.txt"))); }

# put_byte FILE OFFSET VALUE: overwrite one byte (VALUE in decimal).
put_byte() {
    printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# get_byte FILE OFFSET: one byte, in decimal.
get_byte() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }

# flip FILE OFFSET: inverts one byte.
flip() { put_byte "$1" "$2" $(($(get_byte "$1" "$2") ^ 255)); }

# no_output NAME FILE: the failed run left nothing at FILE (nor a temporary beside it).
no_output() {
    if [ -e "$2" ] || ls -a "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.tmp"; then
        fail "$1"; else pass "$1"; fi
}

# every_verb_fails LABEL FILE [TEXT]: the reading verbs refuse FILE, naming it (and TEXT).
every_verb_fails() {
    local label=$1 f=$2 text=${3:-}
    fail_run "$label: -integ fails" "$M" -integ "$f"
    contains "$label: -integ names the file" "$T/err" "$f"
    [ -n "$text" ] && contains "$label: -integ says where" "$T/err" "$text"
    fail_run "$label: -convert fails" "$M" -convert "$f" "$T/out.mcz"
    no_output "$label: -convert leaves no output" "$T/out.mcz"
    fail_run "$label: -copy fails" "$M" -copy 1-$N "$f" "$T/out.mch"
    no_output "$label: -copy leaves no output" "$T/out.mch"
    fail_run "$label: -toc fails" "$M" -toc "$f"
    no_output "$label: -toc leaves no .mct" "$f.mct"
    fail_run "$label: -info fails" "$M" -info "$f"
    fail_run "$label: -verify fails" "$M" -verify "$f"
    fail_run "$label: -export fails" "$M" -export "$f" "$T/out.mch"
    no_output "$label: -export leaves no output" "$T/out.mch"
    cp "$T/a.mch" "$T/target.mch"
    fail_run "$label: -concat fails" "$M" -concat "$T/target.mch" "$f"
    same "$label: -concat restores its target" "$T/a.mch" "$T/target.mch"
    fail_run "$label: -concat onto a new file fails" "$M" -concat "$T/fresh.mch" "$f"
    no_output "$label: -concat removes the file it created" "$T/fresh.mch"
}

size=$(stat -c %s "$T/a.mch")

# Truncated: the last context loses its last 10 bytes.
head -c $((size - 10)) "$T/a.mch" >"$T/trunc.mch"
every_verb_fails "truncated .mch" "$T/trunc.mch" "context $N at offset"

# The end canary of context 150 is damaged: the container is bad.
cp "$T/a.mch" "$T/canary.mch"
flip "$T/canary.mch" $(($(offset_of 151) - 1))
every_verb_fails "bad end canary" "$T/canary.mch" "context 150 at offset"

# The first packet of context 200 claims more bytes than its context has: only a deep check
# (-integ, -verify) sees it, the container is intact.
cp "$T/a.mch" "$T/packet.mch"
put_byte "$T/packet.mch" $(($(offset_of 200) + 6 + 1 + 3)) 127
fail_run "overrunning packet: -integ fails" "$M" -integ "$T/packet.mch"
contains "overrunning packet: -integ names the context" "$T/err" "context 200 at offset"
contains "overrunning packet: -integ names the file" "$T/err" "$T/packet.mch"
fail_run "overrunning packet: -verify fails" "$M" -verify "$T/packet.mch"
fail_run "overrunning packet: -toc fails" "$M" -toc "$T/packet.mch"
no_output "overrunning packet: -toc leaves no .mct" "$T/packet.mch.mct"
# An archive holds such a context as it is (its writer checks containers); the deep checks
# still refuse it there.
ok_run "overrunning packet: -convert keeps the bytes" "$M" -convert "$T/packet.mch" "$T/packet.mcz"
fail_run "overrunning packet in an archive: -integ fails" "$M" -integ "$T/packet.mcz"
contains "overrunning packet in an archive: -integ names the context" "$T/err" "context 200"
# -toc on an archive reads only the index (the writer checked the container; -verify checks
# the packets), so it succeeds where the MCH's -toc failed.
ok_run "overrunning packet in an archive: -toc builds the table from the index" \
    "$M" -toc "$T/packet.mcz"
fail_run "overrunning packet in an archive: -verify fails" "$M" -verify "$T/packet.mcz"

# Empty file and random bytes.
: >"$T/empty.mch"
every_verb_fails "empty file" "$T/empty.mch"
seq 1 3000 | gzip -9 -n >"$T/random.mch"
every_verb_fails "random bytes" "$T/random.mch"
every_verb_fails "missing file" "$T/none.mch"

# Archives: a flipped byte in the middle, and a truncated archive.
asize=$(stat -c %s "$T/a.mcz")
cp "$T/a.mcz" "$T/flip.mcz"
flip "$T/flip.mcz" $((asize / 2))
fail_run "flipped archive: -verify fails" "$M" -verify "$T/flip.mcz"
contains "flipped archive: -verify names the file" "$T/err" "$T/flip.mcz"
fail_run "flipped archive: -export fails" "$M" -export "$T/flip.mcz" "$T/out.mch"
no_output "flipped archive: -export leaves no output" "$T/out.mch"
fail_run "flipped archive: -integ fails" "$M" -integ "$T/flip.mcz"
fail_run "flipped archive: -copy of everything fails" "$M" -copy 1-$N "$T/flip.mcz" "$T/out.mch"
no_output "flipped archive: -copy leaves no output" "$T/out.mch"
head -c $((asize - 1)) "$T/a.mcz" >"$T/cut.mcz"
fail_run "truncated archive: -info fails" "$M" -info "$T/cut.mcz"
fail_run "truncated archive: -verify fails" "$M" -verify "$T/cut.mcz"
fail_run "-recover of random bytes fails" "$M" -recover "$T/random.mch" "$T/rec.mcz"
no_output "-recover of random bytes leaves no output" "$T/rec.mcz"

# A damaged archive header is a damaged archive, not a broken MCH: told by what is left of the
# header (its magic, its tag), by the footer's end magic, or by the .mcz name.
header_damage() { # LABEL NAME OFFSET COUNT: COUNT bytes zeroed at OFFSET, the copy named NAME
    cp "$T/a.mcz" "$T/$2"
    head -c "$4" /dev/zero | dd of="$T/$2" bs=1 seek="$3" conv=notrunc status=none
    for verb in -verify -info -integ; do
        fail_run "$1: $verb fails" "$M" $verb "$T/$2"
        contains "$1: $verb says damaged archive" "$T/err" "$T/$2: at offset 0: damaged archive:"
        grep -q "expected 'mc'" "$T/err" && fail "$1: $verb does not call it an MCH" ||
            pass "$1: $verb does not call it an MCH"
    done
}
header_damage "archive magic zeroed" hm.mcz 0 4
header_damage "archive magic zeroed, not named .mcz" hm.bin 0 4
header_damage "archive tag zeroed" ht.bin 8 4
header_damage "archive header zeroed" hz.mcz 0 44
head -c 2000 "$T/hz.mcz" >"$T/hzc.mcz" # and cut short: only the name is left to go by
fail_run "archive header zeroed, cut short: -verify fails" "$M" -verify "$T/hzc.mcz"
contains "archive header zeroed, cut short: -verify says damaged archive" "$T/err" \
    "damaged archive: no footer"

# -concat onto an archive writes a new archive and replaces it whole; never onto junk.
cp "$T/a.mcz" "$T/target.mcz"
ok_run "-concat onto an archive" "$M" -concat "$T/target.mcz" "$T/a.mch"
cat "$T/a.mch" "$T/a.mch" >"$T/twice.mch"
ok_run "-concat onto an archive: export" "$M" -export "$T/target.mcz" "$T/target.mch"
same "-concat onto an archive holds both, in order" "$T/twice.mch" "$T/target.mch"
cp "$T/random.mch" "$T/junk.mch"
fail_run "-concat onto junk is refused" "$M" -concat "$T/junk.mch" "$T/a.mch"
same "-concat leaves junk alone" "$T/random.mch" "$T/junk.mch"
fail_run "-concat of a file onto itself is refused" "$M" -concat "$T/a.mch" "$T/a.mch"

# Outputs that cannot be created.
fail_run "-copy into a missing directory fails" "$M" -copy 1 "$T/a.mch" "$T/no/such/dir/x.mch"
contains "-copy names the output" "$T/err" "$T/no/such/dir/x.mch"
fail_run "-convert into a missing directory fails" "$M" -convert "$T/a.mch" "$T/no/x.mcz"
mkdir "$T/dir.mch"
fail_run "-concat onto a directory fails" "$M" -concat "$T/dir.mch" "$T/a.mch"

# Damaged tables of contents and lists.
"$M" -toc "$T/a.mch" >/dev/null 2>&1
head -c 100 "$T/a.mch.mct" >"$T/cut.mct"
fail_run "truncated .mct: -dumpToc fails" "$M" -dumpToc "$T/cut.mct"
: >"$T/empty.mct"
fail_run "empty .mct: -dumpToc fails" "$M" -dumpToc "$T/empty.mct"
printf '5\r\n3\r\n' >"$T/bad.mcl"
fail_run "decreasing .mcl: -copy fails" "$M" -copy "$T/bad.mcl" "$T/a.mch" "$T/out.mch"
no_output "decreasing .mcl: no output" "$T/out.mch"

cli_done
