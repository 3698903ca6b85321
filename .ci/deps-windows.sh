#!/usr/bin/env bash
# Installs what building and testing mcz for Windows (x86_64) needs on Debian 12, and builds
# the libraries mcz links for Windows from Debian's own source packages. Called by
# `make windows` (packaging/windows.mk).
#   deps-windows.sh [SYSROOT] [--check]      SYSROOT defaults to build/windows/sysroot
#
# Tools, from Debian's packages: the mingw-w64 cross compilers in their posix threads flavour
# (x86_64-w64-mingw32-gcc-posix and g++-posix: compiler and runtime built on winpthreads, the
# pthreads the library's threads use; the C++ one because CMake projects such as zstd's enable
# C++), Wine to run the result here (wine, wine64), and what the libraries' own build systems
# need (cmake, autotools, dpkg-source).
#
# Libraries: zlib, zstd, liblzma (xz-utils), xxhash, cmocka, libzip and libcurl,
# each from `apt-get source` of the -dev package mcz builds with on Linux (so the versions and
# patches are Debian's), built with the package's own build system: CMake with
# packaging/mingw-w64-x86_64.cmake for zstd, cmocka, libzip and curl (for curl this also
# spares regenerating the autotools files Debian's patches touch), configure
# --host=x86_64-w64-mingw32 for liblzma, zlib's own configure (CHOST) and
# xxhash's Makefile. Not libmurmurhash: its source is not one the archive serves here, and
# superpmi/hash.c has its own MurmurHash3 for Windows (MCZ_NO_LIBMURMURHASH, test_murmur3).
# Installed into SYSROOT (include/, lib/, lib/pkgconfig/; no DLL in bin/),
# static libraries only: every program and test is then one .exe that runs under Wine or on
# Windows without DLLs beside it, and libmcz.dll can take the code of its dependencies in.
# Static use on Windows asks the headers for it: -DCURL_STATICLIB -DLZMA_API_STATIC
# -DZIP_STATIC (packaging/windows.mk passes them); the system libraries each one needs are in
# its .pc file (pkg-config --static). A first run takes minutes, most of them curl's CMake
# checks; the logs and the marker give each library's time.
#   curl: HTTP and HTTPS only, TLS through Schannel (Windows' own TLS and certificate store:
#         no OpenSSL to build and no CA bundle to ship; the library needs nothing but ranged
#         GETs); no zlib, IDN, PSL, HTTP/2 or SSH. Built from Debian's OpenSSL flavour of the
#         tree (its GnuTLS and NSS renaming patches taken back out, as debian/rules does).
#   libzip: deflate and stored members (the zip files superpmi collections come in); no
#         bzip2, xz or encryption.
#   cmocka: the static library, installed as libcmocka.a (its build always adds a DLL, which
#         is removed).
#
# When the archive cannot serve a version's source (a 404 on a file the index names: seen for
# bookworm-security's zlib and libzstd), the next older version the index lists is used, with a
# warning. A library none of whose versions can be fetched is left out, recorded in the marker
# (not tried again until the index lists a newer version) and named at the end; the script
# then exits 3 (the others are built; `make windows` goes on without it). Any other failure
# exits 1, its log in build/windows/logs/.
#
# Idempotent: SYSROOT/.complete records each library built (name, source package, version,
# a hash of its build steps and of the toolchain file, seconds taken); a library whose line is
# there with the same steps is not built again, so a second run does nothing. Changing a
# library's steps below rebuilds that library alone. --check builds and installs nothing: it
# says what is missing and exits 1 if anything is.
# As root it installs packages and adds a deb-src entry when apt has none; otherwise it prints
# the commands.
set -eu
usage="usage: deps-windows.sh [SYSROOT] [--check]"
root=$(cd "$(dirname "$0")/.." && pwd)
sysroot=$root/build/windows/sysroot
check_only=false
for arg in "$@"; do
    case "$arg" in
        --check) check_only=true ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *) sysroot=$arg ;;
    esac
done
mkdir -p "$sysroot"
sysroot=$(cd "$sysroot" && pwd)
work=$(dirname "$sysroot")
logs=$work/logs
toolchain=$root/packaging/mingw-w64-x86_64.cmake
marker=$sysroot/.complete

triplet=x86_64-w64-mingw32
cc=$triplet-gcc-posix
jobs=$(nproc 2>/dev/null || echo 2)
tool_packages="gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix mingw-w64-x86-64-dev
               binutils-mingw-w64-x86-64 wine wine64 dpkg-dev cmake make autoconf automake
               libtool pkg-config"
# NAME:DEV_PACKAGE, in build order (libzip and curl after zlib).
libraries="zlib:zlib1g-dev zstd:libzstd-dev lzma:liblzma-dev xxhash:libxxhash-dev
           cmocka:libcmocka-dev libzip:libzip-dev
           curl:libcurl4-openssl-dev"

