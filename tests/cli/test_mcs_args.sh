#!/usr/bin/env bash
# mcs command line: help, exit codes, SuperPMI's case-insensitive prefix matching, usage errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

# The checker first: fail_run takes exit 1 (bad input) with a message, nothing else, unless
# told otherwise (its verdict is captured here, so a "not ok" it prints is not counted).
verdict_of() { (fail_run "checker" "$@") | head -1 | cut -c1-6; }
[ "$(verdict_of sh -c 'echo bad >&2; exit 1')" = "ok - c" ] &&
    pass "fail_run takes exit 1 with a message" || fail "fail_run takes exit 1 with a message"
[ "$(verdict_of sh -c 'echo usage >&2; exit 2')" = "not ok" ] &&
    pass "fail_run refuses a usage error (exit 2)" || fail "fail_run refuses a usage error (exit 2)"
[ "$(verdict_of sh -c 'exit 1')" = "not ok" ] &&
    pass "fail_run refuses a silent failure" || fail "fail_run refuses a silent failure"
[ "$(FAIL_EXIT=2 verdict_of sh -c 'echo usage >&2; exit 2')" = "ok - c" ] &&
    pass "FAIL_EXIT=2 fail_run takes a usage error" || fail "FAIL_EXIT=2 fail_run takes a usage error"

# A two-context collection is enough here; the verbs themselves are tested elsewhere.
"$BIN/mchgen" --seed 3 --contexts 2 --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"

ok_run "--help exits 0" "$M" --help
contains "--help lists -integ" "$T/out" "-integ"
contains "--help lists -convert" "$T/out" "-convert"
contains "--help lists unimplemented SuperPMI verbs" "$T/out" "-removeDup"
contains "--help names the exit codes" "$T/out" "2 usage error"
ok_run "-help exits 0" "$M" -help
ok_run "-? exits 0" "$M" -?
ok_run "-h is -help" "$M" -h
contains "-h prints the usage" "$T/out" "Usage: mcs"

exit_is "no arguments: exit 2" 2 "$M"
# a usage error: the usage goes to stderr, nothing to stdout (a pipe reads no help as data)
[ -s "$T/out" ] && fail "no arguments: nothing on stdout" || pass "no arguments: nothing on stdout"
contains "no arguments: the usage on stderr" "$T/err" "Usage: mcs"
exit_is "unknown verb: exit 2" 2 "$M" -frobnicate "$T/a.mch"
contains "unknown verb is named" "$T/err" "-frobnicate"
exit_is "a file before the verb: exit 2" 2 "$M" "$T/a.mch" -integ
exit_is "a verb option before the verb: exit 2" 2 "$M" -thin -copy 1 "$T/a.mch" "$T/x.mch"

ok_run "-integ --help exits 0" "$M" -integ --help
contains "-integ --help shows its synopsis" "$T/out" "usage: mcs -integ FILE"
contains "-integ --help names --jit-ee" "$T/out" "--jit-ee VERSION|GUID"
ok_run "-convert -? exits 0" "$M" -convert -?
contains "-convert help lists --level" "$T/out" "--level"

# Prefixes resolve in SuperPMI's order.
ok_run "-inte is -integ" "$M" -inte "$T/a.mch"
contains "-inte checks" "$T/out" "Checked the integrity of 2 methodContexts"
ok_run "-INTEG: switches are case-insensitive" "$M" -INTEG "$T/a.mch"
exit_is "-c is -concat (missing arguments: exit 2)" 2 "$M" -c
contains "-c names -concat" "$T/err" "-concat"
exit_is "-co is -concat" 2 "$M" -co
contains "-co names -concat" "$T/err" "-concat"
exit_is "-cop is -copy" 2 "$M" -cop
contains "-cop names -copy" "$T/err" "-copy"
ok_run "-d is -dump" "$M" -d "$T/a.mch"
contains "-d dumps contexts" "$T/out" "method context #1"
exit_is "-dumpT is -dumpToc" 1 "$M" -dumpT "$T/missing.mct"
exit_is "-t is -toc" 2 "$M" -t
contains "-t names -toc" "$T/err" "-toc"
exit_is "-str is -strip (missing arguments: exit 2)" 2 "$M" -str 1 "$T/a.mch"
contains "-str names -strip" "$T/err" "-strip"
ok_run "-conv is -convert" "$M" -conv "$T/a.mch" "$T/a.mcz"
ok_run "-inf is -info" "$M" -inf "$T/a.mch"
ok_run "-veri is -verify" "$M" -veri "$T/a.mch"
ok_run "-e is -export" "$M" -e "$T/a.mcz" "$T/b.mch"
same "-conv and -e round trip" "$T/a.mch" "$T/b.mch"

# Usage errors: exit 2, nothing written.
exit_is "-integ with two files: exit 2" 2 "$M" -integ "$T/a.mch" "$T/a.mch"
exit_is "-copy with a decreasing range: exit 2" 2 "$M" -copy 5-3 "$T/a.mch" "$T/x.mch"
exit_is "-copy with a range of 0: exit 2" 2 "$M" -copy 0 "$T/a.mch" "$T/x.mch"
exit_is "-copy with a missing .mcl file: exit 1" 1 "$M" -copy "$T/no.mcl" "$T/a.mch" "$T/x.mch"
exit_is "-convert --level 99: exit 2" 2 "$M" -convert "$T/a.mch" "$T/x.mcz" --level 99
exit_is "-convert --chunk-size 1X: exit 2" 2 "$M" -convert "$T/a.mch" "$T/x.mcz" --chunk-size 1X
exit_is "-convert -j without a value: exit 2" 2 "$M" -convert "$T/a.mch" "$T/x.mcz" -j
exit_is "-convert --no-dict with --dict-from: exit 2" 2 \
    "$M" -convert "$T/a.mch" "$T/x.mcz" --no-dict --dict-from "$T/a.mcz"
