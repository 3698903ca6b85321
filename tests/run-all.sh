#!/usr/bin/env bash
# Runs every test kind and prints one closing line, "N passed, N failed".
#   unit:  $BUILD/tests/test_*        (cmocka; its "[  PASSED  ] N test(s)." lines are counted)
#   fuzz:  $BUILD/fuzz/fuzz_<name>    replays tests/fuzz/corpus/<name>/ (one test per target)
#   cli:   tests/cli/test_*.sh        (each prints "ok - ..." / "not ok - ..." lines)
# MCZ_TEST_KINDS chooses among them ("unit fuzz cli", the default); MCZ_TEST_CLI names the CLI
# scripts (test_NAME.sh, without the directory) when not all of them.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-bin}
export BIN BUILD
export MCZ_ROOT=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
failures=()

count_cmocka() { # output file, exit code, name
    local p f
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$2" -ne 0 ]; then
        [ -z "$f" ] && failed=$((failed + 1))
        failures+=("$3")
    fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

kinds=" ${MCZ_TEST_KINDS:-unit fuzz cli} "
runs() { [[ "$kinds" == *" $1 "* ]]; }

for t in "$BUILD"/tests/test_*; do
    runs unit || break
    [ -x "$t" ] || continue
    echo "== unit $(basename "$t")"
    "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    count_cmocka "$log" "$rc" "$(basename "$t")"
done

for f in "$BUILD"/fuzz/fuzz_*; do
    runs fuzz || break
    [ -x "$f" ] || continue
    name=$(basename "$f"); name=${name#fuzz_}
    corpus="$MCZ_ROOT/tests/fuzz/corpus/$name"
    echo "== fuzz regression $name"
    if [ -d "$corpus" ] && "$f" "$corpus"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failures+=("fuzz $name")
    fi
done

# CLI scripts run MCZ_TEST_JOBS at a time (default: twice the cores, at least 2): each works in a
# directory of its own (lib.sh's mktemp) and picks its ports from the system, and much of their
# time is waiting on servers, timeouts and signals. Each script's output is printed whole, in
# the scripts' order, with its wall time; the slowest ten close the list. A CLI test that hangs
# fails alone instead of stopping the run: each has MCZ_TEST_LIMIT seconds (900). timeout runs
# it in a process group of its own, so that what the test started goes too; Ctrl-C reaches
# those groups as a SIGTERM through timeout, which passes it on (a job started with & ignores
# SIGINT, timeout included).
limit=${MCZ_TEST_LIMIT:-900}
jobs=${MCZ_TEST_JOBS:-$(( $(nproc 2>/dev/null || echo 1) * 2 ))}
[ "$jobs" -ge 2 ] 2>/dev/null || jobs=2
logs=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$logs"' EXIT
stop_all() { local p; for p in $(jobs -p); do kill -TERM "$p" 2>/dev/null; done; }
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
cli_scripts=("$MCZ_ROOT"/tests/cli/test_*.sh)
[ -n "${MCZ_TEST_CLI:-}" ] && read -r -a cli_scripts <<<"$(printf "$MCZ_ROOT/tests/cli/%s " $MCZ_TEST_CLI)"
runs cli || cli_scripts=()

# run_cli SCRIPT LOG: one script under its limit; its exit code and wall time go to LOG.rc.
run_cli() {
    local t0=$SECONDS rc
    timeout -k 20 "$limit" bash "$1" >"$2" 2>&1 </dev/null
    rc=$?
    echo "$rc $((SECONDS - t0))" >"$2.rc"
}

# report_cli SCRIPT LOG: prints a finished script's output and counts its checks.
report_cli() {
    local name rc secs p f
    name=$(basename "$1")
    read -r rc secs <"$2.rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] &&
        echo "not ok - $name did not finish within $limit s (MCZ_TEST_LIMIT)" >>"$2"
    echo "== cli $name"
    cat "$2"
    p=$(grep -c '^ok ' "$2")
    f=$(grep -c '^not ok ' "$2")
    echo "-- $name: $p passed, $f failed, ${secs} s"
    echo "$secs $name" >>"$logs/times"
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        failures+=("$name")
    fi
}

next_report=0
report_ready() { # prints, in order, every script whose predecessors have all been printed
    while [ "$next_report" -lt "${#cli_scripts[@]}" ] &&
          [ -f "$logs/$next_report.rc" ]; do
        report_cli "${cli_scripts[$next_report]}" "$logs/$next_report"
        next_report=$((next_report + 1))
    done
}

cli_t0=$SECONDS
for i in "${!cli_scripts[@]}"; do
    if [ ! -f "${cli_scripts[$i]}" ]; then
        echo "not ok - no such script: ${cli_scripts[$i]}" >"$logs/$i"
        echo "1 0" >"$logs/$i.rc"
        continue
    fi
    while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n; report_ready; done
    run_cli "${cli_scripts[$i]}" "$logs/$i" &
done
wait
report_ready
if [ "${#cli_scripts[@]}" -gt 0 ]; then
    echo "== cli: ${#cli_scripts[@]} scripts, $jobs at a time, $((SECONDS - cli_t0)) s; the slowest:"
    sort -rn "$logs/times" | head -10 | sed 's/^\([0-9]*\) \(.*\)/   \1 s  \2/'
fi

for x in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $x"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
