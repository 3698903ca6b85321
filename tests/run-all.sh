#!/usr/bin/env bash
# Runs every test kind and prints one closing line, "N passed, N failed".
#   unit:  $BUILD/tests/test_*        (cmocka; its "[  PASSED  ] N test(s)." lines are counted)
#   fuzz:  $BUILD/fuzz/fuzz_<name>    replays tests/fuzz/corpus/<name>/ (one test per target)
#   cli:   tests/cli/test_*.sh        (each prints "ok - ..." / "not ok - ..." lines)
# MCZ_TEST_KINDS chooses among them ("unit fuzz cli", the default); MCZ_TEST_CLI names the CLI
# scripts (test_NAME.sh, without the directory) when not all of them, MCZ_TEST_TIER which tier
# of them otherwise (below); MCZ_TEST_JOBS how many unit tests and CLI scripts run at once
# (default: twice the cores).
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-bin}
export BIN BUILD
export MCZ_ROOT=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
failures=()

kinds=" ${MCZ_TEST_KINDS:-unit fuzz cli} "
runs() { [[ "$kinds" == *" $1 "* ]]; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# The fuzz corpora first: half a second together.
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

# Then the unit tests and the CLI scripts, MCZ_TEST_JOBS at a time: each CLI script works in a
# directory of its own (lib.sh's mktemp) and picks its ports from the system, and much of their
# time is waiting on servers, timeouts and signals. Each one's output is printed whole, in the
# list's order (unit tests, then scripts, each by name), with its wall time; the slowest ten
# close the run. The slowest of the last run (BUILD/test-times) start first, so that the run
# does not end waiting on one long test started last; a build that has run none yet (a clean
# clone) takes the order from tests/test-times, the times of a whole run kept in the tree.
#
# A test that hangs fails alone instead of stopping the run: each has MCZ_TEST_LIMIT seconds
# (900). timeout runs it in a process group of its own, so that what the test started goes too;
# Ctrl-C reaches those groups as a SIGTERM through timeout, which passes it on (a job started
# with & ignores SIGINT, timeout included).
limit=${MCZ_TEST_LIMIT:-900}
jobs=${MCZ_TEST_JOBS:-$(( $(nproc 2>/dev/null || echo 1) * 2 ))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
stop_all() { # each job is a subshell waiting on its timeout: the timeout first, then it
    local p
    for p in $(jobs -p); do pkill -TERM -P "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

# The tiers: a script whose header says "# tier: builds" builds mcz again in another
# configuration (CMake inside a host project, a build without liblzma): minutes of compiling
# that test the build, not the programs. MCZ_TEST_TIER=fast (the default, make test) leaves
# them out, builds (make test-builds, run by CI after make test) runs only them, all both.
tier=${MCZ_TEST_TIER:-fast}
in_tier() {
    local t=fast
    grep -q '^# tier: builds' "$1" && t=builds
    [ "$tier" = all ] || [ "$tier" = "$t" ]
}

tests=()
if runs unit; then
    for t in "$BUILD"/tests/test_*; do [ -x "$t" ] && tests+=("$t"); done
fi
if runs cli; then
    if [ -n "${MCZ_TEST_CLI:-}" ]; then
        for s in $MCZ_TEST_CLI; do tests+=("$MCZ_ROOT/tests/cli/$s"); done
    else
        for s in "$MCZ_ROOT"/tests/cli/test_*.sh; do
            in_tier "$s" && tests+=("$s")
        done
    fi
fi

# run_one TEST LOG: one test under its limit; its exit code, wall time and CPU time (user +
# system of everything it ran, as bash's `times` counts its reaped children) go to LOG.rc.
run_one() {
    local t0=$SECONDS rc
    if [ ! -f "$1" ]; then
        echo "not ok - no such test: $1" >"$2"; rc=1
    elif [[ "$1" == *.sh ]]; then
        timeout -k 20 "$limit" bash "$1" >"$2" 2>&1 </dev/null; rc=$?
    else
        timeout -k 20 "$limit" "$1" >"$2" 2>&1 </dev/null; rc=$?
    fi
    times >"$2.times" # in this subshell, not a command substitution's: its children
    echo "$rc $((SECONDS - t0)) $(children_cpu "$2.times")" >"$2.rc"
}

# The CPU seconds of the children in `times` output FILE: its second line, "XmY.YYYs XmY.YYYs"
# (user, system), summed and rounded.
children_cpu() {
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
                   printf "%d", t + 0.5 }' "$1"
}

# report_one TEST LOG: prints a finished test's output and counts its checks (cmocka's closing
# lines for a unit test, "ok -" / "not ok -" lines for a script).
report_one() {
    local name rc secs cpu p f
    name=$(basename "$1")
    read -r rc secs cpu <"$2.rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] &&
        echo "not ok - $name did not finish within $limit s (MCZ_TEST_LIMIT)" >>"$2"
    if [[ "$1" == *.sh ]]; then
        echo "== cli $name"
        cat "$2"
        p=$(grep -c '^ok ' "$2")
        f=$(grep -c '^not ok ' "$2")
    else
        echo "== unit $name"
        cat "$2"
        p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -n1)
        f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -n1)
        f=$((${f:-0} + $(grep -c '^not ok ' "$2")))
    fi
    echo "-- $name: ${p:-0} passed, $f failed, $secs s, CPU $cpu s"
    echo "$secs $name $cpu" >>"$logs/times"
    passed=$((passed + ${p:-0}))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        failures+=("$name")
    fi
}

next_report=0
report_ready() { # prints, in order, every test whose predecessors have all been printed
    while [ "$next_report" -lt "${#tests[@]}" ] && [ -f "$logs/$next_report.rc" ]; do
        report_one "${tests[$next_report]}" "$logs/$next_report"
        next_report=$((next_report + 1))
    done
}

launch_order() { # indexes of tests, the slowest of the last run first
    local i times=$BUILD/test-times
    [ -s "$times" ] || times=$MCZ_ROOT/tests/test-times
    for i in "${!tests[@]}"; do
        echo "$(awk -v n="$(basename "${tests[$i]}")" '$2 == n { print $1 }' \
                    "$times" 2>/dev/null | head -n1) $i"
    done | sort -k1,1rn -k2,2n | awk '{ print $NF }'
}

t0=$SECONDS
for i in $(launch_order); do
    while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n; report_ready; done
    run_one "${tests[$i]}" "$logs/$i" &
done
wait
report_ready
if [ "${#tests[@]}" -gt 0 ]; then
    echo "== ${#tests[@]} unit tests and scripts, $jobs at a time, $((SECONDS - t0)) s; the slowest:"
    sort -rn "$logs/times" >"$logs/sorted"
    # This run's times replace those of the same tests; the others' are kept.
    [ -d "$BUILD" ] && cat "$logs/sorted" "$BUILD/test-times" 2>/dev/null |
        awk '!seen[$2]++' >"$logs/merged" && cp "$logs/merged" "$BUILD/test-times"
    head -10 "$logs/sorted" | awk '{ printf "   %d s  %s (CPU %d s)\n", $1, $2, $3 }'
    awk '{ cpu += $3 } END { printf "== CPU of the tests: %d s (user + system)\n", cpu }' "$logs/times"
fi

for x in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $x"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
