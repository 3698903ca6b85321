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

# Two commands in flight when starts are dear: each command of the wrapper below first waits
# 0.3 s (a process start, a JIT load), so once a worker's first commands have told it so, it
# starts its next command while the current one runs. A command logs its start under its
# worker (the unit file's directory, without .next) and, done, waits (1 s at most) for a later
# command of its worker to start: seen, it logs "overlap". It also counts the unit files in
# TMPDIR as it starts: two a worker at most. With -j 1, one command at a time: no start
# between a command's start and its end.
cat > dear.sh <<EOF
#!/bin/sh
for last; do :; done
worker=\$(basename "\$(dirname "\$last")" .next)
echo "S \$worker \$\$" >> "$T/log"
find "$T/tmp" -name unit.mch | wc -l >> "$T/unitfiles"
sleep 0.3
"$SP" "\$@"
rc=\$?
i=0
while [ \$i -lt \${WAIT_TENTHS:-10} ]; do
    if sed "1,/ \$\$\\\$/d" "$T/log" | grep -q "^S \$worker "; then
        echo "overlap \$worker" >> "$T/log"; break
    fi
    sleep 0.1; i=\$((i + 1))
done
echo "E \$worker \$\$" >> "$T/log"
exit \$rc
EOF
chmod +x dear.sh
"$BIN/mchgen" --seed 8 --contexts 600 --out d.mch >/dev/null 2>&1
"$BIN/mcs" -convert d.mch d.mcz --chunk-size 64K >/dev/null 2>&1
"$SP" -f dref.mcl -details dref.csv jit.so d.mch > /dev/null 2>&1
: > log; : > unitfiles
TMPDIR="$T/tmp" "$R" -q -j 2 --exec-batch 1M -f dgot.mcl --details dgot.csv \
    --exec "$T/dear.sh jit.so" d.mcz > /dev/null 2> dgot.err
starts=$(grep -c '^S ' log)
workers=$(grep '^S ' log | cut -d' ' -f2 | sort -u | wc -l)
overlapped=$(grep '^overlap ' log | cut -d' ' -f2 | sort -u | wc -l)
[ "$workers" -eq 2 ] && [ "$starts" -ge 8 ] && pass "dear starts, -j 2: several commands a worker ($starts)" ||
    fail "dear starts, -j 2: several commands a worker ($starts commands, $workers workers)"
[ "$overlapped" -eq 2 ] &&
    pass "dear starts, -j 2: each worker started a command while another of its ran" ||
    fail "dear starts, -j 2: each worker started a command while another of its ran ($overlapped of 2)"
most=$(sort -n unitfiles | tail -1)
[ "${most:-9}" -le 4 ] && pass "dear starts, -j 2: at most two unit files a worker ($most)" ||
    fail "dear starts, -j 2: at most two unit files a worker ($most in TMPDIR)"
same "dear starts, -j 2: -f as one superpmi run" dref.mcl dgot.mcl
same "dear starts, -j 2: details as one superpmi run" dref.csv dgot.csv
[ -z "$(ls -A tmp)" ] && pass "dear starts, -j 2: TMPDIR left empty" ||
    fail "dear starts, -j 2: TMPDIR left empty"
# Starts that cost nothing, 1 ms a context: still two in flight a worker (a rule that started
# the next command only when a start looked dear left a core idle in every start of a JIT's).
# A worker's first command runs alone; its second (the second to log, the log taken under a
# lock) waits at its end (3 s at most) for a third of its worker to have started, which comes at
# once when the next command starts under the current one, and never while it runs otherwise.
cat > cheap.sh <<EOF
#!/bin/sh
for last; do :; done
worker=\$(basename "\$(dirname "\$last")" .next)
n=\$(flock "$T/clog" sh -c 'echo "S \$0 \$1" >> "$T/clog"; grep -c "^S \$0 " "$T/clog"' \
    "\$worker" \$\$)
"$SP" "\$@"
rc=\$?
if [ "\$n" -eq 2 ]; then
    i=0
    while [ \$i -lt 30 ]; do
        if [ "\$(grep -c "^S \$worker " "$T/clog")" -gt 2 ]; then
            echo "overlap \$worker" >> "$T/clog"; break
        fi
        sleep 0.1; i=\$((i + 1))
    done
fi
exit \$rc
EOF
chmod +x cheap.sh
: > clog
STANDIN_SLEEP_MS=1 TMPDIR="$T/tmp" "$R" -q -j 2 --exec-batch 1M -f c.mcl --details c.csv \
    --exec "$T/cheap.sh jit.so" d.mcz > /dev/null 2>&1
overlapped=$(grep '^overlap ' clog | cut -d' ' -f2 | sort -u | wc -l)
[ "$overlapped" -eq 2 ] &&
    pass "cheap starts, -j 2: each worker's third command started under its second" ||
    fail "cheap starts, -j 2: each worker's third command started under its second ($overlapped of 2)"
same "cheap starts, -j 2: details as one superpmi run" dref.csv c.csv
: > log # -j 1: no waiting for a start that must not come
WAIT_TENTHS=0 TMPDIR="$T/tmp" "$R" -q -j 1 --exec-batch 1M -f d1.mcl --exec "$T/dear.sh jit.so" \
    d.mcz > /dev/null 2>&1
if awk '$1 == "S" && open { bad = 1 } $1 == "S" { open = 1 } $1 == "E" { open = 0 }
        END { exit bad }' log && [ "$(grep -c '^S ' log)" -ge 4 ]; then
    pass "dear starts, -j 1: one command at a time ($(grep -c '^S ' log) commands)"
else
    fail "dear starts, -j 1: one command at a time"; cat log
fi
same "dear starts, -j 1: -f as one superpmi run" dref.mcl d1.mcl
cli_done
