#!/usr/bin/env bash
# mcz-superpmi end to end: a fake Core_Root whose superpmi is the stand-in for today's superpmi
# (tests/collector/spmi_today.c), mcz-superpmi installed over it. mcz-superpmi over an archive
# named X.mch against the stand-in over the same contexts as an .mch: the same exit code, -f
# list, details rows (read with python3's csv, as sets), ISSUE/MISSING lines and repro files.
# Then superpmi.py's own command lines (src/coreclr/scripts/superpmi.py at
# adamperlin/runtime@cfcbad413377cd9b4cf1785ca2a119f80b765a68, SuperPMIReplay.replay and
# SuperPMIReplayAsmDiffs.replay_with_asm_diffs): replay, asm diffs, and the disassembly step,
# several `superpmi -c N ... jit mch` at once with DOTNET_JitStdOutFile set.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
D="$BIN/mcz-superpmi"
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
command -v python3 >/dev/null || { fail "setup: python3"; cli_done; exit; }
# No MCZ_REPLAY and no bin/ on PATH: the copy installed in Core_Root runs the mcz-replay that
# --install recorded beside it, as it must under superpmi.py.
unset MCZ_REPLAY
case ":$PATH:" in *":$BIN:"*) PATH=$(echo "$PATH" | tr ':' '\n' | grep -vxF "$BIN" | paste -sd:) ;; esac

"$BIN/mchgen" --seed 5 --contexts 400 --out "$T/a.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/a.mch" "$T/a.mcz" --chunk-size 64K >/dev/null 2>&1
[ -s "$T/a.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
C="$T/core"; mkdir "$C" "$T/tmp"
cp "$SP" "$C/superpmi"
ok_run "setup: mcz-superpmi --install over the stand-in" "$D" --install "$C"
cp "$T/a.mcz" "$C/x.mch" # the archive, under the .mch name superpmi.py keeps
cp "$T/a.mch" "$C/ref.mch"
echo base >"$C/base.so"; echo diff >"$C/diff.so"
cd "$C" || exit 1
export TMPDIR="$T/tmp"

# run NAME PROGRAM ARGS... INPUT: NAME.out/.err/.rc, -f NAME.mcl, -details NAME.csv, -r NAME-rep/.
run() {
    local name=$1 prog=$2; shift 2
    rm -rf "$name-rep"; mkdir "$name-rep"
    "$prog" -f "$name.mcl" -details "$name.csv" -r "$name-rep/r" "$@" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
}
# rows_as_set CSV: the header, then the rows sorted, each as python's csv reads it.
rows_as_set() {
    python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print(rows[0] if rows else "(empty)")
for r in sorted(rows[1:]): print(r)' "$1"
}
# agree NAME REF GOT: the drop-in's run GOT says what the stand-in's run REF said.
agree() {
    same "$1: exit code" "$2.rc" "$3.rc"
    same "$1: -f list (as numbers)" <(tr -d '\r' <"$2.mcl" | sort -n) <(tr -d '\r' <"$3.mcl" | sort -n)
    same "$1: details rows (csv, as sets)" <(rows_as_set "$2.csv") <(rows_as_set "$3.csv")
    same "$1: ISSUE and MISSING lines on stdout" <(grep -E '^(ISSUE|MISSING):' "$2.out" | sort) \
        <(grep -E '^(ISSUE|MISSING):' "$3.out" | sort)
    same "$1: repro files" <(cd "$2-rep" && ls) <(cd "$3-rep" && ls)
    local f bad=0
    for f in "$2-rep"/*; do [ -e "$f" ] && { cmp -s "$f" "$3-rep/${f##*/}" || bad=1; }; done
    [ $bad -eq 0 ] && pass "$1: repro files' bytes" || fail "$1: repro files' bytes"
}

