# tests/cross/windows-dropin.sh - mcz-superpmi.exe under Wine, installed over a Windows
# superpmi, held against the Linux mcz-superpmi installed over the same superpmi for Linux.
# Sourced by run-windows.sh (its $wine, $win, $root, $host_build, $T, pass and fail); the
# Linux programs come from $MCZ_HOST_BIN (make test-windows sets it), else bin/. The superpmi
# is the stand-in tests/collector/spmi_today.c built for each system (its -p is POSIX only,
# and the drop-in never passes -p to it: -p becomes mcz-replay's -j).
# Core_Root is "Core Root" here: a path with a space, quoted on each command line.
#   - --install DIR: DIR/superpmi.exe becomes mcz-superpmi.exe, the real one
#     DIR/superpmi.real.exe (the same bytes), the mcz-replay.exe to run recorded; again: updated
#   - an archive (under an .mcz or an .mch name): mcz-replay.exe runs superpmi.real.exe per
#     unit; the same exit code, summary, console lines, -f list and -details CSV as on Linux,
#     with -p 2 too
#   - an .mch, and a JIT that fails to load: superpmi.real.exe with the same words (the trace),
#     the same output as superpmi.real.exe run directly, and its exit code (1; -2 as 254)
#   - -streaming over an archive (requests from a file, the table read and refused; from
#     stdin): the answers and exit code of superpmi.real.exe streaming from the .mch; no
#     temporary file left
#   - the drop-in killed outright while mcz-replay.exe works: no process left (its job)
#   - --uninstall DIR: superpmi.exe is the real one again, nothing else left
# Not checked: a Ctrl-C typed at a console (Wine delivers SIGINT to the one process signalled,
# not to every process of a console as Windows does).

echo "== mcz-superpmi.exe under $wine"
dropin_exe=$win/bin/mcz-superpmi.exe
standin_exe=$win/tests/spmi_today.exe
host_bin=${MCZ_HOST_BIN:-$root/bin}
DT=$T/dropin

