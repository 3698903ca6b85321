#!/usr/bin/env bash
# mcs verbs on a small generated collection: -integ, -copy, -concat, -toc, -dumpToc, -convert,
# -export, -info, -verify, -recover, and their agreement between .mch and .mcz.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=300

"$BIN/mchgen" --seed 7 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"

# line_count FILE: lines in FILE.
line_count() { wc -l <"$1" | tr -d ' '; }

# toc_well_formed NAME DUMP: N lines of 35 fields numbered 1..N, offsets from 0 increasing.
toc_well_formed() {
    local expect=1 prev=-1 num off rest bad=
    while read -r num off rest; do
        off=$((16#$off))
        if [ "$num" != "$expect:" ] || [ "$off" -le "$prev" ] ||
           [ "$(wc -w <<<"$rest")" -ne 33 ]; then bad=1; break; fi
        if [ "$expect" -eq 1 ] && [ "$off" -ne 0 ]; then bad=1; break; fi
        prev=$off
        expect=$((expect + 1))
    done <"$2"
    if [ -z "$bad" ] && [ "$expect" -eq $((N + 1)) ]; then pass "$1"; else
        fail "$1 (at element $expect)"; fi
}

# --- -integ ---
ok_run "-integ on a good collection" "$M" -integ "$T/a.mch"
contains "-integ reports every context" "$T/out" "Checked the integrity of $N methodContexts at"

# --- -copy ---
ok_run "-copy 1-$N" "$M" -copy 1-$N "$T/a.mch" "$T/all.mch"
same "-copy of every context reproduces the input" "$T/a.mch" "$T/all.mch"
contains "-copy says what it saved" "$T/out" "Loaded $N, Saved $N"

ok_run "-copy 1-100" "$M" -copy 1-100 "$T/a.mch" "$T/p1.mch"
ok_run "-copy 101-$N" "$M" -copy 101-$N "$T/a.mch" "$T/p2.mch"
cp "$T/p1.mch" "$T/joined.mch"
ok_run "-concat the second piece onto the first" "$M" -concat "$T/joined.mch" "$T/p2.mch"
same "-copy pieces then -concat reproduce the input" "$T/a.mch" "$T/joined.mch"
cp "$T/p1.mch" "$T/joined-toc.mch"
"$M" -toc "$T/joined-toc.mch" >/dev/null 2>&1
ok_run "-concat onto a file with a .mct" "$M" -concat "$T/joined-toc.mch" "$T/p2.mch"
contains "-concat says the .mct is now stale" "$T/err" "joined-toc.mch.mct lacks the appended"
ok_run "-copy after -concat reads past the stale .mct" "$M" -copy 1-$N "$T/joined-toc.mch" \
    "$T/joined-toc-copy.mch"
same "-copy after -concat" "$T/a.mch" "$T/joined-toc-copy.mch"
ok_run "-concat onto a file that does not exist yet" "$M" -concat "$T/new.mch" "$T/a.mch"
same "-concat onto nothing copies" "$T/a.mch" "$T/new.mch"

printf '5\r\n9\r\n120\r\n' >"$T/list.mcl"
ok_run "-copy with the same range" "$M" -copy 5,9,120 "$T/a.mch" "$T/l2.mch"
ok_run "-copy with an .mcl list" "$M" -copy "$T/list.mcl" "$T/a.mch" "$T/l1.mch"
contains "-copy of three" "$T/out" "Saved 3"
same "-copy: .mcl and range agree" "$T/l1.mch" "$T/l2.mch"

fail_run "-copy past the end fails" "$M" -copy $((N - 1))-$((N + 5)) "$T/a.mch" "$T/tail.mch"
contains "-copy past the end names the first missing number and the count" "$T/err" \
    "5 listed contexts are not in the file, the first $((N + 1)): it holds $N contexts"
[ -e "$T/tail.mch" ] && fail "-copy past the end leaves no output" ||
    pass "-copy past the end leaves no output"

# --- -toc / -dumpToc ---
ok_run "-toc on .mch" "$M" -toc "$T/a.mch"
contains "-toc says what it added" "$T/out" "Loaded $N, added $N to Table of Contents"
if [ "$(stat -c %s "$T/a.mch.mct")" -eq $((12 + 48 * N)) ]; then pass "-toc: .mct size"; else
    fail "-toc: .mct size"; fi
# Contexts without an identity get an all-zero hash field, and -toc counts them.
empty_said=$(sed -n 's/.*: \([0-9]*\) contexts lack what the identity needs.*/\1/p' "$T/err")
ok_run "-dumpToc" "$M" -dumpToc "$T/a.mch.mct"
empty_seen=$(grep -cE '^ *[0-9]+: [0-9A-F]{16} (00 ){33}$' "$T/out")
if [ "${empty_said:-0}" -eq "$empty_seen" ]; then pass "-toc counts the empty hashes it writes"
else fail "-toc counts the empty hashes it writes (said ${empty_said:-0}, wrote $empty_seen)"; fi
cp "$T/out" "$T/toc-mch.txt"
toc_well_formed "-dumpToc lists $N elements, numbers and offsets increasing" "$T/toc-mch.txt"
if grep -qE '^   1: 0000000000000000 ([0-9a-f]{2} ){33}$' "$T/toc-mch.txt"; then
    pass "-dumpToc line format"; else fail "-dumpToc line format"; head -1 "$T/toc-mch.txt"; fi
ok_run "-copy through the .mct" "$M" -copy 1-$N "$T/a.mch" "$T/all-toc.mch"
same "-copy through the .mct reproduces the input" "$T/a.mch" "$T/all-toc.mch"

# --- -convert / -export / -info / -verify ---
ok_run "-convert" "$M" -convert "$T/a.mch" "$T/a.mcz"
contains "-convert summary" "$T/out" "Converted $N contexts"
"$M" -convert "$T/a.mch" "$T/a2.mcz" >/dev/null
same "-convert twice gives the same bytes" "$T/a.mcz" "$T/a2.mcz"
ok_run "-export" "$M" -export "$T/a.mcz" "$T/back.mch"
same "-convert then -export is byte-identical" "$T/a.mch" "$T/back.mch"
ok_run "-info on .mcz" "$M" -info "$T/a.mcz"
contains "-info: contexts" "$T/out" "contexts:      $N (numbers 1-$N)"
contains "-info: chunks" "$T/out" "chunks:"
contains "-info: dictionary" "$T/out" "dictionary:"
ok_run "-info on .mch" "$M" -info "$T/a.mch"
contains "-info on .mch: contexts" "$T/out" "contexts:      $N (numbers 1-$N)"
contains "-info on .mch: size" "$T/out" "size:          $(stat -c %s "$T/a.mch") bytes"
ok_run "-verify" "$M" -verify "$T/a.mcz"
contains "-verify says OK" "$T/out" "Verified $N contexts"
ok_run "-integ on .mcz" "$M" -integ "$T/a.mcz"
contains "-integ on .mcz counts" "$T/out" "Checked the integrity of $N methodContexts"

ok_run "-convert with options" "$M" -convert "$T/a.mch" "$T/b.mcz" --level 3 --chunk-size 64K \
    --no-dict -j 2
ok_run "-export of the option archive" "$M" -export "$T/b.mcz" "$T/back-b.mch"
same "options round trip" "$T/a.mch" "$T/back-b.mch"
ok_run "-info of the option archive" "$M" -info "$T/b.mcz"
contains "--no-dict: no dictionary" "$T/out" "dictionary:    none"
contains "--level 3 recorded" "$T/out" "level:         3"
# 64K chunks: a trained dictionary pays for itself there, so the archive keeps one to lend.
"$M" -convert --chunk-size 64K "$T/a.mch" "$T/lender.mcz" >/dev/null
ok_run "-convert --dict-from" "$M" -convert "$T/a.mch" "$T/c.mcz" --dict-from "$T/lender.mcz"
ok_run "-export of the --dict-from archive" "$M" -export "$T/c.mcz" "$T/back-c.mch"
same "--dict-from round trip" "$T/a.mch" "$T/back-c.mch"

# --- .mcz wherever .mch is taken ---
ok_run "-toc on .mcz" "$M" -toc "$T/a.mcz"
ok_run "-dumpToc of the archive's .mct" "$M" -dumpToc "$T/a.mcz.mct"
same "-toc: .mch and .mcz give the same table" "$T/toc-mch.txt" "$T/out"
ok_run "-copy from .mcz" "$M" -copy 10-20,250 "$T/a.mcz" "$T/from-mcz.mch"
"$M" -copy 10-20,250 "$T/a.mch" "$T/from-mch.mch" >/dev/null
same "-copy: .mcz and .mch agree" "$T/from-mch.mch" "$T/from-mcz.mch"
ok_run "-copy into .mcz" "$M" -copy 1-$N "$T/a.mch" "$T/copy.mcz"
"$M" -export "$T/copy.mcz" "$T/copy-back.mch" >/dev/null
same "-copy into .mcz round trip" "$T/a.mch" "$T/copy-back.mch"
"$M" -convert "$T/p2.mch" "$T/p2.mcz" >/dev/null
cp "$T/p1.mch" "$T/joined2.mch"
ok_run "-concat an archive onto an .mch" "$M" -concat "$T/joined2.mch" "$T/p2.mcz"
same "-concat of an archive reproduces the input" "$T/a.mch" "$T/joined2.mch"
ok_run "-convert .mcz to .mcz" "$M" -convert "$T/a.mcz" "$T/re.mcz" --level 1
"$M" -export "$T/re.mcz" "$T/re.mch" >/dev/null
same "-convert of an archive round trip" "$T/a.mch" "$T/re.mch"

# --- -recover ---
ok_run "-recover of a sound archive" "$M" -recover "$T/a.mcz" "$T/r.mcz"
contains "-recover says what it kept" "$T/out" "Recovered $N contexts"
"$M" -export "$T/r.mcz" "$T/r.mch" >/dev/null
same "-recover of a sound archive loses nothing" "$T/a.mch" "$T/r.mch"
size=$(stat -c %s "$T/b.mcz")
head -c $((size * 2 / 3)) "$T/b.mcz" >"$T/cut.mcz"
ok_run "-recover of a truncated archive" "$M" -recover "$T/cut.mcz" "$T/r2.mcz"
contains "-recover counts the lost" "$T/out" "lost"
# Cut before its footer, the archive no longer says how many contexts it held: the loss is what
# the bytes show and an unknown number past the cut, never a total it cannot know.
contains "-recover of a cut archive: the loss past the cut is unknown" "$T/out" \
    "seen, and an unknown number past the cut"
contains "-recover of a cut archive: the warning says why" "$T/err" \
    "cut.mcz: cut short (no footer after its $((size * 2 / 3)) bytes)"
if grep -qE "lost [0-9]+$" "$T/out"; then fail "-recover of a cut archive claims an exact loss"
else pass "-recover of a cut archive claims no exact loss"; fi
ok_run "-recover of a sound archive" "$M" -recover "$T/a.mcz" "$T/r3.mcz"
contains "-recover of a sound archive: its footer's count, exact" "$T/out" \
    "Recovered $N contexts into $T/r3.mcz; lost 0"
ok_run "-verify of the recovered archive" "$M" -verify "$T/r2.mcz"

# --- stdout ---
if "$M" -dumpToc "$T/a.mch.mct" >/dev/full 2>"$T/err"; then
    fail "a full disk on stdout is an error"; else pass "a full disk on stdout is an error"; fi
contains "a full disk is reported" "$T/err" "standard output: write failed"
# A table far larger than a pipe's buffer, so that mcs is still writing when head exits.
{ printf 'INDX\x20\x4e\x00\x00'; head -c $((48 * 20000)) /dev/zero; printf 'INDX'; } >"$T/big.mct"
"$M" -dumpToc "$T/big.mct" 2>"$T/err" | head -1 >/dev/null
if [ "${PIPESTATUS[0]}" -eq 0 ] && [ ! -s "$T/err" ]; then
    pass "a closed pipe is not an error"; else fail "a closed pipe is not an error"; fi

if ls -a "$T" | grep -q '\.tmp\.'; then fail "no temporary files left"; else
    pass "no temporary files left"; fi
cli_done
