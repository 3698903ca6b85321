# The programs for Windows under Wine: mcs.exe, mchgen.exe and libmcz.dll (make windows).
# Sourced by tests/cross/run-windows.sh, whose variables and helpers it uses: win (WIN_BUILD),
# host_build, root, T, wine, pass, fail, failures, unix_lines; this machine's programs are
# MCZ_HOST_BIN's (make test-windows builds them and sets it; bin/ by default). Checks:
#   - libmcz.dll exports exactly the functions libmcz.so exports, and a program linked against
#     its import library alone reads an archive through it;
#   - the bench corpus (bench/run.sh's: mchgen --seed 1 --contexts 20000, 221 MB, written by
#     this machine's mchgen; mchgen.exe writes the same bytes, compared on 2000 contexts) made an
#     archive by mcs.exe -convert: the bytes this machine's mcs writes, with the default options
#     and with others; mcs.exe -export gives the collection back byte for byte;
#   - Ctrl-C during mcs.exe -convert: the console control event, delivered as Wine delivers a
#     terminal's Ctrl-C (SIGINT to the process, which Wine turns into CTRL_C_EVENT on a new
#     thread running the handlers of SetConsoleCtrlHandler; GenerateConsoleCtrlEvent needs a
#     console, which a process with redirected output lacks under Wine). MCZ_TEST_SIGNAL=INT@N
#     stops the conversion after N contexts and says so, so that the event comes at the same
#     point in every run. The process must end with STATUS_CONTROL_C_EXIT (0xC000013A, which
#     Wine passes on as exit status 58), leaving neither the output nor a temporary;
#   - an archive read over HTTP (nginx, as tests/cli/test_http.sh starts it) by mcs.exe -info
#     (what this machine's mcs says of the same URL) and -verify;
#   - tests/cli scripts with mcs.exe, mchgen.exe and mcz-replay.exe as BIN (wrappers running
#     them under Wine), each failure either known (listed below with its reason; one that
#     passes fails the run) or counted; the scripts not run are listed with the reason.

# win_programs_run NAME EXE ARGS...: runs a Windows program from the current directory; the
# command must exit 0 (its output, in Unix line ends, in $T/out, $T/err).
win_programs_run() {
    local name=$1 exe=$2; shift 2
    if "$wine" "$exe" "$@" >"$T/out" 2>"$T/err"; then pass "$name"; else
        fail "$name (exit $?)"; sed 's/^/    /' "$T/err" | head -10; fi
}
win_programs_same() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1 ($(cmp "$2" "$3" 2>&1))"; fi
}

win_programs_dll() {
    echo "== libmcz.dll: its exports, and a program linked against its import library"
    local dll=$win/bin/libmcz.dll probe=$win/tests/windows_dll_probe.exe
    if [ ! -f "$dll" ] || [ ! -f "$win/bin/libmcz.dll.a" ] || [ ! -f "$probe" ]; then
        fail "libmcz.dll, libmcz.dll.a and windows_dll_probe.exe built (make windows)"
        return
    fi
    exports_as_so "$dll" "$host_build/libmcz.so"
    if x86_64-w64-mingw32-objdump -p "$probe" | grep -q 'DLL Name: libmcz.dll'; then
        pass "windows_dll_probe.exe imports libmcz.dll"
    else
        fail "windows_dll_probe.exe imports libmcz.dll"
    fi
    "$host_bin/mchgen" --seed 3 --contexts 50 --out "$T/dll.mch" >/dev/null 2>&1
    "$host_bin/mcs" -convert "$T/dll.mch" "$T/dll.mcz" >/dev/null 2>&1
    local contexts version
    contexts=$("$host_bin/mcs" -info "$T/dll.mcz" 2>/dev/null |
        sed -n 's/^contexts: *\([0-9]*\).*/\1/p')
    version=$("$host_bin/mcs" --version | sed -n 's/^libmcz //p')
    # The DLL is found through WINEPATH (Windows' PATH), as an installed one would be.
    (cd "$T" && WINEPATH="$WINEPATH;Z:$(printf '%s' "$win/bin" | tr / '\\')" \
        "$wine" "$probe" dll.mcz) >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -eq 0 ] && unix_lines "$T/out" | grep -qx "dll.mcz: ${contexts:-?} contexts, .*" &&
        unix_lines "$T/out" | grep -q "^libmcz $version "; then
        pass "a program linked against libmcz.dll.a reads an archive through the DLL"
    else
        fail "a program linked against libmcz.dll.a reads an archive (exit $rc)"
        cat "$T/out" "$T/err" | head -5 | sed 's/^/    /'
    fi
}

