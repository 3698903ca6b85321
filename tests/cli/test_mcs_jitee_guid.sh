#!/usr/bin/env bash
# The JIT-EE GUID is recorded, never guessed (FORMAT.md §2a): -convert --jit-ee-guid stores it
# (and --target-os, --target-arch), -info shows it, -printJITEEVersion FILE prints it, without
# FILE the GUID given (option, MCZ_JIT_EE_GUID) or one line on stderr and exit 1. The copying
# verbs carry it; archives that disagree are a conflict. A damaged frame is an error; an
# archive given nothing has no frame; older archives read as recording none.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
G1=28808a0e-5dc5-48bd-a7eb-27def284eff0
G1_UPPER=28808A0E-5DC5-48BD-A7EB-27DEF284EFF0
G2=0123abcd-4567-89ef-0123-456789abcdef
unset MCZ_JIT_EE_GUID

"$BIN/mchgen" --seed 7 --contexts 60 --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"

# out_is NAME TEXT: stdout is exactly TEXT, one line.
out_is() {
    if [ "$(cat "$T/out")" = "$2" ] && [ "$(wc -l <"$T/out")" -eq 1 ]; then pass "$1"; else
        fail "$1 (stdout: $(head -c 200 "$T/out"))"; fi
}
# err_one_line NAME: stderr is one line and stdout empty.
err_one_line() {
    if [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then pass "$1"; else
        fail "$1"; sed 's/^/    /' "$T/err" | head -5; fi
}
# no_output NAME FILE: nothing at FILE, nor a temporary beside it.
no_output() {
    if [ -e "$2" ] || ls -a "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.mcz-tmp"; then
        fail "$1"; else pass "$1"; fi
}

# ---- Recording, showing, printing ----
ok_run "-convert --jit-ee-guid (upper case) --target-os --target-arch" \
    "$M" -convert "$T/a.mch" "$T/g1.mcz" --jit-ee-guid "$G1_UPPER" --target-os Linux \
    --target-arch x64
ok_run "-printJITEEVersion FILE" "$M" -printJITEEVersion "$T/g1.mcz"
out_is "it prints the recorded GUID, lower case, one line" "$G1"
ok_run "-info" "$M" -info "$T/g1.mcz"
contains "-info shows the GUID" "$T/out" "JIT-EE GUID:   $G1"
contains "-info shows the target" "$T/out" "target:        linux x64"
ok_run "-convert with no GUID" "$M" -convert "$T/a.mch" "$T/none.mcz"
if grep -qF MCZM "$T/none.mcz"; then fail "given nothing, no metadata frame"; else
    pass "given nothing, no metadata frame"; fi
if [ $(( $(stat -c %s "$T/g1.mcz") - $(stat -c %s "$T/none.mcz") )) -eq 92 ]; then
    pass "the frame is the 92 bytes between them"; else fail "the frame is the 92 bytes between them"; fi
ok_run "-info of an archive recording none" "$M" -info "$T/none.mcz"
contains "-info says none is recorded" "$T/out" "JIT-EE GUID:   none recorded"
fail_run "-printJITEEVersion of an archive recording none" "$M" -printJITEEVersion "$T/none.mcz"
contains "it says the archive records none" "$T/err" "none.mcz: the archive records no JIT-EE GUID"
err_one_line "one line on stderr, nothing on stdout"
contains "it names the packet table's GUID as inferred, not recorded" "$T/err" \
    "its packet table B has GUID $G1, inferred, not recorded"

# One answer to "which GUID does this archive record?": -info, -printJITEEVersion and Python's
# info()['jit_ee_guid'] agree, and no -info line calls the table's GUID recorded.
"$M" -info "$T/none.mcz" >"$T/info" 2>&1
if grep -E "$G1" "$T/info" | grep -v "inferred from the table, not recorded" | grep -q .; then
    fail "-info of none.mcz shows B's GUID only as inferred"; else
    pass "-info of none.mcz shows B's GUID only as inferred"; fi
contains "-info names the table and what is inferred" "$T/info" \
    "packet table:  B, recorded in the archive; its GUID $G1 is inferred from the table, not recorded"
contains "-info of g1.mcz: the table's GUID is the one recorded" <("$M" -info "$T/g1.mcz") \
    "packet table:  B, recorded in the archive; its GUID is the one recorded"
"$M" -convert "$T/a.mch" "$T/g2.mcz" --jit-ee-guid "$G2" >/dev/null 2>&1
contains "-info of g2.mcz: the table's GUID is inferred, not the one recorded" \
    <("$M" -info "$T/g2.mcz") "its GUID $G1 is inferred from the table, not the one recorded"
LIB=$(readlink -f "${BUILD:-$MCZ_ROOT/build}/libmcz.so")
if [ -x /usr/bin/python3 ] && ! readelf -d "$LIB" | grep -q libasan; then  # ASan: test_python.sh
    for f in none g1 g2; do
        py=$(MCZ_LIBRARY="$LIB" PYTHONPATH="$MCZ_ROOT/python" \
            /usr/bin/python3 -c 'import mcz, sys; print(mcz.open(sys.argv[1]).info()["jit_ee_guid"])' \
            "$T/$f.mcz" 2>&1)
        spmi=$("$M" -printJITEEVersion "$T/$f.mcz" 2>/dev/null || echo None)
        if [ "$py" = "$spmi" ]; then pass "$f.mcz: Python and -printJITEEVersion agree ($py)"
        else fail "$f.mcz: Python says $py, -printJITEEVersion $spmi"; fi
    done
fi
"$M" -export "$T/g1.mcz" "$T/back.mch" >/dev/null 2>&1
same "the recorded archive exports to the collection" "$T/a.mch" "$T/back.mch"
ok_run "-convert --target-arch alone" "$M" -convert "$T/a.mch" "$T/arch.mcz" --target-arch ARM64
contains "-info shows what is recorded" <("$M" -info "$T/arch.mcz") \
    "target:        (OS not recorded) arm64"
fail_run "an archive recording a target only has no GUID to print" "$M" -printJITEEVersion "$T/arch.mcz"

# ---- Without FILE: what the user gave, else nothing ----
fail_run "-printJITEEVersion with nothing given" "$M" -printJITEEVersion
err_one_line "one line on stderr, exit 1, nothing on stdout"
contains "it names the variable" "$T/err" "MCZ_JIT_EE_GUID"
MCZ_JIT_EE_GUID=$G1_UPPER ok_run "-printJITEEVersion from MCZ_JIT_EE_GUID" "$M" -printJITEEVersion
out_is "the environment's GUID, lower case" "$G1"
ok_run "-printJITEEVersion --jit-ee-guid" env MCZ_JIT_EE_GUID=$G1 "$M" -printJITEEVersion \
    --jit-ee-guid "$G2"
out_is "the option wins over the environment" "$G2"
MCZ_JIT_EE_GUID="{$G1}" fail_run "a bad MCZ_JIT_EE_GUID" "$M" -printJITEEVersion
contains "it names the variable and the value" "$T/err" "MCZ_JIT_EE_GUID: '{$G1}' is not a GUID"
FAIL_EXIT=2 fail_run "a bad --jit-ee-guid is a usage error" "$M" -printJITEEVersion --jit-ee-guid 1-2
FAIL_EXIT=2 fail_run "FILE and --list exclude each other" "$M" -printJITEEVersion "$T/g1.mcz" --list

# ---- The GUID is validated ----
for bad in "" "28808a0e" "$G1-" "{$G1}" "28808a0e-5dc5-48bd-a7eb-27def284eff" \
    "28808a0g-5dc5-48bd-a7eb-27def284eff0" "28808a0e_5dc5_48bd_a7eb_27def284eff0"; do
    FAIL_EXIT=2 fail_run "-convert refuses GUID '$bad'" "$M" -convert "$T/a.mch" "$T/bad.mcz" \
        --jit-ee-guid "$bad"
done
contains "the refusal names the text" "$T/err" "--jit-ee-guid: '28808a0e_5dc5_48bd_a7eb_27def284eff0' is not a GUID"
FAIL_EXIT=2 fail_run "-convert refuses a target with a slash" "$M" -convert "$T/a.mch" \
    "$T/bad.mcz" --target-os linux/musl
FAIL_EXIT=2 fail_run "--jit-ee-guid needs an archive output" "$M" -copy 1-5 "$T/g1.mcz" \
    "$T/bad.mch" --jit-ee-guid "$G1"
no_output "no output after a refused GUID" "$T/bad.mcz"

# ---- Carried by the verbs that write archives from archives ----
carried() { # carried NAME FILE: FILE records G1 and the target
    "$M" -printJITEEVersion "$2" >"$T/out" 2>"$T/err"
    if [ "$(cat "$T/out")" = "$G1" ] && "$M" -info "$2" | grep -qF "target:        linux x64"; then
        pass "$1 carries the GUID and target"; else fail "$1 carries the GUID and target"; fi
}
ok_run "-copy" "$M" -copy 1-30 "$T/g1.mcz" "$T/copy.mcz"; carried "-copy" "$T/copy.mcz"
ok_run "-strip" "$M" -strip 1-3 "$T/g1.mcz" "$T/strip.mcz"; carried "-strip" "$T/strip.mcz"
ok_run "-convert of an archive" "$M" -convert "$T/g1.mcz" "$T/reconv.mcz" --level 3
carried "-convert of an archive" "$T/reconv.mcz"
ok_run "-removeDup" "$M" -removeDup "$T/g1.mcz" "$T/dedup.mcz"; carried "-removeDup" "$T/dedup.mcz"
cp "$T/copy.mcz" "$T/cat.mcz"
ok_run "-concat of archives with the same GUID" "$M" -concat "$T/cat.mcz" "$T/strip.mcz"
carried "-concat" "$T/cat.mcz"
ok_run "-merge of archives with the same GUID" "$M" -merge "$T/merged.mcz" "$T/[cs]*.mcz"
carried "-merge" "$T/merged.mcz"
mkdir "$T/frac"
ok_run "-fracture --format mcz" "$M" -fracture 25 "$T/g1.mcz" "$T/frac/piece" --format mcz
carried "-fracture" "$T/frac/piece-00001.mcz"
head -c $(( $(stat -c %s "$T/g1.mcz") - 70 )) "$T/g1.mcz" >"$T/cut.mcz"
ok_run "-recover of a cut archive" "$M" -recover "$T/cut.mcz" "$T/rec.mcz"
carried "-recover" "$T/rec.mcz"
ok_run "-receive of the archive as a stream" sh -c "'$M' -receive '$T/recv.mcz' <'$T/g1.mcz'"
carried "-receive" "$T/recv.mcz"
ok_run "-copy into an MCH file" "$M" -copy 1-5 "$T/g1.mcz" "$T/five.mch"
# An MCH file records nothing: read first, the output begins recording none, and an archive
# recording a GUID after it is a conflict, unless the options give the GUID.
mkdir "$T/mix"; cp "$T/a.mch" "$T/mix/1.mch"; cp "$T/g1.mcz" "$T/mix/2.mcz"
fail_run "-merge of an MCH file, then an archive recording a GUID" "$M" -merge "$T/mixed.mcz" \
    "$T/mix/*"
contains "it says the output was begun before any archive" "$T/err" \
    "2.mcz records JIT-EE GUID $G1, $T/mixed.mcz (begun before any archive was read) records none"
ok_run "the same with the GUID and target given" "$M" -merge "$T/mixed.mcz" "$T/mix/*" \
    --jit-ee-guid "$G1" --target-os linux --target-arch x64
carried "-merge of an MCH file and an archive" "$T/mixed.mcz"

# ---- Conflicts ----
"$M" -convert "$T/a.mch" "$T/g2.mcz" --jit-ee-guid "$G2" --target-os linux --target-arch x64 \
    >/dev/null 2>&1 || fail "an archive recording another GUID"
mkdir "$T/two"
cp "$T/g1.mcz" "$T/two/1.mcz"; cp "$T/g2.mcz" "$T/two/2.mcz"
fail_run "-merge of archives with different GUIDs" "$M" -merge "$T/m2.mcz" "$T/two/*.mcz"
contains "it names both files and GUIDs" "$T/err" "2.mcz records JIT-EE GUID $G2, $T/two/1.mcz records $G1: a conflict"
no_output "-merge leaves no output" "$T/m2.mcz"
cp "$T/g1.mcz" "$T/cat2.mcz"
fail_run "-concat of an archive recording none onto one recording a GUID" "$M" -concat \
    "$T/cat2.mcz" "$T/none.mcz"
contains "it says which records none" "$T/err" "none.mcz records no JIT-EE GUID"
same "-concat leaves its target as it was" "$T/g1.mcz" "$T/cat2.mcz"
cp "$T/none.mcz" "$T/two/3.mcz"; rm "$T/two/2.mcz"
fail_run "-merge --jit-ee-guid alone leaves the target in conflict" "$M" -merge "$T/m3.mcz" \
    "$T/two/*.mcz" --jit-ee-guid "$G1"
contains "it names the field and the option" "$T/err" "3.mcz records no target OS, $T/two/1.mcz records linux: a conflict (--target-os"
ok_run "the options choose for an archive recording none" "$M" -merge "$T/m3.mcz" \
    "$T/two/*.mcz" --jit-ee-guid "$G1" --target-os linux --target-arch x64
carried "-merge --jit-ee-guid" "$T/m3.mcz"
fail_run "-convert --jit-ee-guid of an archive recording another" "$M" -convert "$T/g1.mcz" \
    "$T/c2.mcz" --jit-ee-guid "$G2"
contains "it names the option" "$T/err" "g1.mcz records JIT-EE GUID $G1, --jit-ee-guid gives $G2: a conflict"
no_output "-convert leaves no output" "$T/c2.mcz"

# ---- Damage: the frame is checked like every other ----
cp "$T/g1.mcz" "$T/flip.mcz"
printf '\x39' | dd of="$T/flip.mcz" bs=1 seek=$((44 + 20)) conv=notrunc 2>/dev/null
fail_run "a damaged GUID" "$M" -info "$T/flip.mcz"
contains "it names the file, offset and frame" "$T/err" "flip.mcz: at offset 128: metadata: checksum mismatch"
cp "$T/g1.mcz" "$T/short.mcz"
printf '\x28' | dd of="$T/short.mcz" bs=1 seek=$((44 + 4)) conv=notrunc 2>/dev/null
fail_run "a frame that says it is cut short" "$M" -printJITEEVersion "$T/short.mcz"
contains "it says what the size should be" "$T/err" "short.mcz: at offset 48: metadata: frame of 40 bytes, expected 84"
cp "$T/g1.mcz" "$T/tag.mcz"
printf 'I' | dd of="$T/tag.mcz" bs=1 seek=$((44 + 11)) conv=notrunc 2>/dev/null
fail_run "a frame whose tag reads as the index's" "$M" -info "$T/tag.mcz"
contains "it is no silent absence" "$T/err" "metadata: an mcz frame of unknown tag"
fail_run "-verify of a damaged frame" "$M" -verify "$T/flip.mcz"

# ---- Older archives read, recording none ----
for g in "$MCZ_ROOT"/tests/cli/golden/v*.mcz; do
    ok_run "$(basename "$g") still opens" "$M" -info "$g"
    contains "$(basename "$g") records no GUID" "$T/out" "JIT-EE GUID:   none recorded"
done

cli_done
