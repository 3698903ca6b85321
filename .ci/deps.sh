#!/usr/bin/env bash
# Installs what building and testing mcz needs on Debian 12, when it is missing.
# As root it runs apt-get; otherwise it prints the exact command to run and fails.
#   --check  install nothing: say what is missing, with the command that installs it, and fail
set -eu
check_only=false
[ "${1:-}" = "--check" ] && check_only=true
packages="build-essential pkg-config libzstd-dev liblzma-dev libxxhash-dev libcmocka-dev libmurmurhash-dev libcurl4-openssl-dev zstd parallel clang help2man cmake python3 nginx-light"
missing=""
have_pkgconfig() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$@"; }
have_pkgconfig libzstd liblzma libxxhash cmocka libmurmurhash libcurl || missing="$packages"
for tool in cc make zstd parallel clang help2man cmake; do
    command -v "$tool" >/dev/null 2>&1 || missing="$packages"
done
[ -x /usr/bin/python3 ] || missing="$packages" # Debian's, not another on PATH
[ -x /usr/sbin/nginx ] || missing="$packages" # nginx-light: tests/cli/test_http.sh serves archives
[ -z "$missing" ] && exit 0
if $check_only; then
    echo "mcz: build dependencies are missing; install them with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y $packages" >&2
    echo "(or run 'make deps', which does it as root)" >&2
    exit 1
fi
echo "mcz: installing build dependencies: $packages" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "mcz: not root; run: sudo apt-get update && sudo apt-get install -y $packages" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $packages >/dev/null