run ref ./superpmi.real -v ewi -p 2 base.so ref.mch
run got ./superpmi -v ewi -p 2 base.so x.mch
agree "replay -p 2" ref got
grep -q . ref.mcl && pass "replay: the stand-in has failures to compare" || fail "replay: failures to compare"
run ref ./superpmi.real -a -v ewi -p 2 base.so diff.so ref.mch
run got ./superpmi -a -v ewi -p 2 base.so diff.so x.mch
agree "asm diffs -p 2" ref got
run ref ./superpmi.real -v ewi -c 3-40,77 base.so ref.mch
run got ./superpmi -v ewi -c 3-40,77 base.so x.mch
agree "replay -c (no repro files, as superpmi)" ref got
[ -z "$(ls ref-rep)" ] && pass "-c: superpmi writes no repro" || fail "-c: superpmi writes no repro"
run ref ./superpmi.real -v ewi -p 2 -jitoption force K=V base.so ref.mch
run got ./superpmi -v ewi -p 2 -jitoption force K=V base.so x.mch
agree "replay -jitoption force" ref got
# superpmi -p at its default verbosity: the parent's banner (the program every worker runs and
# the arguments each is given), the workers' lines, the summary, the total time. The drop-in
# names itself where the stand-in does, and the archive where the stand-in names the .mch.
as_one() { sed -e "s|$C/superpmi.real|$C/superpmi|; s| x.mch)$| ref.mch)|" \
    -e 's|^Total time: [0-9.]*ms$|Total time: Tms|' "$1"; }
P=(-p 2 -f p.mcl -details p.csv -failureLimit 1000 -jitoption force K=V -jitoption L=W base.so)
./superpmi.real "${P[@]}" ref.mch >pref.out 2>/dev/null
./superpmi "${P[@]}" x.mch >pgot.out 2>/dev/null
contains "-p, default verbosity: the parent's banner" pgot.out \
    "Using child ($C/superpmi) with args ( -failureLimit 1000 -jitoption force K=V -jitoption L=W base.so x.mch)"
same "-p, default verbosity: superpmi -p's stdout" <(as_one pref.out) <(as_one pgot.out)
./superpmi -v ewi "${P[@]}" x.mch >pgot.out 2>/dev/null
! grep -qE '^(Using child| workerCount|Total time)' pgot.out && pass "-p -v ewi: no banner, no total time" \
    || fail "-p -v ewi: no banner, no total time"
same "-p -v ewi: superpmi -p's stdout" ref.out got.out
[ -z "$(ls "$T/tmp")" ] && pass "no temporary file left" || fail "no temporary file left ($(ls "$T/tmp" | head -3))"

# --- superpmi.py replay: its command line, from Core_Root; the details read by column name
./superpmi -v ewi -r "$T/repro" -p 2 -f "$T/x_fail.mcl" -details "$T/replay.csv" base.so x.mch \
    >"$T/py.out" 2>"$T/py.err"
rc=$?
case $rc in 0|1|3) pass "superpmi.py replay: exit $rc (read as results)";;
            *) fail "superpmi.py replay: exit $rc"; head -5 "$T/py.err";; esac
if python3 - "$T/replay.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    assert r["Result"] in ("Success", "Miss", "Error"), r["Result"]
    int(r["Context"]); int(r["Context size"]); r["Method full name"]; r["Tier name"]
assert sum(int(r["ActualCodeBytes"]) for r in rows) > 0, "ActualCodeBytes all zero"
EOF
then pass "superpmi.py replay: details by column name (Result, ActualCodeBytes)"
else fail "superpmi.py replay: details by column name"; fi
[ ! -s "$T/py.out" ] || ! grep -qv -E '^(ISSUE|MISSING):|^$|^Exception' "$T/py.out" &&
    pass "superpmi.py replay: under -v ewi nothing but issues on stdout" ||
    { fail "superpmi.py replay: under -v ewi nothing but issues on stdout"; head -3 "$T/py.out"; }

# --- superpmi.py asmdiffs
OPTS=(-jitoption force JitEnableNoWayAssert=1 -jitoption force JitNoForceFallback=1
      -jitoption force JitAlignLoops=0)
OPTS2=(-jit2option force JitEnableNoWayAssert=1 -jit2option force JitNoForceFallback=1
       -jit2option force JitAlignLoops=0)
