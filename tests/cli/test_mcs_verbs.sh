#!/usr/bin/env bash
# The printing and copying verbs (-dump -dumpMap -ildump -stat -jitflags -removeDup -merge
# -strip -fracture -copy -thin -printJITEEVersion): an .mch file and its archive give the same
# result; the CSV verbs match golden outputs; contexts lacking packets do not stop them.
# Set MCS_GOLDEN_UPDATE=1 to rewrite the goldens (then read them before keeping them).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
G=$MCZ_ROOT/tests/cli/golden

"$BIN/mchgen" --seed 7 --contexts 300 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null || fail "-convert of the collection"

# ---- The same output from an .mch file and from its archive ----
for v in "-dump" "-dump -simple" "-dump 3-7,250" "-dumpMap" "-ildump" "-ildump 10-12" \
    "-jitflags"; do
    set -- $v
    verb=$1
    shift
    ok_run "$v on .mch" "$M" "$verb" "$@" "$T/a.mch"
    mv "$T/out" "$T/mch.txt"
    ok_run "$v on .mcz" "$M" "$verb" "$@" "$T/a.mcz"
    same "$v: .mch and .mcz print the same" "$T/mch.txt" "$T/out"
done
for f in a.mch a.mcz; do
    ok_run "-stat on $f" "$M" -stat "$T/$f" "$T/$f.csv"
    ok_run "-stat with a range on $f" "$M" -stat 2-4 "$T/$f" "$T/$f.part.csv"
done
same "-stat: .mch and .mcz write the same CSV" "$T/a.mch.csv" "$T/a.mcz.csv"
same "-stat with a range: the same CSV" "$T/a.mch.part.csv" "$T/a.mcz.part.csv"
[ "$(wc -l <"$T/a.mch.part.csv")" -eq 4 ] && pass "-stat 2-4 writes a header and 3 rows" ||
    fail "-stat 2-4 writes a header and 3 rows"

# Copying verbs: archives written from either input export to the same bytes.
# export_same NAME A B: two collections (.mch or .mcz) hold the same bytes.
export_same() {
    local a=$2 b=$3
    case $a in *.mcz) "$M" -export "$a" "$a.x.mch" >/dev/null && a=$a.x.mch ;; esac
    case $b in *.mcz) "$M" -export "$b" "$b.x.mch" >/dev/null && b=$b.x.mch ;; esac
    same "$1" "$a" "$b"
}
for args in "-removeDup" "-removeDup -legacy" "-removeDup -thin" "-strip 5-10,200" \
    "-strip 1-300" "-copy -thin 1-40"; do
    set -- $args
    verb=$1
    shift
    ok_run "$args .mch -> .mch" "$M" "$verb" "$@" "$T/a.mch" "$T/r1.mch"
    ok_run "$args .mcz -> .mch" "$M" "$verb" "$@" "$T/a.mcz" "$T/r2.mch"
    ok_run "$args .mcz -> .mcz" "$M" "$verb" "$@" "$T/a.mcz" "$T/r3.mcz"
    same "$args: .mch and .mcz inputs give the same file" "$T/r1.mch" "$T/r2.mch"
    export_same "$args: an .mcz output holds the same contexts" "$T/r1.mch" "$T/r3.mcz"
done

# -removeDup: the counts, and that the result has no duplicates left.
"$M" -removeDup "$T/a.mch" "$T/rd.mch" >"$T/rd.txt"
contains "-removeDup reports its counts" "$T/rd.txt" "Loaded 300, Saved "
ok_run "-removeDup of its own output" "$M" -removeDup "$T/rd.mch" "$T/rd2.mch"
same "-removeDup leaves nothing more to remove" "$T/rd.mch" "$T/rd2.mch"
saved=$(sed -n 's/^Loaded 300, Saved \([0-9]*\)$/\1/p' "$T/rd.txt")
[ -n "$saved" ] && [ "$saved" -lt 300 ] && pass "-removeDup drops the generator's duplicates" ||
    fail "-removeDup drops the generator's duplicates ($saved)"
