#!/usr/bin/env bash
# mcz-replay's results never held whole: with a bound of one byte (MCZ_REPLAY_HOLD_BYTES=1,
# hidden, for tests) every context is spilled as a run to a temporary file the moment it is
# accounted, and the outputs come from the k-way merge of those runs alone. Each output (stdout,
# -f, --details, --results, and --merge-results over shards read as runs) must be byte for byte
# what the default bound gives, -j 1 and -j 2, for the verify replayer, a plugin (messages,
# crashes, asm diffs) and --exec (today's superpmi stand-in, -repeatCount). --stats must say
# that at most one context was held at once and that runs were spilled, so a table that kept
# every context would fail here; a TMPDIR that takes no file stops the run, naming it and the
# reason; and an interrupted run leaves nothing in TMPDIR.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
"$BIN/mchgen" --seed 21 --contexts 400 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 64K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
cc -std=c11 -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$T/tp.so" \
    "$MCZ_ROOT/parallel-replay/plugins/replay_test_plugin.c" || { fail "setup: plugin"; cli_done; exit; }
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

# run NAME HOLD ARGS...: mcz-replay with the hold bound HOLD ("" for the default) and every
# output, into $T/NAME.{out,err,rc,mcl,csv,res}
run() {
    local name=$1 hold=$2; shift 2
    rm -f "$T/$name".*
    MCZ_REPLAY_HOLD_BYTES=$hold "$R" --stats -f "$T/$name.mcl" --details "$T/$name.csv" \
        --results "$T/$name.res" "$@" > "$T/$name.out" 2> "$T/$name.err"
    echo $? > "$T/$name.rc"
}

# agree WHAT A B: runs A and B wrote the same bytes everywhere
agree() {
    local what=$1 a=$2 b=$3 x
    for x in rc out mcl csv res; do
        same "$what: $x" "$T/$a.$x" "$T/$b.$x"
    done
}

# spilled WHAT NAME: the run held one context at a time and spilled runs; held NAME: none spilled
spilled() {
    if grep -qE '^results: [0-9]+ contexts, at most 1 held at once \(bound 1 bytes\), [1-9][0-9]* runs spilled' "$T/$2.err"
    then pass "$1: one context held at a time, runs spilled"
    else fail "$1: one context held at a time, runs spilled"; grep '^results' "$T/$2.err" | sed 's/^/    /'; fi
}
held() {
    if grep -qE '^results: [0-9]+ contexts, .* 0 runs spilled' "$T/$2.err"
    then pass "$1: the default bound holds a small run"
    else fail "$1: the default bound holds a small run"; grep '^results' "$T/$2.err" | sed 's/^/    /'; fi
}

# scenario WHAT ARGS...: the default bound with -j 2 against a one-byte bound with -j 1 and -j 2
scenario() {
    local what=$1; shift
    run ref "" -j 2 "$@"
    held "$what" ref
    [ -s "$T/ref.csv" ] && [ "$(wc -l < "$T/ref.csv")" -gt 100 ] && pass "$what: details written" ||
        fail "$what: details written"
    for j in 1 2; do
        run tiny$j 1 -j $j "$@"
        spilled "$what -j $j" tiny$j
        agree "$what, one-byte bound, -j $j" ref tiny$j
    done
}

scenario "verify .mcz" -q "$T/c.mcz"
scenario "verify .mch" -q "$T/c.mch"
scenario "plugin: failures, missing data, crashes" -q --timeout 5 --plugin "$T/tp.so" \
    --plugin-arg "failall,missing:5,segv:9,exit:200,missing:201" "$T/c.mcz"
[ -s "$T/ref.mcl" ] && pass "plugin: -f lists failures" || fail "plugin: -f lists failures"
scenario "plugin: asm diffs" -q --plugin "$T/tp.so" --plugin-arg diff "$T/c.mch"
if [ -x "$SP" ]; then
    : > "$T/base.so"
    scenario "exec: today's superpmi, -repeatCount 2" -q --verbosity ewi \
        --exec-word "$SP" --exec-word -v --exec-word ewi --exec-word -repeatCount \
        --exec-word 2 --exec-word "$T/base.so" "$T/c.mcz"
    grep -q '"' "$T/ref.csv" && pass "exec: details carry superpmi's rows" ||
        fail "exec: details carry superpmi's rows"
else
    fail "setup: $SP is built"
fi

# --merge-results: the shards read as runs, merged with a one-byte bound too
args=(-q --plugin "$T/tp.so" --plugin-arg "failall,segv:9" "$T/c.mcz")
run whole "" -j 2 "${args[@]}"
for k in 1 2 3; do
    MCZ_REPLAY_HOLD_BYTES=1 "$R" -j 2 --shard $k/3 --results "$T/s$k.res" "${args[@]}" \
        > /dev/null 2>&1
done
for hold in "" 1; do
    rm -f "$T/merge".*
    MCZ_REPLAY_HOLD_BYTES=$hold "$R" --merge-results -f "$T/merge.mcl" --details "$T/merge.csv" \
        "$T/s1.res" "$T/s2.res" "$T/s3.res" > "$T/merge.out" 2> "$T/merge.err"
    echo $? > "$T/merge.rc"
    for x in rc out mcl csv; do
        same "merge of 3 shards, bound '${hold:-default}': $x" "$T/whole.$x" "$T/merge.$x"
    done
done

# A TMPDIR that takes no file: the run stops with superpmi's general error, naming it
MCZ_REPLAY_HOLD_BYTES=1 TMPDIR="$T/none" "$R" -q -f "$T/bad.mcl" "$T/c.mcz" > "$T/bad.out" 2> "$T/bad.err"
rc=$?
[ $rc -eq 255 ] && pass "no TMPDIR: exit 255" || fail "no TMPDIR: exit 255 (got $rc)"
contains "no TMPDIR: the message names it and the reason" "$T/bad.err" \
    "$T/none: cannot write a run of results to a temporary file in it: No such file or directory"
[ ! -e "$T/bad.mcl" ] && pass "no TMPDIR: no -f written" || fail "no TMPDIR: no -f written"
TMPDIR="$T/none" "$R" -q "$T/c.mcz" > /dev/null 2>&1 && pass "no TMPDIR: the default bound needs none here" ||
    fail "no TMPDIR: the default bound needs none here"

# Interrupted while runs exist (the plugin hangs on context 390, the runs before it spilled,
# seen in /proc as deleted files): exit 130, and TMPDIR is left empty
rm -rf "$T/tmp"; mkdir "$T/tmp"
MCZ_REPLAY_HOLD_BYTES=1 "$R" -q -j 1 --plugin "$T/tp.so" --plugin-arg hang:390 "$T/c.mcz" \
    > "$T/int.out" 2> "$T/int.err" &
pid=$!
seen=0
for i in $(seq 1 300); do
    if ls -l /proc/$pid/fd 2>/dev/null | grep -q "$T/tmp/mcz-temp.* (deleted)"; then seen=1; break; fi
    sleep 0.1
done
[ $seen = 1 ] && pass "interrupt: runs spilled while the run goes" ||
    fail "interrupt: runs spilled while the run goes"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && pass "interrupt: exit 130" || fail "interrupt: exit 130 (got $rc)"
[ -z "$(ls -A "$T/tmp")" ] && pass "interrupt: TMPDIR left empty" ||
    { fail "interrupt: TMPDIR left empty"; ls -A "$T/tmp" | head -3 | sed 's/^/    /'; }

cli_done
