#!/usr/bin/env bash
# mcz-replay: verify replay, -c, plugins (failures, missing data, a crash, a hang), --exec,
# --shard + --merge-results through GNU parallel, .mch with and without .mct, damaged input,
# exclusion, interruption. Results must not depend on -j.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
R="$BIN/mcz-replay"
# A sanitizer build must let the test plugin's segfault kill its worker, as it does elsewhere.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"

# code_run NAME CODE CMD...: the command must exit with exactly CODE (superpmi's codes include
# 254 and 255, which fail_run would take for a crash) and, when non-zero, say why on stderr.
code_run() {
    local name=$1 want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -eq "$want" ] && { [ "$want" -eq 0 ] || [ -s "$T/err" ]; }; then pass "$name"
    else fail "$name (exit $rc, want $want)"; sed 's/^/    /' "$T/err" | head -10; fi
}

# once NAME FILE TEXT: TEXT occurs exactly once in FILE (fixed string).
once() {
    local n
    n=$(grep -oF -- "$3" "$2" | wc -l)
    if [ "$n" -eq 1 ]; then pass "$1"; else
        fail "$1 ('$3' $n times in $2)"; sed 's/^/    /' "$2" | head -5; fi
}

# absent NAME FILE TEXT: FILE does not contain TEXT (fixed string).
absent() {
    if grep -qF -- "$3" "$2"; then
        fail "$1 ('$3' in $2)"; grep -F -- "$3" "$2" | head -3 | sed 's/^/    /'
    else pass "$1"; fi
}

# rows FILE: the context numbers of a details file, one per line.
rows() { tail -n +2 "$1" | cut -d, -f1; }

# kind_is NAME FILE N KIND: the details row of context N says KIND (mcz's Kind column, after
# superpmi's six replay columns).
kind_is() {
    local got
    got=$(awk -F, -v n="$3" 'NR > 1 && $1 == n { print $7 }' "$2")
    if [ "$got" = "$4" ]; then pass "$1"; else fail "$1 (context $3: '$got', want '$4')"; fi
}

# no_row NAME FILE N: the details file has no row for context N.
no_row() {
    if rows "$2" | grep -qx "$3"; then fail "$1 (a row for context $3)"; else pass "$1"; fi
}

# each_once NAME FILE: the details file has a row for each of the N contexts, none twice.
each_once() {
    if [ "$(rows "$2" | sort -n | uniq | wc -l)" -eq $N ] && [ "$(rows "$2" | wc -l)" -eq $N ]; then
        pass "$1"; else fail "$1"; fi
}

# --- a small collection: many archive chunks and many .mch runs, so -j 2 really splits work
"$BIN/mchgen" --seed 7 --contexts 300 --out "$T/c.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 128K >/dev/null 2>&1
cp "$T/c.mch" "$T/t.mch"
"$BIN/mcs" -toc "$T/t.mch" >/dev/null 2>&1
N=300
U="--unit-size 150000"
[ -s "$T/c.mcz" ] && [ -s "$T/t.mch.mct" ] || { fail "setup: mchgen, mcs -convert, mcs -toc"; cli_done; exit; }

# --- verify replay: -j 1 and -j 2 agree byte for byte
ok_run "verify -j 1 passes" "$R" -q -j 1 -f "$T/v1.mcl" --details "$T/v1.csv" "$T/c.mcz"
cp "$T/out" "$T/v1.out"
ok_run "verify -j 2 passes" "$R" -q -j 2 -f "$T/v2.mcl" --details "$T/v2.csv" "$T/c.mcz"
contains "summary line as superpmi prints it" "$T/out" "Loaded 300  Verified 300  Failed 0 Excluded 0 Missing 0"
same "verify: same summary with -j 1 and -j 2" "$T/v1.out" "$T/out"
same "verify: same details with -j 1 and -j 2" "$T/v1.csv" "$T/v2.csv"
same "verify: same (empty) -f list with -j 1 and -j 2" "$T/v1.mcl" "$T/v2.mcl"
if [ "$(rows "$T/v1.csv" | tr '\n' ' ')" = "$(seq 1 $N | tr '\n' ' ')" ]; then
    pass "details: one row per context, in order"; else fail "details: one row per context, in order"; fi