cat "$T/a.mch" "$T/a.mch" >"$T/twice.mch"
"$M" -removeDup "$T/twice.mch" "$T/twice.rd.mch" >"$T/out"
contains "-removeDup of a file twice over keeps each method once" "$T/out" \
    "Loaded 600, Saved $saved"
same "-removeDup of a file twice over gives the same file" "$T/rd.mch" "$T/twice.rd.mch"

# -thin drops compile results, and re-serializes the rest as SuperPMI writes it: a collection
# without compile results, written in SuperPMI's order, comes out byte for byte.
ok_run "-copy -thin of a thin collection" "$M" -copy -thin 1-300 "$T/a.mch" "$T/same.mch"
same "-copy -thin of a thin collection changes nothing" "$T/a.mch" "$T/same.mch"
"$BIN/mchgen" --seed 5 --contexts 40 --preset full --out "$T/full.mch" >/dev/null 2>&1
"$M" -dump "$T/full.mch" >"$T/full.dump"
grep -qx "ProcessName - 1" "$T/full.dump" && pass "the full preset has compile results (titled by the bare map name)" ||
    fail "the full preset has compile results (titled by the bare map name)"
ok_run "-removeDup -thin" "$M" -removeDup -thin "$T/full.mch" "$T/thin.mch"
ok_run "-dump of the thinned file" "$M" -dump -simple "$T/thin.mch"
if grep -q "^CR_" "$T/out"; then fail "-thin leaves no CR_ map"; else pass "-thin leaves no CR_ map"; fi
for args in "-strip 1 -thin" "-fracture 30 -thin" "-merge -dedup -thin"; do
    rm -f "$T"/t-* "$T/t.mch"
    case $args in
    -strip*) ok_run "$args" "$M" -strip 1 "$T/full.mch" "$T/t.mch" -thin ;;
    -fracture*) ok_run "$args" "$M" -fracture 30 "$T/full.mch" "$T/t" -thin &&
        cat "$T/t-00000.mch" "$T/t-00001.mch" >"$T/t.mch" ;;
    -merge*) ok_run "$args" "$M" -merge "$T/t.mch" "$T/full.mch" -dedup -thin ;;
    esac
    "$M" -dump -simple "$T/t.mch" >"$T/out" 2>&1
    if grep -q "^CR_" "$T/out" || ! grep -q "^CompileMethod - 1" "$T/out"; then
        fail "$args leaves the contexts without CR_ maps"
    else pass "$args leaves the contexts without CR_ maps"; fi
done
ok_run "-ildump names the process" "$M" -ildump 1 "$T/full.mch"
if grep -q "^// ProcessName - 'hackishProcessName'" "$T/out"; then
    fail "-ildump reads CR_ProcessName"; else pass "-ildump reads CR_ProcessName"; fi
ok_run "-ildump of a thin file" "$M" -ildump 1 "$T/thin.mch"
contains "-ildump says hackishProcessName without CR_ProcessName" "$T/out" \
    "// ProcessName - 'hackishProcessName'"

# -fracture: SuperPMI's names, and the pieces put back together are the whole.
ok_run "-fracture 100" "$M" -fracture 100 "$T/a.mch" "$T/b-"
cat "$T/b--00000.mch" "$T/b--00001.mch" "$T/b--00002.mch" >"$T/joined.mch"
same "-fracture pieces joined are the input" "$T/a.mch" "$T/joined.mch"
[ ! -e "$T/b--00003.mch" ] && pass "-fracture writes 3 pieces" || fail "-fracture writes 3 pieces"
ok_run "-fracture --format mcz from an archive" "$M" -fracture 100 "$T/a.mcz" "$T/c" --format mcz
export_same "-fracture archive piece holds the same contexts" "$T/b--00001.mch" "$T/c-00001.mcz"
# An archive's pieces stay archives unless --format says otherwise.
ok_run "-fracture of an archive" "$M" -fracture 100 "$T/a.mcz" "$T/d"
[ -e "$T/d-00001.mcz" ] && [ ! -e "$T/d-00001.mch" ] && pass "-fracture of an archive writes archives" ||
    fail "-fracture of an archive writes archives"
