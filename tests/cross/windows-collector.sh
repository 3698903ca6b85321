# tests/cross/windows-collector.sh - the collector on Windows (tests/collector/windows_collector.c)
# under Wine. Sourced by run-windows.sh (its $wine, $win, $host_build, $root, $T, pass and fail).
# A collector dying of an access violation writes its fatal dump from the unhandled-exception
# filter: this machine's mcs finds every context appended in it, byte for byte, and it is the
# archive the same program writes on Linux dying of SIGSEGV, byte for byte. A full-memory
# minidump (MiniDumpWriteDump) of a live collector: `mcs -recover` gives back every context, and
# the Windows build recovers it to the same archive. The program appends 150 contexts. The
# minidump is large (the process's whole memory, some 200 MB under Wine): removed once read.
collector_checks() {
    local exe=$win/tests/windows_collector.exe host=$host_build/tests/windows_collector
    local mcs=${MCZ_HOST_BIN:-$root/bin}/mcs w=$T/collector-win l=$T/collector-linux
    if [ ! -f "$exe" ] || [ ! -x "$host" ] || [ ! -x "$mcs" ]; then
        fail "the collector's checks: $exe, $host and $mcs built"
        return
    fi
    mkdir -p "$w" "$l"
    (cd "$w" && "$wine" "$exe" crash "$w/dump.mcz" "$w/expected.mch") >"$w/log" 2>&1
    rc=$?
    # Wine passes on the low byte of the process's exit code: STATUS_ACCESS_VIOLATION's 5.
    if [ $rc -eq 5 ] && [ -f "$w/dump.mcz" ] && [ ! -e "$w/dump.mcz.partial" ]; then
        pass "a collector dying of an access violation leaves its dump, and dies of it (exit 5)"
    else
        fail "a collector dying of an access violation leaves its dump (exit $rc)"
        tr -d '\r' <"$w/log" | head -5 | sed 's/^/    /'
    fi
    if "$mcs" -copy 1-150 "$w/dump.mcz" "$w/copy.mch" >"$w/copy.log" 2>&1 &&
        cmp -s "$w/copy.mch" "$w/expected.mch"; then
        pass "the fatal dump written under Wine holds every context appended (Linux mcs)"
    else
        fail "the fatal dump written under Wine holds every context appended (Linux mcs)"
        sed 's/^/    /' "$w/copy.log" | head -5
    fi
    # The subshell waits for the program itself (it is not its last command, so bash does not
    # exec it), and so prints its notice of the SIGSEGV where its stderr goes: nowhere.
    (cd "$l" && "$host" crash "$l/dump.mcz" "$l/expected.mch"; exit $?) >/dev/null 2>&1
    rc=$?
    if [ $rc -eq $((128 + 11)) ] && cmp -s "$w/dump.mcz" "$l/dump.mcz"; then
        pass "the fatal dump is the archive Linux's SIGSEGV dump writes, byte for byte"
    else
        fail "the fatal dump is the archive Linux's SIGSEGV dump writes, byte for byte" \
             "(Linux: exit $rc)"
    fi
    (cd "$w" && "$wine" "$exe" minidump "$w/process.dmp" "$w/expected.mch") >"$w/log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s "$w/process.dmp" ]; then
        fail "a full-memory minidump of a live collector written (exit $rc)"
        tr -d '\r' <"$w/log" | head -5 | sed 's/^/    /'
        return
    fi
    if "$mcs" -recover "$w/process.dmp" "$w/linux.mcz" >"$w/recover.log" 2>&1 &&
        "$mcs" -copy 1-150 "$w/linux.mcz" "$w/recovered.mch" >>"$w/recover.log" 2>&1 &&
        cmp -s "$w/recovered.mch" "$w/expected.mch"; then
        pass "mcs -recover of the minidump gives back every context appended"
    else
        fail "mcs -recover of the minidump gives back every context appended"
        sed 's/^/    /' "$w/recover.log" | head -5
    fi
    (cd "$w" && "$wine" "$exe" recover "$w/process.dmp" "$w/windows.mcz") >"$w/log" 2>&1
    if cmp -s "$w/windows.mcz" "$w/linux.mcz"; then
        pass "the minidump recovered under Wine is the archive Linux recovers, byte for byte"
    else
        fail "the minidump recovered under Wine is the archive Linux recovers, byte for byte"
        tr -d '\r' <"$w/log" | head -5 | sed 's/^/    /'
    fi
    rm -f "$w/process.dmp"
}
echo "== the collector on Windows: tests/collector/windows_collector.c under $wine"
collector_checks