# --- .mch input, without and with its .mct: the same results as the archive
ok_run "verify .mch without .mct" "$R" -q -j 2 $U --details "$T/m.csv" "$T/c.mch"
same ".mch without .mct: same details as .mcz" "$T/v1.csv" "$T/m.csv"
ok_run "verify .mch with .mct" "$R" -q -j 2 $U --details "$T/mt.csv" "$T/t.mch"
same ".mch with .mct: same details as .mcz" "$T/v1.csv" "$T/mt.csv"
# An .mct named as input stands for the .mch beside it (X.mct.mch, then X.mch), as in superpmi;
# without one, the name is read as a collection.
cp "$T/t.mch.mct" "$T/s.mct"; cp "$T/c.mch" "$T/s.mch"
ok_run "verify an .mct named as input" "$R" -q -j 2 $U --details "$T/s.csv" "$T/s.mct"
same ".mct as input: the details of its .mch" "$T/v1.csv" "$T/s.csv"
cp "$T/t.mch.mct" "$T/lone.mct"
code_run ".mct without an .mch beside it: read as a collection, exit 255" 255 \
    "$R" -q -j 2 "$T/lone.mct"
contains ".mct without an .mch: the message names it" "$T/err" "$T/lone.mct"

# The .mct's stored identity is what verify compares with: tamper with context 2's hash.
cp "$T/c.mch" "$T/h.mch"; cp "$T/t.mch.mct" "$T/h.mch.mct"
printf 'F' | dd of="$T/h.mch.mct" bs=1 seek=$((8 + 48 + 12)) conv=notrunc 2>/dev/null
code_run "verify: a wrong stored identity fails (exit 1)" 1 "$R" -q -j 2 $U -f "$T/h.mcl" "$T/h.mch"
printf '2\r\n' > "$T/h.want"
same "verify: -f names exactly the tampered context" "$T/h.want" "$T/h.mcl"

# A damaged .mct is ignored (with a warning); one that disagrees with its file is an error.
cp "$T/c.mch" "$T/k.mch"; head -c 1000 "$T/t.mch.mct" > "$T/k.mch.mct"
ok_run "truncated .mct: ignored" "$R" -q -j 2 $U --details "$T/k.csv" "$T/k.mch"
contains "truncated .mct: a warning says so" "$T/err" "ignoring"
same "truncated .mct: same details as .mcz" "$T/v1.csv" "$T/k.csv"
cp "$T/t.mch.mct" "$T/k.mch.mct"
b=$(od -An -tu1 -j $((8 + 48 * 2)) -N1 "$T/k.mch.mct") # context 3's offset, moved by one byte
printf "\\$(printf %o $((b ^ 1)))" | dd of="$T/k.mch.mct" bs=1 seek=$((8 + 48 * 2)) conv=notrunc 2>/dev/null
code_run "a .mct that disagrees with its file: exit 255" 255 "$R" -q -j 2 $U "$T/k.mch"
contains "a .mct that disagrees: the message says where" "$T/err" "k.mch: context 3 at offset "
contains "a .mct that disagrees: ... and what the .mct says" "$T/err" "the table of contents puts this context at"
contains "a .mct that disagrees: context 3's line does not repeat its number" "$T/err" "context 3: error: at offset "

# --- -c: exactly the selected contexts
ok_run "-c ranges" "$R" -q -j 2 -c 3-7,100,250-252 --details "$T/sel.csv" "$T/c.mcz"
printf '%s\n' 3 4 5 6 7 100 250 251 252 > "$T/sel.want"
rows "$T/sel.csv" > "$T/sel.got"
same "-c 3-7,100,250-252 replays exactly those" "$T/sel.want" "$T/sel.got"
ok_run "-c one context" "$R" -q -j 1 --stats -c 150 "$T/c.mcz"
contains "-c one context: only its chunk is read" "$T/err" "worker 1: units 1 contexts 1 "
printf '3\r\n100\r\n299\r\n' > "$T/sel.mcl"
ok_run "-c FILE.mcl on .mch" "$R" -q -j 2 $U -c "$T/sel.mcl" --details "$T/selm.csv" "$T/t.mch"
printf '%s\n' 3 100 299 > "$T/selm.want"
rows "$T/selm.csv" > "$T/selm.got"
same "-c FILE.mcl replays exactly those" "$T/selm.want" "$T/selm.got"
code_run "-c with a bad range is an error" 255 "$R" -q -c 5-3 "$T/c.mcz"
contains "-c with a bad range: the message names -c" "$T/err" "mcz-replay: -c: range list '5-3'"
absent "-c with a bad range: the message does not name the collection" "$T/err" "c.mcz"
code_run "-c with a missing .mcl is an error" 255 "$R" -q -c "$T/none.mcl" "$T/c.mcz"
once "-c with a missing .mcl: its path said once" "$T/err" "$T/none.mcl"