win_programs_corpus() {
    echo "== the bench corpus: mcs.exe -convert and -export under $wine"
    local mcs=$win/bin/mcs.exe mchgen=$win/bin/mchgen.exe
    if [ ! -f "$mcs" ] || [ ! -f "$mchgen" ]; then
        fail "mcs.exe and mchgen.exe built (make windows)"
        return 1
    fi
    mkdir -p "$T/corpus"
    cd "$T/corpus" || return 1
    "$host_bin/mchgen" --seed 3 --contexts 2000 --out small.mch >/dev/null 2>&1
    win_programs_run "mchgen.exe writes a collection" "$mchgen" --seed 3 --contexts 2000 \
        --out small-win.mch
    win_programs_same "mchgen.exe writes what mchgen writes" small.mch small-win.mch
    rm -f small.mch small-win.mch
    "$host_bin/mchgen" --seed 1 --contexts 20000 --out corpus.mch >/dev/null 2>&1 ||
        fail "mchgen writes the bench corpus"
    local i=0 opts
    while read -r opts; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # the options are words
        "$host_bin/mcs" -convert corpus.mch "linux-$i.mcz" $opts >/dev/null 2>&1
        # shellcheck disable=SC2086
        win_programs_run "mcs.exe -convert ${opts:-(defaults)} of the bench corpus" "$mcs" \
            -convert corpus.mch "win-$i.mcz" $opts
        win_programs_same "mcs.exe -convert ${opts:-(defaults)}: the archive mcs writes on Linux" \
            "linux-$i.mcz" "win-$i.mcz"
        win_programs_run "mcs.exe -export ${opts:-(defaults)}" "$mcs" -export "win-$i.mcz" back.mch
        win_programs_same "mcs.exe -export ${opts:-(defaults)}: the corpus byte for byte" \
            corpus.mch back.mch
        rm -f back.mch "linux-$i.mcz"
        [ $i -eq 1 ] || rm -f "win-$i.mcz"
    done <<'OPTS'

--level 3 --chunk-size 64K --no-dict -j 2
OPTS
    cd "$root" || return 1
}

win_programs_ctrl_c() {
    echo "== Ctrl-C (a console control event) during mcs.exe -convert"
    mkdir -p "$T/ctrlc"
    MCZ_TEST_SIGNAL=INT@5000 "$wine" "$win/bin/mcs.exe" -convert "$T/corpus/corpus.mch" \
        "$T/ctrlc/out.mcz" >"$T/out" 2>"$T/err" </dev/null &
    local pid=$! tries
    for tries in $(seq 300); do
        grep -q 'waiting for the console control event' "$T/err" 2>/dev/null && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    if grep -q 'waiting for the console control event' "$T/err"; then
        pass "mcs.exe stops after 5000 contexts (MCZ_TEST_SIGNAL=INT@5000)"
    else
        fail "mcs.exe stops after 5000 contexts (MCZ_TEST_SIGNAL=INT@5000)"
        sed 's/^/    /' "$T/err" | head -5
    fi
    kill -INT $pid 2>/dev/null
    wait $pid
    local rc=$?
    if [ $rc -eq 58 ]; then pass "Ctrl-C: mcs.exe ends with STATUS_CONTROL_C_EXIT (58)"; else
        fail "Ctrl-C: mcs.exe ends with STATUS_CONTROL_C_EXIT (58, got $rc)"
        sed 's/^/    /' "$T/err" | head -5; fi
    if [ -z "$(ls -A "$T/ctrlc")" ]; then
        pass "Ctrl-C: no output and no temporary left"
    else
        fail "Ctrl-C: no output and no temporary left (left: $(ls -A "$T/ctrlc" | tr '\n' ' '))"
    fi
}

