# tests/cross/windows-replay.sh - mcz-replay.exe under Wine, held against the Linux mcz-replay
# on the same archive and options. Sourced by run-windows.sh (its $wine, $win, $root, $T, pass
# and fail); the Linux programs come from $MCZ_HOST_BIN (make test-windows sets it), else bin/.
#   - verify -j 2 over an .mcz the Linux mcs made, and over its .mch: the same summary, exit
#     code, --details and -f as on Linux
#   - the test plugin as a DLL (failures, missing data, a hang past --timeout, an exit, a
#     real fault): the same summary and exit code; the fault named as the exception it is
#   - --exec running a Windows command (cmd /c exit 3, which writes no details file): the run
#     stops as a Linux command's does, with superpmi's general error (255) and nothing judged;
#     a command that cannot start stops the run (255)
#   - a console Ctrl-C (Wine turns SIGINT into one) stops the run: exit 130, what finished is
#     reported, no worker left; a parent killed outright leaves no worker either (job objects)
#   - a URL (nginx): each worker opens it again; the same summary and --details as on Linux
#   - a stream input is refused (workers read the collection again: no fork)
# What cannot run under Wine: --exec superpmi.exe (no Windows superpmi or JIT here; cmd.exe
# stands in for the command), and a Ctrl-C typed at a real console (Wine's SIGINT stands in).
# Not checked: a collection that changes between the parent's planning and a worker's (READY
# carries each worker's plan, and the parent refuses another: there is no way here to change
# the file at that moment).

echo "== mcz-replay.exe under $wine"
replay_exe=$win/bin/mcz-replay.exe
host_bin=${MCZ_HOST_BIN:-$root/bin}
RT=$T/replay
mkdir -p "$RT"

# win_replay_both NAME CODE LINUX-ARGS -- WINDOWS-ARGS: both runs exit CODE and print the same
# bytes on stdout (the summary); their stderr in $RT/linux.err and $RT/win.err.
win_replay_both() {
    local name=$1 code=$2; shift 2
    local largs=() wargs=()
    while [ "$1" != "--" ]; do largs+=("$1"); shift; done
    shift
    wargs=("$@")
    "$host_bin/mcz-replay" "${largs[@]}" >"$RT/linux.out" 2>"$RT/linux.err"
    local lrc=$?
    (cd "$RT" && timeout 300 "$wine" "$replay_exe" "${wargs[@]}") >"$RT/win.out" 2>"$RT/win.err"
    local wrc=$?
    if [ $lrc -eq "$code" ] && [ $wrc -eq "$code" ] && [ -s "$RT/linux.out" ] &&
       cmp -s "$RT/linux.out" "$RT/win.out"; then
        pass "$name: $(head -n1 "$RT/win.out") (exit $code, as on Linux)"
    else
        fail "$name (Linux exit $lrc, Windows exit $wrc, want $code)"
        diff "$RT/linux.out" "$RT/win.out" | head -5 | sed 's/^/    /'
        head -5 "$RT/win.err" | sed 's/^/    /'
    fi
}

# win_replay_same NAME LINUX WINDOWS: the outputs are the same bytes.
win_replay_same() {
    if cmp -s "$2" "$3"; then pass "$1"; else
        fail "$1"; diff "$2" "$3" | head -6 | sed 's/^/    /'; fi
}

# win_replay_left FILE: processes whose command line names FILE (a name no other run uses).
win_replay_left() { pgrep -fc -- "$(basename "$1")"; }