# --- plugin: failures, missing data, a segfault, a hang (timeout), an exit
PLUGIN_SRC="$MCZ_ROOT/parallel-replay/plugins/replay_test_plugin.c"
cc -std=c11 -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$T/tp.so" "$PLUGIN_SRC"
RULES="fail:3,missing:5,segv:9,hang:11,fail:150,exit:200,missing:201,segv:300"
for j in 1 2; do
    code_run "plugin -j $j: failures give exit 1" 1 "$R" -q -j "$j" --timeout 2 --plugin "$T/tp.so" \
        --plugin-arg "$RULES" -f "$T/p$j.mcl" --details "$T/p$j.csv" "$T/c.mcz"
    cp "$T/out" "$T/p$j.out"
done
printf '3\r\n5\r\n9\r\n11\r\n150\r\n200\r\n201\r\n300\r\n' > "$T/p.want"
same "plugin: -f lists every failing context, sorted, CRLF" "$T/p.want" "$T/p1.mcl"
same "plugin: same -f with -j 1 and -j 2" "$T/p1.mcl" "$T/p2.mcl"
same "plugin: same details with -j 1 and -j 2" "$T/p1.csv" "$T/p2.csv"
contains "plugin: summary counts" "$T/p1.out" "Loaded 300  Jitted 300  FailedCompile 8 Excluded 0 Missing 2"
kind_is "plugin: a failure with its message" "$T/p1.csv" 3 failure
kind_is "plugin: missing data" "$T/p1.csv" 201 missing
kind_is "plugin: segfault reported as a crash" "$T/p1.csv" 9 crash
contains "plugin: the crash names the signal" "$T/p1.csv" "worker killed by signal 11"
kind_is "plugin: hang reported as a timeout" "$T/p1.csv" 11 timeout
kind_is "plugin: _exit reported as a crash" "$T/p1.csv" 200 crash
each_once "plugin: every context accounted exactly once" "$T/p1.csv"
ok_run "plugin: all pass without rules" "$R" -q -j 2 --plugin "$T/tp.so" "$T/c.mch"
# A real fault (a store to an unmapped address), not a raised signal: the same crash.
code_run "plugin: a fault gives exit 1" 1 "$R" -q -j 2 --plugin "$T/tp.so" --plugin-arg fault:7 \
    --details "$T/fault.csv" "$T/c.mcz"
kind_is "plugin: a fault reported as a crash" "$T/fault.csv" 7 crash
contains "plugin: the fault's crash names the signal" "$T/fault.csv" "worker killed by signal 11"
contains "plugin: after a fault, the rest replayed" "$T/out" "Loaded 300  Jitted 300  FailedCompile 1 "
# One unit of 300 contexts, each failing with the longest message: more records than a worker's
# ring holds, so the worker must wait for the parent to take them; then a crash at 250, whose
# worker's last records are read after its death.
code_run "plugin: a unit of long messages and a crash" 1 "$R" -q -j 1 --unit-size 64M \
    --plugin "$T/tp.so" --plugin-arg failall,segv:250 --details "$T/long.csv" "$T/c.mch"
contains "plugin: long messages, summary" "$T/out" "Loaded 300  Jitted 300  FailedCompile 300"
kind_is "plugin: the crash amid long messages" "$T/long.csv" 250 crash
[ "$(grep -c 'planned failure of [0-9]*:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' "$T/long.csv")" -eq 299 ] &&
    pass "plugin: 299 long messages kept whole" || fail "plugin: 299 long messages kept whole"
[ "$(awk -F, 'NR > 1 { print length($0) }' "$T/long.csv" | sort -n | tail -1)" -gt 500 ] &&
    pass "plugin: messages of 500 bytes and more" || fail "plugin: messages of 500 bytes and more"
