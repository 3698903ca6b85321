#!/usr/bin/env bash
# superpmi's output, not the units': mcz-replay --exec prints on stdout what one run of today's
# superpmi (the stand-in tests/collector/spmi_today.c) over the whole .mch prints with the same
# options: one banner naming the collection (never a unit's temporary file), the ISSUE/MISSING
# lines with global numbers, progress lines every 500 compiles over the whole run (superpmi.cpp
# at filipnavara/runtime@c659a8bb48140ce161dd3890fd2aa4d06f2fbfac), one summary counting each
# compile of -repeatCount N, and the total time. Compared byte for byte, the two times left out
# ("at N per second", "Total time: Tms": wall time, the only figures that vary by run). The
# archive is given under the .mch's name in a directory of its own, so both banners name it
# alike; through the drop-in (mcz-superpmi, no -p) too.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
D="$BIN/mcz-superpmi"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
cd "$T" || exit 1
"$BIN/mchgen" --seed 5 --contexts 1200 --out c.mch >/dev/null 2>&1
"$BIN/mcs" -convert c.mch c.mcz --chunk-size 128K >/dev/null 2>&1
[ -s c.mcz ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
mkdir arc plain
cp c.mcz arc/c.mch                      # the archive, as superpmi.py's directories keep it
cp c.mch plain/c.mch                    # the .mch without a table: progress by file offset
"$BIN/mcs" -toc c.mch >/dev/null 2>&1   # superpmi.py downloads the .mct beside the .mch
[ -s c.mch.mct ] || { fail "setup: mcs -toc"; cli_done; exit; }
: > jit.so; cp jit.so arc/; cp jit.so plain/

norm() { sed -E 's/ at [0-9]+ per second$/ at N per second/; s/^Total time: [0-9.]+ms$/Total time: Tms/' "$1"; }

# compare NAME DIR SPMI-WORDS -- MCZ-OPTIONS: superpmi over DIR/../c.mch (or plain/c.mch) against
# mcz-replay over DIR/c.mch, stdout and exit code.
compare() {
    local name=$1 dir=$2 words=() opts=()
    shift 2
    while [ "$1" != -- ]; do words+=("$1"); shift; done
    shift; opts=("$@")
    local ref=.; [ "$dir" = plain ] && ref=plain
    (cd "$ref" && "$SP" "${words[@]}" -f f.mcl jit.so c.mch > "$T/ref.out" 2> "$T/ref.err"; echo $? > "$T/ref.rc")
    (cd "$dir" && "$R" -q "${opts[@]}" -f f.mcl --exec "$SP ${words[*]} jit.so" c.mch \
        > "$T/got.out" 2> "$T/got.err"; echo $? > "$T/got.rc")
    checks "$name"
}

# checks NAME: got.* against ref.*
checks() {
    local name=$1
    same "$name: exit code" ref.rc got.rc
    norm ref.out > ref.n; norm got.out > got.n
    if cmp -s ref.n got.n; then pass "$name: stdout byte for byte (times left out)"; else
        fail "$name: stdout byte for byte (times left out)"; diff ref.n got.n | head -6 | cut -c1-160 | sed 's/^/    /'; fi
    [ "$(grep -c '^Using jit(' got.out)" = 1 ] && pass "$name: one banner" || fail "$name: one banner"
    grep -q "^Using jit(jit.so) with input (c.mch)$" got.out && pass "$name: the banner names the collection" \
        || fail "$name: the banner names the collection"
    if grep -qE 'mcz-replay\.|unit\.mch|/w[0-9]+/' got.out; then fail "$name: no temporary path"
    else pass "$name: no temporary path"; fi
    [ "$(grep -c '^Loaded ' got.out)" = 1 ] && pass "$name: one summary" || fail "$name: one summary"
    grep -E '^ [0-9.]+% - Loaded ' got.out | awk '{ sub("%", "", $1); if ($1 + 0 < last) bad = 1; last = $1 + 0 } END { exit bad }' \
        && pass "$name: progress only goes forward" || fail "$name: progress only goes forward"
    if grep -q "^mcz-replay: context\|see --details" got.err; then fail "$name: no failure list of mcz-replay's own"
    else pass "$name: no failure list of mcz-replay's own"; fi
}

compare ".mcz -j 2" arc -- -j 2
[ "$(grep -c '% - Loaded' got.out)" -ge 2 ] && pass ".mcz -j 2: progress lines there (the comparison can fail)" \
    || fail ".mcz -j 2: progress lines there (the comparison can fail)"
compare ".mcz -j 1, a chunk per command" arc -- -j 1 --exec-batch 0
compare ".mcz -j 2 -repeatCount 2" arc -repeatCount 2 -- -j 2
contains "-repeatCount 2: compiles and failures counted as superpmi counts them" got.out "Loaded 1200  Jitted 2400  "
compare ".mcz --exec-toc -repeatCount 2" arc -repeatCount 2 -- -j 2 --exec-toc
compare ".mcz asm diffs" arc -a jit.so -- -j 2
compare ".mch without a table (progress by offset)" plain -- -j 2
(cd . && "$SP" -c 5-700,900-1000 -f f.mcl jit.so c.mch > ref.out 2> ref.err; echo $? > ref.rc)
(cd arc && "$R" -q -j 2 -c 5-700,900-1000 -f f.mcl --exec "$SP jit.so" c.mch > "$T/got.out" 2> "$T/got.err"; echo $? > "$T/got.rc")
checks "-c 5-700,900-1000 (progress over the list)"

# the drop-in, as superpmi.py would run it without -v (no -p: one superpmi's output)
(cd . && "$SP" -repeatCount 2 -f f.mcl -details d.csv jit.so c.mch > ref.out 2> ref.err; echo $? > ref.rc)
(cd arc && MCZ_SUPERPMI="$SP" MCZ_REPLAY="$R" "$D" -repeatCount 2 -f f.mcl -details d.csv jit.so c.mch \
    > "$T/got.out" 2> "$T/got.err"; echo $? > "$T/got.rc")
checks "drop-in -repeatCount 2"
same "drop-in -repeatCount 2: the same -f" f.mcl arc/f.mcl
cli_done
