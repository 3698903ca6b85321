#!/usr/bin/env bash
# mcz-superpmi, the drop-in for superpmi: --install/--uninstall into a directory holding a fake
# superpmi (a script recording its words), the real one found beside the path run (by name on
# PATH, through a link), words passed to it unchanged for an .mch, and the mcz-replay command
# line built for an archive named X.mch, switch by switch (MCZ_SUPERPMI_TRACE, a fake
# mcz-replay).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
D="$BIN/mcz-superpmi"

# The fake superpmi: its words one a line in $dir/argv (its own path first), "out-line" on
# stdout, exit $FAKE_RC.
fake_spmi() {
    cat >"$1" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$(dirname "$0")/argv"
echo out-line
exit "${FAKE_RC:-0}"
EOF
    chmod +x "$1"
}
# words FILE WORD...: FILE holds WORDs, one a line, and nothing else.
words() {
    local name=$1 file=$2; shift 2
    printf '%s\n' "$@" >"$T/want"
    if cmp -s "$T/want" "$file"; then pass "$name"; else
        fail "$name"; diff "$T/want" "$file" | head -10 | sed 's/^/    /'; fi
}

"$BIN/mchgen" --seed 3 --contexts 40 --out "$T/a.mch" >/dev/null 2>&1
"$BIN/mcs" -convert "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1
[ -s "$T/a.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }
cp "$T/a.mcz" "$T/x.mch" # an archive under an .mch name, as superpmi.py's directories keep them

# --- --install / --uninstall
C="$T/core"; mkdir "$C"; fake_spmi "$C/superpmi"; cp "$C/superpmi" "$T/fake.orig"
# a mistyped option of its own is answered as mcz-replay answers (its option table:
# tools/tool_options.h; superpmi's exit code for bad arguments, -1), nothing changed
FAIL_EXIT=255 fail_run "--instal: a usage error" "$D" --instal "$C"
contains "--instal: did you mean --install" "$T/err" "unknown option '--instal'; did you mean --install?"
same "--instal: nothing changed" "$T/fake.orig" "$C/superpmi"
FAIL_EXIT=255 fail_run "--uninstal: a usage error" "$D" --uninstal "$C"
contains "--uninstal: did you mean --uninstall" "$T/err" "did you mean --uninstall?"
FAIL_EXIT=255 fail_run "an unknown --word: a usage error" "$D" --frobnicate
contains "an unknown --word: where its options are said" "$T/err" \
    "(mcz-superpmi --help lists its options; superpmi's switches take one dash)"
FAIL_EXIT=255 fail_run "--install DIR and another word: a usage error" "$D" --install "$C" -p
same "--install DIR and another word: nothing changed" "$T/fake.orig" "$C/superpmi"
ok_run "--install: done" "$D" --install "$C"
same "--install: the real superpmi kept as superpmi.real" "$T/fake.orig" "$C/superpmi.real"
same "--install: superpmi is a copy of mcz-superpmi" "$D" "$C/superpmi"
[ -x "$C/superpmi" ] && pass "--install: the copy is executable" || fail "--install: the copy is executable"
ok_run "--install twice: done" "$D" --install "$C"
same "--install twice: the real one kept" "$T/fake.orig" "$C/superpmi.real"
same "--install twice: superpmi still mcz-superpmi" "$D" "$C/superpmi"
ls -A "$C" >"$T/ls"; words "--install: no temporary left" "$T/ls" superpmi superpmi.mcz-replay superpmi.real
# the copy in Core_Root runs the mcz-replay recorded at install, found with no PATH and no
# MCZ_REPLAY (superpmi.py's environment need not have bin/ on PATH)
contains "--install: the mcz-replay to run recorded" "$C/superpmi.mcz-replay" "$(realpath "$BIN/mcz-replay")"

ok_run "--uninstall: done" "$D" --uninstall "$C"
same "--uninstall: the real superpmi back" "$T/fake.orig" "$C/superpmi"
ls -A "$C" >"$T/ls"; words "--uninstall: superpmi.real and the record gone" "$T/ls" superpmi
FAIL_EXIT=255 fail_run "--uninstall of what is not installed: refused" "$D" --uninstall "$C"
contains "--uninstall of what is not installed: says so" "$T/err" "$C/superpmi is not mcz-superpmi"
same "--uninstall refused: nothing changed" "$T/fake.orig" "$C/superpmi"

FAIL_EXIT=255 fail_run "--install into a missing directory" "$D" --install "$T/nowhere"
contains "--install into a missing directory: named" "$T/err" "$T/nowhere: No such file or directory"
FAIL_EXIT=255 fail_run "--install into a file" "$D" --install "$T/a.mch"
contains "--install into a file: named" "$T/err" "$T/a.mch: not a directory"
FAIL_EXIT=255 fail_run "--install under a file" "$D" --install "$T/a.mch/sub"
contains "--install under a file: named" "$T/err" "$T/a.mch/sub: Not a directory"
mkdir "$T/empty"
FAIL_EXIT=255 fail_run "--install where there is no superpmi" "$D" --install "$T/empty"
contains "--install where there is no superpmi: named" "$T/err" "$T/empty/superpmi: No such file"
[ -z "$(ls -A "$T/empty")" ] && pass "--install where there is no superpmi: nothing made" ||
    fail "--install where there is no superpmi: nothing made"

# a superpmi.real beside a superpmi that is not mcz-superpmi (a rebuilt runtime): refused
mkdir "$T/both"; fake_spmi "$T/both/superpmi"; echo old >"$T/both/superpmi.real"
FAIL_EXIT=255 fail_run "--install over a new superpmi beside an old superpmi.real: refused" \
    "$D" --install "$T/both"
same "... nothing changed (superpmi)" "$T/fake.orig" "$T/both/superpmi"
contains "... nothing changed (superpmi.real)" "$T/both/superpmi.real" "old"

# A read-only directory (root writes through permission bits; a read-only bind mount in a
# private mount namespace stops it).
mkdir "$T/ro"; fake_spmi "$T/ro/superpmi"
if unshare -m true 2>/dev/null; then
    unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && exec "$2" --install "$1"' \
        sh "$T/ro" "$D" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -eq 255 ] && grep -qF "$T/ro" "$T/err"; then pass "--install into a read-only directory: refused, named"
    else fail "--install into a read-only directory (exit $rc)"; head -3 "$T/err"; fi
    ls -A "$T/ro" >"$T/ls"; words "--install into a read-only directory: nothing changed" "$T/ls" superpmi
else
    echo "ok - --install into a read-only directory # SKIP no private mount namespace here"
fi

FAIL_EXIT=255 fail_run "--install without DIR" "$D" --install
ok_run "--help" "$D" --help
contains "--help: says what it is" "$T/out" "drop-in for superpmi"
ok_run "--version" "$D" --version
contains "--version: names the program" "$T/out" "mcz-superpmi (mcz)"

# --- the real superpmi: found beside the path run, words passed unchanged for an .mch
ok_run "installed again" "$D" --install "$C"
cd "$T"
FAKE_RC=3 "$C/superpmi" -v ewi -f "f 1.mcl" -p 2 jit.so a.mch >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && pass ".mch: the real superpmi's exit code" || fail ".mch: exit code $rc, not 3"
words ".mch: the real superpmi's words, unchanged" "$C/argv" -v ewi -f "f 1.mcl" -p 2 jit.so a.mch
words ".mch: its stdout" "$T/out" out-line
PATH="$C:$PATH" superpmi -boa jit.so a.mch >/dev/null 2>&1
words "run by name from PATH: superpmi.real of that PATH entry" "$C/argv" -boa jit.so a.mch
mkdir "$T/linked"; fake_spmi "$T/linked/superpmi.real"; ln -s "$D" "$T/linked/superpmi"
"$T/linked/superpmi" -boe jit.so a.mch >/dev/null 2>&1
words "run through a link: superpmi.real beside the link" "$T/linked/argv" -boe jit.so a.mch
mkdir "$T/other"; fake_spmi "$T/other/spmi"
MCZ_SUPERPMI="$T/other/spmi" "$C/superpmi" -boe jit.so a.mch >/dev/null 2>&1
words "MCZ_SUPERPMI chooses the real superpmi" "$T/other/argv" -boe jit.so a.mch

# superpmi's own help and usage errors go to it, even with an archive named
"$C/superpmi" -help >/dev/null 2>&1; words "-help: to the real superpmi" "$C/argv" -help
"$C/superpmi" >/dev/null 2>&1; words "no words: to the real superpmi" "$C/argv"
for bad in "-zz jit.so x.mch" "-p 65 jit.so x.mch" "-failureLimit 0 jit.so x.mch" \
           "-target sparc jit.so x.mch" "-skipCleanup jit.so x.mch" "jit.so x.mcl" \
           "-jitoption novalue jit.so x.mch" "-f" "-stride 0 1 jit.so x.mch" \
           "-repeatCount 2x jit.so x.mch" "-streaming s.txt -p jit.so x.mch" "jit.so"; do
    # shellcheck disable=SC2086
    MCZ_SUPERPMI_TRACE="$T/trace" "$C/superpmi" $bad >/dev/null 2>&1
    # shellcheck disable=SC2086
    words "usage error '$bad': the real superpmi's, same words" "$C/argv" $bad
done

# the real superpmi missing or not executable
rm "$C/superpmi.real"
FAIL_EXIT=255 fail_run "no superpmi.real: exit 255" "$C/superpmi" jit.so a.mch
contains "no superpmi.real: named" "$T/err" "$C/superpmi.real"
echo 'not a program' >"$C/superpmi.real"; chmod 644 "$C/superpmi.real"
FAIL_EXIT=255 fail_run "superpmi.real not executable: exit 255" "$C/superpmi" jit.so a.mch
contains "superpmi.real not executable: named" "$T/err" "$C/superpmi.real: not an executable"
MCZ_SUPERPMI="$D" FAIL_EXIT=255 fail_run "MCZ_SUPERPMI naming mcz-superpmi itself: refused" \
    "$D" jit.so a.mch
cp "$D" "$C/superpmi.real"; chmod 755 "$C/superpmi.real"
FAIL_EXIT=255 fail_run "superpmi.real a copy of mcz-superpmi: refused (it would run itself)" \
    "$C/superpmi" jit.so a.mch
contains "superpmi.real a copy of mcz-superpmi: named" "$T/err" "superpmi.real: that is mcz-superpmi"
fake_spmi "$C/superpmi.real"

# --- an archive: the mcz-replay command line (a fake mcz-replay that records its words)
fake_spmi "$T/replay"
export MCZ_REPLAY="$T/replay"
R="$C/superpmi.real"
NCPU=$(getconf _NPROCESSORS_ONLN)
# tr NAME ARGS... -- WANT...: mcz-superpmi ARGS builds the words WANT (after the fake's path).
tr_check() {
    local name=$1; shift
    local args=()
    while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
    rm -f "$T/trace"
    MCZ_SUPERPMI_TRACE="$T/trace" "$C/superpmi" "${args[@]}" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 0 ] || { fail "$name (exit $rc)"; head -3 "$T/err"; return; }
    words "$name: traced" "$T/trace" "$MCZ_REPLAY" "$@"
    words "$name: run" "$T/argv" "$@"
}
tr_check "no switch" jit.so x.mch -- -q --exec-toc -j 1 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-p" -p jit.so x.mch -- -q --exec-toc -j "$NCPU" --order-as-parallel "$NCPU" --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-p 3" -p 3 jit.so x.mch -- -q --exec-toc -j 3 --order-as-parallel 3 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-PARA 007" -PARA 007 jit.so x.mch -- -q --exec-toc -j 7 --order-as-parallel 7 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-c" -c 1-5,9 jit.so x.mch -- -q --exec-toc -j 1 -c 1-5,9 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-compile" -compile 3 jit.so x.mch -- -q --exec-toc -j 1 -c 3 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-f" -f "f 1.mcl" jit.so x.mch -- -q --exec-toc -j 1 -f "f 1.mcl" --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-failingMCList" -FailingMCList f.mcl jit.so x.mch -- -q --exec-toc -j 1 -f f.mcl --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-details" -details d.csv jit.so x.mch -- -q --exec-toc -j 1 --details d.csv --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-d" -d d.csv jit.so x.mch -- -q --exec-toc -j 1 --details d.csv --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-r" -r rep jit.so x.mch -- -q --exec-toc -j 1 --repro rep --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-r with -c: no repro (superpmi writes none)" -r rep -c 2 jit.so x.mch -- \
    -q --exec-toc -j 1 -c 2 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-failureLimit" -failureLimit 5 jit.so x.mch -- -q --exec-toc -j 1 --failure-limit 5 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-v" -v ewi jit.so x.mch -- -q --exec-toc -j 1 --verbosity ewi --exec-word "$R" --exec-word -v --exec-word ewi --exec-word jit.so -- x.mch