each_once "plugin: long messages, every context once" "$T/long.csv"
code_run "plugin: only missing data gives exit 3" 3 "$R" -q -j 2 --plugin "$T/tp.so" --plugin-arg missing:7 "$T/c.mcz"
code_run "plugin: init failure gives exit 254" 254 "$R" -q -j 2 --plugin "$T/tp.so" --plugin-arg initfail "$T/c.mcz"
contains "plugin: init failure says why" "$T/err" "asked to fail"
cat > "$T/old.c" <<'EOF'
#include "mcz_replay.h"
static const mcz_replay_plugin_desc d = {99, sizeof d, "old", 0, 0, 0};
const mcz_replay_plugin_desc *mcz_replay_plugin(void) { return &d; }
EOF
cc -std=c11 -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$T/old.so" "$T/old.c"
code_run "plugin: another ABI version is refused" 255 "$R" -q --plugin "$T/old.so" "$T/c.mcz"
contains "plugin: the refusal names the versions" "$T/err" "ABI version 99"
code_run "plugin: a missing file is an error" 255 "$R" -q --plugin "$T/none.so" "$T/c.mcz"
# ABI version 1 plugins still load (their struct ends at finish)
cat > "$T/v1.c" <<'EOF'
#include "mcz_replay.h"
static void *init(const char *arg, char *msg, size_t cap) { (void)arg; (void)msg; (void)cap;
                                                            static int s; return &s; }
static int replay(void *state, uint32_t number, const uint8_t *bytes, size_t size, char *msg,
                  size_t cap) { (void)state; (void)bytes; (void)size; (void)msg; (void)cap;
                                return number == 5 ? MCZ_REPLAY_FAILURE : MCZ_REPLAY_SUCCESS; }
struct v1 { uint32_t v, size; const char *name; void *(*init)(const char *, char *, size_t);
            int (*replay)(void *, uint32_t, const uint8_t *, size_t, char *, size_t);
            void (*finish)(void *); };
static const struct v1 d = {1, sizeof d, "v1", init, replay, 0};
const mcz_replay_plugin_desc *mcz_replay_plugin(void) { return (const void *)&d; }
EOF
cc -std=c11 -shared -fPIC -I"$MCZ_ROOT/parallel-replay" -o "$T/v1.so" "$T/v1.c"
code_run "plugin: an ABI version 1 plugin still loads and replays" 1 "$R" -q -j 2 --plugin "$T/v1.so" -f "$T/v1p.mcl" "$T/c.mcz"
printf '5\r\n' > "$T/v1p.want"
same "plugin: ABI version 1: its failure listed" "$T/v1p.want" "$T/v1p.mcl"

# ABI version 2: asm diffs through the plugin, deterministic from each context's bytes
for j in 1 2; do
    code_run "plugin diffs -j $j: errors first, exit 1" 1 "$R" -q -j $j --plugin "$T/tp.so" \
        --plugin-arg diff,fail:3 -f "$T/pd$j.mcl" --details "$T/pd$j.csv" "$T/c.mcz"
    cp "$T/out" "$T/pd$j.out"
done
same "plugin diffs: the same details with -j 1 and -j 2" "$T/pd1.csv" "$T/pd2.csv"
same "plugin diffs: the same summary with -j 1 and -j 2" "$T/pd1.out" "$T/pd2.out"
contains "plugin diffs: superpmi's asm-diffs columns and PerfScore" "$T/pd1.csv" \
    "Context,Context size,Method full name,Tier name,Base result,Diff result,MinOpts,Has diff,Base instructions,Diff instructions,Base ActualCodeBytes,Diff ActualCodeBytes,Base PerfScore,Diff PerfScore"
contains "plugin diffs: the planned failure is the base result" "$T/pd1.csv" '3,2396,"",,Error,'
contains "plugin diffs: the summary counts Diffs" "$T/pd1.out" " Diffs "
contains "plugin diffs: some code differs" "$T/pd1.csv" ",True,"
awk -F, 'NR > 1 && $5 == "Success" && $6 == "Success" { print $1 }' "$T/pd1.csv" | paste -sd, > "$T/pdok"
exit_is "plugin diffs: diffs without errors exit 2" 2 "$R" -q -j 2 --plugin "$T/tp.so" \
    --plugin-arg diff -c "$(cat "$T/pdok")" "$T/c.mcz"

# --- --exec: a fake superpmi that fails the contexts of odd size (read from an inner run's
# details: local numbers, or global ones with -c), mapped back to global numbers; it writes
# -f and a details row per context (Result). FAKE_PASS=1: every context passes.
cat > "$T/fake-spmi.sh" <<EOF
#!/bin/sh
sel=
while [ \$# -gt 1 ]; do
    case \$1 in -f) list=\$2; shift 2;; -details) det=\$2; shift 2;; -c) sel="-c \$2"; shift 2;; *) shift;; esac
