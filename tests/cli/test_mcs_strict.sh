#!/usr/bin/env bash
# The strict checks on damage the framing does not show (damage_mch.py makes each case in
# context 3 of a generated collection): mcs -integ, -verify (on the .mch and on its archive)
# and mcz-replay's verify replayer fail on exactly that context with the same message;
# -dumpMap and -ildump refuse it; an unknown packet id is a warning with its count, an error
# with --strict.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
R=$BIN/mcz-replay
DAMAGE="python3 $MCZ_ROOT/tests/cli/damage_mch.py"
N=12

"$BIN/mchgen" --seed 5 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"

# ---- A generated collection passes every check, --strict included ----
ok_run "generated: -integ --strict" "$M" -integ "$T/a.mch" --strict
if grep -q warning "$T/err"; then fail "generated: no warning"; else pass "generated: no warning"; fi
ok_run "generated: -verify --strict" "$M" -verify "$T/a.mch" --strict
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 || fail "generated: -convert"
ok_run "generated: -verify of the archive --strict" "$M" -verify "$T/a.mcz" --strict
ok_run "generated: mcz-replay --strict" "$R" -q --strict "$T/a.mch"
ok_run "generated: -dumpMap" "$M" -dumpMap "$T/a.mch"
ok_run "generated: -ildump" "$M" -ildump "$T/a.mch"

# damaged CASE TEXT: context 3 damaged as CASE; every verifier fails on it, naming TEXT.
damaged() {
    local case=$1 text=$2 d=$T/$1.mch
    $DAMAGE "$T/a.mch" "$d" 3 "$case" || { fail "$case: damage_mch.py"; return; }
    fail_run "$case: -integ fails" "$M" -integ "$d"
    contains "$case: -integ names context 3 and the damage" "$T/err" "context 3 at offset"
    contains "$case: -integ says what" "$T/err" "$text"
    grep -F "context 3" "$T/err" | sed 's/^mcs: //' >"$T/integ.msg"
    fail_run "$case: -verify fails" "$M" -verify "$d"
    grep -F "context 3" "$T/err" | sed 's/^mcs: //' >"$T/verify.msg"
    same "$case: -verify says what -integ says" "$T/integ.msg" "$T/verify.msg"
    # the archive keeps the context as it is: its framing is sound
    ok_run "$case: -convert keeps it" "$M" -convert "$d" "$T/d.mcz"
    fail_run "$case: -verify of the archive fails" "$M" -verify "$T/d.mcz"
    contains "$case: -verify of the archive names context 3" "$T/err" "context 3"
    contains "$case: -verify of the archive says what" "$T/err" "$text"
    rm -f "$T/fail.mcl"
    exit_is "$case: mcz-replay fails" 1 "$R" -q -f "$T/fail.mcl" --details "$T/details.csv" "$d"
    printf '3\r\n' >"$T/three.mcl"
    same "$case: mcz-replay fails context 3 alone" "$T/three.mcl" "$T/fail.mcl"
    contains "$case: mcz-replay says what" "$T/details.csv" "$text"
    exit_is "$case: mcz-replay on the archive fails" 1 "$R" -q -f "$T/fail.mcl" "$T/d.mcz"
    same "$case: mcz-replay on the archive fails context 3 alone" "$T/three.mcl" "$T/fail.mcl"
    fail_run "$case: -dumpMap fails" "$M" -dumpMap "$d"
    contains "$case: -dumpMap names context 3" "$T/err" "context 3"
    if grep -q '^3,' "$T/out"; then fail "$case: -dumpMap prints no row for it"
    else pass "$case: -dumpMap prints no row for it"; fi
    fail_run "$case: -ildump fails" "$M" -ildump "$d"
    contains "$case: -ildump names context 3" "$T/err" "context 3"
}

damaged flip-id "items of 12 bytes where key"
damaged pool-past "runs past the pool of"
damaged il-index "past the pool of"
damaged il-inside "is not the start of a pool chunk"
damaged name-index "packet PrintMethodName: item 0: pool index"
damaged unsorted-keys "sorts before key 0 (memcmp order)"
damaged duplicate-keys "key 1 repeats key 0"
damaged duplicate-id "packet GetJitFlags appears twice"

# ---- An unknown packet id: a warning with its count; an error with --strict ----
$DAMAGE "$T/a.mch" "$T/u.mch" 3 unknown-id
$DAMAGE "$T/u.mch" "$T/u2.mch" 5 unknown-id
ok_run "unknown id: -integ passes" "$M" -integ "$T/u2.mch"
contains "unknown id: -integ warns with the count" "$T/err" \
    "packet unknown(250) in 2 contexts (first: context 3)"
ok_run "unknown id: -verify passes" "$M" -verify "$T/u2.mch"
contains "unknown id: -verify warns with the count" "$T/err" "unknown(250) in 2 contexts"
fail_run "unknown id: -integ --strict fails" "$M" -integ --strict "$T/u2.mch"
contains "unknown id: -integ --strict names context 3 and the id" "$T/err" "context 3"
contains "unknown id: -integ --strict names the id" "$T/err" "unknown(250)"
fail_run "unknown id: -verify --strict fails" "$M" -verify "$T/u2.mch" --strict
"$M" -convert "$T/u2.mch" "$T/u2.mcz" >/dev/null 2>&1
ok_run "unknown id: -verify of the archive passes" "$M" -verify "$T/u2.mcz"
contains "unknown id: -verify of the archive warns" "$T/err" "unknown(250) in 2 contexts"
fail_run "unknown id: -verify --strict of the archive fails" "$M" -verify --strict "$T/u2.mcz"
ok_run "unknown id: mcz-replay passes" "$R" -q "$T/u2.mch"
contains "unknown id: mcz-replay warns with the count" "$T/err" \
    "packet unknown(250) in 2 contexts (first: context 3)"
rm -f "$T/fail.mcl"
exit_is "unknown id: mcz-replay --strict fails" 1 "$R" -q --strict -f "$T/fail.mcl" "$T/u2.mch"
printf '3\r\n5\r\n' >"$T/both.mcl"
same "unknown id: mcz-replay --strict fails contexts 3 and 5" "$T/both.mcl" "$T/fail.mcl"
ok_run "unknown id: -dumpMap goes on" "$M" -dumpMap "$T/u2.mch"

cli_done
