#!/usr/bin/env bash
# mcz-replay interrupted while units are in flight (a plugin that spins, an --exec command
# that sleeps), by SIGINT, SIGTERM and SIGHUP: the run ends with 128+N, no worker or command
# is left, no unit is started after the signal, and nothing that was only interrupted is
# reported as failed (-f and --details name no crash).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
"$BIN/mchgen" --seed 5 --contexts 400 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 64K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
PLUGIN_SRC="$MCZ_ROOT/parallel-replay/plugins/replay_test_plugin.c"
cc -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$T/tp.so" "$PLUGIN_SRC" ||
    { fail "setup: test plugin"; cli_done; exit; }

# The --exec command: marks its start, then sleeps long enough that every unit is in flight
# when the signal comes; a unit that completes would show in STARTED past the first two.
# The sleeper is named after this test's directory, so that no other process on the machine
# (another test run) is taken for one left behind.
TOKEN="mcz-interrupt-$(basename "$T")"
cat > "$T/cmd.sh" <<SH
#!/bin/bash
echo started >> "\$STARTED"
exec -a $TOKEN sleep 30
SH
chmod +x "$T/cmd.sh"
export STARTED="$T/started"

# interrupt NAME SIGNAL CODE REPLAY-ARGS...: start mcz-replay in the background, wait until
# both workers have begun, send SIGNAL to mcz-replay alone, and check how it ended.
interrupt() {
    local name=$1 sig=$2 code=$3; shift 3
    rm -f "$STARTED" "$T/f.mcl" "$T/d.csv"
    setsid "$R" -q -j 2 -f "$T/f.mcl" --details "$T/d.csv" "$@" > "$T/out" 2> "$T/err" &
    local pid=$! i
    # --exec: both commands started; a plugin: the workers are spinning on their first unit
    for i in $(seq 1 200); do
        [ "$(cat "$STARTED" 2>/dev/null | wc -l)" = 2 ] && break
        case "$*" in *--plugin*) [ "$i" -ge 15 ] && break ;; esac
        sleep 0.1
    done
    sleep 0.5
    kill -s "$sig" "$pid"
    local rc=0
    # Bounded wait: a run that ignores the signal is killed and fails the check below.
    for i in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { kill -KILL -- -"$pid"; fail "$name: still running 20 s after SIG$sig"; }
    wait "$pid"; rc=$?
    [ "$rc" = "$code" ] && pass "$name: exit $code" || fail "$name: exit $rc, expected $code"
    sleep 0.2
    if pgrep -f "$T/cmd.sh|$TOKEN|$T/c.mc" >/dev/null; then
        fail "$name: processes left"; pgrep -af "$T/cmd.sh|$TOKEN|$T/c.mc" | head -5
        pkill -KILL -f "$T/cmd.sh|$TOKEN|$T/c.mc"
    else pass "$name: no worker or command left"; fi
    if grep -q crash "$T/d.csv" 2>/dev/null || [ -s "$T/f.mcl" ]; then
        fail "$name: interrupted contexts reported as failed"; head -3 "$T/d.csv" "$T/f.mcl"
    else pass "$name: nothing interrupted is reported as failed"; fi
    contains "$name: says it was interrupted" "$T/err" "interrupted"
}

interrupt "exec SIGINT" INT 130 --exec-batch 0 --exec "$T/cmd.sh" "$T/c.mcz"
n=$(cat "$STARTED" 2>/dev/null | wc -l)
[ "$n" = 2 ] && pass "exec SIGINT: no unit started after the signal" ||
    fail "exec SIGINT: $n commands started, expected 2"
interrupt "exec SIGTERM" TERM 143 --exec-batch 0 --exec "$T/cmd.sh" "$T/c.mch"
interrupt "exec SIGHUP" HUP 129 --exec-batch 0 --exec "$T/cmd.sh" "$T/c.mcz"
interrupt "plugin SIGINT" INT 130 --plugin "$T/tp.so" --plugin-arg spin:200000 "$T/c.mcz"
interrupt "plugin SIGTERM" TERM 143 --plugin "$T/tp.so" --plugin-arg spin:200000 "$T/c.mch"
cli_done