done
"$R" -q -j 1 \$sel --details "\$list.csv" "\$1" >/dev/null || exit 255
odd=1; [ -n "\${FAKE_PASS:-}" ] && odd=2
awk -F, -v odd=\$odd 'NR > 1 && \$2 % 2 == odd { printf "%d\r\n", \$1 }' "\$list.csv" > "\$list"
awk -F, -v odd=\$odd 'NR == 1 { print "Context,Context size,Result" }
    NR > 1 { print \$1 "," \$2 "," (\$2 % 2 == odd ? "Error" : "Success") }' "\$list.csv" > "\$det"
rm -f "\$list.csv"
[ -s "\$list" ] && exit 1
exit 0
EOF
chmod +x "$T/fake-spmi.sh"
awk -F, 'NR > 1 && $2 % 2 == 1 { printf "%d\r\n", $1 }' "$T/v1.csv" > "$T/odd.want"
# (bigger .mch units keep the number of command runs small; the failures are the command's to
# tell: mcz-replay lists on stderr only contexts no command judged)
exit_is "exec -j 2 on .mcz" 1 "$R" -q -j 2 --exec "$T/fake-spmi.sh" -f "$T/e2.mcl" --details "$T/e2.csv" "$T/c.mcz"
exit_is "exec -j 1 on .mch" 1 "$R" -q -j 1 --unit-size 600000 --exec "$T/fake-spmi.sh" -f "$T/e1.mcl" --details "$T/e1.csv" "$T/c.mch"
same "exec: failing lists mapped to global numbers" "$T/odd.want" "$T/e2.mcl"
same "exec: same details with -j 1 and -j 2, .mch and .mcz" "$T/e1.csv" "$T/e2.csv"
exit_is "exec --exec-original on .mch" 1 "$R" -q -j 2 --unit-size 600000 --exec "$T/fake-spmi.sh" --exec-original -f "$T/eo.mcl" "$T/c.mch"
same "exec --exec-original: the same failing list" "$T/odd.want" "$T/eo.mcl"
printf '#!/bin/sh\nexit 5\n' > "$T/broken.sh"; chmod +x "$T/broken.sh"
code_run "exec: a command exiting 5 fails every context" 1 "$R" -q -j 2 --exec "$T/broken.sh" -f "$T/b.mcl" "$T/c.mcz"
if [ "$(wc -l < "$T/b.mcl")" -eq $N ]; then pass "exec: all contexts listed"; else fail "exec: all contexts listed"; fi
code_run "exec: a command exiting 0 without its details replays nothing (exit 255)" 255 \
    "$R" -q -j 2 --exec true "$T/c.mcz"
contains "exec: a command without details: said" "$T/err" "without writing the details file it was asked for"
code_run "exec --order-as-parallel: a command printing nothing is no crash (exit 255)" 255 \
    "$R" -q -j 2 --order-as-parallel 2 --exec true "$T/c.mcz"
printf '#!/bin/sh\nsleep 1000\n' > "$T/slow.sh"; chmod +x "$T/slow.sh"
code_run "exec: a command past --timeout times out its unit" 1 "$R" -q -j 2 -c 1-40 --timeout 1 \
    --exec "$T/slow.sh" --details "$T/sl.csv" "$T/c.mcz"
if [ "$(grep -c ',Error,' "$T/sl.csv")" -eq 40 ] && [ "$(grep -c ': timeout: timed out' "$T/err")" -eq 20 ]; then
    pass "exec: every context of the timed-out units reported once"; else fail "exec: every context of the timed-out units reported once"; fi

# A command that cannot start stops the run with superpmi's general error: exit 255, nothing in
# -f, no crashes. One that exits 254 (superpmi: the JIT failed to initialize) on its first unit
# stops it as a plugin whose init fails does: exit 254, no summary, no crashes.
code_run "exec: a command that does not exist stops the run (exit 255)" 255 \
    "$R" -q -j 2 --exec "$T/no-such-command" -f "$T/nx.mcl" "$T/c.mcz"
contains "exec: a missing command: the reason and the errno" "$T/err" "cannot run $T/no-such-command: No such file or directory"
once "exec: a missing command: said once, not per context" "$T/err" "cannot run"
absent "exec: a missing command: no context reported as a crash" "$T/err" "crash"
if [ -s "$T/nx.mcl" ] || ! grep -q "^Loaded 0  Jitted 0  FailedCompile 0 " "$T/out"; then
    fail "exec: a missing command: nothing replayed, nothing in -f"