win_programs_http() {
    echo "== an archive over HTTP: mcs.exe -info and -verify of an http:// URL"
    # shellcheck source=../cli/nginx.sh
    source "$root/tests/cli/nginx.sh"
    if ! nginx_start "$T/http"; then
        fail "nginx starts (Debian nginx-light: .ci/deps.sh)"
        return
    fi
    cp "$T/corpus/win-1.mcz" "$T/http/www/corpus.mcz"
    local url="http://127.0.0.1:$NGINX_PORT/corpus.mcz"
    "$host_bin/mcs" -info "$url" >"$T/info-linux" 2>&1
    win_programs_run "mcs.exe -info $url" "$win/bin/mcs.exe" -info "$url"
    unix_lines "$T/out" >"$T/info-win"
    win_programs_same "mcs.exe -info over HTTP says what mcs says" "$T/info-linux" "$T/info-win"
    win_programs_run "mcs.exe -verify $url" "$win/bin/mcs.exe" -verify "$url"
    if [ "$(nginx_requests "$T/http")" -gt 0 ]; then
        pass "the archive came from nginx ($(nginx_requests "$T/http") requests)"
    else
        fail "the archive came from nginx (no request logged)"
    fi
    nginx_stop
}

# tests/cli scripts not run with the Windows programs, and why.
declare -A win_cli_skip=(
    [test_mcs_outputs.sh]="writes to devices and FIFOs (/dev/null, /dev/stdout, a FIFO: Wine
        renames nothing over them) and replays standard input (mcz-replay.exe refuses a stream:
        each worker reads the collection itself); under Wine it did not end within 300 s"
    [test_mcs_forged.sh]="its helpers (build/tests/reseal, raw_index) are built by make test,
        which make test-windows does not build"
    [test_sources.sh]="its helper build/tests/spmi_today is built by make test"
)
# Failures known under Wine: script -> patterns (one a line) of the names of its failing checks.
declare -A win_cli_known=(
    [test_mcs_edges.sh]='--force writes to the terminal
* | head: quiet, exit 0*
*>/dev/full: write failed, naming the output'
    [test_mcs_empty.sh]='/dev/null: -dumpToc says so once*
/dev/null: -recover says so once*'
    [test_mcs_diskfull.sh]='*one line naming the output and the errno'
    [test_mcs_settings.sh]='-convert into a device named .mch is allowed*'
    [test_mcs_messages.sh]='an ELF file: said so*
HTTP: cannot connect to HOST: reason*'
)
declare -A win_cli_why=(
    [test_mcs_edges.sh]="the terminal is script(1)'s pseudo-terminal, which Wine's console
        writes with escapes of its own between the characters (stdout: stderr reaches it from
        tests/cross/wine-run.sh's file, so the refusal reads as on Linux); a write to a pipe
        whose reader is gone fails with EINVAL (Invalid argument), and Windows cannot ask the
        pipe beforehand (mcz_os_stdout_reader_gone); /dev/full is taken for a terminal, or its
        write error is not named as on Linux"
    [test_mcs_empty.sh]="/dev/null is not recognised as the null device through Wine (mcs
        compares st_rdev with /dev/null's): -dumpToc and -recover word its emptiness their way"
    [test_mcs_diskfull.sh]="the full disk's write error reads Invalid argument through Wine (No
        space left on device on Linux)"
    [test_mcs_settings.sh]="a symbolic link named .mch to /dev/null is not seen as a device
        through Wine, so the rule for .mch names refuses it"
    [test_mcs_messages.sh]="the file the check gives mcs as an ELF program is the wrapper script
        here; a refused connection is worded Unknown error by libcurl for Windows"
)
win_cli_scripts="test_mcs_args test_mcs_basic test_mcs_chunkcopy test_mcs_damage
    test_mcs_determinism test_mcs_dictionary test_mcs_dump_text test_mcs_edges test_mcs_empty
    test_mcs_diskfull test_mcs_jitee_guid test_mcs_messages test_mcs_options test_mcs_settings
    test_mcs_toc_trust test_mcs_verbs test_mcs_verbs_damage test_mcs_zip test_mchgen
    test_diag_types test_receive_damage test_mcs_codec test_mcs_layout test_mcs_nohashes
    test_mcs_strict test_mcs_versions test_http"

