#!/usr/bin/env bash
# mcz-replay --exec over today's superpmi (the stand-in tests/collector/spmi_today.c follows the
# newest sources: details with a quoted Method full name holding commas and quotes, 70 metric
# columns, asserts and misses printed with context numbers, -repeatCount, -r): one sequential
# run of the stand-in over the whole .mch against mcz-replay over the .mcz and the .mch, -j 1
# and -j 2: the same exit code, -f, details (byte for byte, and as CSV), ISSUE/MISSING lines
# with the same numbers in the same order, the same repro files; then -repeatCount, -c, a
# details file that is not CSV, the failure limit over the whole run, -v ewi silence.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
"$BIN/mchgen" --seed 11 --contexts 300 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 128K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
: > "$T/base.so"; : > "$T/diff.so"
cd "$T" || exit 1

# whole NAME ARGS...: the stand-in over the whole .mch (superpmi.py's -v ewi), in $T/NAME.*
whole() {
    local name=$1; shift
    rm -rf "$name.r"; mkdir "$name.r"
    "$SP" -v ewi "$@" -f "$name.mcl" -details "$name.csv" -r "$name.r/repro" c.mch \
        > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
}

# mczr NAME INPUT MCZ-ARGS -- CMD-WORDS...: mcz-replay --exec-word ... over INPUT, in $T/NAME.*
mczr() {
    local name=$1 input=$2 args=() words=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    for w in "$SP" -v ewi "$@"; do words+=(--exec-word "$w"); done
    rm -rf "$name.r"; mkdir "$name.r"
    "$R" -q --verbosity ewi "${args[@]}" -f "$name.mcl" --details "$name.csv" \
        --repro "$name.r/repro" "${words[@]}" "$input" > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
}

# agree WHAT REF GOT: every output of run GOT is REF's.
agree() {
    local what=$1 ref=$2 got=$3
    same "$what: exit code" "$ref.rc" "$got.rc"
    same "$what: -f" "$ref.mcl" "$got.mcl"
    same "$what: details, byte for byte" "$ref.csv" "$got.csv"
    same "$what: stdout (ISSUE and MISSING lines, numbers and order)" "$ref.out" "$got.out"
    grep -E '^(ERROR|MISSING|ISSUE)' "$ref.err" | sort > "$ref.lines"
    grep -E '^(ERROR|MISSING|ISSUE)' "$got.err" | sort > "$got.lines"
    same "$what: stderr lines, global numbers" "$ref.lines" "$got.lines"
    (cd "$ref.r" && ls && cat -- *) > "$ref.rlist" 2>/dev/null
    (cd "$got.r" && ls && cat -- *) > "$got.rlist" 2>/dev/null
    same "$what: repro files (names and bytes)" "$ref.rlist" "$got.rlist"
}

for mode in replay asm; do
    jits=(base.so); [ $mode = asm ] && jits=(-a base.so diff.so)
    whole "w$mode" "${jits[@]}"
    agree "$mode -j 1 .mch" "w$mode" "$(mczr g c.mch -j 1 --unit-size 100000 -- "${jits[@]}"; echo g)"
    agree "$mode -j 2 .mcz, a chunk per command" "w$mode" \
        "$(mczr g c.mcz -j 2 --exec-batch 0 -- "${jits[@]}"; echo g)"
    agree "$mode -j 2 .mcz, default batch" "w$mode" "$(mczr g c.mcz -j 2 -- "${jits[@]}"; echo g)"
    agree "$mode -j 2 .mcz, --exec-toc" "w$mode" \
        "$(mczr g c.mcz -j 2 --exec-batch 0 --exec-toc -- "${jits[@]}"; echo g)"
    agree "$mode -j 2 .mch, --exec-toc" "w$mode" \
        "$(mczr g c.mch -j 2 --unit-size 100000 --exec-toc -- "${jits[@]}"; echo g)"
done
# the reference itself must hold what is compared
[ "$(grep -c '^ISSUE: <ASSERT> #' wasm.out)" -gt 3 ] && pass "reference: asserts printed" ||
    fail "reference: asserts printed"
