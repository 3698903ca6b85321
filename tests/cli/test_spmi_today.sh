#!/usr/bin/env bash
# The stand-in for today's superpmi (tests/collector/spmi_today.c) against itself, before other
# tests trust it: -p N gives a sequential run's details (as a set of rows, one header), -f list,
# exit code and summary; the details parse with a real CSV reader to 77/150 columns (23/32,
# 113/222 with the other metric lists) while a plain comma split does not; -repeatCount, -r,
# -failureLimit, the console lines superpmi.py parses, the -p temporary files, the
# JitStdOutFile listings, and the usage errors and exit codes.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
command -v python3 >/dev/null || { fail "setup: python3"; cli_done; exit; }

"$BIN/mchgen" --seed 1 --contexts 300 --out "$T/x.mch" >/dev/null 2>&1
[ -s "$T/x.mch" ] || { fail "setup: mchgen"; cli_done; exit; }
cd "$T" || exit 1
: > base.so
: > diff.so
mkdir -p tmp

# run NAME ARGS...: the stand-in with -f NAME.mcl -details NAME.csv; NAME.out/.err/.rc.
run() {
    local name=$1; shift
    TMPDIR="$T/tmp" "$SP" "$@" -f "$name.mcl" -details "$name.csv" > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
}

# rows_agree NAME A B: same header line, same rows as a multiset, same -f list and exit code.
rows_agree() {
    same "$1: header" <(head -1 "$2.csv") <(head -1 "$3.csv")
    same "$1: rows as a set" <(tail -n +2 "$2.csv" | sort) <(tail -n +2 "$3.csv" | sort)
    same "$1: -f list" "$2.mcl" "$3.mcl"
    same "$1: exit code" "$2.rc" "$3.rc"
}

# columns NAME CSV N: a CSV reader gives N fields on every line.
columns() {
    if python3 -c '
import csv, sys
n = int(sys.argv[2])
rows = list(csv.reader(open(sys.argv[1], newline="")))
bad = [i for i, r in enumerate(rows) if len(r) != n]
sys.exit(1 if bad or len(rows) < 2 else 0)' "$2" "$3"; then pass "$1"; else fail "$1"; fi
}

run seq -v ewin base.so x.mch
run par -v ewin -p 2 base.so x.mch
rows_agree "replay -p 2" seq par
same "replay -p 2: summary" <(grep '^Loaded ' seq.out) <(grep '^Loaded ' par.out)
contains "replay: summary" seq.out "Loaded 300  Jitted 300  FailedCompile 52 Excluded 0 Missing 31"
same "replay: exit 1 (errors)" seq.rc <(echo 1)
run dseq -a -v ewin base.so diff.so x.mch
run dpar -a -v ewin -p 3 base.so diff.so x.mch
rows_agree "asm diffs -p 3" dseq dpar
same "asm diffs -p 3: summary" <(grep '^Loaded ' dseq.out) <(grep '^Loaded ' dpar.out)
contains "asm diffs: summary with Diffs" dseq.out " Diffs 53"
same "-p: no temporary file left" <(ls tmp) /dev/null

