#!/usr/bin/env bash
# Edges every verb treats alike: a context number that does not exist is an error (naming it and
# what the file holds, no output left); MCH bytes are not written under an archive name; binary
# output is refused on a terminal unless forced; a closed pipe on stdout ends every verb quietly
# (exit 0), a full disk on stdout is an error naming it with the errno's text.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 7 --contexts 5 --out "$T/a.mch" >/dev/null 2>&1 || fail "mchgen"
"$BIN/mchgen" --seed 7 --contexts 300 --out "$T/big.mch" >/dev/null 2>&1 || fail "mchgen big"
"$M" -convert "$T/a.mch" "$T/x.mcz" >/dev/null 2>&1 || fail "-convert"
"$M" -convert "$T/big.mch" "$T/big.mcz" >/dev/null 2>&1 || fail "-convert big"

# A number that does not exist.
for f in a.mch x.mcz; do
    fail_run "-dump 99 $f" "$M" -dump 99 "$T/$f"
    contains "-dump 99 $f names the number and the count" "$T/err" \
        "no context 99: the file holds 5 contexts, numbers 1-5"
    fail_run "-ildump 99 $f" "$M" -ildump 99 "$T/$f"
    contains "-ildump 99 $f names the number" "$T/err" "no context 99"
    fail_run "-stat 99 $f" "$M" -stat 99 "$T/$f" "$T/s.csv"
    contains "-stat 99 $f names the number" "$T/err" "no context 99"
    [ -e "$T/s.csv" ] && fail "-stat 99 $f leaves no output" || pass "-stat 99 $f leaves no output"
    fail_run "-copy 99 $f" "$M" -copy 99 "$T/$f" "$T/c.mch"
    contains "-copy 99 $f names the number" "$T/err" "no context 99"
    [ -e "$T/c.mch" ] && fail "-copy 99 $f leaves no file" || pass "-copy 99 $f leaves no file"
done
fail_run "-dump 4-9: some missing" "$M" -dump 4-9 "$T/x.mcz"
contains "-dump 4-9 counts the missing" "$T/err" "4 listed contexts are not in the file, the first 6"
ok_run "-dump 5 (the last) still works" "$M" -dump 5 "$T/a.mch"

# MCH bytes under an archive name: refused, as -convert refuses the mirror case.
exit_is "-export x.mcz y.mcz: exit 2" 2 "$M" -export "$T/x.mcz" "$T/y.mcz"
contains "-export to .mcz points to -convert" "$T/err" "-convert"
[ -e "$T/y.mcz" ] && fail "-export to .mcz writes nothing" || pass "-export to .mcz writes nothing"

# Binary output on a terminal (script gives mcs one).
if command -v script >/dev/null 2>&1; then
    script -qec "$M -export $T/x.mcz -" /dev/null >"$T/tty" 2>&1
    rc=$?
    [ $rc -eq 1 ] && pass "-export to a terminal: exit 1" || fail "-export to a terminal: exit 1 ($rc)"
    contains "-export to a terminal is refused" "$T/tty" "refusing to write binary output to a terminal"
    script -qec "$M -copy 1 $T/x.mcz - --force" /dev/null >"$T/tty" 2>&1 &&
        grep -qa "^mc" "$T/tty" && pass "--force writes to the terminal" ||
        fail "--force writes to the terminal"
    script -qec "$M -dump 1 $T/x.mcz" /dev/null >"$T/tty" 2>&1 &&
        pass "text output to a terminal is not refused" ||
        fail "text output to a terminal is not refused"
else
    echo "# skipped: no script(1) to give mcs a terminal"
fi

# A closed pipe: every verb as -dump, quiet and exit 0.
piped() {
    local name=$1; shift
    "$@" 2>"$T/err" | head -c 10 >/dev/null
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && pass "$name | head: quiet, exit 0" ||
        { fail "$name | head: quiet, exit 0 (exit $rc)"; sed 's/^/    /' "$T/err"; }
}
piped "-dump" "$M" -dump "$T/big.mcz"
piped "-export ... -" "$M" -export "$T/big.mcz" -
piped "-copy (archive) -" "$M" -copy 1-300 "$T/big.mcz" -
piped "-copy (MCH) -" "$M" -copy 1-300 "$T/big.mch" -
piped "-convert ... -" "$M" -convert "$T/big.mch" -
piped "-strip ... -" "$M" -strip 3 "$T/big.mcz" -
piped "-merge -" "$M" -merge - "$T/big.mcz"
piped "-stat ... -" "$M" -stat "$T/big.mcz" -
piped "-dumpMap" "$M" -dumpMap "$T/big.mcz"

# A full disk on stdout.
for v in "-dumpMap $T/x.mcz" "-export $T/x.mcz -" "-dump $T/x.mcz"; do
    "$M" $v >/dev/full 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] && pass "mcs $v >/dev/full: exit 1" || fail "mcs $v >/dev/full: exit 1 ($rc)"
    [ "$(grep -v '^Exported' "$T/err")" = "mcs: standard output: write failed: No space left on device" ] &&
        pass "mcs $v >/dev/full: write failed, naming the output" ||
        { fail "mcs $v >/dev/full: write failed, naming the output"; sed 's/^/    /' "$T/err"; }
done
cli_done
