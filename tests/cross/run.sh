#!/usr/bin/env bash
# The tests of another Linux machine's build, run here under qemu-user (make test-aarch64,
# make test-s390x), and the proof that the archive is the same on every machine: the same
# collection and options give the same archive bytes here and there, and an archive written on
# either machine reads on the other. s390x is big-endian, so it catches any code that writes or
# reads the format in the host's byte order.
#   run.sh MACHINE CROSS_BUILD HOST_BIN HOST_BUILD
# CROSS_BUILD holds the machine's build (bin/, tests/, fuzz/, and sysroot/ when its libraries
# are unpacked there by .ci/deps-cross.sh); HOST_BIN and HOST_BUILD this machine's programs and
# test helpers. CROSS_CLI chooses the tests/cli scripts run with the machine's programs:
#   format (the default)  those about the archive and the round trips through it
#   all                   every script that can run under qemu-user (the others are listed
#                         below with the reason); about 6 minutes more per machine
#   none                  no script
# Prints one closing line, "N passed, N failed", like tests/run-all.sh.
set -u
usage="usage: run.sh MACHINE CROSS_BUILD HOST_BIN HOST_BUILD"
machine=${1:?$usage}
cross=$(cd "${2:?$usage}" && pwd)
host=$(cd "${3:?$usage}" && pwd)
host_build=$(cd "${4:?$usage}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
failures=()

# The machine's programs run through qemu-user; libraries the sysroot holds are found there.
qemu=(qemu-"$machine")
triplet=$(basename "$(ls -d /usr/lib/gcc-cross/"$machine"-* 2>/dev/null | head -n1)")
if [ -f "$cross/sysroot/.complete" ]; then
    qemu+=(-E "LD_LIBRARY_PATH=$cross/sysroot/usr/lib/$triplet:$cross/sysroot/lib/$triplet")
fi
# A test program there cannot start itself again (the system runs its own machine's programs
# only), nor learn from its spawn that a program is missing: test_worker's command test asks
# MCZ_TEST_EMULATED and is skipped.
qemu+=(-E MCZ_TEST_EMULATED=1)
mkdir -p "$T/bin"
for p in mcs mcz-replay mchgen; do
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${qemu[*]}" "$cross/bin/$p" >"$T/bin/$p"
    chmod +x "$T/bin/$p"
done
there=$T/bin

pass() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "not ok - $1"; failed=$((failed + 1)); failures+=("$1"); }
# run NAME CMD...: the command must exit 0 (its output in $T/out, $T/err).
run() {
    local name=$1; shift
    if "$@" >"$T/out" 2>"$T/err"; then pass "$name"; else
        fail "$name (exit $?)"; sed 's/^/    /' "$T/err" | head -10; fi
}
same() { if cmp -s "$2" "$3"; then pass "$1"; else fail "$1 ($(cmp "$2" "$3" 2>&1))"; fi; }

echo "== $machine: unit tests under ${qemu[*]}"
for t in "$cross"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    (cd "$root" && "${qemu[@]}" "$t") >"$T/log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$T/log" | tail -n1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$T/log" | tail -n1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    echo "$name: ${p:-0} passed, ${f:-0} failed"
    if [ "$rc" -ne 0 ]; then
        grep -E '^\[  (FAILED|ERROR) |Failure|error' "$T/log" | head -20 | sed 's/^/    /'
        [ -z "$f" ] && failed=$((failed + 1))
        failures+=("$machine $name")
    fi
done

echo "== $machine: fuzz corpora"
for f in "$cross"/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f"); name=${name#fuzz_}
    run "fuzz corpus $name" "${qemu[@]}" "$f" "$root/tests/fuzz/corpus/$name"
done

echo "== $machine: archives crossed with $(uname -m)"
N=300
"$host/mchgen" --seed 7 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen ($(uname -m)) writes a collection"
run "mchgen ($machine) runs" "$there/mchgen" --seed 7 --contexts $N --preset small \
    --out "$T/gen.mch"
same "mchgen writes the same collection on both machines" "$T/a.mch" "$T/gen.mch"