[ "$(ls wasm.r | wc -l)" -gt 3 ] && pass "reference: repro files" || fail "reference: repro files"
python3 - wasm.csv <<'PY' && pass "details: 150 columns, names with commas and quotes" || fail "details: 150 columns, names with commas and quotes"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows[0]) == 150 and all(len(r) == 150 for r in rows)
names = [r[2] for r in rows[1:]]
assert any("," in n for n in names) and any('"' in n for n in names)
h = rows[0]
assert "Base ActualCodeBytes" in h and "Diff PerfScore" in h and "Method full name" in h
PY

# superpmi -p N writes its details and prints its stdout one worker after the other (worker i
# has contexts i+1, i+1+N, ...): --order-as-parallel N gives that order, byte for byte, so
# superpmi.py numbers asserts and sums floats as over the .mch
for p in 2 3; do
    rm -rf wp.r; mkdir wp.r
    "$SP" -v ewi -p $p -a -f wp.mcl -details wp.csv base.so diff.so c.mch > wp.out 2> wp.err
    echo $? > wp.rc
    "$R" -q --verbosity ewi -j 2 --exec-batch 0 --order-as-parallel $p -f gp.mcl --details gp.csv \
        --exec-word "$SP" --exec-word -v --exec-word ewi --exec-word -a --exec-word base.so \
        --exec-word diff.so c.mcz > gp.out 2> gp.err
    echo $? > gp.rc
    same "-p $p order: exit code" wp.rc gp.rc
    same "-p $p order: -f" wp.mcl gp.mcl
    same "-p $p order: details, byte for byte" wp.csv gp.csv
    same "-p $p order: stdout, byte for byte" wp.out gp.out
done
cmp -s wp.csv wasm.csv && fail "-p order: the reference differs from the sequential one" ||
    pass "-p order: the reference differs from the sequential one"

# -repeatCount: N rows a context, passed through
whole wrep -repeatCount 3 base.so
agree "-repeatCount 3" wrep "$(mczr g c.mcz -j 2 --exec-batch 0 -- -repeatCount 3 base.so; echo g)"
[ "$(($(wc -l < g.csv) - 1))" = 900 ] && pass "-repeatCount 3: three rows a context" ||
    fail "-repeatCount 3: $(($(wc -l < g.csv) - 1)) rows"

# -c: only the selected contexts, with their global numbers (superpmi writes no repro with -c)
"$SP" -v ewi -c 5-40,100,250-260 -f wc.mcl -details wc.csv base.so c.mch > wc.out 2> wc.err
echo $? > wc.rc
"$R" -q --verbosity ewi -j 2 --exec-batch 0 -c 5-40,100,250-260 -f gc.mcl --details gc.csv \
    --exec-word "$SP" --exec-word -v --exec-word ewi --exec-word base.so c.mcz > gc.out 2> gc.err
echo $? > gc.rc
same "-c: exit code" wc.rc gc.rc
same "-c: -f" wc.mcl gc.mcl
same "-c: details" wc.csv gc.csv
same "-c: stdout" wc.out gc.out

# -v ewmi prints misses too (on stdout): the same lines, global numbers, in order
"$SP" -v ewmi -a base.so diff.so c.mch > wm.out 2> /dev/null
"$R" -q --verbosity ewmi -j 2 --exec-batch 0 --exec-word "$SP" --exec-word -v --exec-word ewmi \
    --exec-word -a --exec-word base.so --exec-word diff.so c.mcz > gm.out 2> /dev/null
[ "$(grep -c '^MISSING: Method context' wm.out)" -gt 3 ] && pass "reference: misses printed" ||
    fail "reference: misses printed"
same "-v ewmi: MISSING and ISSUE lines" wm.out gm.out

# -v ewi: nothing of mcz-replay's own on stdout; the default verbosity prints the summary
[ -z "$(grep -v -E '^(ISSUE|MISSING|$|Exception)' wreplay.out)" ] && pass "-v ewi: the reference prints no summary" ||
    fail "-v ewi: the reference prints no summary"
