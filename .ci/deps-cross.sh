#!/usr/bin/env bash
# Installs what cross-building and testing mcz for another Linux machine needs on Debian 12:
# the cross compiler, qemu-user to run the result, and the libraries mcz links, of that
# architecture. Called by `make aarch64`, `make s390x` and their test targets.
#   deps-cross.sh aarch64|s390x SYSROOT [--check]
# The libraries come as Debian's multiarch -dev packages, installed beside this machine's
# (under /usr/lib/<triplet>). A multiarch package installs only at the very version of this
# machine's own, and Debian's security archive does not carry every architecture (bookworm-
# security has no s390x): when apt cannot co-install them, the same Debian packages of the
# main archive are downloaded and unpacked into SYSROOT instead (SYSROOT/usr/lib/<triplet>,
# SYSROOT/usr/include), and the Makefile and tests/cross/run.sh look there. The C library
# itself comes twice: the cross compiler's (libc6-dev-<arch>-cross, under /usr/<triplet>) to
# link, and libc6:<arch>, whose dynamic loader qemu-user runs (co-installable: Debian 12's
# point releases carry its fixes for every architecture).
# As root it runs dpkg --add-architecture and apt-get; otherwise it prints the commands.
set -eu
usage="usage: deps-cross.sh aarch64|s390x SYSROOT [--check]"
machine=${1:?$usage}
sysroot=${2:?$usage}
check_only=false
[ "${3:-}" = "--check" ] && check_only=true
case "$machine" in
    aarch64) arch=arm64 triplet=aarch64-linux-gnu ;;
    s390x) arch=s390x triplet=s390x-linux-gnu ;;
    *) echo "deps-cross.sh: unknown machine '$machine' (aarch64 or s390x)" >&2; exit 2 ;;
esac
dev="libzstd-dev liblzma-dev libxxhash-dev libmurmurhash-dev libcurl4-openssl-dev libcmocka-dev libzip-dev"
tools="gcc-$triplet libc6-dev-$arch-cross qemu-user libc6:$arch"
libs=""
for p in $dev; do libs="$libs $p:$arch"; done
libs=${libs# }

installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'; }
have_tools() {
    command -v "$triplet-gcc" >/dev/null 2>&1 && command -v "qemu-$machine" >/dev/null 2>&1 &&
        installed "libc6:$arch" && installed "libc6-dev-$arch-cross"
}
have_libs() {
    # a sysroot unpacked for another list of libraries (an older checkout) is made again
    [ "$(cat "$sysroot/.complete" 2>/dev/null)" = "$libs" ] && return 0
    for p in $libs; do installed "$p" || return 1; done
}
have_tools && have_libs && exit 0
if $check_only || [ "$(id -u)" -ne 0 ]; then
    echo "mcz: building for $machine needs packages that are missing; install them with:" >&2
    echo "    sudo dpkg --add-architecture $arch && sudo apt-get update &&" \
         "sudo apt-get install -y $tools $libs" >&2
    echo "(or run 'make $machine' as root)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    dpkg --add-architecture "$arch"
    apt-get update -qq
fi
if ! have_tools; then
    echo "mcz: installing for $machine: $tools" >&2
    apt-get install -y -qq --no-install-recommends $tools >/dev/null
fi
have_libs && exit 0
if apt-get install -s -qq --no-install-recommends $libs >/dev/null 2>&1; then
    echo "mcz: installing for $machine: $libs" >&2
    apt-get install -y -qq --no-install-recommends $libs >/dev/null
    exit 0
fi

# Not co-installable: every package of the libraries' closure that is not installed already,
# at the candidate version of the $arch archive, unpacked into the sysroot.
echo "mcz: $libs cannot be installed beside this machine's own (different versions);" \
     "unpacking the Debian packages into $sysroot" >&2
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
              --no-breaks --no-replaces --no-enhances $libs 2>/dev/null |
          grep -v '^ ' | grep ":$arch\$" | sort -u)
rm -rf "$sysroot" && mkdir -p "$sysroot/debs"
fetch=""
for p in $closure; do
    # The C library's development files come with the cross compiler (libc6-dev-<arch>-cross);
    # the machine's own (libc6-dev, pulled in by zlib1g-dev under libzip-dev) would shadow them
    # with a libc.so script naming /usr/lib/<triplet> paths that exist only on that machine.
    case "$p" in
        libc6-dev:*|libc-dev-bin:*|linux-libc-dev:*|libcrypt-dev:*|libnsl-dev:*|libtirpc-dev:*|rpcsvc-proto:*)
            continue ;;
    esac
    installed "$p" || fetch="$fetch $p"
done
(cd "$sysroot/debs" && apt-get download -qq -o APT::Sandbox::User=root $fetch)
for deb in "$sysroot"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
rm -rf "$sysroot/debs"
# The .so links of the -dev packages are absolute in places (/lib/...): make them relative
# to the sysroot, so that the linker and the loader find the unpacked library.
find "$sysroot" -type l -lname '/*' | while read -r link; do
    ln -sfnr "$sysroot$(readlink "$link")" "$link"
done
echo "$libs" > "$sysroot/.complete"
