#!/usr/bin/env bash
# make install as a user of mcz sees it, from the tree `make test` has built (installing builds
# nothing): the file list of a staged install (DESTDIR) and its uninstall; then an install into
# a prefix, and programs from outside the tree built against it alone: C with pkg-config
# (shared, static, and the collector library), CMake's find_package(mcz MAJOR), the Python module;
# the SONAMEs and the NEEDED entries they record, the exports, the man pages; and an uninstall
# that leaves no file behind. Under the sanitizers the outside programs are built with them
# too, and Python preloads their runtime.
. "$(dirname "$0")/lib.sh"
BUILD=${BUILD:-build}
B=$(cd "$BUILD" && pwd)
P=$T/prefix

# make as a user types it: not as a part of the make running this test.
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$MCZ_ROOT" \
        BUILD="$B" BIN="$BIN" $san_var "$@"
}
have() { command -v "$1" >/dev/null 2>&1; }
# needed NAME FILE LIB: FILE records a NEEDED entry for LIB (exactly).
needed() {
    if readelf -d "$2" | grep -qF "(NEEDED)             Shared library: [$3]"; then pass "$1"
    else fail "$1 (no NEEDED $3)"; readelf -d "$2" | grep NEEDED | sed 's/^/    /'; fi
}
not_needed() {
    if readelf -d "$2" | grep -q "Shared library: \[$3"; then fail "$1 (NEEDED $3*)"
    else pass "$1"; fi
}
soname() {
    local got
    got=$(readelf -d "$2" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    [ "$got" = "$3" ] && pass "$1" || fail "$1 (SONAME '$got', not '$3')"
}
# The files under a root, as root-relative paths; a symbolic link with its target.
files_under() {
    (cd "$1" && find . ! -type d -printf '%P -> %l\n' | sed 's/ -> $//' | sort)
}

real=$(readlink "$B/libmcz.so")
V=${real#libmcz.so.}
M=${V%%.*}
case $V in [0-9]*.[0-9]*.[0-9]*) pass "version $V from the built library" ;;
    *) fail "version from the built library ('$real')"; cli_done; exit ;; esac
san_var=
san_flags=
if readelf -d "$B/$real" | grep -q libasan; then
    san_var=SAN=1
    san_flags="-fsanitize=address,undefined -fno-sanitize-recover=all"
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi

if mk -q installable; then pass "the tree is built: install builds nothing"; else
    fail "the tree is built: install builds nothing (run make test first)"
    mk -d -q installable 2>&1 | grep -E "Must remake|newer than" | head -5 | sed 's/^/    /'; fi

# ---- Staged: DESTDIR, the default PREFIX ----
ok_run "make install DESTDIR=" mk install DESTDIR="$T/stage" PREFIX=/usr/local
cat >"$T/want" <<LIST
usr/local/bin/mchgen
usr/local/bin/mcs
usr/local/bin/mcz-replay
usr/local/bin/mcz-superpmi
usr/local/include/mcz.h
usr/local/lib/cmake/mcz/mczConfig.cmake
usr/local/lib/cmake/mcz/mczConfigVersion.cmake
usr/local/lib/libmcz-writer.so -> libmcz-writer.so.$V
usr/local/lib/libmcz-writer.so.$M -> libmcz-writer.so.$V
usr/local/lib/libmcz-writer.so.$V
usr/local/lib/libmcz.a
usr/local/lib/libmcz.so -> libmcz.so.$V
usr/local/lib/libmcz.so.$M -> libmcz.so.$V
usr/local/lib/libmcz.so.$V
usr/local/lib/pkgconfig/mcz-writer.pc
usr/local/lib/pkgconfig/mcz.pc
usr/local/lib/python3/dist-packages/mcz/__init__.py
usr/local/share/man/man1/mchgen.1
usr/local/share/man/man1/mcs.1
usr/local/share/man/man1/mcz-replay.1
usr/local/share/man/man1/mcz-superpmi.1
LIST
# Headers are whatever PUBLIC_HEADERS holds: mcz.h at least, each in include/.
files_under "$T/stage" | grep -v '^usr/local/include/' >"$T/got"
grep -v '^usr/local/include/' "$T/want" >"$T/want.noinc"
if cmp -s "$T/want.noinc" "$T/got"; then pass "staged install: exactly the expected files"; else
    fail "staged install: exactly the expected files"; diff "$T/want.noinc" "$T/got" | sed 's/^/    /'; fi