# win_cli_known_match SCRIPT NAME: whether NAME is one of SCRIPT's known failures.
win_cli_known_match() {
    local pattern
    while IFS= read -r pattern; do
        # shellcheck disable=SC2053 # the pattern is a glob
        [[ $2 == $pattern ]] && return 0
    done <<<"${win_cli_known[$1]:-}"
    return 1
}

win_programs_cli() {
    echo "== tests/cli with mcs.exe, mchgen.exe and mcz-replay.exe under $wine"
    mkdir -p "$T/winbin"
    local p
    for p in mcs mchgen mcz-replay; do
        printf '#!/bin/sh\nexec bash "%s" "%s" "%s" "$@"\n' "$root/tests/cross/wine-run.sh" "$wine" \
            "$win/bin/$p.exe" >"$T/winbin/$p"
        chmod +x "$T/winbin/$p"
    done
    export WINE_RUN_RETRIES=$T/wine-retries
    : >"$WINE_RUN_RETRIES"
    local s name rc p_count f_count line pattern unexpected
    for s in $win_cli_scripts; do
        name=$s.sh
        BIN=$T/winbin BUILD=$host_build MCZ_ROOT=$root timeout -k 20 300 \
            bash "$root/tests/cli/$name" >"$T/log" 2>&1 </dev/null
        rc=$?
        p_count=$(grep -c '^ok ' "$T/log")
        passed=$((passed + p_count))
        unexpected=0
        f_count=0
        while IFS= read -r line; do
            f_count=$((f_count + 1))
            win_cli_known_match "$name" "${line#not ok - }" && continue
            unexpected=$((unexpected + 1))
            echo "not ok - $name: ${line#not ok - }"
            grep -F -A4 "$line" "$T/log" | tail -n +2 | head -4 | sed 's/^/    /'
        done < <(grep '^not ok ' "$T/log")
        failed=$((failed + unexpected))
        [ "$unexpected" -gt 0 ] && failures+=("windows $name")
        if [ -n "${win_cli_known[$name]+set}" ]; then
            while IFS= read -r pattern; do
                grep '^not ok ' "$T/log" | sed 's/^not ok - //' |
                    while IFS= read -r line; do [[ $line == $pattern ]] && echo x; done |
                    grep -q x && continue
                fail "$name: '$pattern' passes under Wine: take it off the known failures"
            done <<<"${win_cli_known[$name]}"
            echo "todo - $name: $p_count passed, $f_count known failures:" \
                 "${win_cli_why[$name]//$'\n'        / }"
        fi
        if [ "$rc" -ne 0 ] && [ "$f_count" -eq 0 ]; then
            fail "$name (exit $rc, no failing check named)"
            tail -5 "$T/log" | sed 's/^/    /'
        elif [ "$unexpected" -eq 0 ] && [ -z "${win_cli_known[$name]+set}" ]; then
            echo "ok - $name: $p_count passed"
        fi
    done
    if [ -s "$WINE_RUN_RETRIES" ]; then
        echo "note - Wine failed to start a program $(wc -l <"$WINE_RUN_RETRIES") times, each" \
             "started again (tests/cross/wine-run.sh):"
        head -5 "$WINE_RUN_RETRIES" | sed 's/^/    /'
    fi
    for name in "${!win_cli_skip[@]}"; do
        echo "skip - $name: ${win_cli_skip[$name]//$'\n'        / }"
    done | sort
}

host_bin=$(cd "${MCZ_HOST_BIN:-$root/bin}" && pwd)

win_programs() {
    # One wineserver for all the runs below (each program otherwise starts its own).
    local wineserver_bin
    wineserver_bin=$(dirname "$(command -v "$wine")")/wineserver
    [ -x "$wineserver_bin" ] || wineserver_bin=wineserver
    "$wineserver_bin" -p 2>/dev/null
    win_programs_dll
    if win_programs_corpus; then
        win_programs_ctrl_c
        win_programs_http
    fi
    win_programs_cli
    rm -rf "$T/corpus"
    "$wineserver_bin" -k 2>/dev/null
}
win_programs
