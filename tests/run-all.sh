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

# A CLI test that hangs fails alone instead of stopping the run: each has MCZ_TEST_LIMIT seconds
# (900). timeout runs it in a process group of its own, so that what the test started goes too;
# Ctrl-C reaches that group as a SIGTERM through timeout, which passes it on (a job started
# with & ignores SIGINT, timeout included).
limit=${MCZ_TEST_LIMIT:-900}
tpid=
trap '[ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null; exit 130' INT
trap '[ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null; exit 143' TERM
cli_scripts=("$MCZ_ROOT"/tests/cli/test_*.sh)
[ -n "${MCZ_TEST_CLI:-}" ] && read -r -a cli_scripts <<<"$(printf "$MCZ_ROOT/tests/cli/%s " $MCZ_TEST_CLI)"
for s in "${cli_scripts[@]}"; do
    runs cli || break
    [ -f "$s" ] || continue
    echo "== cli $(basename "$s")"
    timeout -k 20 "$limit" bash "$s" >"$log" 2>&1 </dev/null &
    tpid=$!
    wait "$tpid"
    rc=$?
    tpid=
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] &&
        echo "not ok - $(basename "$s") did not finish within $limit s (MCZ_TEST_LIMIT)" >>"$log"
    cat "$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        failures+=("$(basename "$s")")
    fi
done

for x in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $x"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