# win_replay_interrupt NAME SIGNAL CODE: mcz-replay.exe -j 2 with both workers hanging, then SIGNAL
# to the Wine process of the parent; it must end with CODE and leave no worker.
win_replay_interrupt() {
    local name=$1 sig=$2 code=$3 i
    local mcz=$RT/int-$sig-$$.mcz tmp=$RT/int-$sig-tmp
    cp "$RT/c.mcz" "$mcz"
    mkdir -p "$tmp"
    # A temporary directory of the run's own (TMPDIR, which Windows' programs see too): a Ctrl-C
    # must leave it empty; a parent killed outright cannot, and leaves it out of the final check.
    (cd "$RT" && TMPDIR=$tmp exec "$wine" "$replay_exe" -q -j 2 --plugin tp.dll \
        --plugin-arg hang:3,hang:200 -f int.mcl "$(basename "$mcz")") >"$RT/int.out" \
        2>"$RT/int.err" &
    local pid=$!
    for i in $(seq 1 300); do
        [ "$(grep -c '^hanging on' "$RT/int.err")" -ge 2 ] && break
        sleep 0.1
    done
    local running
    running=$(win_replay_left "$mcz")
    kill "-$sig" "$pid"
    { wait "$pid"; } 2>/dev/null
    local rc=$?
    sleep 1
    if [ "$running" -eq 3 ] && [ $rc -eq "$code" ] && [ "$(win_replay_left "$mcz")" -eq 0 ]; then
        pass "$name: exit $code, no worker left"
    else
        fail "$name (3 processes while hanging: $running; exit $rc, want $code; left:" \
             "$(win_replay_left "$mcz"))"
        sed 's/^/    /' "$RT/int.err" | head -5
    fi
    if [ "$sig" = INT ]; then # (Wine keeps a wine-XXXXXX directory of its own there)
        local left
        left=$(cd "$tmp" && ls -d mcz-* 2>/dev/null | tr '\n' ' ')
        if [ -z "$left" ]; then pass "$name: its temporary directory removed"; else
            fail "$name: its temporary directory removed (left: $left)"; fi
    fi
}

if [ ! -f "$replay_exe" ]; then
    fail "mcz-replay.exe built (missing: make windows)"
elif [ ! -x "$host_bin/mcz-replay" ] || [ ! -x "$host_bin/mcs" ] || [ ! -x "$host_bin/mchgen" ]
then
    fail "the Linux mcz-replay, mcs and mchgen in $host_bin (make)"