[ -f "$T/stage/usr/local/include/mcz.h" ] && pass "staged install: include/mcz.h" ||
    fail "staged install: include/mcz.h"
contains "staged mcz.pc names the final prefix" "$T/stage/usr/local/lib/pkgconfig/mcz.pc" \
    "prefix=/usr/local"
contains "staged Python module names the final LIBDIR" \
    "$T/stage/usr/local/lib/python3/dist-packages/mcz/__init__.py" \
    '_INSTALLED_LIBDIR = "/usr/local/lib"'
ok_run "make uninstall DESTDIR=" mk uninstall DESTDIR="$T/stage" PREFIX=/usr/local
left=$(cd "$T/stage" && find . ! -type d)
[ -z "$left" ] && pass "staged uninstall leaves no file" || fail "staged uninstall leaves: $left"

# ---- Into a prefix ----
ok_run "make install PREFIX=" mk install PREFIX="$P"
L=$P/lib
soname "libmcz.so.$V: SONAME libmcz.so.$M" "$L/libmcz.so.$V" "libmcz.so.$M"
soname "libmcz-writer.so.$V: SONAME libmcz-writer.so.$M" "$L/libmcz-writer.so.$V" \
    "libmcz-writer.so.$M"
sed -n 's/^[[:space:]]*MCZ_API[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' \
    "$P"/include/*.h | sort -u >"$T/api"
nm -D --defined-only "$L/libmcz.so.$V" | awk '{print $3}' | sort -u >"$T/exports"
[ -s "$T/api" ] && cmp -s "$T/api" "$T/exports" &&
    pass "libmcz.so exports exactly the headers' MCZ_API functions ($(wc -l <"$T/api"))" ||
    { fail "libmcz.so exports exactly the headers' MCZ_API functions";
      diff "$T/api" "$T/exports" | head | sed 's/^/    /'; }
nm -D --defined-only "$L/libmcz-writer.so.$V" | awk '{print $3}' >"$T/wexports"
if grep -qx mcz_writer_append "$T/wexports" && ! grep -qx mcz_reader_open "$T/wexports" &&
    ! grep -qvx 'mcz_.*' "$T/wexports"; then pass "libmcz-writer.so exports the collector API alone"
else fail "libmcz-writer.so exports the collector API alone"; fi

mchgen_ok=false
"$BIN/mchgen" --seed 7 --contexts 300 --preset small --out "$T/X.mch" >/dev/null 2>&1 &&
    "$BIN/mcs" -convert "$T/X.mch" "$T/X.mcz" >/dev/null 2>&1 && mchgen_ok=true
$mchgen_ok && pass "collections to read" || fail "collections to read"

# ---- C, pkg-config ----
S=$MCZ_ROOT/tests/install
CFLAGS_X="-std=c11 -Wall -Wextra -Werror $san_flags"
export LD_LIBRARY_PATH=$L
if have pkg-config; then
    export PKG_CONFIG_PATH=$L/pkgconfig
    [ "$(pkg-config --modversion mcz)" = "$V" ] && [ "$(pkg-config --modversion mcz-writer)" = "$V" ] &&
        pass "pkg-config: mcz and mcz-writer $V" || fail "pkg-config: mcz and mcz-writer $V"
    # shellcheck disable=SC2046,SC2086
    ok_run "pkg-config mcz: a reader builds" \
        cc $CFLAGS_X -o "$T/count" "$S/embed_count.c" $(pkg-config --cflags --libs mcz)
    needed "count records NEEDED libmcz.so.$M" "$T/count" "libmcz.so.$M"
    ok_run "count runs on an archive" "$T/count" "$T/X.mcz"
    contains "count: 300 contexts in the archive" "$T/out" "archive contexts 300"
    contains "count: built and loaded $V" "$T/out" "built $V loaded $V"
    ok_run "count runs on an MCH" "$T/count" "$T/X.mch"
    contains "count: 300 contexts in the MCH" "$T/out" "mch contexts 300"
    head -c 100000 "$T/X.mcz" >"$T/cut.mcz"
    fail_run "count: a truncated archive is an error" "$T/count" "$T/cut.mcz"
    contains "count: the library says why" "$T/err" "no footer"

    # shellcheck disable=SC2046,SC2086
    ok_run "pkg-config mcz-writer: a collector builds" \
        cc $CFLAGS_X -o "$T/collect" "$S/embed_collect.c" $(pkg-config --cflags --libs mcz-writer)
    needed "collect records NEEDED libmcz-writer.so.$M" "$T/collect" "libmcz-writer.so.$M"
    not_needed "collect does not need libmcz.so" "$T/collect" "libmcz.so"
    ok_run "collect writes an archive" "$T/collect" "$T/X.mch" "$T/c.mcz"
    contains "collect: 300 appended" "$T/out" "appended 300"
    ok_run "its archive exports the MCH back" "$BIN/mcs" -export "$T/c.mcz" "$T/c.mch"
    same "byte for byte" "$T/X.mch" "$T/c.mch"
    # shellcheck disable=SC2046,SC2086
    ok_run "pkg-config mcz alone: the collector builds too" \
        cc $CFLAGS_X -o "$T/collect2" "$S/embed_collect.c" $(pkg-config --cflags --libs mcz)
    ok_run "and runs" "$T/collect2" "$T/X.mch" "$T/c2.mcz"
    # Static: libmcz.a and what pkg-config --static adds (Requires.private, Libs.private).
    # shellcheck disable=SC2046,SC2086
    ok_run "pkg-config --static mcz: libmcz.a links" \
        cc $CFLAGS_X -o "$T/count_static" "$S/embed_count.c" \
        $(pkg-config --static --cflags --libs mcz | sed 's/-lmcz\b/-l:libmcz.a/')
    not_needed "the static program needs no libmcz" "$T/count_static" "libmcz"
    LD_LIBRARY_PATH= ok_run "and runs without it" "$T/count_static" "$T/X.mcz"
    contains "static count: 300" "$T/out" "archive contexts 300"
else
    pass "pkg-config builds # skip: no pkg-config"
fi

# ---- CMake ----
if have cmake; then
    cm() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake "$@"; }
    ok_run "cmake: find_package(mcz $M REQUIRED) configures" cm -S "$S" -B "$T/cmake" \
        -DMCZ_WANT="$M" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_BUILD_TYPE=Release
    ok_run "cmake: mcz::mcz, mcz::mcz_static and mcz::writer build" cm --build "$T/cmake"
    needed "cmake: mcz::mcz records NEEDED libmcz.so.$M" "$T/cmake/count_shared" "libmcz.so.$M"
    not_needed "cmake: mcz::mcz_static needs no libmcz" "$T/cmake/count_static" "libmcz"
    needed "cmake: mcz::writer records NEEDED libmcz-writer.so.$M" "$T/cmake/collect_writer" \
        "libmcz-writer.so.$M"
    ok_run "cmake: the shared program runs" "$T/cmake/count_shared" "$T/X.mcz"
    contains "cmake: 300 contexts" "$T/out" "archive contexts 300"
    ok_run "cmake: the static program runs" "$T/cmake/count_static" "$T/X.mch"
    ok_run "cmake: the writer program runs" "$T/cmake/collect_writer" "$T/X.mch" "$T/w.mcz"
    ok_run "cmake: find_package(mcz $M.0) is accepted" cm -S "$S" -B "$T/cmake-minor" \
        -DCMAKE_PREFIX_PATH="$P" -DMCZ_WANT="$M.0"
    fail_run "cmake: find_package(mcz $((M + 1))) is refused (SameMajorVersion)" \
        cm -S "$S" -B "$T/cmake-next" -DCMAKE_PREFIX_PATH="$P" -DMCZ_WANT="$((M + 1))"
else
    pass "cmake builds # skip: no cmake"
fi
unset LD_LIBRARY_PATH

# ---- Python ----
if [ -x /usr/bin/python3 ]; then
    preload=
    [ -n "$san_flags" ] && preload=$(cc -print-file-name=libasan.so)
    env -u MCZ_LIBRARY LD_PRELOAD="$preload" PYTHONPATH="$P/lib/python3/dist-packages" \
        /usr/bin/python3 -c 'import mcz, sys
with mcz.open(sys.argv[1]) as c:
    print(mcz.__file__, mcz.library_version(), len(c), c.info()["kind"], len(b"".join(c)))' \
        "$T/X.mcz" >"$T/out" 2>"$T/err"
    contains "python: the installed module reads the archive" "$T/out" \
        "$P/lib/python3/dist-packages/mcz/__init__.py $V 300 archive $(stat -c %s "$T/X.mch")"
else
    pass "python module # skip: no /usr/bin/python3"
fi

# ---- Man pages ----
for t in mcs mcz-replay mcz-superpmi mchgen; do
    page=$P/share/man/man1/$t.1
    up=$(echo "$t" | tr a-z A-Z)
    if [ -s "$page" ] && grep -v '^\.\\"' "$page" | head -1 | grep -q "^\.TH $up \"1\""; then
        pass "man page $t.1 starts with .TH"; else fail "man page $t.1 starts with .TH"; fi
    contains "man page $t.1 gives version $V" "$page" "$t $V"
    if have man; then
        MANWIDTH=80 man -l "$page" >"$T/man" 2>"$T/err" && grep -q "^NAME" "$T/man" &&
            pass "man -l $t.1 renders" || fail "man -l $t.1 renders"
    fi
done

# mcs's page holds every verb's help (mcs --help VERB), not the overview alone.
page=$P/share/man/man1/mcs.1
for verb in convert copy merge info recover; do
    contains "man page mcs.1 has a section for -$verb" "$page" ".SS \"\\-$verb\""
done
contains "man page mcs.1 lists --preset" "$page" "\\-\\-preset NAME"
contains "man page mcs.1 lists -thin" "$page" "[\\-thin]"
contains "man page mcs.1 gives the range syntax" "$page" "1\\-5,9"
# synopsis PAGE FORMS: a SYNOPSIS of FORMS usage lines, each whole (the .B name, one line of
# arguments, then .br or the next section), and no usage line left in the description.
synopsis() {
    local page=$P/share/man/man1/$1.1 forms
    forms=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page" | grep -c '^\.B ')
    if [ "$forms" -eq "$2" ] && sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page" |
        awk '/^\.B /{b=NR} b && NR==b+2 && !/^\.(br|SH)/{bad=1} END{exit bad}'; then
        pass "man page $1.1 has a SYNOPSIS of $2 whole forms"
    else fail "man page $1.1 has a SYNOPSIS of $2 whole forms ($forms)"; fi
    if awk '/^\.SH /{d = /DESCRIPTION/} d' "$page" | grep -qi '^usage:'; then
        fail "man page $1.1: no usage line in its description"
    else pass "man page $1.1: no usage line in its description"; fi
}
synopsis mcs 3
synopsis mcz-replay 2
synopsis mcz-superpmi 3

ok_run "make uninstall PREFIX=" mk uninstall PREFIX="$P"
left=$(cd "$P" && find . ! -type d)
[ -z "$left" ] && pass "uninstall leaves no file" || fail "uninstall leaves: $left"
cli_done