grep -q '^Loaded' g.out && fail "-v ewi: no summary line" || pass "-v ewi: no summary line"
"$R" -q -j 2 --exec-word "$SP" --exec-word base.so c.mcz > gv.out 2> gv.err
"$SP" base.so c.mch > wv.out 2> wv.err
grep '^Loaded' wv.out > wv.sum; grep '^Loaded' gv.out > gv.sum
same "default verbosity: one summary line, the whole run's" wv.sum gv.sum

# The number the JIT is told: with --exec-toc each unit gets an .mct of global numbers and -c
# them, so the JIT's own listing (DOTNET_JitStdOutFile) names each context as a run over the
# .mch does. A superpmi whose table loader refuses every .mct (STANDIN_TOC=reject) gets the
# unit again, numbered 1..k: the results are still the whole run's.
dasm() { # NAME CMD...: the listing's context lines of a run with the JIT's stdout in NAME.dasm
    local name=$1; shift
    rm -f "$name.dasm"
    DOTNET_JitStdOutFile="$T/$name.dasm" DOTNET_JitDisasm='*' "$@" > /dev/null 2>&1
    grep '^; superpmi context #' "$name.dasm" > "$name.ctx" 2>/dev/null
}
dasm wd "$SP" -v ewi base.so c.mch
dasm gd "$R" -q -j 1 --exec-batch 0 --exec-toc --exec-word "$SP" --exec-word base.so c.mcz
dasm gn "$R" -q -j 1 --exec-batch 0 --exec-word "$SP" --exec-word base.so c.mcz
[ "$(wc -l < wd.ctx)" -gt 100 ] && pass "listings: the reference names its contexts" ||
    fail "listings: the reference names its contexts"
same "listings: the JIT is told each context's global number" wd.ctx gd.ctx
cmp -s wd.ctx gn.ctx && fail "listings: without --exec-toc the JIT sees a unit's numbers" ||
    pass "listings: without --exec-toc the JIT sees a unit's numbers"
for input in c.mcz c.mch; do
    STANDIN_TOC=reject mczr g "$input" -j 2 --exec-batch 0 --unit-size 100000 --exec-toc -- base.so
    agree "a superpmi that refuses every .mct, $input" wreplay g
done

# a unit whose details are not CSV: its contexts were not judged (the command ended as superpmi
# ends, so the rows should be there): the run stops, exit 255, naming the unit and the file
cat > notcsv.sh <<SH
#!/bin/sh
"$SP" "\$@"; rc=\$?
while [ \$# -gt 1 ]; do [ "\$1" = -details ] && printf 'Context,Result\n1,"a"b\n' > "\$2"; shift; done
exit \$rc
SH
chmod +x notcsv.sh
"$R" -q -j 1 --exec-batch 0 -c 1-20 --details n.csv --exec "$T/notcsv.sh base.so" c.mcz > n.out 2> n.err
echo $? > n.rc
[ "$(cat n.rc)" = 255 ] && pass "details not CSV: exit 255" || fail "details not CSV: exit 255 (got $(cat n.rc))"
contains "details not CSV: the unit named" n.err "contexts 1-"
contains "details not CSV: what is wrong" n.err "details.csv: line 2: not CSV"

# the failure limit counts over the whole run: no unit is handed out once it is reached
"$R" -q -j 1 --exec-batch 0 --failure-limit 3 -f fl.mcl --exec-word "$SP" --exec-word base.so \
    c.mcz > fl.out 2> fl.err
echo $? > fl.rc
contains "--failure-limit: exit 1" fl.rc 1
contains "--failure-limit: said" fl.err "More than 3 methods failed"
nfail=$(wc -l < fl.mcl); nall=$(wc -l < wreplay.mcl)
[ "$nfail" -ge 3 ] && [ "$nfail" -lt "$nall" ] && pass "--failure-limit: stops early ($nfail of $nall)" ||
    fail "--failure-limit: $nfail failures of $nall"
cli_done