./superpmi -a -v ewi -f "$T/d_fail.mcl" -details "$T/diffs.csv" -r "$T/drepro" "${OPTS[@]}" \
    "${OPTS2[@]}" -p 2 base.so diff.so x.mch >"$T/pyd.out" 2>"$T/pyd.err"
rc=$?
case $rc in 0|1|2|3) pass "superpmi.py asmdiffs: exit $rc";;
            *) fail "superpmi.py asmdiffs: exit $rc"; head -5 "$T/pyd.err";; esac
python3 - "$T/diffs.csv" >"$T/picked" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    assert r["Base result"] in ("Success", "Miss", "Error")
    assert r["Diff result"] in ("Success", "Miss", "Error")
    for k in ("MinOpts", "Base instructions", "Diff instructions", "Base PerfScore",
              "Diff PerfScore", "Method full name", "Context size"):
        r[k]
diffs = [r for r in rows if r["Has diff"] == "True"]
base = sum(int(r["Base ActualCodeBytes"]) for r in diffs)
assert base > 0, "Base ActualCodeBytes of the diffs: zero"
# the smallest diffs first, as pick_contexts_to_disassemble takes them (a stable sort)
diffs.sort(key=lambda r: int(r["Context size"]))
for r in diffs[:12]: print(r["Context"])
EOF
[ -s "$T/picked" ] && pass "superpmi.py asmdiffs: details by column name, diffs to disassemble" ||
    fail "superpmi.py asmdiffs: details by column name, diffs to disassemble"

# --- the disassembly step: every picked context, both JITs, 4 at once, over the archive and
# over the .mch; each exits 0 and writes its file, and the texts are the .mch's
dasm() { # dasm DIR JIT INPUT N
    DOTNET_JitStdOutFile="$1/$4.dasm" DOTNET_JitDisasm='*' DOTNET_JitUnwindDump='*' \
        DOTNET_JitEHDump='*' DOTNET_JitDisasmDiffable=1 DOTNET_JitDisasmWithGC=1 \
        ./superpmi -c "$4" "${OPTS[@]}" "$2" "$3" >/dev/null 2>>"$1/err"
    echo "$4 $?" >>"$1/rc"
}
mkdir -p "$T/asm/base" "$T/asm/diff" "$T/asm/rbase" "$T/asm/rdiff"
running=0
while read -r n; do
    for j in base diff; do
        dasm "$T/asm/$j" $j.so x.mch "$n" &
        dasm "$T/asm/r$j" $j.so ref.mch "$n" &
        running=$((running + 2))
        [ $running -ge 4 ] && { wait; running=0; }
    done
done <"$T/picked"
wait
picked=$(wc -l <"$T/picked")
for j in base diff; do
    nz=$(awk '$2 != 0' "$T/asm/$j/rc" | wc -l)
    [ "$nz" -eq 0 ] && [ "$(wc -l <"$T/asm/$j/rc")" -eq "$picked" ] &&
        pass "disassembly ($j): $picked runs, every one exit 0" ||
        { fail "disassembly ($j): $nz of $picked runs exit non-zero"; head -3 "$T/asm/$j/err"; }
    missing=0
    while read -r n; do [ -s "$T/asm/$j/$n.dasm" ] || missing=$((missing + 1)); done <"$T/picked"
    [ $missing -eq 0 ] && pass "disassembly ($j): every JitStdOutFile written" ||
        fail "disassembly ($j): $missing JitStdOutFile missing or empty"
    # the stand-in's "; superpmi context #N" line included: the JIT is told the global number
    same "disassembly ($j): the listings are the .mch's" \
        <(cd "$T/asm/r$j" && cat $(sort -n "$T/picked" | sed 's/$/.dasm/')) \
        <(cd "$T/asm/$j" && cat $(sort -n "$T/picked" | sed 's/$/.dasm/'))
done
n=$(head -1 "$T/picked")
if ! cmp -s "$T/asm/base/$n.dasm" "$T/asm/diff/$n.dasm"; then pass "disassembly: base and diff differ on a diff"
else fail "disassembly: base and diff differ on a diff"; fi
cli_done
