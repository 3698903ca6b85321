#!/usr/bin/env bash
# mcz-superpmi -streaming over an archive: the real superpmi (the stand-in of today's superpmi,
# whose -streaming follows streamingsuperpmi.cpp) streams from a sparse stand-in file that
# mcz-superpmi fills with each context as it is requested. The answers, console lines and the
# JIT's listings are those of the same requests over the .mch, with the .mct read and with it
# refused (the headers walked); requests from a file and from stdin; a stop; no file left.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
"$BIN/mchgen" --seed 5 --contexts 300 --out "$T/a.mch" >/dev/null 2>&1
"$BIN/mcs" -convert --force --chunk-size 64K "$T/a.mch" "$T/x.mch" >/dev/null 2>&1
[ -s "$T/x.mch" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
C="$T/core"; mkdir "$C" "$T/tmp"
cp "$SP" "$C/superpmi"
"$BIN/mcz-superpmi" --install "$C" >/dev/null || { fail "setup: --install"; cli_done; exit; }
echo jit > "$C/jit.so"
export TMPDIR="$T/tmp"
cd "$C" || exit 1
printf '5\n# a comment\n120!JitStdOutFile=x\n7\n300\n1\n5\nquit\n' > "$T/req.txt"

# stream NAME PROGRAM INPUT [ENV...]: the requests of req.txt, outputs in $T/NAME.*
stream() {
    local name=$1 prog=$2 input=$3; shift 3
    rm -f "$T/$name.dasm"
    env "$@" DOTNET_JitStdOutFile="$T/$name.dasm" DOTNET_JitDisasm='*' \
        "$prog" -v ewi -streaming "$T/req.txt" jit.so "$input" > "$T/$name.out" 2> "$T/$name.err"
    echo $? > "$T/$name.rc"
}
for toc in read reject; do
    env=(STANDIN_TOC=$([ $toc = reject ] && echo reject || echo read))
    stream ref ./superpmi.real "$T/a.mch" "${env[@]}"
    stream got ./superpmi "$T/x.mch" "${env[@]}"
    [ "$(grep -c 'Done. Status' "$T/ref.out")" = 6 ] && pass "table $toc: the reference answers 6" ||
        fail "table $toc: the reference answers 6"
    same "table $toc: the answers" "$T/ref.out" "$T/got.out"
    same "table $toc: exit code" "$T/ref.rc" "$T/got.rc"
    same "table $toc: console lines" <(grep -v WARNING "$T/ref.err") <(grep -v WARNING "$T/got.err")
    same "table $toc: the JIT's listings" "$T/ref.dasm" "$T/got.dasm"
done
printf '300\n2\n' | ./superpmi -v ewi -s stdin jit.so "$T/x.mch" > "$T/in.out" 2>&1
contains "requests from stdin answered" "$T/in.out" "[streaming] Done. Status="
[ "$(grep -c 'Done. Status' "$T/in.out")" = 2 ] && pass "requests from stdin: two answers" ||
    fail "requests from stdin: two answers"
[ -z "$(ls -A "$T/tmp")" ] && pass "no temporary file left" || fail "no temporary file left"

# a context the archive does not hold: superpmi's general failure, as over the .mch
printf '999\n' > "$T/bad.txt"
./superpmi.real -v ewi -streaming "$T/bad.txt" jit.so "$T/a.mch" > /dev/null 2>&1; want=$?
./superpmi -v ewi -streaming "$T/bad.txt" jit.so "$T/x.mch" > /dev/null 2>&1; got=$?
[ "$got" = "$want" ] && pass "a number past the end: exit $want, as over the .mch" ||
    fail "a number past the end: exit $got, the .mch gives $want"

# a stop while waiting for requests: the run ends, nothing is left
mkfifo "$T/fifo"
./superpmi -v ewi -streaming "$T/fifo" jit.so "$T/x.mch" > "$T/stop.out" 2>&1 &
pid=$!
exec 7> "$T/fifo"; echo 5 >&7; sleep 1
kill -TERM "$pid"; exec 7>&-
for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "SIGTERM: still running"; } || pass "SIGTERM: ended"
wait "$pid"; rc=$?
[ "$rc" = 143 ] && pass "SIGTERM: exit 143" || fail "SIGTERM: exit $rc"
[ -z "$(ls -A "$T/tmp")" ] && pass "SIGTERM: no temporary file left" || fail "SIGTERM: temporary files left"
cli_done