export_same "-fracture of an archive: the piece holds the same contexts" "$T/b--00001.mch" "$T/d-00001.mcz"
ok_run "-fracture of an archive --format mch" "$M" -fracture 100 "$T/a.mcz" "$T/e" --format mch
same "-fracture --format mch of an archive: MCH pieces" "$T/b--00001.mch" "$T/e-00001.mch"

# -merge: a tree with duplicates across files, mixing .mch and .mcz, and an empty file.
mkdir -p "$T/tree/a" "$T/tree/b/c"
"$M" -copy 1-100 "$T/a.mch" "$T/tree/1.mch" >/dev/null
"$M" -copy 50-200 "$T/a.mcz" "$T/tree/a/2.mcz" >/dev/null
"$M" -copy 150-300 "$T/a.mch" "$T/tree/b/c/3.mch" >/dev/null
: >"$T/tree/b/empty.mch"
ok_run "-merge -recursive -dedup" "$M" -merge "$T/m.mch" "$T/tree" -recursive -dedup
contains "-merge skips the empty file" "$T/out" "Skipping zero-length file $T/tree/b/empty.mch"
contains "-merge reports its counts" "$T/out" "Merged 3 files: Loaded 402, Saved $saved"
same "-merge -dedup of overlapping pieces equals -removeDup of the whole" "$T/rd.mch" "$T/m.mch"
ok_run "-merge -recursive -dedup into an archive" "$M" -merge "$T/m.mcz" "$T/tree" -r -dedup
export_same "-merge into an archive holds the same contexts" "$T/rd.mch" "$T/m.mcz"
ok_run "-merge without -dedup" "$M" -merge "$T/plain.mch" "$T/tree" -recursive
cat "$T/tree/1.mch" >"$T/expect.mch"
"$M" -export "$T/tree/a/2.mcz" "$T/x2.mch" >/dev/null && cat "$T/x2.mch" >>"$T/expect.mch"
cat "$T/tree/b/c/3.mch" >>"$T/expect.mch"
same "-merge without -dedup appends in name order, depth first" "$T/expect.mch" "$T/plain.mch"
ok_run "-merge of DIR/*.mch takes only matching files" "$M" -merge "$T/top.mch" "$T/tree/*.mch"
same "-merge of DIR/*.mch: only the top directory" "$T/tree/1.mch" "$T/top.mch"
mkdir "$T/none"
fail_run "-merge of nothing fails" "$M" -merge "$T/n.mch" "$T/none"
contains "-merge of nothing says so" "$T/err" "No files found to merge."
[ ! -e "$T/n.mch" ] && pass "-merge of nothing leaves no output" ||
    fail "-merge of nothing leaves no output"
FAIL_EXIT=2 fail_run "-merge -thin without -dedup is a usage error" "$M" -merge "$T/n.mch" "$T/tree" -thin

# ---- Contexts that lack packets (release: most have no names) ----
"$BIN/mchgen" --seed 11 --contexts 200 --preset release --out "$T/r.mch" >/dev/null 2>&1
"$M" -convert "$T/r.mch" "$T/r.mcz" >/dev/null
for v in "-dump" "-dump -simple" "-dumpMap" "-ildump" "-jitflags"; do
    set -- $v
    verb=$1
    shift
    ok_run "release: $v completes" "$M" "$verb" "$@" "$T/r.mch"
    mv "$T/out" "$T/mch.txt"
    ok_run "release: $v on .mcz completes" "$M" "$verb" "$@" "$T/r.mcz"
    same "release: $v prints the same for .mch and .mcz" "$T/mch.txt" "$T/out"
