#!/usr/bin/env bash
# bin/mchgen: command line, determinism, atomic output, valid contexts, and the calibration of
# the default model against the published ratios (each within 5% of its target).
. "$(dirname "$0")/lib.sh"
G="$BIN/mchgen"

ok_run "help exits 0" "$G" --help
contains "help names the presets" "$T/out" "release"
FAIL_EXIT=2 fail_run "unknown argument is refused (exit 2)" "$G" --frobnicate
for bad in "--contexts 0" "--contexts x" "--contexts -5" "--seed -1" "--preset nope" "--out"; do
    # shellcheck disable=SC2086
    rc=$("$G" $bad --report >/dev/null 2>&1; echo $?)
    [ "$rc" -eq 2 ] && pass "usage error: $bad" || fail "usage error: $bad (exit $rc)"
done
rc=$("$G" --seed 1 >/dev/null 2>&1; echo $?)
[ "$rc" -eq 2 ] && pass "nothing to do exits 2" || fail "nothing to do exits 2 (exit $rc)"

ok_run "small corpus" "$G" --preset small --seed 7 --out "$T/a.mch"
ok_run "same seed again" "$G" --preset small --seed 7 --out "$T/b.mch"
same "same seed, same bytes" "$T/a.mch" "$T/b.mch"
ok_run "other seed" "$G" --preset small --seed 8 --out "$T/c.mch"
if cmp -s "$T/a.mch" "$T/c.mch"; then fail "other seed, other bytes"; else
    pass "other seed, other bytes"; fi
[ -s "$T/a.mch" ] && [ "$(head -c 2 "$T/a.mch")" = "mc" ] && pass "output starts with a context" ||
    fail "output starts with a context"

fail_run "unwritable output fails" "$G" --preset small --out "$T/no/such/dir/x.mch"
[ ! -e "$T/no/such/dir/x.mch" ] && pass "nothing left behind" || fail "nothing left behind"

# Every context valid: the generator's own deep check, and mcs -integ when it is built.
for p in small release full; do
    ok_run "preset $p validates" "$G" --preset "$p" --contexts 200 --seed 3 --report
    contains "preset $p: every context valid" "$T/out" "valid 200 of 200 contexts"
done
if [ -x "$BIN/mcs" ]; then
    ok_run "mcs -integ accepts the corpus" "$BIN/mcs" -integ "$T/a.mch"
    contains "mcs -integ checked all 300" "$T/out" "Checked the integrity of 300 methodContexts"
fi

# Calibration: the default model at the test's size.
ok_run "report of 3000 contexts" "$G" --seed 2 --contexts 3000 --report
cp "$T/out" "$T/report"
for r in per_context dict chunked; do
    line=$(grep "^ratio $r " "$T/report")
    dev=$(echo "$line" | awk '{d = $7; sub(/%/, "", d); print (d < 0 ? -d : d) <= 5 ? "ok" : "no"}')
    if [ "$dev" = ok ]; then pass "ratio $r within 5% ($line)"; else
        fail "ratio $r within 5% ($line)"; fi
done
contains "report counts the contexts" "$T/report" "contexts 3000 "
cli_done
