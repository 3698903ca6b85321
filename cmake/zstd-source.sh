#!/usr/bin/env bash
# zstd-source.sh DIR - Debian's zstd source tree, unpacked once into DIR/src (apt-get source; a
# deb-src entry is needed, .ci/deps-windows.sh adds one), its path printed: the tree a runtime
# vendors, for MCZ_ZSTD_SOURCE_DIR (tests/cli/test_cmake_host.sh, bench/collector-size.sh).
# As root it adds the deb-src entry when apt has none (.ci/deb-src.sh) and updates the index.
# The newest version the archive serves is taken: the index may name a newer one whose files
# are gone. Exit 1, apt-get's last lines on stderr, when none can be fetched.
set -u
dir=${1:?usage: zstd-source.sh DIR}
if [ -f "$dir/src/lib/zstd.h" ]; then echo "$dir/src"; exit 0; fi
source "$(dirname "${BASH_SOURCE[0]}")/../.ci/deb-src.sh"
if ! have_deb_src; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "zstd-source.sh: apt has no deb-src entry; as root, add one to" \
             "/etc/apt/sources.list.d/ and run apt-get update" >&2
        exit 1
    fi
    add_deb_src && apt-get update -qq >/dev/null 2>&1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for v in "" $(apt-cache showsrc zstd 2>/dev/null | sed -n 's/^Version: //p'); do
    rm -rf "$dir" && mkdir -p "$dir"
    if (cd "$dir" && apt-get source -qq -o APT::Sandbox::User=root "zstd${v:+=$v}") >"$log" 2>&1
    then
        mv "$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n1)" "$dir/src"
        echo "$dir/src"
        exit 0
    fi
done
echo "zstd-source.sh: no zstd source can be fetched (apt-get source zstd):" >&2
tail -5 "$log" >&2
exit 1