else pass "exec: a missing command: nothing replayed, nothing in -f"; fi
printf '#!/bin/sh\nexit 0\n' > "$T/noexec.sh"; chmod -x "$T/noexec.sh"
code_run "exec: a command that is not executable stops the run (exit 255)" 255 \
    "$R" -q -j 2 --exec "$T/noexec.sh" "$T/c.mcz"
contains "exec: a command that is not executable: the errno" "$T/err" "cannot run $T/noexec.sh: Permission denied"
printf '#!/bin/sh\necho "no JIT here" >&2\nexit 254\n' > "$T/noinit.sh"; chmod +x "$T/noinit.sh"
code_run "exec: a command exiting 254 on its first unit stops the run (exit 254)" 254 \
    "$R" -q -j 2 --exec "$T/noinit.sh" "$T/c.mcz"
contains "exec: a 254 on the first unit: the message says why" "$T/err" "on its first unit (superpmi: JIT failed to initialize)"
contains "exec: a 254 on the first unit: the command's own words come through" "$T/err" "no JIT here"
absent "exec: a 254 on the first unit: no context reported as a crash" "$T/err" "crash"
# Only a worker's first unit counts: the same status later is a crash like any other (one
# worker, so its first command is the run's first).
printf '#!/bin/sh\n[ -e "%s" ] && exit 254\n: > "%s"\nFAKE_PASS=1 exec "%s" "$@"\n' "$T/late.seen" "$T/late.seen" "$T/fake-spmi.sh" > "$T/late254.sh"
chmod +x "$T/late254.sh"
code_run "exec: a 254 after the first unit is a crash (exit 1)" 1 \
    "$R" -q -j 1 -c 1-200 --exec-batch 0 --exec "$T/late254.sh" --details "$T/l254.csv" "$T/c.mcz"
contains "exec: a 254 after the first unit: a crash ... with its status" "$T/err" ": crash: command exited with status 254"
contains "exec: a 254 after the first unit: the first unit passed" "$T/l254.csv" '1,2501,Success'

# --- --shard K/N through GNU parallel, merged: identical to one whole run
ARGS=(-q -j 1 --plugin "$T/tp.so" --plugin-arg "fail:3,missing:5,segv:9,fail:150,missing:201,segv:300")
code_run "whole run for the shard comparison" 1 "$R" "${ARGS[@]}" -f "$T/w.mcl" --details "$T/w.csv" "$T/c.mcz"
cp "$T/out" "$T/w.out"
if command -v parallel >/dev/null; then
    parallel --will-cite -j 3 "$R" "${ARGS[@]}" --shard {}/3 --results "$T/r{}.txt" "$T/c.mcz" \
        ::: 1 2 3 >/dev/null 2>&1
    code_run "merge 3 shards" 1 "$R" --merge-results -f "$T/mg.mcl" --details "$T/mg.csv" \
        "$T/r2.txt" "$T/r3.txt" "$T/r1.txt"
    same "merged shards: same -f as one run" "$T/w.mcl" "$T/mg.mcl"
    same "merged shards: same details as one run" "$T/w.csv" "$T/mg.csv"
    same "merged shards: same summary as one run" "$T/w.out" "$T/out"
    code_run "merge with a shard missing is an error" 255 "$R" --merge-results "$T/r1.txt" "$T/r2.txt"
    code_run "merge with a shard twice is an error" 255 "$R" --merge-results "$T/r1.txt" "$T/r1.txt" "$T/r2.txt"
    head -c 200 "$T/r2.txt" > "$T/rt.txt"
    code_run "merge of a truncated results file is an error" 255 "$R" --merge-results "$T/r1.txt" "$T/rt.txt" "$T/r3.txt"
    sed '7s/^[0-9]*\t[a-z]*/99999999999\tbogus/' "$T/r2.txt" > "$T/rb.txt"
    code_run "merge of a results file with a bad line is an error" 255 "$R" --merge-results "$T/r1.txt" "$T/rb.txt" "$T/r3.txt"
    contains "merge: the error names the line" "$T/err" "rb.txt:7"
else
    fail "GNU parallel is not installed"
