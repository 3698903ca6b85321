#!/usr/bin/env bash
# mcz-replay --exec with a stand-in superpmi (tests/collector/spmi_standin.c: superpmi's command
# line and outputs, results made up from each context's bytes): one stand-in run over the whole
# .mch against mcz-replay -j 1, -j 2, --shard K/3 merged, over .mch and .mcz, in replay and asm
# diffs modes: the same summary, exit code, -f list and details, errors, misses and diffs mixed
# in one unit. Then a command crashing mid-way, details files that are wrong, output options
# inside the command.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_standin
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }

"$BIN/mchgen" --seed 11 --contexts 300 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 128K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
U="--unit-size 150000"

# whole NAME ARGS...: the stand-in over the whole .mch; its summary, exit code, -f, details.
whole() {
    local name=$1; shift
    (cd "$T" && "$SP" "$@" -f "$name.mcl" -details "$name.csv" base.so diff.so c.mch) \
        > "$T/$name.out" 2>/dev/null
    echo $? > "$T/$name.rc"
}

# agree NAME REF: mcz-replay's outputs of the run just made (in $T/got.*) are REF's.
agree() {
    same "$1: summary" "$T/$2.out" "$T/got.out"
    same "$1: exit code" "$T/$2.rc" "$T/got.rc"
    same "$1: -f list" "$T/$2.mcl" "$T/got.mcl"
    same "$1: details" "$T/$2.csv" "$T/got.csv"
}

# replay NAME CMD-WORDS MCZ-ARGS...: mcz-replay --exec "$SP CMD-WORDS base.so diff.so".
replay() {
    local words=$2; shift 2
    "$R" -q -f "$T/got.mcl" --details "$T/got.csv" --exec "$SP $words base.so diff.so" "$@" \
        > "$T/got.out" 2> "$T/got.err"
    echo $? > "$T/got.rc"
}

# sharded NAME CMD-WORDS INPUT: three --shard runs, merged.
sharded() {
    local words=$1 input=$2 k
    for k in 1 2 3; do
        "$R" -q -j 2 $U --exec-batch 0 --shard $k/3 --results "$T/s$k.res" --exec "$SP $words base.so diff.so" \
            "$input" > /dev/null 2>&1
    done
    "$R" --merge-results -f "$T/got.mcl" --details "$T/got.csv" "$T/s1.res" "$T/s2.res" "$T/s3.res" \
        > "$T/got.out" 2> "$T/got.err"
    echo $? > "$T/got.rc"
}

for mode in replay asm; do
    words=; [ $mode = asm ] && words=-a
    whole "w$mode" $words
    ref="w$mode"
    replay x "$words" -j 1 $U "$T/c.mch"; agree "$mode -j 1 .mch" "$ref"
    replay x "$words" -j 2 --exec-batch 0 "$T/c.mcz"; agree "$mode -j 2 .mcz, a chunk per command" "$ref"
    replay x "$words" -j 2 --exec-batch 1M "$T/c.mcz"; agree "$mode -j 2 .mcz, chunks of 1 MiB per command" "$ref"
    replay x "$words" -j 2 "$T/c.mcz"; agree "$mode -j 2 .mcz, the default batch" "$ref"
    replay x "$words" -j 2 $U "$T/c.mch"; agree "$mode -j 2 .mch" "$ref"
    sharded "$words" "$T/c.mcz"; agree "$mode --shard K/3 merged, .mcz" "$ref"
    sharded "$words" "$T/c.mch"; agree "$mode --shard K/3 merged, .mch" "$ref"
done

# Shards are cut from the contexts' numbers and sizes alone: an .mch's and its .mcz's are the
# same, so shards run on either merge.
for k in 1 2 3; do
    input="$T/c.mch"; [ $k = 2 ] && input="$T/c.mcz"
    "$R" -q -j 2 $U --shard $k/3 --results "$T/s$k.res" --exec "$SP -a base.so diff.so" \
        "$input" > /dev/null 2>&1
done
"$R" --merge-results -f "$T/got.mcl" --details "$T/got.csv" "$T/s1.res" "$T/s2.res" "$T/s3.res" \
    > "$T/got.out" 2> "$T/got.err"
echo $? > "$T/got.rc"
agree "asm --shard K/3 merged from .mch and .mcz shards" wasm
for k in 3 8; do
    "$R" -q --shard $k/8 "$T/c.mch" > "$T/sh.mch.out" 2>&1
    "$R" -q --shard $k/8 "$T/c.mcz" > "$T/sh.mcz.out" 2>&1
    same "--shard $k/8: the same contexts from .mch and .mcz" "$T/sh.mch.out" "$T/sh.mcz.out"
done

# The comparison means something only if the whole runs hold every kind of result, and some
# unit holds more than one kind.
contains "replay: the whole run has errors" "$T/wreplay.csv" ",Error,"
contains "replay: ... and misses" "$T/wreplay.csv" ",Miss,"
contains "replay: exit 1 (errors first)" "$T/wreplay.rc" "1"
contains "asm: the summary has Diffs" "$T/wasm.out" " Diffs "
contains "asm: the whole run has diffs" "$T/wasm.csv" ",True,"
contains "asm: ... diff JIT errors" "$T/wasm.csv" ",Success,Error,"
contains "asm: ... and PerfScore columns, passed through" "$T/wasm.csv" "Base PerfScore,Diff PerfScore"
kinds_in_first_unit=$(sed -n 2,31p "$T/wasm.csv" | awk -F, '{ print $3 $4 $6 }' | sort -u | wc -l)
if [ "$kinds_in_first_unit" -ge 3 ]; then pass "asm: errors, misses and diffs in one unit"
else fail "asm: errors, misses and diffs in one unit ($kinds_in_first_unit kinds)"; fi