done
"$M" -dump "$T/r.mch" >"$T/out"
contains "release: -dump prints a placeholder identity" "$T/out" "<identity unavailable: "
"$M" -dumpMap "$T/r.mch" >"$T/out"
contains "release: -dumpMap prints placeholders" "$T/out" "<unknown>:<unknown>"
[ "$(wc -l <"$T/out")" -eq 201 ] && pass "release: -dumpMap prints every row" ||
    fail "release: -dumpMap prints every row"
ok_run "release: -removeDup" "$M" -removeDup "$T/r.mch" "$T/r.rd.mch"
ok_run "release: -removeDup of the archive" "$M" -removeDup "$T/r.mcz" "$T/r.rd2.mch"
same "release: -removeDup agrees on .mch and .mcz" "$T/r.rd.mch" "$T/r.rd2.mch"
ok_run "release: -stat" "$M" -stat "$T/r.mch" "$T/r.csv"

# A context with no packets at all.
printf 'mc\0\0\0\00042' >"$T/bare.mch"
for v in "-dump" "-dumpMap" "-ildump" "-jitflags"; do
    ok_run "packet-less context: $v completes" "$M" $v "$T/bare.mch"
done
ok_run "packet-less context: -removeDup" "$M" -removeDup "$T/bare.mch" "$T/bare2.mch"
ok_run "packet-less context: -stat" "$M" -stat "$T/bare.mch" "$T/bare.csv"

