#!/usr/bin/env bash
# The cluster examples of parallel-replay/README.md, run as they stand: GNU parallel over 8
# shards, and a Slurm array job with the merge as a job depending on it, on a one-node cluster
# this test starts itself (munged, slurmctld and slurmd on 127.0.0.1, configuration, state and
# sockets in a temporary directory) and stops. Each must give the -f list, details and exit code
# of one local run. The Slurm part needs root (slurmd launches jobs as their user) and Debian's
# slurm-wlm and munge (.ci/deps.sh installs them); without them it says why it is skipped.
. "$(dirname "$0")/lib.sh"

README="$MCZ_ROOT/parallel-replay/README.md"
W="$T/work"
mkdir -p "$W"
export PATH="$BIN:$PATH"
# Failures of each kind, spread over the shards (the plugin reads them when no --plugin-arg).
export REPLAY_TEST_RULES="fail:3,missing:50,segv:77,fail:150,exit:222,fail:299"

# block MARKER: the sh block that follows the README line "<!-- ... MARKER -->".
block() {
    awk -v m="$1" 'index($0, "<!-- tests/cli/test_cluster.sh runs this block " m " -->") { on = 1; next }
        on && /^```sh$/ { body = 1; next }
        body && /^```$/ { on = 0; body = 0; next }
        body { print }' "$README"
}

"$BIN/mchgen" --seed 11 --contexts 320 --out "$T/c.mch" >/dev/null 2>&1 &&
    "$BIN/mcs" -convert "$T/c.mch" "$W/corpus.mcz" --chunk-size 64K >/dev/null 2>&1 &&
    cc -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$W/replay.so" \
        "$MCZ_ROOT/parallel-replay/plugins/replay_test_plugin.c" ||
    { fail "setup: mchgen, mcs -convert, the test plugin"; cli_done; exit; }
block "as it stands" >"$T/blocks"
[ "$(grep -c 'mcz-replay --merge-results' "$T/blocks")" -eq 2 ] &&
    block "as replay.sbatch" | grep -q '^#SBATCH' ||
    { fail "setup: the README's cluster blocks are found"; cli_done; exit; }

# The reference: one run over the whole collection.
(cd "$W" && mcz-replay -q --plugin ./replay.so -f want.mcl --details want.csv corpus.mcz \
    >/dev/null 2>&1)
want_rc=$?
[ "$want_rc" -eq 1 ] && [ -s "$W/want.mcl" ] && pass "the local run fails some contexts" ||
    fail "the local run fails some contexts (exit $want_rc)"

# matches_local NAME RC: the merge's outputs and exit code are the local run's.
matches_local() {
    same "$1: -f list as one local run" "$W/want.mcl" "$W/failing.mcl"
    same "$1: details as one local run" "$W/want.csv" "$W/details.csv"
    [ "$2" -eq "$want_rc" ] && pass "$1: the merge's exit code is the local run's" ||
        fail "$1: the merge's exit code is the local run's ($2, expected $want_rc)"
}

# --- GNU parallel
awk '/^N=8$/, /merge-results/' "$T/blocks" >"$W/parallel.sh"
(cd "$W" && bash ./parallel.sh >"$T/parallel.out" 2>&1)
rc=$?
[ "$(ls "$W"/res.*.txt 2>/dev/null | wc -l)" -eq 8 ] && pass "GNU parallel: 8 shards' results" ||
    fail "GNU parallel: 8 shards' results"
matches_local "GNU parallel" "$rc"
rm -f "$W"/res.*.txt "$W/failing.mcl" "$W/details.csv"

# --- Slurm
skip_slurm() { pass "Slurm array job and merge # skip: $1"; cli_done; exit; }
[ "$(id -u)" -eq 0 ] || skip_slurm "not root (slurmd must run as root)"
for cmd in munged slurmctld slurmd sbatch scontrol; do
    command -v "$cmd" >/dev/null 2>&1 || skip_slurm "no $cmd (Debian's slurm-wlm and munge)"
done

S="$T/slurm"
mkdir -p "$S/state" "$S/spool" && mkdir -m 700 "$S/munge"
daemons=()
stop_cluster() {
    for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null; done
    rm -rf "$T"
}
trap stop_cluster EXIT

# Three free ports on 127.0.0.1, from the kernel.
read -r ctld_port slurmd_port _ < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
node=$(hostname -s)
head -c 1024 /dev/urandom >"$S/munge/key" && chmod 400 "$S/munge/key"
cat >"$S/slurm.conf" <<EOF
ClusterName=mcztest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=32 State=UNKNOWN
PartitionName=mcztest Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"

munged --foreground --force --socket="$S/munge/socket" --key-file="$S/munge/key" \
    --log-file="$S/munge/log" --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" \
    >"$S/munged.out" 2>&1 &
daemons+=($!)
slurmctld -D -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
daemons+=($!)

# wait_until SECONDS CMD...: polls CMD every 0.2 s; a bound against hangs, not a timing check.
wait_until() {
    local tries=$(($1 * 5)); shift
    while [ "$tries" -gt 0 ]; do
        "$@" && return 0
        sleep 0.2
        tries=$((tries - 1))
    done
    return 1
}
node_idle() { sinfo -h -N -o %T 2>/dev/null | grep -qx idle; }
if wait_until 60 node_idle; then pass "Slurm: the one-node cluster is up"; else
    fail "Slurm: the one-node cluster is up"
    tail -n 5 "$S"/*.out "$S"/*.log 2>/dev/null | sed 's/^/    /'
    cli_done; exit
fi

block "as replay.sbatch" >"$W/replay.sbatch"
awk '/^JOBID=/, /--dependency/' "$T/blocks" >"$W/submit.sh"
(cd "$W" && bash ./submit.sh >"$T/submit.out" 2>&1)
merge_job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T/submit.out")
[ -n "$merge_job" ] && pass "Slurm: the array job and the merge are submitted" ||
    { fail "Slurm: the array job and the merge are submitted"; sed 's/^/    /' "$T/submit.out"
      cli_done; exit; }
job_state() { scontrol -o show job "$merge_job" 2>/dev/null | grep -o 'JobState=[A-Z_]*'; }
merge_ended() { job_state | grep -qE 'JobState=(COMPLETED|FAILED|CANCELLED|TIMEOUT)'; }
if ! wait_until 300 merge_ended; then
    fail "Slurm: the merge job ends ($(job_state))"
    tail -n 5 "$S"/*.log | sed 's/^/    /'
    cli_done; exit
fi
[ "$(ls "$W"/res.*.txt 2>/dev/null | wc -l)" -eq 8 ] && pass "Slurm: 8 array tasks' results" ||
    fail "Slurm: 8 array tasks' results"
merge_rc=$(scontrol -o show job "$merge_job" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
matches_local "Slurm" "${merge_rc:-255}"
cli_done
