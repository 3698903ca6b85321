#!/usr/bin/env bash
# The bridge between an archive and superpmi: every temporary file of an --exec run is under
# TMPDIR and gone after it; the next unit is read and written while the current one's command
# runs (its file appears beside the running command's, in the worker's other directory); the
# same results as one command over everything. (How commands are sized from their start cost
# is tests/unit/test_replay_span.c.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
cd "$T" || exit 1
"$BIN/mchgen" --seed 7 --contexts 400 --out c.mch >/dev/null 2>&1
"$BIN/mcs" -convert c.mch c.mcz --chunk-size 512K >/dev/null 2>&1
[ -s c.mcz ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
: > jit.so
mkdir tmp

# The wrapper: records its unit file, then waits (3 s at most) for the worker's other
# directory to hold a unit file that is neither its own nor the one before it: the next unit,
# written ahead. Then it runs the stand-in.
cat > wrap.sh <<EOF
#!/bin/sh
for last; do :; done
dir=\$(dirname "\$last")
case \$dir in *.next) other=\${dir%.next};; *) other=\$dir.next;; esac
echo "\$last" >> "$T/units"
mine=\$(cksum < "\$last")
prev=\$(cat "$T/last.ck" 2>/dev/null)
echo "\$mine" > "$T/last.ck"
i=0
while [ \$i -lt 30 ]; do
    now=\$(cksum < "\$other/unit.mch" 2>/dev/null)
    if [ -n "\$now" ] && [ "\$now" != "\$prev" ] && [ "\$now" != "\$mine" ]; then
        echo ahead >> "$T/ahead"; break
    fi
    sleep 0.1; i=\$((i + 1))
done
exec "$SP" "\$@"
EOF
chmod +x wrap.sh
: > units; : > ahead
TMPDIR="$T/tmp" "$R" -q -j 1 --exec-batch 0 -f got.mcl --details got.csv --exec "$T/wrap.sh jit.so" c.mcz \
    > got.out 2> got.err
echo $? > got.rc
"$SP" -f ref.mcl -details ref.csv jit.so c.mch > ref.out 2> ref.err
echo $? > ref.rc
n=$(wc -l < units)
[ "$n" -ge 3 ] && pass "several commands ($n)" || fail "several commands ($n)"
if grep -qv "^$T/tmp/" units; then fail "every unit file under TMPDIR"; else pass "every unit file under TMPDIR"; fi
[ "$(wc -l < ahead)" -eq $((n - 1)) ] && pass "each next unit written while the command before it ran ($(wc -l < ahead) of $((n - 1)))" \
    || fail "each next unit written while the command before it ran ($(wc -l < ahead) of $((n - 1)))"
[ -z "$(ls -A tmp)" ] && pass "TMPDIR left empty" || { fail "TMPDIR left empty"; ls -R tmp | head -5; }
same "exit code as one superpmi run" ref.rc got.rc
same "-f as one superpmi run" ref.mcl got.mcl
same "details as one superpmi run" ref.csv got.csv
cli_done
