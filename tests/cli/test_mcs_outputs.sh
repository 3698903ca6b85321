#!/usr/bin/env bash
# Outputs a user can trust: devices, FIFOs, symbolic links and "-" as outputs and inputs, the
# same file named as input and output, outputs checked before any work, signals that leave no
# debris (raised at a fixed point through MCZ_TEST_SIGNAL, so nothing depends on timing), and
# the temporaries of a killed run removed by the next one.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs
N=200

"$BIN/mchgen" --seed 7 --contexts $N --preset small --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
"$M" -copy 1-5 "$T/a.mch" "$T/a5.mch" >/dev/null 2>&1 || fail "-copy 1-5"
"$M" -convert "$T/a.mch" "$T/a.mcz" >/dev/null 2>&1 || fail "-convert"

# no_temporaries NAME DIR: no temporary of ours is left in DIR.
no_temporaries() {
    if ls -a "$2" | grep -q '\.mcz-tmp\.'; then fail "$1 ($(ls -a "$2" | grep '\.mcz-tmp\.'))"
    else pass "$1"; fi
}

# once NAME FILE TEXT: TEXT appears exactly once in FILE.
once() {
    local n
    n=$(grep -oF -- "$3" "$2" | wc -l)
    if [ "$n" -eq 1 ]; then pass "$1"; else fail "$1 ('$3' $n times in $2)"; sed 's/^/    /' "$2" | head -3; fi
}

# --- "-" as output and input ---
"$M" -convert "$T/a.mch" - >"$T/stdout.mcz" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && "$M" -verify "$T/stdout.mcz" >/dev/null 2>&1; then
    pass "-convert IN - writes an archive to standard output"
else fail "-convert IN - (exit $rc)"; fi
contains "-convert IN - >FILE: the output's size" "$T/err" \
    "bytes -> $(stat -c %s "$T/stdout.mcz") bytes (ratio"
"$M" -convert "$T/a.mch" - 2>"$T/err" | cat >/dev/null
contains "-convert IN - | CMD: says a pipe's size is the reader's to count" "$T/err" \
    "bytes -> standard output, a pipe (its size is what the reader receives"
"$M" -export "$T/stdout.mcz" - >"$T/back.mch" 2>/dev/null
same "-export ARCHIVE - gives the collection back" "$T/a.mch" "$T/back.mch"
"$M" -copy 1-5 "$T/a.mch" - >"$T/five.mch" 2>"$T/err"
same "-copy RANGE IN - writes the contexts to standard output" "$T/a5.mch" "$T/five.mch"
contains "-copy to standard output says what it saved on stderr" "$T/err" "Loaded 5, Saved 5"
"$M" -copy 1-5 "$T/a.mch" /dev/stdout >"$T/five2.mch" 2>/dev/null
same "-copy to /dev/stdout: the collection alone on stdout" "$T/a5.mch" "$T/five2.mch"
[ -c /dev/stdout ] || [ -L /dev/stdout ] && pass "/dev/stdout is still not a regular file" ||
    fail "/dev/stdout was replaced"

cat "$T/a.mch" | "$M" -integ - >"$T/out" 2>"$T/err"
contains "-integ - reads standard input" "$T/out" "Checked the integrity of $N methodContexts"
cat "$T/a.mcz" | "$M" -copy 1-5 - "$T/from-stdin.mch" >/dev/null 2>&1
same "-copy from an archive on standard input" "$T/a5.mch" "$T/from-stdin.mch"
"$M" -copy 1-5 "$T/a.mch" - 2>/dev/null | "$M" -convert - "$T/piped.mcz" >/dev/null 2>&1
"$M" -export "$T/piped.mcz" "$T/piped.mch" >/dev/null 2>&1
same "-copy ... - | -convert - OUT: a pipeline of verbs" "$T/a5.mch" "$T/piped.mch"
head -c 1000 "$T/a.mch" | "$M" -integ - >"$T/out" 2>"$T/err"
contains "a damaged standard input is named as such" "$T/err" "mcs: standard input:"
if grep -q "mcz-stdin" "$T/err"; then fail "the spooled copy is not named"; else
    pass "the spooled copy is not named"; fi
