# libmcz-writer.dll, the collector for Windows (packaging/windows.mk), under Wine. Sourced by
# tests/cross/run-windows.sh, whose win, host_build, T, wine, pass, fail, unix_lines and
# exports_as_so it uses; this machine's programs are MCZ_HOST_BIN's. Checks:
#   - it imports Windows' system DLLs only (zstd, the compiler's runtime and the threads are
#     inside it: platform/threads.h on Win32's own primitives), and exports the collector API alone,
#     the functions libmcz-writer.so exports;
#   - tests/cmake-host/collect_host.c linked against its import library, under Wine, collects a
#     collection into the archive the same program linked against libmcz-writer.so writes
#     here, byte for byte, and refuses the xz codec as that one does.
windows_writer() {
    echo "== libmcz-writer.dll: the collector alone"
    local host_bin=${MCZ_HOST_BIN:-$root/bin}
    local dll=$win/bin/libmcz-writer.dll exe=$win/tests/collect_host.exe
    local linux=$host_build/tests/collect_host
    if [ ! -f "$dll" ] || [ ! -f "$exe" ] || [ ! -x "$linux" ]; then
        fail "libmcz-writer.dll, collect_host.exe and this machine's collect_host built"
        return
    fi
    local imports others
    imports=$(x86_64-w64-mingw32-objdump -p "$dll" | sed -n 's/^\tDLL Name: //p' | sort -u)
    others=$(printf '%s\n' "$imports" | grep -viE '^(kernel32|msvcrt|ntdll|advapi32|ws2_32|bcrypt|ucrtbase|api-ms-win-.*)\.dll$')
    if [ -n "$imports" ] && [ -z "$others" ]; then
        pass "libmcz-writer.dll imports system DLLs only ($(echo $imports))"
    else fail "libmcz-writer.dll imports system DLLs only (also: $(echo $others))"; fi
    exports_as_so "$dll" "$host_build/libmcz-writer.so"
    if x86_64-w64-mingw32-objdump -p "$exe" | grep -q 'DLL Name: libmcz-writer.dll'; then
        pass "collect_host.exe imports libmcz-writer.dll"
    else fail "collect_host.exe imports libmcz-writer.dll"; fi

    "$host_bin/mchgen" --seed 11 --contexts 400 --preset small --out "$T/w.mch" >/dev/null 2>&1
    "$linux" "$T/w.mch" "$T/w-linux.mcz" 2>"$T/err" || fail "collect_host collects here"
    # The DLL is found through WINEPATH (Windows' PATH), as an installed one would be.
    local wpath="$WINEPATH;Z:$(printf '%s' "$win/bin" | tr / '\\')"
    (cd "$T" && WINEPATH=$wpath "$wine" "$exe" w.mch w-win.mcz) >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -eq 0 ] && [ -s "$T/w-linux.mcz" ] && cmp -s "$T/w-linux.mcz" "$T/w-win.mcz"; then
        pass "collect_host.exe collects through the DLL the archive Linux writes, byte for byte"
    else
        fail "collect_host.exe collects the archive Linux writes (exit $rc)"
        sed 's/^/    /' "$T/err" | head -5
    fi
    if "$host_bin/mcs" -export "$T/w-win.mcz" "$T/w-back.mch" >/dev/null 2>&1 &&
        cmp -s "$T/w.mch" "$T/w-back.mch"; then
        pass "the Windows collector's archive exports to the collection's bytes"
    else fail "the Windows collector's archive exports to the collection's bytes"; fi
    (cd "$T" && WINEPATH=$wpath "$wine" "$exe" --xz x.mcz) >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -eq 0 ] && unix_lines "$T/out" | grep -q "no xz codec" && [ ! -e "$T/x.mcz" ]; then
        pass "libmcz-writer.dll refuses the xz codec, saying so"
    else fail "libmcz-writer.dll refuses the xz codec (exit $rc)"; fi
}
windows_writer