tr_check "-skipCleanup" -p 2 -skipCleanup jit.so x.mch -- -q --exec-toc -j 2 --order-as-parallel 2 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "-load" jit.so -load x.mch -- -q --exec-toc -j 1 --exec-word "$R" --exec-word jit.so -- x.mch
tr_check "the last input named wins, as in superpmi" a.mch jit.so x.mch -- -q --exec-toc -j 1 --exec-word "$R" --exec-word jit.so -- x.mch
cp x.mch y.mcz
tr_check "an archive named .mcz" jit.so y.mcz -- -q --exec-toc -j 1 --exec-word "$R" --exec-word jit.so -- y.mcz
tr_check "-jit, a JIT path with a blank" -jit "my jit.so" x.mch -- -q --exec-toc -j 1 --exec-word "$R" --exec-word -jit --exec-word "my jit.so" -- x.mch
tr_check "other switches to the real superpmi, in order" \
    -a -target x64 -jitoption force K=V -jit2option K#2 -boe -boa -box -ignoreStoredConfig \
    -coredistools -repeatCount 2 -jito f K=1 base.so diff.so x.mch -- \
    -q --exec-toc -j 1 --exec-word "$R" --exec-word -a --exec-word -target --exec-word x64 \
    --exec-word -jitoption --exec-word force --exec-word K=V --exec-word -jit2option \
    --exec-word K#2 --exec-word -boe --exec-word -boa --exec-word -box \
    --exec-word -ignoreStoredConfig --exec-word -coredistools --exec-word -repeatCount \
    --exec-word 2 --exec-word -jito --exec-word f --exec-word K=1 --exec-word base.so \
    --exec-word diff.so -- x.mch
