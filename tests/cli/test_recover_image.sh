#!/usr/bin/env bash
# mcs -recover from memory images (FORMAT.md §13).
#   - a byte image: an archive's frames at odd offsets among random bytes, the dictionary apart
#     from its frame head, chunks shuffled, a stale duplicate and a damaged copy: the recovery is
#     the archive's contexts byte for byte, the duplicate and the damaged copy counted;
#   - gcore of a process collecting in MEMORY mode (tests/collector/crash_harness), stopped at a
#     moment drawn from the seed: the core gives back every context the process had logged as
#     retained before the dump, byte for byte, and nothing that is not a source context;
#   - a real SIGSEGV with a core file, where the machine lets this test have one.
# IMAGE_DUMPS sets the number of gcore runs (4). The seed is fixed (COLLECTOR_SEED, default 1);
# COLLECTOR_SEED=clock (make torture) draws one, printed first so that it replays the run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
H=$(cd "${BUILD:-build}" && pwd)/tests/crash_harness
M=$BIN/mcs
DUMPS=${IMAGE_DUMPS:-4}
SEED=${COLLECTOR_SEED:-1}
[ "$SEED" = clock ] && SEED=$(( $(date +%s%N) / 1000 % 100000 ))
RANDOM=$SEED
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:disable_coredump=0"
echo "# replay: COLLECTOR_SEED=$SEED IMAGE_DUMPS=$DUMPS bash tests/cli/test_recover_image.sh"
[ -x "$H" ] || { fail "$H is built (make test builds it)"; cli_done; exit; }
# The process that is dumped: MCZ_DUMP_HARNESS (make asan gives the plain build's), else $H. A
# sanitized one is never dumped: its core spans the terabytes the sanitizer reserves.
D=${MCZ_DUMP_HARNESS:-$H}
sanitized() { grep -qa __asan_init "$1"; }
show() { sed 's/^/    /' "$1" | head -15; }

"$BIN/mchgen" --seed 7 --contexts 300 --preset small --out "$T/s.mch" >/dev/null 2>&1 ||
    fail "mchgen writes the source collection"

# --- A byte image, deterministic.
for opts in "--chunk-size 64K" "--chunk-size 64K --no-dict"; do
    # shellcheck disable=SC2086
    "$M" -convert "$T/s.mch" "$T/a.mcz" $opts >/dev/null 2>&1 || fail "convert $opts"
    python3 "$MCZ_ROOT/tests/cli/make_image.py" "$T/a.mcz" "$T/a.img" 5 >"$T/chunks" ||
        fail "make_image.py builds the image"
    rm -f "$T/a.rec"
    ok_run "image ($opts): recovered" "$M" -recover "$T/a.img" "$T/a.rec"
    contains "image ($opts): every chunk kept, once" "$T/out" \
        "recovered 300 contexts in $(cat "$T/chunks") chunks"
    contains "image ($opts): the stale copy and the damaged one counted" "$T/out" \
        "1 duplicate chunk copies left out, 1 chunks skipped"
    ok_run "image ($opts): the recovery verifies" "$M" -verify "$T/a.rec"
    "$M" -export "$T/a.rec" "$T/a.mch" >/dev/null 2>&1
    same "image ($opts): the contexts byte for byte" "$T/s.mch" "$T/a.mch"
    # The same image at 1 TiB + 5 in a 2 TiB sparse file, random bytes at 512 GiB: the scan
    # reads only what the file stores (the holes, read, would take it hours; 300 s is a bound
    # no scan of the data comes near).
    rm -f "$T/sparse.img" "$T/a.rec"
    if truncate -s 2T "$T/sparse.img" 2>/dev/null; then
        python3 - "$T/a.img" "$T/sparse.img" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "r+b") as f:
    f.seek(512 << 30); f.write(os.urandom(1 << 20))
    f.seek((1 << 40) + 5); f.write(data)
PY
        ok_run "sparse image ($opts): recovered, holes not read" timeout 300 \
            "$M" -recover "$T/sparse.img" "$T/a.rec"
        "$M" -export "$T/a.rec" "$T/a.mch" >/dev/null 2>&1
        same "sparse image ($opts): the contexts byte for byte" "$T/s.mch" "$T/a.mch"
        rm -f "$T/sparse.img"
    else
        pass "skip: sparse image: the file system refuses a 2 TiB sparse file"
    fi
done
head -c 100000 /dev/urandom >"$T/noise.img"
fail_run "random bytes: no header, a clear error" "$M" -recover "$T/noise.img" "$T/n.mcz"
contains "random bytes: the error names the file" "$T/err" "noise.img"
[ ! -e "$T/n.mcz" ] && pass "random bytes: no output" || fail "random bytes: no output"

