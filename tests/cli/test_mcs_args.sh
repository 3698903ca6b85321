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
contains "-h prints the usage" "$T/out" "usage: mcs"

exit_is "no arguments: exit 2" 2 "$M"
exit_is "unknown verb: exit 2" 2 "$M" -frobnicate "$T/a.mch"
contains "unknown verb is named" "$T/err" "-frobnicate"
exit_is "a file before the verb: exit 2" 2 "$M" "$T/a.mch" -integ
exit_is "a verb option before the verb: exit 2" 2 "$M" -thin -copy 1 "$T/a.mch" "$T/x.mch"

ok_run "-integ --help exits 0" "$M" -integ --help
contains "-integ --help shows its synopsis" "$T/out" "usage: mcs -integ FILE"
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

# -verbosity before the verb.
ok_run "-verbosity e silences info" "$M" -verbosity e -integ "$T/a.mch"
if [ -s "$T/out" ]; then fail "-verbosity e prints no info line"; else
    pass "-verbosity e prints no info line"; fi
exit_is "-verbosity with an unknown letter: exit 2" 2 "$M" -verbosity z -integ "$T/a.mch"
exit_is "-verbosity without a value: exit 2" 2 "$M" -verbosity

cli_done