say() { echo "mcz: $*" >&2; }
as_root() { [ "$(id -u)" -eq 0 ] && ! $check_only; }
apt() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"; }

# ---- tools ----
have_tools() {
    command -v "$cc" >/dev/null 2>&1 && command -v "$triplet-g++-posix" >/dev/null 2>&1 &&
        command -v "$triplet-ar" >/dev/null 2>&1 &&
        command -v wine >/dev/null 2>&1 && [ -x /usr/lib/wine/wine64 ] &&
        command -v dpkg-source >/dev/null 2>&1 && command -v cmake >/dev/null 2>&1 &&
        command -v autoreconf >/dev/null 2>&1 && command -v libtoolize >/dev/null 2>&1 &&
        command -v pkg-config >/dev/null 2>&1
}
# apt-get source needs a deb-src entry (have_deb_src, add_deb_src) ...
source "$(dirname "${BASH_SOURCE[0]}")/deb-src.sh"

# ... and that index downloaded (apt-get update since the entry was added).
have_sources() { have_deb_src && [ -n "$(apt-cache showsrc zlib1g-dev 2>/dev/null | head -n1)" ]; }

if ! have_tools || ! have_sources; then
    if ! as_root; then
        say "building for Windows needs packages or Debian's source index, missing here; run:"
        have_deb_src || echo "    (add a deb-src entry for the Debian archive to" \
                             "/etc/apt/sources.list.d/ first)" >&2
        echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends" \
             $tool_packages >&2
        echo "(or run 'make windows' as root)" >&2
        exit 1
    fi
    have_deb_src || add_deb_src
    apt update -qq
    if ! have_tools; then
        say "installing for Windows:" $tool_packages
        apt install -y -qq --no-install-recommends $tool_packages >/dev/null
    fi
fi

# ---- the libraries ----
# A library's recipe: its build function, the steps it shares and the toolchain file, hashed.
# The marker line of a library built with other steps does not count.
recipe() {
    { declare -f "build_$1" cmake_build configure_build; cat "$toolchain"; } | sha1sum | cut -c1-12
}
built() { [ -f "$marker" ] && grep -q "^$1 [^ ]* [^ ]* $(recipe "$1") " "$marker"; }

