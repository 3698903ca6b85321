#!/usr/bin/env bash
# Nothing false: a failure of mcz-replay's own during an --exec replay (a TMPDIR that fills up,
# a replayer that cannot start, one that replays none of its unit ("Loaded 0"), one that
# writes no -details file, one killed by SIGKILL, a worker killed by SIGKILL) ends the run with
# superpmi's general error (exit 255), names the errno and the path, counts the contexts not
# judged as not replayed and lists none of them in -f. The same through mcz-superpmi, the
# drop-in, whose real superpmi is the broken replayer. superpmi's codes (superpmi.h SpmiResult
# at filipnavara/runtime@c659a8bb): 0-3 are the JIT's results, -1 (255) a general failure.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
D="$BIN/mcz-superpmi"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
"$BIN/mchgen" --seed 5 --contexts 200 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 128K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
cp "$T/c.mcz" "$T/x.mch" # an archive under an .mch name, for the drop-in
: > "$T/jit.so"

absent() {
    if grep -qF -- "$3" "$2"; then fail "$1 ('$3' in $2)"; else pass "$1"; fi
}
empty_list() { # NAME FILE: FILE exists and lists no context
    if [ -e "$2" ] && [ ! -s "$2" ]; then pass "$1"; else fail "$1 ($2 missing or not empty)"; fi
}

# A replayer script: the words superpmi gets; $1 says what it does wrong. It finds -details.
replayer() { # PATH BODY
    { echo '#!/bin/sh'
      echo 'details=; while [ $# -gt 0 ]; do case $1 in -details) details=$2; shift 2;; *) shift;; esac; done'
      echo "$2"; } > "$1"
    chmod +x "$1"
}
HEADER='Context,Context size,Method full name,Tier name,Result,MinOpts,Instructions'
# executable, but its interpreter is missing: exec fails with ENOENT (found by the drop-in,
# which checks only that the real superpmi is an executable file)
printf '#!/no/such/interpreter\n' > "$T/unstartable.sh"; chmod +x "$T/unstartable.sh"
replayer "$T/nothing.sh" "printf '%s\n' '$HEADER' > \"\$details\"; echo 'Loaded 0  Jitted 0  FailedCompile 0 Excluded 0 Missing 0'; exit 0"
replayer "$T/nodetails.sh" 'exit 0'
# rows for the first two contexts it is given (-c names the unit's numbers when they are
# global): one failed, then one whose Result is no value superpmi writes
{ echo '#!/bin/sh'
  echo 'details=; first=1'
  echo 'while [ $# -gt 0 ]; do case $1 in -details) details=$2; shift 2;; -c) first=${2%%[-,]*}; shift 2;; *) shift;; esac; done'
  echo "printf '%s\\n' '$HEADER' > \"\$details\""
  echo 'printf "%s,10,\"M\",Tier0,Error,False,5\n" "$first" >> "$details"'
  echo 'printf "%s,10,\"M\",Tier0,Passed,False,5\n" "$((first + 1))" >> "$details"'
  echo 'exit 1'; } > "$T/badresult.sh"
chmod +x "$T/badresult.sh"
replayer "$T/selfkill.sh" 'kill -KILL $$'
replayer "$T/killworker.sh" 'kill -KILL $PPID; sleep 5'

# check NAME WHAT...: after a run, exit 255, the texts in stderr, -f empty, no failure counted.
check() {
    local name=$1; shift
    for text in "$@"; do contains "$name: says '$text'" "$T/err" "$text"; done
    empty_list "$name: nothing in -f" "$T/f.mcl"
    absent "$name: no context reported as a failure" "$T/err" ": crash"
    if grep -qE 'FailedCompile [1-9]|Missing [1-9]' "$T/out"; then
        fail "$name: no failure counted"; else pass "$name: no failure counted"; fi
}

# run_both NAME EXTRA-ENV REPLAYER TEXTS...: through --exec and through the drop-in
run_both() {
    local name=$1 cmd=$2; shift 2
    rm -f "$T/f.mcl"
    exit_is "$name: --exec exits 255" 255 "$R" -q -j 2 -f "$T/f.mcl" --details "$T/d.csv" \
        --exec "$cmd $T/jit.so" "$T/c.mcz"
    check "$name (--exec)" "$@"
    contains "$name (--exec): the contexts not judged are said to be not replayed" "$T/err" \
        "selected contexts were not replayed"
    rm -f "$T/f.mcl"
    exit_is "$name: mcz-superpmi exits 255" 255 env MCZ_SUPERPMI="$cmd" MCZ_REPLAY="$R" \
        "$D" -p 2 -f "$T/f.mcl" -details "$T/d.csv" "$T/jit.so" "$T/x.mch"
    check "$name (drop-in)" "$@"
}

run_both "a command that cannot start" "$T/unstartable.sh" \
    "cannot run $T/unstartable.sh: No such file or directory"
run_both "a replayer that replays nothing (Loaded 0)" "$T/nothing.sh" \
    "having accounted for 0 of the" "details.csv has no row for context"
run_both "a replayer that writes no details" "$T/nodetails.sh" \
    "without writing the details file it was asked for" "details.csv: No such file or directory"
run_both "a details file with a result superpmi does not write" "$T/badresult.sh" \
    'line 3: Result "Passed" is not what superpmi writes there (Success, Error or Miss)'
run_both "a replayer killed by SIGKILL" "$T/selfkill.sh" "was killed by signal 9 (SIGKILL) from outside"
run_both "a worker killed by SIGKILL" "$T/killworker.sh" \
    "worker killed by signal 9" "killed from outside, not by its replayer"

# --- A full TMPDIR: a tmpfs of 64 KiB (smaller than any unit) mounted here, as root; without
# the right to mount, in a user namespace of its own (unshare -rm).
mkdir "$T/small"
full_tmp() { # CMD...: runs CMD with TMPDIR on the small tmpfs
    if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
        TMPDIR="$T/small" "$@"; local rc=$?
        umount "$T/small"; return $rc
    fi
    unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs "$0" && shift && TMPDIR="$0" exec "$@"' \
        "$T/small" "$@"
}
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null && umount "$T/small" ||
   unshare -rm sh -c 'mount -t tmpfs tmpfs "$0"' "$T/small" 2>/dev/null; then
    rm -f "$T/f.mcl"
    exit_is "full TMPDIR: --exec exits 255" 255 full_tmp "$R" -q -j 2 -f "$T/f.mcl" \
        --details "$T/d.csv" --exec "$SP $T/jit.so" "$T/c.mcz"
    check "full TMPDIR (--exec)" "No space left on device" "cannot write the unit's temporary .mch $T/small/"
    rm -f "$T/f.mcl"
    exit_is "full TMPDIR: mcz-superpmi exits 255" 255 full_tmp env MCZ_SUPERPMI="$SP" \
        MCZ_REPLAY="$R" "$D" -p 2 -f "$T/f.mcl" -details "$T/d.csv" "$T/jit.so" "$T/x.mch"
    check "full TMPDIR (drop-in)" "No space left on device" "cannot write the unit's temporary .mch $T/small/"
else
    fail "full TMPDIR: no way to mount a small tmpfs here (mount, unshare -rm)"
fi

# --- The same replayer, working: the failures are the JIT's, exit 1 (the checks above can fail)
exit_is "a working replayer: exit 1 (the JIT's failures)" 1 "$R" -q -j 2 -f "$T/f.mcl" \
    --exec "$SP $T/jit.so" "$T/c.mcz"
[ -s "$T/f.mcl" ] && pass "a working replayer: its failures in -f" || fail "a working replayer: its failures in -f"
cli_done