exit_is "-convert --bogus: exit 2" 2 "$M" -convert "$T/a.mch" "$T/x.mcz" --bogus
if [ -e "$T/x.mch" ] || [ -e "$T/x.mcz" ]; then fail "usage errors write nothing"; else
    pass "usage errors write nothing"; fi

# Range lists and .mcl files as SuperPMI reads them (superpmi/SUPERPMI.md "MCL files and range
# lists"): each accepted form selects the same contexts as its plain spelling.
"$BIN/mchgen" --seed 5 --contexts 6 --out "$T/six.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a six-context collection"
same_selection() { # NAME VERB ODD PLAIN: VERB with ODD writes what it writes with PLAIN
    ok_run "$1" "$M" "$2" "$3" "$T/six.mch" "$T/odd.mch" &&
        "$M" "$2" "$4" "$T/six.mch" "$T/plain.mch" >/dev/null 2>&1
    same "$1: the same contexts as $4" "$T/odd.mch" "$T/plain.mch"
}
same_selection "-copy -3 is 1-3" -copy -3 1-3
same_selection "-copy --2 is 1-2" -copy --2 1-2
same_selection "-copy 2,4, takes a trailing comma" -copy 2,4, 2,4
same_selection "-copy ,,2,,,5 skips empty parts" -copy ,,2,,,5 2,5
same_selection "-copy 3,-5 continues 3" -copy 3,-5 3-5
same_selection "-strip 2-,4 holds the '-' over the ','" -strip 2-,4 2-4
printf '\r\n 2 \r\n\r\n\t3\r\n6' >"$T/odd.mcl"
same_selection "-strip reads an .mcl with blank lines, spaces and no last newline" \
    -strip "$T/odd.mcl" 2-3,6
"$M" -dump -2 "$T/six.mch" >"$T/dump_odd.txt" 2>/dev/null
"$M" -dump 1-2 "$T/six.mch" >"$T/dump_plain.txt" 2>/dev/null
same "-dump -2 dumps contexts 1-2" "$T/dump_odd.txt" "$T/dump_plain.txt"
printf '1\n2\n' >"$T/two.mcl"
"$M" -dump "$T/two.mcl" "$T/six.mch" >"$T/dump_mcl.txt" 2>/dev/null
same "-dump with an .mcl dumps its contexts" "$T/dump_mcl.txt" "$T/dump_plain.txt"

# ... and each refused form: a usage error naming the list, or for an .mcl file exit 1 naming
# the file and line.
for bad in 5- 1-3-5 4-4 6-2 0-3 , 2147483648 1-3,-5; do
    exit_is "-copy $bad: exit 2" 2 "$M" -copy "$bad" "$T/six.mch" "$T/x.mch"
    contains "-copy $bad: the message names the list" "$T/err" "range list '$bad'"
done
exit_is "-strip 5-: exit 2" 2 "$M" -strip 5- "$T/six.mch" "$T/x.mch"
contains "-strip 5-: says the '-' ends the list" "$T/err" "ends in a '-'"
exit_is "-dump 1-3-5: exit 2" 2 "$M" -dump 1-3-5 "$T/six.mch"
contains "-dump 1-3-5: says where the list goes back" "$T/err" "already at 3"
for body in '1\n+2\n' '1\n2 3\n' '1\nabc\n' '1\n1\n' '0\n' '1\n3000000000\n'; do
    printf "$body" >"$T/bad.mcl"
    exit_is "-copy with .mcl '$body': exit 1" 1 "$M" -copy "$T/bad.mcl" "$T/six.mch" "$T/x.mch"
    contains "-copy with .mcl '$body': names the file and line" "$T/err" "$T/bad.mcl: line"
done
printf '1\n2 3\n' >"$T/bad.mcl"
"$M" -strip "$T/bad.mcl" "$T/six.mch" "$T/x.mch" >"$T/out" 2>"$T/err"
contains "-strip names the .mcl line and what is on it" "$T/err" "line 2: '3' after the number 2"
printf '\r\n\r\n' >"$T/empty.mcl"
exit_is "-copy with an .mcl of blank lines: exit 1" 1 \
    "$M" -copy "$T/empty.mcl" "$T/six.mch" "$T/x.mch"
contains "-copy with an .mcl of blank lines: says so" "$T/err" "holds no context number"
if [ -e "$T/x.mch" ]; then fail "refused lists write nothing"; else
    pass "refused lists write nothing"; fi

# -verbosity before the verb.
ok_run "-verbosity e silences info" "$M" -verbosity e -integ "$T/a.mch"
if [ -s "$T/out" ]; then fail "-verbosity e prints no info line"; else
    pass "-verbosity e prints no info line"; fi
exit_is "-verbosity with an unknown letter: exit 2" 2 "$M" -verbosity z -integ "$T/a.mch"
exit_is "-verbosity without a value: exit 2" 2 "$M" -verbosity

cli_done