fi
if [ -s "$T/r1.txt" ] && [ -s "$T/r2.txt" ] && [ -s "$T/r3.txt" ] && ! cmp -s "$T/r1.txt" "$T/r2.txt"; then
    pass "every shard has work"; else fail "every shard has work"; fi

# --- SuperPMI-style stride sharding (the bench's baseline) gives the same results
ok_run "stride mode" "$R" -q -j 2 --stride --details "$T/st.csv" "$T/c.mcz"
same "stride mode: same details" "$T/v1.csv" "$T/st.csv"

# --- exclusion (.exc next to the collection): context 1's identity from the .mct
# (a collection may hold the same method twice: every context with that identity is excluded)
"$BIN/mcs" -dumpToc "$T/t.mch.mct" | awk '{ h = ""; for (i = 3; i < 35; i++) h = h "\\x" $i; print h }' > "$T/hashes"
X=$(grep -vnF '\x00' "$T/hashes" | head -n 1 | cut -d: -f1) # first context with an identity
H=$(printf "$(sed -n "${X}p" "$T/hashes")")
E=$(grep -cxF "$(sed -n "${X}p" "$T/hashes")" "$T/hashes")
cp "$T/c.mcz" "$T/x.mcz"; echo "$H other-token" > "$T/x.mcz.exc"
ok_run "exclusion file" "$R" -q -j 2 --details "$T/x.csv" "$T/x.mcz"
contains "exclusion: counted as superpmi does" "$T/out" "Loaded 300  Verified $((N - E))  Failed 0 Excluded $E Missing 0"
no_row "exclusion: the context with that identity has no details row, as in superpmi" "$T/x.csv" "$X"
cp "$T/c.mcz" "$T/y.mcz"; echo "$H" > "$T/y.exc" # NAME without its suffix + .exc
ok_run "exclusion file beside the stem" "$R" -q -j 2 --details "$T/y.csv" "$T/y.mcz"
no_row "exclusion beside the stem: the context is excluded" "$T/y.csv" "$X"
# A name without a '.' pairs with nothing, as in superpmi (run from $T: its own name has one).
cp "$T/c.mcz" "$T/nodot"; echo "$H" > "$T/nodot.exc"
ok_run "a collection named without a suffix" sh -c 'cd "$1" && shift && "$@"' - "$T" \
    "$R" -q -j 2 --details z.csv nodot
same "no suffix: no exclusion file" "$T/v1.csv" "$T/z.csv"

# --- damaged input: a clear error (exit 255), never a crash
cp "$T/c.mcz" "$T/d.mcz"
csize=$(stat -c %s "$T/c.mcz") # damage and cuts relative to the size: the defaults may change it
printf '\377\377\377\377\377\377\377\377' | dd of="$T/d.mcz" bs=1 seek=$((csize / 2)) conv=notrunc 2>/dev/null
code_run "damaged chunk: exit 255" 255 "$R" -q -j 2 --details "$T/d.csv" "$T/d.mcz"
contains "damaged chunk: the message names the chunk" "$T/err" "chunk"
once "damaged chunk: the archive named once" "$T/err" "$T/d.mcz"
absent "damaged chunk: no offset quoted from the archive" "$T/err" "offset"
if [ "$(rows "$T/d.csv" | wc -l)" -eq $N ]; then
    pass "damaged chunk: every context still accounted"; else fail "damaged chunk: every context still accounted"; fi
head -c $((csize * 2 / 3)) "$T/c.mcz" > "$T/tr.mcz"
code_run "truncated archive: exit 255" 255 "$R" -q "$T/tr.mcz"
head -c 100000 "$T/c.mch" > "$T/tr.mch"
code_run "truncated .mch: exit 255" 255 "$R" -q "$T/tr.mch"
once "truncated .mch: the file named once" "$T/err" "$T/tr.mch"
contains "truncated .mch: the context and the walk's offset" "$T/err" "$T/tr.mch: context 4 at offset "
once "truncated .mch: the context named once" "$T/err" "context 4"
printf 'not an archive' > "$T/junk.mcz"
code_run "not a collection: exit 255" 255 "$R" -q "$T/junk.mcz"
code_run "no such file: exit 255" 255 "$R" -q "$T/absent.mcz"
once "no such file: the path said once" "$T/err" "$T/absent.mcz"
# An empty file holds no contexts: refused, as every mcs verb refuses it.
: > "$T/empty.mch"
code_run "empty .mch: refused (exit 255)" 255 "$R" -q "$T/empty.mch"
contains "empty .mch: says why" "$T/err" "$T/empty.mch: empty file: no method contexts"
if [ -s "$T/out" ]; then fail "empty .mch: no summary"; else pass "empty .mch: no summary"; fi
: > "$T/empty.mcz"
code_run "empty .mcz: refused (exit 255)" 255 "$R" -q "$T/empty.mcz"
contains "empty .mcz: says why" "$T/err" "empty file: no method contexts"
code_run "usage: no collection" 255 "$R" -q
code_run "usage: bad -j" 255 "$R" -q -j 0 "$T/c.mcz"
code_run "usage: bad --shard" 255 "$R" -q --shard 4/3 "$T/c.mcz"
ok_run "--help" "$R" --help
contains "--help documents the exec contract" "$T/out" "CMD ... -f LIST -details CSV UNIT.mch"