# ---- -ildump on hand-made IL: backward branches, switch, 0xFE opcodes, a cut-off operand ----
# hex BYTES...: writes bytes given in hex; le32 N: a little-endian u32.
hex() { for b in "$@"; do printf "\\x$b"; done; }
le32() { hex $(printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4 \3 \2 \1/'); }
zeros() { head -c "$1" /dev/zero; }
il="00 2b fd fe 01 45 02 00 00 00 00 00 00 00 fb ff ff ff fe 1e 38 e7 ff ff ff 20 01 02"
{
    hex 6d 63; le32 270                       # context header: 270 bytes of packets
    hex 8f; le32 264; printf 'LWM1'           # CompileMethod: one item, a 32-byte pool
    le32 1; le32 32; le32 0                   # count, pool length, key 0
    zeros 16; le32 4; le32 28; le32 5         # ftn, scope, IL at pool index 4, 28 bytes, maxstack
    le32 0; le32 16; le32 0                   # EH clauses, options (zeroed locals), region
    zeros 20; le32 1; zeros 32                # args: void, no arguments,
    le32 4294967295; zeros 24                 #   no signature blob (pool index -1)
    zeros 56; le32 4294967295; zeros 24       # locals: none, no blob
    le32 0; le32 1                            # flags, os
    le32 28; hex $il                          # the pool: the IL
    hex 42 34 32                              # packet canary, context trailer
} >"$T/il.mch"
ok_run "-ildump of hand-made IL" "$M" -ildump "$T/il.mch"
# As SuperPMI prints it: no line break after a known opcode; br.s adds 0xfd unsigned (IL_0100);
# the switch's count and targets raw; fe 1e (readonly.) unknown to it, so a line break and a
# report on stderr; br's int32 is signed (IL_0000); ldc.i4 runs past the end.
printf '%s\n' \
    "// ProcessName - 'hackishProcessName'" \
    '.assembly extern mscorlib{}' '.assembly dumped_asm' '.class <unknown>' '{' \
    '   .method <unknown> void <unknown>()' '   {' '      .maxstack  5' '      .locals init ()' \
    'IL_0000: nopIL_0001: br.s IL_0100IL_0003: ceqIL_0005: switch (0x00000002) <0x00000000> <0xfffffffb>IL_0012: ' \
    'IL_0014: br IL_0000IL_0019: ldc.i4 <truncated: 4 bytes needed, 2 left>' \
    '   }' '}' '// Dumped 1' >"$T/il.expected"
same "-ildump: SuperPMI's texts, unsigned short branches, a cut-off operand" "$T/il.expected" "$T/out"
contains "-ildump reports the opcode SuperPMI does not know" "$T/err" "unknown ilCode 0xfe1e at offset 19"
ok_run "-dump of hand-made IL" "$M" -dump -simple "$T/il.mch"
contains "-dump prints CompileMethod as SuperPMI does" "$T/out" \
    "0-CompileMethod key 0, value ftn-0000000000000000 scp-0000000000000000 ilo-4 ils-28 ms-5 ehc-0 opt-16 rk-0 args-{callConv-00000000 retTypeClass-0000000000000000 retTypeSigClass-0000000000000000 retType-00000001(void) flg-00000000 na-0 cc-0 ci-0 {} mc-0 mi-0 {} args-0000000000000000 sig-cbSig-0, si-FFFFFFFF (SIG SIZE ZERO) msig-0000000000000000 scp-0000000000000000 tok-00000000} locals-{callConv-00000000 retTypeClass-0000000000000000 retTypeSigClass-0000000000000000 retType-00000000(<unknown>) flg-00000000 na-0 cc-0 ci-0 {} mc-0 mi-0 {} args-0000000000000000 sig-cbSig-0, si-FFFFFFFF (SIG SIZE ZERO) msig-0000000000000000 scp-0000000000000000 tok-00000000} flg-00000000 os-1"

# ---- Goldens: the CSV verbs on a small fixed collection ----
"$BIN/mchgen" --seed 7 --contexts 12 --preset small --out "$T/g.mch" >/dev/null 2>&1
"$M" -dumpMap "$T/g.mch" >"$T/g.dumpmap.csv"
"$M" -stat "$T/g.mch" "$T/g.stat.csv" >/dev/null
"$M" -jitflags "$T/g.mch" >"$T/g.jitflags.txt"
"$M" -toc "$T/g.mch" >/dev/null 2>&1 && "$M" -dumpToc "$T/g.mch.mct" >"$T/g.dumptoc.txt"
# The goldens were made from mchgen's output for this seed; when its model changes they must be
# made again (MCS_GOLDEN_UPDATE=1) and read: say so rather than only that they differ.
cksum <"$T/g.mch" >"$T/g.mch.cksum"
if [ "${MCS_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/g.mch.cksum" "$G/g.mch.cksum"; fi
same "golden fixture: mchgen --seed 7 --contexts 12 still writes the same collection" \
    "$G/g.mch.cksum" "$T/g.mch.cksum"
# -toc writes beside its input: a stream has no file to write beside (the library tells it).
fail_run "-toc of standard input is refused" "$M" -toc - <"$T/g.mch"
contains "-toc of standard input: it needs a file" "$T/err" \
    "standard input: -toc writes its table beside the file: it needs a file, not a stream"
fail_run "-toc of a pipe is refused" sh -c "cat '$T/g.mch' | '$M' -toc -"
contains "-toc of standard input: it needs a file" "$T/err" \
    "standard input: -toc writes its table beside the file: it needs a file, not a stream"
# -dumpToc opens its input once: a table piped in is read once and printed whole.
ok_run "-dumpToc of a piped .mct" sh -c "cat '$T/g.mch.mct' | '$M' -dumpToc -"
same "-dumpToc of a piped .mct prints the file's table" "$T/g.dumptoc.txt" "$T/out"
for g in g.dumpmap.csv g.stat.csv g.jitflags.txt g.dumptoc.txt; do
    if [ "${MCS_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/$g" "$G/$g"; fi
    same "golden $g" "$G/$g" "$T/$g"
done

ok_run "-printJITEEVersion --list" "$M" -printJITEEVersion --list
contains "-printJITEEVersion --list lists the versions with their GUIDs" "$T/out" "28808a0e-5dc5-48bd-a7eb-27def284eff0"

cli_done