# check_core NAME CORE LOG [CHECK OPTIONS]: the core's recovery verifies and holds every logged
# context, with its bytes, and nothing else.
check_core() {
    local name=$1 core=$2 log=$3; shift 3
    rm -f "$T/c.mcz"
    if ! "$M" -recover "$core" "$T/c.mcz" >"$T/rec.out" 2>&1; then
        if [ -s "$log" ]; then fail "$name: recovered"; show "$T/rec.out"; else
            pass "$name: nothing retained yet, nothing recovered"; fi
        return
    fi
    if ! "$M" -verify "$T/c.mcz" >"$T/verify.out" 2>&1; then
        fail "$name: the recovery verifies"; show "$T/verify.out"; return; fi
    if "$H" check --source "$T/s.mch" --log "$log" --archive "$T/c.mcz" "$@" >"$T/check.out" 2>&1
    then pass "$name: $(sed -n 's/^check: //p' "$T/check.out")"
    else fail "$name"; show "$T/check.out"; show "$T/rec.out"; show "$T/harness.err"; fi
}

# --- gcore of a live MEMORY collector at moments drawn from the seed (every other one rolling).
if ! command -v gcore >/dev/null 2>&1; then
    pass "skip: gcore (Debian's gdb) is not installed; .ci/deps.sh installs it"
elif sanitized "$D"; then
    pass "skip: gcore: $D is sanitized (make asan dumps the plain build's harness)"
else
    for i in $(seq 1 "$DUMPS"); do
        delay=$(( 100 + (RANDOM * 32768 + RANDOM) % 900 ))
        bound=() opts=()
        [ $((i % 2)) -eq 0 ] && bound=(--max-bytes 262144) opts=(--rolling)
        rm -f "$T/m.mcz" "$T/m.log" "$T"/core.*
        "$D" run --source "$T/s.mch" --out "$T/m.mcz" --log "$T/m.log" --mode memory --rate 800 \
            --seed $((SEED + 2000 + i)) --max-seconds 30 "${bound[@]}" 2>"$T/harness.err" &
        pid=$!
        sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
        # Stopped first, so the log copied is what the process knew at the dump.
        kill -STOP "$pid"
        cp "$T/m.log" "$T/dump.log" 2>/dev/null || : >"$T/dump.log"
        gcore -o "$T/core" "$pid" >"$T/gcore.out" 2>&1
        { kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
        if [ ! -s "$T/core.$pid" ]; then
            fail "gcore $i: writes a core"; show "$T/gcore.out"; continue; fi
        check_core "gcore $i after $delay ms${bound:+, rolling}" "$T/core.$pid" "$T/dump.log" \
            "${opts[@]}" "${bound[@]}"
    done
fi

# --- A real SIGSEGV, the kernel's core file. Only where cores land in a file of the working
# directory (a core_pattern piping to a handler, as containers often have, keeps them from us;
# the pattern is the machine's, not this test's, to change).
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
if [ "${pattern:0:1}" = "|" ] || [ -z "$pattern" ] || [ "${pattern#*/}" != "$pattern" ]; then
    pass "skip: real SIGSEGV core: core_pattern is '$pattern' (not a file in the working directory)"
elif sanitized "$D"; then
    pass "skip: real SIGSEGV core: $D is sanitized (make asan dumps the plain build's harness)"
elif ! (ulimit -c unlimited) 2>/dev/null; then
    pass "skip: real SIGSEGV core: ulimit -c unlimited is refused"
else
    mkdir -p "$T/cores"
    delay=$(( 100 + (RANDOM * 32768 + RANDOM) % 400 ))
    { (cd "$T/cores" && ulimit -c unlimited &&
        exec "$D" run --source "$T/s.mch" --out "$T/cores/m.mcz" --log "$T/cores/m.log" \
            --mode memory --rate 800 --seed $((SEED + 3000)) --crash-ms "$delay") \
        2>"$T/harness.err"; } 2>/dev/null # (the shell would report the death)
    rc=$?
    core=$(ls "$T/cores"/core* 2>/dev/null | head -1)
    if [ "$rc" -ne 139 ]; then
        fail "real SIGSEGV: harness exit $rc, want 139"; show "$T/harness.err"
    elif [ -z "$core" ]; then
        pass "skip: real SIGSEGV core: no core file appeared (pattern '$pattern')"
    else
        check_core "real SIGSEGV after $delay ms, core file" "$core" "$T/cores/m.log"
    fi
fi
cli_done