# --- outputs are checked before any work: a replay that cannot write its results never starts
# (the --exec command leaves a mark when it runs)
printf '#!/bin/sh\n: > "%s"\nFAKE_PASS=1 exec "%s" "$@"\n' "$T/ran" "$T/fake-spmi.sh" > "$T/mark.sh"; chmod +x "$T/mark.sh"
: > "$T/plain"; mkdir -p "$T/outdir"
bad_output() { # NAME OPTION PATH TEXT [COLLECTION]
    rm -f "$T/ran"
    code_run "output $1: exit 255 before any work" 255 "$R" -q -j 1 --exec "$T/mark.sh" "$2" "$3" "${5:-$T/c.mcz}"
    contains "output $1: the message says why" "$T/err" "$4"
    once "output $1: the file named once" "$T/err" "$3"
    if [ -s "$T/out" ] || [ -e "$T/ran" ]; then fail "output $1: no replay, no summary"
    else pass "output $1: no replay, no summary"; fi
}
rm -f "$T/ran"
ok_run "output: the marking command runs when outputs are fine" "$R" -q -j 1 --exec "$T/mark.sh" -c 1-3 -f "$T/outdir/ok.mcl" "$T/c.mcz"
if [ -e "$T/ran" ] && [ -e "$T/outdir/ok.mcl" ]; then pass "output: the mark and the -f list are there"
else fail "output: the mark and the -f list are there"; fi
bad_output "-f in a missing directory" -f "$T/nodir/x.mcl" "-f $T/nodir/x.mcl: directory $T/nodir: No such file or directory"
bad_output "--details that is a directory" --details "$T/outdir" "--details $T/outdir: is a directory"
bad_output "--details ending in /" --details "$T/newdir/" "is a directory"
bad_output "--results under a file" --results "$T/plain/r.txt" "$T/plain is not a directory"
cp "$T/c.mcz" "$T/in.mcz"
bad_output "-f naming the collection itself" -f "$T/in.mcz" "is an input too" "$T/in.mcz"
same "output: the collection is left untouched" "$T/c.mcz" "$T/in.mcz"
mkdir -p "$T/ro"; chmod 555 "$T/ro"
if (: > "$T/ro/probe") 2>/dev/null; then
    pass "output in a read-only directory # skip: this user writes there anyway (root)"
else
    bad_output "-f in a read-only directory" -f "$T/ro/f.mcl" "cannot create files in $T/ro: Permission denied"
fi
chmod 755 "$T/ro"
if [ -s "$T/r1.txt" ]; then
    code_run "merge: outputs are checked too" 255 "$R" --merge-results -f "$T/nodir/m.mcl" "$T/r1.txt" "$T/r2.txt" "$T/r3.txt"
    if [ -s "$T/out" ]; then fail "merge: a bad output, no summary"; else pass "merge: a bad output, no summary"; fi
fi

# --- Ctrl-C: workers stop, what finished is still reported (waits for the plugin's line, so
# no timing assumption)
"$R" -j 2 --plugin "$T/tp.so" --plugin-arg hang:150 -f "$T/int.mcl" "$T/c.mcz" \
    >"$T/int.out" 2>"$T/int.err" &
pid=$!
for _ in $(seq 1 200); do grep -q "hanging on 150" "$T/int.err" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then pass "interrupt: exit 130"; else fail "interrupt: exit 130 (got $rc)"; fi
contains "interrupt: the summary of what finished" "$T/int.out" "Loaded "
contains "interrupt: says how much was not replayed" "$T/int.err" "interrupted:"

cli_done