run keep -v ewin -p 2 -skipCleanup base.so x.mch
n_tmp=$(ls tmp | grep -c '^ParallelSuperPMI-')
same "-p 2 -skipCleanup: 8 temporary files kept" <(echo "$n_tmp") <(echo 8)
rm -f tmp/*

# The details: a CSV reader counts the columns; names carry commas and quotes. The counter
# itself must reject a row one field short.
sed '2s/,[^,]*$//' seq.csv > short.csv
if (columns "x" short.csv 77 | grep -q '^not ok'); then pass "the column check rejects a short row"
else fail "the column check rejects a short row"; fi
columns "replay details: 77 columns" seq.csv 77
columns "asm diffs details: 150 columns" dseq.csv 150
if awk -F, 'NR > 1 && NF != 77 { odd++ } END { exit odd > 0 ? 0 : 1 }' seq.csv; then
    pass "a plain comma split does not give 77 columns (names hold commas)"
else fail "a plain comma split does not give 77 columns (names hold commas)"; fi
contains "a name with a doubled quote" seq.csv '"System.Linq.Enumerable:Say(System.String=""hi, you""):this"'
contains "ActualCodeBytes and PerfScore are columns" dseq.csv ",Base ActualCodeBytes,Diff ActualCodeBytes,"
STANDIN_METRICS=16 run m16 base.so x.mch
STANDIN_METRICS=106 run m106 -a base.so diff.so x.mch
columns "STANDIN_METRICS=16: 23 columns" m16.csv 23
columns "STANDIN_METRICS=106 -a: 222 columns" m106.csv 222
if python3 -c '
import csv, sys
rows = list(csv.DictReader(open("seq.csv", newline="")))
ok = all((int(r["ActualCodeBytes"]) > 0) == (r["Result"] == "Success") for r in rows)
ok = ok and {r["Result"] for r in rows} == {"Success", "Error", "Miss"}
ok = ok and all(r["Method full name"] == "" for r in rows if r["Result"] != "Success")
ok = ok and {r["Tier name"] for r in rows if r["Result"] == "Success"} >= {"Tier0", "Tier1", "FullOpts"}
sys.exit(0 if ok else 1)'; then pass "replay rows: code bytes only for Success, tiers, empty failures"
else fail "replay rows: code bytes only for Success, tiers, empty failures"; fi

# Console lines: under -v ewi no summary; asserts as superpmi.py parses them, shared texts;
# one MISSING line per Miss row.
run quiet -v ewi base.so x.mch
if grep -q '^Loaded ' quiet.out; then fail "-v ewi: no summary line"; else pass "-v ewi: no summary line"; fi
run pquiet -v ewi -p 2 base.so x.mch
if grep -q '^Loaded ' pquiet.out; then fail "-v ewi -p 2: no summary line"; else pass "-v ewi -p 2: no summary line"; fi
if python3 -c '
import re, sys
lines = open("quiet.out").read().splitlines()
pat = r"ISSUE: <ASSERT> #([0-9]+) (.*) \(([0-9]*)\) - Assertion failed \x27(.*)\x27 in \x27.*\x27 during \x27.*\x27 \(IL size ([0-9]*); hash .*\)"
found = [re.search(pat, l) for l in lines if l.startswith("ISSUE: <ASSERT>")]
texts = [m.group(4) for m in found if m]
sys.exit(0 if found and all(found) and len(set(texts)) < len(texts) else 1)'; then
    pass "assert lines match superpmi.py's pattern and share texts"
else fail "assert lines match superpmi.py's pattern and share texts"; fi
if grep -q '^MISSING' quiet.out; then fail "-v ewi: no MISSING line"; else pass "-v ewi: no MISSING line"; fi
run missing -v ewm base.so x.mch
same "-v ewm: one MISSING line per Miss row" <(grep -c '^MISSING: Method context [0-9]* failed to replay: ' missing.out) \
    <(grep -c ',Miss,' seq.csv)
same "one ERROR line per Error row" <(grep -c '^ERROR: Method [0-9]* of size [0-9]* failed to load and compile correctly' quiet.err) \
    <(grep -c ',Error,' seq.csv)

# -repeatCount: one row per compile, -f entries repeated.
run rep -v ewin -repeatCount 3 -c 1-4 base.so x.mch
same "-repeatCount 3 -c 1-4: 12 rows" <(tail -n +2 rep.csv | cut -d, -f1 | tr '\n' ' ') \
    <(echo -n "1 1 1 2 2 2 3 3 3 4 4 4 ")
same "-repeatCount 3: -f repeats" rep.mcl <(printf '1\r\n1\r\n1\r\n')
contains "-repeatCount 3: Jitted 12" rep.out "Loaded 4  Jitted 12"
run prep -v ewin -repeatCount 2 -p 2 base.so x.mch
same "-repeatCount 2 -p 2: 600 rows" <(tail -n +2 prep.csv | wc -l) <(echo 600)

# -r: PREFIX-N.mc holds the bytes of each Error context, only without -c.
TMPDIR="$T/tmp" "$SP" -v ewi -r "$T/rp" base.so x.mch >/dev/null 2>&1
if python3 -c '
import csv, os, struct, sys
d = open("x.mch", "rb").read(); at = 0; n = 0; ctx = {}
while at < len(d):
    l = struct.unpack_from("<I", d, at + 2)[0]; n += 1; ctx[n] = d[at:at + l + 8]; at += l + 8
errors = {int(r["Context"]) for r in csv.DictReader(open("seq.csv")) if r["Result"] == "Error"}
files = {int(f[3:-3]) for f in os.listdir(".") if f.startswith("rp-") and f.endswith(".mc")}
ok = files == errors and all(open("rp-%d.mc" % k, "rb").read() == ctx[k] for k in files)
sys.exit(0 if ok else 1)'; then pass "-r: one repro per Error context, its bytes"
else fail "-r: one repro per Error context, its bytes"; fi
rm -f rp-*.mc
"$SP" -v ewi -c 1-50 -r "$T/rp" base.so x.mch >/dev/null 2>&1
same "-r with -c: no repro" <(ls | grep -c '^rp-') <(echo 0)

# -failureLimit 2: the second Error ends the loop, without its row.
run lim -v ewin -failureLimit 2 base.so x.mch
contains "-failureLimit 2: message" lim.err "More than 2 methods failed. Skip compiling remaining methods."
same "-failureLimit 2: -f" lim.mcl <(grep -m 4 -E ',(Error|Miss),' seq.csv | cut -d, -f1 | sed 's/$/\r/')
same "-failureLimit 2: the stopping context has no row" <(tail -1 lim.csv | cut -d, -f1) <(echo 41)

# JitStdOutFile: a listing per compile; base and diff JIT differ only on contexts with diffs.
mkdir -p jb jd; echo base > jb/libclrjit.so; echo diff > jd/libclrjit.so
listing() { DOTNET_JitStdOutFile="$T/$2.$1.dasm" DOTNET_JitDisasm='*' "$SP" -c "$1" "$2/libclrjit.so" x.mch >/dev/null 2>&1; }
ndiff=0; nsame=0
python3 -c '
import csv
rows = [r for r in csv.DictReader(open("dseq.csv", newline=""))
        if r["Base result"] == r["Diff result"] == "Success"]
for r in rows[:12]:
    print(r["Context"], r["Has diff"])' > picked
while read -r n has; do
    listing "$n" jb; listing "$n" jd
    if cmp -s "jb.$n.dasm" "jd.$n.dasm"; then [ "$has" = False ] && nsame=$((nsame + 1))
    else [ "$has" = True ] && ndiff=$((ndiff + 1)); fi
done < picked
if [ $((ndiff + nsame)) -eq 12 ] && [ "$ndiff" -gt 0 ] && [ "$nsame" -gt 0 ]; then
    pass "listings differ exactly on contexts with diffs ($ndiff of 12)"
else fail "listings differ exactly on contexts with diffs ($ndiff differ, $nsame same of 12)"; fi
n=$(head -1 picked | cut -d' ' -f1)
contains "listing: assembly header" jb.$n.dasm "; Assembly listing for method "
contains "listing: total bytes" jb.$n.dasm "; Total bytes of code "

# Usage errors and exit codes.
usage_error() {
    local name=$1; shift
    "$SP" "$@" > u.out 2> u.err
    local rc=$?
    if [ "$rc" -eq 255 ] && head -1 u.out | grep -qx 'SuperPMI is a JIT compiler testing tool.'; then
        pass "$name: usage, exit 255"
    else fail "$name: usage, exit 255 (exit $rc)"; fi
}
usage_error "unknown switch" -zz base.so x.mch
usage_error "-t is no switch (target needs 6 letters)" -t x64 base.so x.mch
usage_error "an .mcz input" base.so x.mcz
usage_error "no input" base.so
usage_error "three JITs" a.so b.so c.so x.mch
usage_error "-c 0,3" -c 0,3 base.so x.mch
usage_error "-c 5,3" -c 5,3 base.so x.mch
usage_error "-c 3-" -c 3- base.so x.mch
usage_error "-skipCleanup without -p" -skipCleanup base.so x.mch
usage_error "-p 65" -p 65 base.so x.mch
usage_error "-repeatCount 0" -repeatCount 0 base.so x.mch
usage_error "-target foo" -target foo base.so x.mch
usage_error "-jitoption without =" -jitoption foo base.so x.mch
usage_error "-p with -c (in every worker)" -v ewi -p 2 -c 1-5 base.so x.mch
contains "-p with -c: the workers' error" u.err "Cannot use method context list in parallel mode."
printf '3\n\n7\r\n  9 foo\n' > l.mcl
"$SP" -v ewin -c l.mcl -details l.csv base.so x.mch >/dev/null 2>&1
same "-c from an .mcl file" <(tail -n +2 l.csv | cut -d, -f1 | tr '\n' ' ') <(echo -n "3 7 9 ")
exit_is "a missing JIT: exit 254" 254 "$SP" -v ewi nojit.so x.mch
contains "a missing JIT: superpmi's message" "$T/err" "ERROR: Startup of JIT(nojit.so) failed"
exit_is "a missing JIT under -p: exit 255" 255 "$SP" -v ewi -p 2 nojit.so x.mch
exit_is "misses only: exit 3" 3 "$SP" -v ewi -c 8 base.so x.mch
exit_is "diffs only: exit 2" 2 "$SP" -a -v ewi -c 3 base.so diff.so x.mch
head -c 1000 x.mch > cut.mch
exit_is "a cut input: exit 255" 255 "$SP" -v ewi base.so cut.mch

cli_done