# Versions of a source package the index lists, newest first (Debian's version order).
source_versions() {
    local vs=() i j t
    mapfile -t vs < <(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -u)
    for ((i = 0; i < ${#vs[@]}; i++)); do
        for ((j = i + 1; j < ${#vs[@]}; j++)); do
            if dpkg --compare-versions "${vs[j]}" gt "${vs[i]}"; then
                t=${vs[i]} vs[i]=${vs[j]} vs[j]=$t
            fi
        done
    done
    [ ${#vs[@]} -eq 0 ] || printf '%s\n' "${vs[@]}"
}

# fetch NAME DEV_PACKAGE DIR: unpacks the newest fetchable source into DIR/src and sets
# src_package and src_version. Returns 1 when no version of it can be fetched.
fetch() {
    local name=$1 dev=$2 dir=$3 srcpkg v first=""
    srcpkg=$(apt-cache showsrc "$dev" 2>/dev/null | sed -n 's/^Package: //p' | head -n1)
    [ -n "$srcpkg" ] || { say "$name: no source package builds $dev"; return 1; }
    for v in $(source_versions "$dev"); do
        [ -n "$first" ] || first=$v
        rm -rf "$dir" && mkdir -p "$dir"
        if (cd "$dir" && apt-get source -qq -o APT::Sandbox::User=root "$srcpkg=$v") \
               >>"$logs/$name.log" 2>&1; then
            mv "$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n1)" "$dir/src"
            [ "$v" = "$first" ] ||
                say "WARNING: $name: the source of $srcpkg $first cannot be fetched;" \
                    "using $v, the newest that can"
            src_package=$srcpkg src_version=$v
            return 0
        fi
    done
    say "$name: no version of the source package $srcpkg can be fetched:"
    grep '^E: ' "$logs/$name.log" | sort -u | sed 's/^/    /' >&2
    return 1
}

# Steps shared by the build functions, run inside the unpacked source.
cmake_build() { # SOURCE_DIR CMAKE_ARGS...
    local dir=$1; shift
    cmake -S "$dir" -B _build -G "Unix Makefiles" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        -DMCZ_WINDOWS_SYSROOT="$sysroot" -DCMAKE_INSTALL_PREFIX="$sysroot" \
        -DCMAKE_BUILD_TYPE=Release "$@"
    cmake --build _build -j "$jobs"
    cmake --install _build
}
configure_build() { # CONFIGURE_ARGS...
    ./configure --host=$triplet --prefix="$sysroot" --disable-shared --enable-static \
        CC=$cc PKG_CONFIG_LIBDIR="$sysroot/lib/pkgconfig" "$@"
    make -j "$jobs"
    make install
}

build_zlib() {
    # zlib's configure takes the target from CHOST; static only (--static).
    CHOST=$triplet CC=$cc AR=$triplet-ar RANLIB=$triplet-ranlib \
        ./configure --static --prefix="$sysroot"
    make -j "$jobs" libz.a
    make install
}
build_zstd() {
    cmake_build build/cmake -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_TESTS=OFF \
        -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_STATIC=ON -DZSTD_MULTITHREAD_SUPPORT=ON
}
build_lzma() {
    configure_build --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo \
        --disable-lzma-links --disable-scripts --disable-doc --disable-nls
}
build_xxhash() {
    # A plain Makefile: its static library and .pc file, installed by hand (its install
    # target also builds and installs xxhsum).
    make -j "$jobs" CC=$cc AR=$triplet-ar PREFIX="$sysroot" libxxhash.a libxxhash.pc
    install -d "$sysroot/include" "$sysroot/lib/pkgconfig"
    install -m 644 xxhash.h xxh3.h "$sysroot/include/"
    install -m 644 libxxhash.a "$sysroot/lib/"
    install -m 644 libxxhash.pc "$sysroot/lib/pkgconfig/"
}
build_cmocka() {
    cmake_build . -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF
    mv "$sysroot/lib/libcmocka-static.a" "$sysroot/lib/libcmocka.a"
    rm -rf "$sysroot/lib/libcmocka.dll.a" "$sysroot/bin/cmocka.dll" "$sysroot/lib/cmake/cmocka"
}
build_libzip() {
    cmake_build . -DBUILD_SHARED_LIBS=OFF -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF \
        -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF \
        -DENABLE_COMMONCRYPTO=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF \
        -DENABLE_OPENSSL=OFF -DENABLE_WINDOWS_CRYPTO=OFF
}
build_curl() {
    # Debian's OpenSSL flavour: the tree without its last two patches (NSS, then GnuTLS),
    # which rename the library for the other flavours.
    patch -R -p1 <debian/patches/99_nss.patch >/dev/null
    patch -R -p1 <debian/patches/90_gnutls.patch >/dev/null
    cmake_build . -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
        -DHTTP_ONLY=ON -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF -DCURL_ZLIB=OFF \
        -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF \
        -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_DISABLE_LDAP=ON \
        -DENABLE_MANUAL=OFF -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none
}

mkdir -p "$logs"
# A library none of whose sources could be fetched is recorded as "NAME unavailable VERSION"
# (the newest version then listed) and not tried again while the index lists no newer one.
unavailable_line() { echo "$1 unavailable $(source_versions "$2" | head -n1)"; }
known_unavailable() { [ -f "$marker" ] && grep -qx "$(unavailable_line "$1" "$2")" "$marker"; }
record() { # NAME LINE: the marker's line for NAME
    [ -f "$marker" ] && sed -i "/^$1 /d" "$marker"
    echo "$2" >>"$marker"
}
left_out() {
    say "left out, no source could be fetched:$unavailable (make windows goes on without" \
        "them; delete their 'unavailable' lines in $marker to try again)"
    exit 3
}

unavailable="" todo=""
for entry in $libraries; do
    name=${entry%%:*} dev=${entry#*:}
    if built "$name"; then continue; fi
    if known_unavailable "$name" "$dev"; then unavailable="$unavailable $name"; continue; fi
    todo="$todo $entry"
done
todo=${todo# }
if [ -z "$todo" ]; then
    [ -z "$unavailable" ] || left_out
    exit 0
fi
if $check_only; then
    say "not built for Windows yet in $sysroot:" $(for e in $todo; do echo "${e%%:*}"; done)
    say "run: bash .ci/deps-windows.sh $sysroot (or make windows)"
    exit 1
fi

total_start=$SECONDS
for entry in $todo; do
    name=${entry%%:*} dev=${entry#*:}
    dir=$work/src/$name
    : >"$logs/$name.log"
    start=$SECONDS
    if ! fetch "$name" "$dev" "$dir"; then
        record "$name" "$(unavailable_line "$name" "$dev")"
        unavailable="$unavailable $name"
        rm -rf "$dir"
        continue
    fi
    say "building $name ($src_package $src_version) for Windows, log $logs/$name.log"
    # errexit holds in the subshell only outside a condition: its status is taken after.
    set +e
    (cd "$dir/src" && set -ex && "build_$name") >>"$logs/$name.log" 2>&1
    status=$?
    set -e
    if [ $status -ne 0 ]; then
        say "building $name failed; the end of $logs/$name.log:"
        tail -n 20 "$logs/$name.log" >&2
        exit 1
    fi
    seconds=$((SECONDS - start))
    record "$name" "$name $src_package $src_version $(recipe "$name") ${seconds}s"
    say "built $name in ${seconds}s"
    rm -rf "$dir"
done
say "Windows libraries in $sysroot ($((SECONDS - total_start))s this run):"
sed 's/^/    /' "$marker" >&2
[ -z "$unavailable" ] || left_out
