# Shared helpers for CLI tests (sourced). Each check prints "ok - NAME" or "not ok - NAME";
# a script exits non-zero when any check failed.
set -u
BIN=$(cd "${BIN:-bin}" && pwd)
MCZ_ROOT=${MCZ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cli_failures=0
# Under the sanitizers a finding exits 223, so fail_run cannot take it for an ordinary failure.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=223"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=223"

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1"; cli_failures=$((cli_failures + 1)); }

# ok_run NAME CMD...: the command must exit 0.
ok_run() {
    local name=$1; shift
    if "$@" >"$T/out" 2>"$T/err"; then pass "$name"; else
        fail "$name (exit $?)"; sed 's/^/    /' "$T/err" | head -20; fi
}

# fail_run NAME CMD...: the command must fail as on bad input, exit 1 (not a usage error, 2,
# nor a crash), and say something on stderr. FAIL_EXIT=N fail_run ... expects exit N instead.
fail_run() {
    local name=$1 want=${FAIL_EXIT:-1}; shift
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -eq "$want" ] && [ -s "$T/err" ]; then pass "$name"; else
        fail "$name (exit $rc, expected $want)"; sed 's/^/    /' "$T/err" | head -20; fi
}

# same NAME FILE1 FILE2: byte-identical files.
same() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1 ($2 and $3 differ)"; fi
}

# contains NAME FILE TEXT: FILE contains TEXT (fixed string).
contains() {
    if grep -qF -- "$3" "$2"; then pass "$1"; else
        fail "$1 ('$3' not in $2)"; head -5 "$2" | sed 's/^/    /'; fi
}

# exit_is NAME CODE CMD...: the command must exit with exactly CODE.
exit_is() {
    local name=$1 want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then pass "$name"; else
        fail "$name (exit $rc, expected $want)"; sed 's/^/    /' "$T/err" | head -10; fi
}

cli_done() { [ "$cli_failures" -eq 0 ]; }