# One option set a line: the archive both machines write from a.mch must be the same bytes,
# and each must read the other's back to a.mch byte for byte.
mkdir -p "$T/h" "$T/t"
"$host/mcs" -convert --chunk-size 64K "$T/a.mch" "$T/lender.mcz" >/dev/null 2>&1
i=0
while read -r opts; do
    i=$((i + 1))
    label="-convert ${opts:-(defaults)}"
    label=${label//$T\//}
    # shellcheck disable=SC2086 # the options are words
    "$host/mcs" -convert "$T/a.mch" "$T/h/$i.mcz" $opts >/dev/null 2>&1
    run "$label ($machine)" "$there/mcs" -convert "$T/a.mch" "$T/t/$i.mcz" $opts
    same "$label: the same archive bytes on $(uname -m) and $machine" "$T/h/$i.mcz" "$T/t/$i.mcz"
    run "$label: $machine exports the $(uname -m) archive" \
        "$there/mcs" -export "$T/h/$i.mcz" "$T/t/$i.mch"
    same "$label: $machine export is the input, byte for byte" "$T/a.mch" "$T/t/$i.mch"
    run "$label: $(uname -m) exports the $machine archive" \
        "$host/mcs" -export "$T/t/$i.mcz" "$T/h/$i.mch"
    same "$label: $(uname -m) export is the input, byte for byte" "$T/a.mch" "$T/h/$i.mch"
done <<OPTS

--level 3 --chunk-size 64K --no-dict -j 2
--chunk-size 64K -j 2
--dict-from $T/lender.mcz
OPTS

run "-info ($machine) on the $(uname -m) archive" "$there/mcs" -info "$T/h/1.mcz"
cp "$T/out" "$T/info-there"
"$host/mcs" -info "$T/h/1.mcz" >"$T/info-here" 2>&1
same "-info says the same on both machines" "$T/info-here" "$T/info-there"
run "-verify ($machine) of the $(uname -m) archive" "$there/mcs" -verify "$T/h/1.mcz"
run "-verify ($(uname -m)) of the $machine archive" "$host/mcs" -verify "$T/t/1.mcz"
run "-integ ($machine) of the collection" "$there/mcs" -integ "$T/a.mch"

# The SuperPMI side files: the .mct table (identity hashes, MurmurHash3 of the contexts).
cp "$T/a.mch" "$T/h/toc.mch" && cp "$T/a.mch" "$T/t/toc.mch"
"$host/mcs" -toc "$T/h/toc.mch" >/dev/null 2>&1
run "-toc ($machine)" "$there/mcs" -toc "$T/t/toc.mch"
same "-toc writes the same .mct on both machines" "$T/h/toc.mch.mct" "$T/t/toc.mch.mct"
"$host/mcs" -copy 10-20,250 "$T/h/1.mcz" "$T/h/part.mch" >/dev/null 2>&1
run "-copy ($machine) from the $(uname -m) archive" \
    "$there/mcs" -copy 10-20,250 "$T/h/1.mcz" "$T/t/part.mch"
same "-copy: the same contexts on both machines" "$T/h/part.mch" "$T/t/part.mch"
"$host/mcs" -copy 1-$N "$T/a.mch" "$T/h/copy.mcz" >/dev/null 2>&1
run "-copy ($machine) into an archive" "$there/mcs" -copy 1-$N "$T/a.mch" "$T/t/copy.mcz"
same "-copy into an archive: the same bytes on both machines" "$T/h/copy.mcz" "$T/t/copy.mcz"

# Verify replay in two worker processes, of either machine's archive.
"$host/mcz-replay" -q -j 2 --details "$T/h/details.csv" "$T/h/1.mcz" >/dev/null 2>&1
run "mcz-replay -j 2 ($machine) of the $(uname -m) archive" \
    "$there/mcz-replay" -q -j 2 --details "$T/t/details.csv" "$T/h/1.mcz"
same "mcz-replay: the same details on both machines" "$T/h/details.csv" "$T/t/details.csv"
run "mcz-replay -j 2 ($(uname -m)) of the $machine archive" \
    "$host/mcz-replay" -q -j 2 --details "$T/h/details-t.csv" "$T/t/1.mcz"
same "mcz-replay: the same details from the $machine archive" "$T/h/details.csv" \
    "$T/h/details-t.csv"

# tests/cli scripts with the machine's programs as BIN; their helpers (BUILD/tests: a stand-in
# superpmi, the index rewriters, the crash harness) are this machine's, which qemu-user runs
# natively when the programs start them. Not run under qemu-user, and why:
declare -A skip=(
    [test_replay.sh]="builds replay plugins with this machine's cc: mcz-replay cannot load them"
    [test_replay_interrupt.sh]="the same: a plugin built with this machine's cc"
    [test_cluster.sh]="its shards replay through a plugin built with this machine's cc"
    [test_docs.sh]="runs the README's commands, which build a plugin with this machine's cc"
    [test_install.sh]="make install builds and installs for this machine"
    [test_make.sh]="runs make on this machine's build"
    [test_layering.sh]="checks this machine's objects (nm of the native build)"
    [test_python.sh]="the Python module loads libmcz.so into this machine's python3"
    [test_recover_image.sh]="gdb dumps the cores of native processes"
)
format_cli="test_mcs_basic test_mcs_codec test_mcs_layout test_mcs_nohashes test_mcs_forged
            test_mcs_damage test_mcs_determinism test_mcs_chunkcopy test_mcs_strict
            test_replay_spmi test_mchgen"
case "${CROSS_CLI:-format}" in
    format) scripts=$(for s in $format_cli; do echo "$root/tests/cli/$s.sh"; done) ;;
    all) scripts=$(ls "$root"/tests/cli/test_*.sh) ;;
    none) scripts= ;;
    *) echo "run.sh: CROSS_CLI is format, all or none" >&2; exit 2 ;;
esac
echo "== $machine: tests/cli (CROSS_CLI=${CROSS_CLI:-format})"
for s in $scripts; do
    name=$(basename "$s")
    [ -n "${skip[$name]:-}" ] && continue
    BIN=$there BUILD=$host_build MCZ_ROOT=$root timeout -k 20 "${MCZ_TEST_LIMIT:-900}" \
        bash "$s" >"$T/log" 2>&1 </dev/null
    rc=$?
    p=$(grep -c '^ok ' "$T/log")
    f=$(grep -c '^not ok ' "$T/log")
    echo "$name: $p passed, $f failed"
    grep -A5 '^not ok ' "$T/log" | head -30 | sed 's/^/    /'
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        failures+=("$machine $name")
    fi
done
echo "== $machine: not run under qemu-user (tests/run-all.sh runs them on $(uname -m)):"
for name in "${!skip[@]}"; do echo "   $name: ${skip[$name]}"; done | sort
for x in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $x"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