tr_check "-matchHash (by content: the same in a unit)" -m 0123456789abcdef0123456789abcdef jit.so x.mch -- \
    -q --exec-toc -j 1 --exec-word "$R" --exec-word -m --exec-word 0123456789abcdef0123456789abcdef --exec-word jit.so -- x.mch
# superpmi.py's replay and asm diffs command lines (superpmi.py replay, replay_with_asm_diffs)
tr_check "superpmi.py replay" -v ewi -r "$T/repro" -p 4 -f "$T/fail.mcl" -details "$T/d.csv" \
    jit.so x.mch -- -q --exec-toc -j 4 --order-as-parallel 4 --verbosity ewi --repro "$T/repro" -f "$T/fail.mcl" \
    --details "$T/d.csv" --exec-word "$R" --exec-word -v --exec-word ewi --exec-word jit.so -- x.mch
tr_check "superpmi.py asmdiffs" -a -v ewi -f fail.mcl -details d.csv -jitoption force \
    JitEnableNoWayAssert=1 -jit2option force JitEnableNoWayAssert=1 -p base.so diff.so x.mch -- \
    -q --exec-toc -j "$NCPU" --order-as-parallel "$NCPU" --verbosity ewi -f fail.mcl --details d.csv --exec-word "$R" --exec-word -a \
    --exec-word -v --exec-word ewi --exec-word -jitoption --exec-word force \
    --exec-word JitEnableNoWayAssert=1 --exec-word -jit2option --exec-word force \
    --exec-word JitEnableNoWayAssert=1 --exec-word base.so --exec-word diff.so -- x.mch

# switches not served over an archive: refused, named, mcz-replay not run (-streaming is served:
# test_superpmi_stream.sh)
for w in "-w log.txt" "-e i" "-stride 1 2"; do
    rm -f "$T/argv"
    # shellcheck disable=SC2086
    FAIL_EXIT=255 fail_run "'$w' over an archive: refused" "$C/superpmi" $w jit.so x.mch
    contains "'$w' over an archive: named" "$T/err" "${w%% *} (superpmi's -"
    [ ! -e "$T/argv" ] && pass "'$w' over an archive: nothing run" || fail "'$w' over an archive: nothing run"
done
MCZ_REPLAY="$T/none" FAIL_EXIT=255 fail_run "MCZ_REPLAY missing: exit 255" "$C/superpmi" jit.so x.mch
contains "MCZ_REPLAY missing: named" "$T/err" "$T/none"
cli_done