# Exit codes in superpmi's order: with errors left out (-c of the contexts without Error), a run
# with diffs exits 2; with misses but no diffs or errors, 3.
awk -F, 'NR > 1 && $3 != "Error" && $4 != "Error" { print $1 }' "$T/wasm.csv" | paste -sd, > "$T/noerr"
replay x -a -j 2 -c "$(cat "$T/noerr")" "$T/c.mcz"
contains "asm without errors: exit 2 (diffs)" "$T/got.rc" "2"
awk -F, 'NR > 1 && $3 != "Error" { print $1 }' "$T/wreplay.csv" | paste -sd, > "$T/noerr"
replay x "" -j 2 -c "$(cat "$T/noerr")" "$T/c.mcz"
contains "replay without errors: exit 3 (misses)" "$T/got.rc" "3"

# --- a command crashing mid-way: the rows written before the crash count, the rest crashed
STANDIN_CRASH=1 replay x -a -j 2 --exec-batch 0 "$T/c.mcz"
contains "crash: exit 1" "$T/got.rc" "1"
contains "crash: said on stderr" "$T/got.err" ": crash: command killed by signal 6"
tail -n +2 "$T/got.csv" | grep -v ',Error,Error,False,False,0,0,0,0,0,0$' | sort > "$T/kept"
tail -n +2 "$T/wasm.csv" | sort > "$T/all"
if [ -s "$T/kept" ] && [ -z "$(comm -23 "$T/kept" "$T/all")" ]; then
    pass "crash: the rows before it are the whole run's"
else fail "crash: the rows before it are the whole run's"; fi
if [ "$(tail -n +2 "$T/got.csv" | wc -l)" -eq 300 ]; then pass "crash: every context has a row"
else fail "crash: every context has a row"; fi

# --- several chunks per command start: fewer starts, the same results
printf '#!/bin/sh\necho run >> "%s"\nexec "%s" "$@"\n' "$T/starts" "$SP" > "$T/count.sh"
chmod +x "$T/count.sh"
: > "$T/starts"; "$R" -q -j 1 --exec-batch 0 --exec "$T/count.sh base.so" "$T/c.mcz" >/dev/null 2>&1
one=$(wc -l < "$T/starts")
: > "$T/starts"; "$R" -q -j 1 --exec-batch 1M --exec "$T/count.sh base.so" "$T/c.mcz" >/dev/null 2>&1
grouped=$(wc -l < "$T/starts")
if [ "$one" -gt 1 ] && [ "$grouped" -lt "$one" ] && [ "$grouped" -ge 1 ]; then
    pass "--exec-batch 1M: fewer command starts ($grouped) than a chunk each ($one)"
else fail "--exec-batch 1M: fewer command starts ($grouped) than a chunk each ($one)"; fi

# --- details files that are wrong from a command that ended normally: its contexts were not
# judged, so the run stops with superpmi's general error (255), naming the unit and the file,
# and lists none of them in -f
STANDIN_GARBAGE=1 replay x "" -j 1 $U "$T/c.mch"
[ "$(cat "$T/got.rc")" = 255 ] && pass "garbage details: exit 255" || fail "garbage details: exit 255"
contains "garbage details: the unit named" "$T/got.err" "contexts 1-"
contains "garbage details: what is wrong" "$T/got.err" "details.csv: line 2: not as many fields as the header"
STANDIN_SKIP=1 replay x "" -j 1 $U "$T/c.mch"
[ "$(cat "$T/got.rc")" = 255 ] && pass "a context without a row: exit 255" || fail "a context without a row: exit 255"
contains "a context without a row: named" "$T/got.err" "has no row for context"
[ ! -s "$T/got.mcl" ] && pass "a context without a row: nothing in -f" || fail "a context without a row: nothing in -f"

# --- output options inside the command are refused before any work, naming them
for w in "-f x.mcl" "-FAIL x.mcl" "-details x.csv" "-d x.csv" "-r repro" "-w log" "-emitMethodStats t"; do
    exit_is "output option '$w' in CMD: usage error" 255 \
        "$R" -q --exec "$SP $w base.so" "$T/c.mcz"
    contains "output option '$w' in CMD: named" "$T/err" "--exec: ${w%% *} (superpmi's -"
done
exit_is "-c in CMD: refused" 255 "$R" -q --exec "$SP -c 1-5 base.so" "$T/c.mcz"
# switches that shape the whole run would apply to each unit apart: refused with what to use
for w in "-p 2" "-parallel" "-failureLimit 3" "-streaming s.txt"; do
    exit_is "run option '$w' in CMD: usage error" 255 "$R" -q --exec "$SP $w base.so" "$T/c.mcz"
    contains "run option '$w' in CMD: named" "$T/err" "--exec: ${w%% *} (superpmi's -"
done
contains "-streaming in CMD: says why" "$T/err" "a unit has no streaming"
exit_is "-p in CMD: refused" 255 "$R" -q --exec "$SP -p 2 base.so" "$T/c.mcz"
contains "-p in CMD: says -j" "$T/err" "-j N sets the workers"
exit_is "-failureLimit in CMD: refused" 255 "$R" -q --exec "$SP -failureLimit 3 base.so" "$T/c.mcz"
contains "-failureLimit in CMD: says --failure-limit" "$T/err" "--failure-limit N"
cli_done