exit_is "-integ of an empty standard input fails" 1 "$M" -integ - </dev/null
contains "an empty standard input is called empty" "$T/err" "empty file"
exit_is "-toc of standard input is refused" 1 "$M" -toc - <"$T/a.mch"
if ls "$T"/*.mct 2>/dev/null | grep -q -- '-\.mct'; then fail "-toc - writes no '-.mct'"; else
    pass "-toc - writes no '-.mct'"; fi

# --- mcz-replay reads standard input too, and checks its outputs first ---
R=$BIN/mcz-replay
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
cat "$T/a.mch" | "$R" - >"$T/out" 2>"$T/err"
contains "mcz-replay - replays standard input" "$T/out" "Loaded $N  Verified $N"
cat "$T/a.mcz" | "$R" -j 2 /dev/stdin >"$T/out" 2>"$T/err"
contains "mcz-replay /dev/stdin (an archive in a pipe)" "$T/out" "Loaded $N  Verified $N"
head -c 8 "$T/a.mcz" | "$R" - >"$T/out" 2>"$T/err"
contains "mcz-replay names a bad standard input '-'" "$T/err" "mcz-replay: -: "
if grep -q "$TMPDIR" "$T/err"; then fail "mcz-replay never names its copy of standard input"; else
    pass "mcz-replay never names its copy of standard input"; fi
[ -z "$(ls -A "$TMPDIR")" ] && pass "mcz-replay removes its copy of standard input" ||
    fail "mcz-replay removes its copy of standard input ($(ls "$TMPDIR"))"
exit_is "mcz-replay -f naming its input is refused" 255 "$R" -f "$T/a.mch" "$T/a.mch"
same "the input stays whole" "$T/back.mch" "$T/a.mch"
ok_run "mcz-replay --version" "$R" --version
contains "it names the library" "$T/out" "libmcz "
ok_run "mcs --version" "$M" --version
unset TMPDIR

# --- devices, FIFOs, symbolic links ---
mknod "$T/null" c 1 3 2>/dev/null && {
    ok_run "-copy to a character device" "$M" -copy 1-5 "$T/a.mch" "$T/null"
    [ -c "$T/null" ] && pass "the device is still a device" || fail "the device was renamed over"
}
ok_run "-convert to /dev/null" "$M" -convert "$T/a.mch" /dev/null
[ -c /dev/null ] && pass "/dev/null is still a device" || fail "/dev/null was replaced"
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo.mch" &
reader=$!
ok_run "-copy to a FIFO" "$M" -copy 1-5 "$T/a.mch" "$T/fifo"
wait $reader
same "the FIFO's reader gets the contexts" "$T/a5.mch" "$T/from-fifo.mch"
[ -p "$T/fifo" ] && pass "the FIFO is still a FIFO" || fail "the FIFO was renamed over"
cat "$T/a.mch" >"$T/fifo" &
ok_run "-integ reads a FIFO" "$M" -integ "$T/fifo"
wait

mkdir -p "$T/real"
ln -s real/target.mch "$T/link.mch"
ok_run "-copy through a symbolic link" "$M" -copy 1-5 "$T/a.mch" "$T/link.mch"
[ -L "$T/link.mch" ] && pass "the link stays a link" || fail "the link was replaced by a file"
same "the link's target holds the output" "$T/a5.mch" "$T/real/target.mch"

cp "$T/a.mch" "$T/mode.mch"
chmod 600 "$T/mode.mch"
ok_run "-copy over an existing file" "$M" -copy 1-5 "$T/a.mch" "$T/mode.mch"
[ "$(stat -c %a "$T/mode.mch")" = 600 ] && pass "an existing output keeps its mode" ||
    fail "an existing output keeps its mode ($(stat -c %a "$T/mode.mch"))"

# --- the same file as input and output ---
cp "$T/a.mch" "$T/same.mch"
exit_is "-copy IN IN is refused" 1 "$M" -copy 1-3 "$T/same.mch" "$T/same.mch"
same "-copy IN IN leaves the input whole" "$T/a.mch" "$T/same.mch"
contains "-copy IN IN says why" "$T/err" "is an input too"
exit_is "-stat IN IN is refused" 1 "$M" -stat "$T/same.mch" "$T/same.mch"
same "-stat IN IN leaves the input whole" "$T/a.mch" "$T/same.mch"
cp "$T/a.mcz" "$T/same.mcz"
exit_is "-convert X X is refused" 1 "$M" -convert "$T/same.mcz" "$T/same.mcz"
same "-convert X X leaves the input whole" "$T/a.mcz" "$T/same.mcz"
exit_is "-export X X is refused" 1 "$M" -export "$T/same.mcz" "$T/same.mcz"
same "-export X X leaves the input whole" "$T/a.mcz" "$T/same.mcz"
ln -s same.mch "$T/alias.mch"
exit_is "an output that is the input through a link is refused" 1 \
    "$M" -copy 1-3 "$T/same.mch" "$T/alias.mch"
contains "the message names both" "$T/err" "is the same file as the input"
same "the input through a link stays whole" "$T/a.mch" "$T/same.mch"
exit_is "-recover X X is refused" 1 "$M" -recover "$T/same.mcz" "$T/same.mcz"

# --- doomed outputs are noticed before any work ---
exit_is "an output in a missing directory fails" 1 "$M" -convert "$T/a.mch" "$T/nodir/x.mcz"
once "it names the output once" "$T/err" "nodir/x.mcz"
if grep -q Converted "$T/out"; then fail "no conversion before the failure"; else
    pass "no conversion before the failure"; fi
mkdir "$T/adir"
exit_is "a directory as output fails" 1 "$M" -convert "$T/a.mch" "$T/adir"
contains "it says so" "$T/err" "is a directory"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$T/ro" && chmod 555 "$T/ro"
    exit_is "an unwritable directory fails" 1 "$M" -copy 1 "$T/a.mch" "$T/ro/x.mch"
fi

# --- signals leave no debris ---
for sig in INT:130 TERM:143 HUP:129 PIPE:141; do
    name=${sig%%:*} code=${sig##*:}
    exit_is "SIG$name during -convert exits $code" "$code" \
        env MCZ_TEST_SIGNAL=$name@50 "$M" -convert "$T/a.mch" "$T/sig.mcz"
    no_temporaries "SIG$name during -convert leaves no temporary" "$T"
    [ -e "$T/sig.mcz" ] && fail "SIG$name: no output appears" || pass "SIG$name: no output appears"
done
for verb in "-copy 1-$N $T/a.mch $T/sig.mch" "-export $T/a.mcz $T/sig.mch" \
            "-merge $T/sig.mch $T/a.mch" "-strip 1-5 $T/a.mch $T/sig.mch" \
            "-removeDup $T/a.mch $T/sig.mch"; do
    exit_is "SIGINT during ${verb%% *} exits 130" 130 env MCZ_TEST_SIGNAL=INT@20 "$M" $verb
    no_temporaries "SIGINT during ${verb%% *} leaves no temporary" "$T"
done
# Ctrl-C on a terminal: the progress line is ended before the program dies, so the shell's
# prompt starts on a line of its own (script(1) gives the terminal; MCZ_TEST_PROGRESS=1 draws
# the line at every context, whatever the machine's speed).
if command -v script >/dev/null; then
    script -qfec "env MCZ_TEST_PROGRESS=1 MCZ_TEST_SIGNAL=INT@5 $M -copy 1-50 $T/a.mch $T/tty.mch" \
        "$T/tty.log" >/dev/null 2>&1
    if grep -q 'copying: 4/' "$T/tty.log"; then pass "Ctrl-C on a terminal: the progress line was drawn"
    else fail "Ctrl-C on a terminal: the progress line was drawn"; fi
    if grep -q $'copying: 4/[^\r]*\033\[K\r$' "$T/tty.log"; then
        pass "Ctrl-C on a terminal: the progress line is ended"
    else fail "Ctrl-C on a terminal: the progress line is left unterminated"; fi
fi
cp "$T/a5.mch" "$T/grow.mcz.mch"
"$M" -convert "$T/a5.mch" "$T/grow.mcz" >/dev/null 2>&1
cp "$T/grow.mcz" "$T/grow-before.mcz"
exit_is "SIGTERM during -concat onto an archive exits 143" 143 \
    env MCZ_TEST_SIGNAL=TERM@20 "$M" -concat "$T/grow.mcz" "$T/a.mch"
same "-concat onto an archive: FILE1 as it was" "$T/grow-before.mcz" "$T/grow.mcz"
no_temporaries "-concat onto an archive leaves no temporary" "$T"
cp "$T/a5.mch" "$T/grow.mch"
exit_is "SIGTERM during -concat onto an MCH file exits 143" 143 \
    env MCZ_TEST_SIGNAL=TERM@20 "$M" -concat "$T/grow.mch" "$T/a.mch"
same "-concat onto an MCH file: truncated back to its original size" "$T/a5.mch" "$T/grow.mch"
exit_is "SIGINT during -concat onto a new MCH file exits 130" 130 \
    env MCZ_TEST_SIGNAL=INT@20 "$M" -concat "$T/new.mch" "$T/a.mch"
[ -e "$T/new.mch" ] && fail "a FILE1 the run created is removed" ||
    pass "a FILE1 the run created is removed"

# A run killed outright leaves its temporary; the next run beside it removes it, and leaves a
# live process's alone.
dead=$(bash -c 'echo $$')
touch "$T/.x.mch.mcz-tmp.$dead.abc123" "$T/.y.mch.mcz-tmp.$$.abc123" "$T/.z.mch.tmp.abc123"
ok_run "a run beside a killed run's temporary" "$M" -copy 1 "$T/a.mch" "$T/one.mch"
[ -e "$T/.x.mch.mcz-tmp.$dead.abc123" ] && fail "a dead process's temporary is removed" ||
    pass "a dead process's temporary is removed"
[ -e "$T/.y.mch.mcz-tmp.$$.abc123" ] && pass "a live process's temporary stays" ||
    fail "a live process's temporary stays"
[ -e "$T/.z.mch.tmp.abc123" ] && pass "a file of another shape stays" ||
    fail "a file of another shape stays"
rm -f "$T"/.*.mcz-tmp.* "$T/.z.mch.tmp.abc123"

# A reader that closes the pipe early ends text output quietly.
"$M" -dump "$T/a.mch" 2>"$T/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && pass "-dump | head: quiet, exit 0" ||
    fail "-dump | head: quiet, exit 0 (exit $rc)"

# A full disk on stdout is an error, said once by every program.
for prog in "$M -dump $T/a5.mch" "$BIN/mcz-replay $T/a5.mch" "$BIN/mchgen --seed 1 --contexts 5 --report"; do
    $prog >/dev/full 2>"$T/err"
    rc=$?
    [ $rc -ne 0 ] && once "${prog%% *} >/dev/full fails, saying why" "$T/err" "standard output: write failed" ||
        fail "${prog%% *} >/dev/full fails (exit $rc)"
done

cli_done