# win_dropin_text FILE: the lines of a run's output as both systems would print them: no CR,
# no line naming mcz-replay's temporary unit files, the JIT named JIT, the program superpmi -p's
# banner names as SUPERPMI (its own file, a path of each system's), and the figures that vary by
# run (wall time: "Total time: Tms", "at N per second") as words.
win_dropin_text() {
    tr -d '\r' <"$1" | grep -v 'mcz-replay\.' | sed -E 's/jit\.dll/JIT/g; s/jit\.so/JIT/g;
        s/^Using child \(.*\) with args \(/Using child (SUPERPMI) with args (/;
        s/ at [0-9]+ per second$/ at N per second/; s/^Total time: [0-9.]+ms$/Total time: Tms/'
}

# win_dropin_same NAME LINUX WINDOWS [sort]: the two files say the same (win_dropin_text), in
# any order with sort.
win_dropin_same() {
    local order=(cat)
    [ "${4:-}" = sort ] && order=(sort)
    if [ -s "$2" ] && diff <(win_dropin_text "$2" | "${order[@]}") \
                           <(win_dropin_text "$3" | "${order[@]}") >"$DT/diff"; then
        pass "$1"
    else
        fail "$1"
        head -6 "$DT/diff" | sed 's/^/    /'
    fi
}

# win_dropin_both NAME CODE ARGS...: superpmi ARGS in the Linux Core_Root and superpmi.exe ARGS
# in the Windows one (each with its own JIT name for JIT) exit CODE and print the same.
win_dropin_both() {
    local name=$1 code=$2; shift 2
    local largs=("${@//JIT/jit.so}") wargs=("${@//JIT/jit.dll}")
    (cd "$DT/linux" && "Core Root/superpmi" "${largs[@]}") >"$DT/linux.out" 2>"$DT/linux.err"
    local lrc=$?
    (cd "$DT/win" && timeout 300 "$wine" "Core Root/superpmi.exe" "${wargs[@]}") >"$DT/win.out" \
        2>"$DT/win.err"
    local wrc=$?
    if [ $lrc -eq "$code" ] && [ $wrc -eq "$code" ]; then
        pass "$name: exit $code, as on Linux"
    else
        fail "$name (Linux exit $lrc, Windows exit $wrc, want $code)"
        head -5 "$DT/win.err" | sed 's/^/    /'
    fi
    win_dropin_same "$name: the summary and console lines as on Linux" "$DT/linux.out" \
        "$DT/win.out"
    # two workers' error lines reach stderr in the order they come
    win_dropin_same "$name: stderr as on Linux (in any order)" "$DT/linux.err" "$DT/win.err" \
        sort
}

# win_dropin_left: the processes whose command line names this run's scratch directory (its
# name is unique) or the archive of the kill test: the drop-in, mcz-replay.exe and its worker,
# superpmi.real.exe (run by its full path).
win_dropin_left() { pgrep -fc -- "$(basename "$T")|kill-$$\.mcz"; }

if [ ! -f "$dropin_exe" ] || [ ! -f "$standin_exe" ] || [ ! -f "$win/bin/mcz-replay.exe" ]; then
    fail "mcz-superpmi.exe, mcz-replay.exe and tests/spmi_today.exe built (missing: make windows)"
elif [ ! -x "$host_bin/mcz-superpmi" ] || [ ! -x "$host_build/tests/spmi_today" ]; then
    fail "the Linux mcz-superpmi and tests/spmi_today in $host_bin, $host_build (make test-windows)"
else
    mkdir -p "$DT/linux/Core Root" "$DT/win/Core Root"
    "$host_bin/mchgen" --seed 3 --contexts 60 --out "$DT/a.mch" >/dev/null 2>&1
    "$host_bin/mcs" -convert "$DT/a.mch" "$DT/a.mcz" --chunk-size 4K >/dev/null 2>&1
    for d in linux win; do
        cp "$DT/a.mch" "$DT/a.mcz" "$DT/$d/"
        cp "$DT/a.mcz" "$DT/$d/z.mch" # an archive under an .mch name, as superpmi.py is given
    done
    : >"$DT/linux/jit.so"
    : >"$DT/win/jit.dll"
    cp "$host_build/tests/spmi_today" "$DT/linux/Core Root/superpmi"
    cp "$host_bin/mcz-superpmi" "$host_bin/mcz-replay" "$DT/linux/"
    cp "$standin_exe" "$DT/win/Core Root/superpmi.exe"
    cp "$dropin_exe" "$win/bin/mcz-replay.exe" "$DT/win/"

    (cd "$DT/linux" && ./mcz-superpmi --install "Core Root") >/dev/null 2>&1
    (cd "$DT/win" && timeout 60 "$wine" mcz-superpmi.exe --install "Core Root") \
        >"$DT/install.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "$DT/win/Core Root/superpmi.exe" "$dropin_exe" &&
       cmp -s "$DT/win/Core Root/superpmi.real.exe" "$standin_exe" &&
       grep -q 'mcz-replay\.exe$' "$DT/win/Core Root/superpmi.mcz-replay"; then
        pass "--install: superpmi.exe is mcz-superpmi.exe, superpmi.real.exe the real one"
    else
        fail "--install (exit $rc)"
        sed 's/^/    /' "$DT/install.out" | head -5
    fi
    (cd "$DT/win" && timeout 60 "$wine" mcz-superpmi.exe --install "Core Root") \
        >"$DT/install.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q 'mcz-superpmi updated' "$DT/install.out" &&
       cmp -s "$DT/win/Core Root/superpmi.real.exe" "$standin_exe"; then
        pass "--install again: the copy updated, superpmi.real.exe kept"
    else
        fail "--install again (exit $rc)"
        sed 's/^/    /' "$DT/install.out" | head -5
    fi

    win_dropin_both "an archive (.mcz)" 1 JIT a.mcz
    win_dropin_both "an archive named .mch, -p 2, -f, -details" 1 -p 2 -f f.mcl -details d.csv \
        JIT z.mch
    win_dropin_same "an archive named .mch: -f as on Linux" "$DT/linux/f.mcl" "$DT/win/f.mcl"
    win_dropin_same "an archive named .mch: -details as on Linux" "$DT/linux/d.csv" \
        "$DT/win/d.csv"
    win_dropin_both "an archive, -c 5-30" 1 -c 5-30 JIT a.mcz

    # An .mch: superpmi.real.exe with the same words, its output and exit code.
    for args in "jit.dll a.mch" "missing.dll a.mch"; do
        read -r -a words <<<"$args"
        (cd "$DT/win" && timeout 60 "$wine" "Core Root/superpmi.real.exe" "${words[@]}") \
            >"$DT/direct.out" 2>&1
        drc=$?
        (cd "$DT/win" && MCZ_SUPERPMI_TRACE=trace.txt timeout 60 "$wine" "Core Root/superpmi.exe" \
            "${words[@]}") >"$DT/via.out" 2>&1
        vrc=$?
        printf '%s\n' "superpmi.exe" "${words[@]}" >"$DT/want" # argv unchanged
        if [ $drc -eq $vrc ] && [ $vrc -ne 0 ] && [ -s "$DT/via.out" ] &&
           cmp -s "$DT/direct.out" "$DT/via.out" &&
           diff <(tr -d '\r' <"$DT/win/trace.txt" | sed '1s/.*[\\/]//') "$DT/want" >/dev/null
        then
            pass "superpmi.exe $args: superpmi.real.exe, same words, same output, exit $vrc"
        else
            fail "superpmi.exe $args (direct exit $drc, through the drop-in $vrc)"
            sed 's/^/    /' "$DT/win/trace.txt" | head -4
        fi
    done

    # -streaming: the sparse stand-in file goes in the Wine prefix's %TEMP%
    wtemp=("$WINEPREFIX"/drive_c/users/*/Temp)
    stand_ins() { find "${wtemp[@]}" -maxdepth 1 -name 'mcz-superpmi.*' 2>/dev/null | wc -l; }
    before=$(stand_ins)
    printf '5\n# a comment\n12!JitStdOutFile=x\n7\n60\n1\n5\nquit\n' >"$DT/win/req.txt"
    for toc in read reject; do
        (cd "$DT/win" && STANDIN_TOC=$toc timeout 60 "$wine" "Core Root/superpmi.real.exe" \
            -v ewi -streaming req.txt jit.dll a.mch) >"$DT/sref.out" 2>/dev/null
        src=$?
        (cd "$DT/win" && STANDIN_TOC=$toc timeout 60 "$wine" "Core Root/superpmi.exe" \
            -v ewi -streaming req.txt jit.dll a.mcz) >"$DT/sgot.out" 2>"$DT/sgot.err"
        sgot=$?
        if [ $src -eq $sgot ] && [ "$(grep -c 'Done. Status' "$DT/sgot.out")" = 6 ] &&
           cmp -s "$DT/sref.out" "$DT/sgot.out"; then
            pass "-streaming over an archive, table $toc: the .mch's 6 answers, exit $sgot"
        else
            fail "-streaming over an archive, table $toc (exit $sgot, the .mch's $src)"
            head -3 "$DT/sgot.err" | sed 's/^/    /'
        fi
    done
    printf '60\n2\n' | (cd "$DT/win" && timeout 60 "$wine" "Core Root/superpmi.exe" -v ewi \
        -s stdin jit.dll a.mcz) >"$DT/sin.out" 2>&1
    if [ "$(grep -c 'Done. Status' "$DT/sin.out")" = 2 ]; then
        pass "-streaming over an archive, requests from stdin: two answers"
    else
        fail "-streaming over an archive, requests from stdin: two answers"
        head -3 "$DT/sin.out" | sed 's/^/    /'
    fi
    if [ "$(stand_ins)" -eq "$before" ]; then pass "-streaming: no temporary directory left"
    else fail "-streaming: $(($(stand_ins) - before)) temporary directories left"; fi

    # Killed outright while the real superpmi works: its job takes mcz-replay.exe and
    # superpmi.real.exe with it.
    # (TMPDIR of its own: what a process killed outright leaves is not run-windows.sh's concern)
    cp "$DT/a.mcz" "$DT/win/kill-$$.mcz"
    mkdir -p "$DT/kill-tmp"
    (cd "$DT/win" && TMPDIR=$DT/kill-tmp STANDIN_SLEEP_MS=500 exec "$wine" \
        "Core Root/superpmi.exe" jit.dll "kill-$$.mcz") >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do
        [ "$(win_dropin_left)" -ge 4 ] && break
        sleep 0.1
    done
    running=$(win_dropin_left)
    kill -KILL "$pid"
    { wait "$pid"; } 2>/dev/null
    for _ in $(seq 1 50); do
        [ "$(win_dropin_left)" -eq 0 ] && break
        sleep 0.1
    done
    if [ "$running" -ge 4 ] && [ "$(win_dropin_left)" -eq 0 ]; then
        pass "killed while replaying: no mcz-replay.exe or superpmi.real.exe left"
    else
        fail "killed while replaying ($running running before, $(win_dropin_left) after)"
    fi

    (cd "$DT/win" && timeout 60 "$wine" mcz-superpmi.exe --uninstall "Core Root") >"$DT/un.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "$DT/win/Core Root/superpmi.exe" "$standin_exe" &&
       [ "$(ls "$DT/win/Core Root")" = superpmi.exe ]; then
        pass "--uninstall: superpmi.exe is the real one again, nothing else left"
    else
        fail "--uninstall (exit $rc): $(ls "$DT/win/Core Root" | tr '\n' ' ')"
        sed 's/^/    /' "$DT/un.out" | head -3
    fi
fi