else
    "$host_bin/mchgen" --seed 7 --contexts 300 --out "$RT/c.mch" >/dev/null 2>&1
    "$host_bin/mcs" -convert "$RT/c.mch" "$RT/c.mcz" --chunk-size 128K >/dev/null 2>&1
    cc -shared -fPIC -I"$root/parallel-replay" -o "$RT/tp.so" \
        "$root/parallel-replay/plugins/replay_test_plugin.c"
    "${WIN_CC:-x86_64-w64-mingw32-gcc-posix}" -shared -static -O2 -I"$root/parallel-replay" \
        -o "$RT/tp.dll" "$root/parallel-replay/plugins/replay_test_plugin.c"
    printf '#!/bin/sh\nexit 3\n' >"$RT/exit3.sh"
    chmod +x "$RT/exit3.sh"

    win_replay_both "verify -j 2, .mcz" 0 -q -j 2 --details "$RT/l.csv" -f "$RT/l.mcl" "$RT/c.mcz" \
        -- -q -j 2 --details w.csv -f w.mcl c.mcz
    win_replay_same "verify -j 2: --details as on Linux" "$RT/l.csv" "$RT/w.csv"
    win_replay_same "verify -j 2: -f as on Linux" "$RT/l.mcl" "$RT/w.mcl"
    win_replay_both "verify -j 2, .mch" 0 -q -j 2 "$RT/c.mch" -- -q -j 2 c.mch
    # --stride: every worker walks every unit and replays every second context, so each of
    # the two worker processes has 150 of them, whichever starts first.
    win_replay_both "verify -j 2 --stride" 0 -q -j 2 --stride --stats "$RT/c.mcz" \
        -- -q -j 2 --stride --stats c.mcz
    if [ "$(grep -c '^worker [12]: units 45 contexts 150 ' "$RT/win.err")" = 2 ]
    then
        pass "verify -j 2 --stride: two worker processes, 150 contexts each"
    else
        fail "verify -j 2 --stride: two worker processes, 150 contexts each"
        sed 's/^/    /' "$RT/win.err" | head -5
    fi

    rules=fail:5,missing:7,segv:9,hang:11,exit:200,fault:250
    win_replay_both "plugin DLL: failures, missing data, a hang, an exit, a fault" 1 \
        -q -j 2 --timeout 2 --plugin "$RT/tp.so" --plugin-arg "$rules" --details "$RT/pl.csv" \
        "$RT/c.mcz" -- -q -j 2 --timeout 2 --plugin tp.dll --plugin-arg "$rules" \
        --details pw.csv c.mcz
    # The same rows but for how the crashes are told: a signal on Linux, an exit status or an
    # exception on Windows.
    if cmp -s <(grep -v ',crash,' "$RT/pl.csv") <(grep -v ',crash,' "$RT/pw.csv"); then
        pass "plugin DLL: --details as on Linux, crashes aside"
    else
        fail "plugin DLL: --details as on Linux, crashes aside"
    fi
    said="plugin DLL: a hang timed out; raise(SIGSEGV) (msvcrt exits 3), an exit, a fault: crashes"
    if grep -q '^9,.*,crash,worker exited with status 3$' "$RT/pw.csv" &&
       grep -q '^11,.*,timeout,timed out after 2 s$' "$RT/pw.csv" &&
       grep -q '^200,.*,crash,worker exited with status 7$' "$RT/pw.csv" &&
       grep -q '^250,.*,crash,worker died of exception 0xC0000005 (access violation)$' \
           "$RT/pw.csv"; then
        pass "$said"
    else
        fail "$said"
        grep -E '^(9|11|200|250),' "$RT/pw.csv" | sed 's/^/    /'
    fi

    win_replay_both "--exec: a command exiting 3 without details (cmd /c exit 3; Linux: a script)" 255 \
        -q -j 2 -c 1-40 --exec "$RT/exit3.sh" --details "$RT/el.csv" -f "$RT/el.mcl" \
        "$RT/c.mcz" -- -q -j 2 -c 1-40 --exec "cmd /c exit 3" --details ew.csv -f ew.mcl c.mcz
    win_replay_same "--exec: --details as on Linux" "$RT/el.csv" "$RT/ew.csv"
    win_replay_same "--exec: -f as on Linux" "$RT/el.mcl" "$RT/ew.mcl"
    (cd "$RT" && "$wine" "$replay_exe" -q -j 2 --exec no-such-command-here c.mcz) \
        >/dev/null 2>"$RT/err"
    rc=$?
    if [ $rc -eq 255 ] && grep -q "cannot run no-such-command-here" "$RT/err"; then
        pass "--exec: a command that cannot start stops the run (255)"
    else
        fail "--exec: a command that cannot start stops the run (exit $rc, want 255)"
    fi

    win_replay_interrupt "Ctrl-C (SIGINT through Wine) during a run" INT 130
    if grep -q "interrupted: .* selected contexts were not replayed" "$RT/int.err" &&
       grep -q "^Loaded " "$RT/int.out"; then
        pass "Ctrl-C: what finished is reported, and what was not"
    else
        fail "Ctrl-C: what finished is reported, and what was not"
    fi
    win_replay_interrupt "the parent killed outright: its jobs end the workers" KILL 137

    # A URL: each worker opens it again (ranges of the same archive from nginx).
    # shellcheck source=../cli/nginx.sh
    source "$root/tests/cli/nginx.sh"
    if nginx_start "$RT/http"; then
        cp "$RT/c.mcz" "$RT/http/www/c.mcz"
        url="http://127.0.0.1:$NGINX_PORT/c.mcz"
        win_replay_both "verify -j 2 over HTTP" 0 -q -j 2 --details "$RT/hl.csv" "$url" \
            -- -q -j 2 --details hw.csv "$url"
        win_replay_same "verify -j 2 over HTTP: --details as on Linux" "$RT/hl.csv" "$RT/hw.csv"
        nginx_stop
    else
        fail "nginx starts for the replay over HTTP (Debian nginx-light: .ci/deps.sh)"
    fi

    (cd "$RT" && "$wine" "$replay_exe" -q - <c.mcz) >/dev/null 2>"$RT/err"
    rc=$?
    if [ $rc -eq 255 ] && grep -q "a stream cannot be replayed here" "$RT/err"; then
        pass "a stream input is refused, with the reason (exit 255)"
    else
        fail "a stream input is refused, with the reason (exit $rc, want 255)"
    fi
fi
