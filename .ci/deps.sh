#!/usr/bin/env bash
# Installs what building and testing mcz needs on Debian 12, when it is missing.
# As root it runs apt-get; otherwise it prints the exact command to run and fails.
#   --check  install nothing: say what building needs and is missing, with the command that
#            installs it, and fail (a plain `make`; the test components are not checked)
# The test components are the real programs the tests start themselves on 127.0.0.1 (a
# one-node Slurm cluster with munge, gdb's gcore, nginx); make test, demo, asan and deps
# install them too.
set -eu
check_only=false
[ "${1:-}" = "--check" ] && check_only=true
packages="build-essential pkg-config libzstd-dev liblzma-dev libxxhash-dev libcmocka-dev libcurl4-openssl-dev libzip-dev zstd parallel clang clang-tools cppcheck help2man cmake ninja-build python3"
test_packages="slurm-wlm munge gdb nginx-light"
missing=""
have_pkgconfig() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$@"; }
have_pkgconfig libzstd liblzma libxxhash cmocka libcurl libzip || missing="$packages"
for tool in cc make zstd parallel clang scan-build cppcheck help2man cmake ninja; do
    command -v "$tool" >/dev/null 2>&1 || missing="$packages"
done
[ -x /usr/bin/python3 ] || missing="$packages" # Debian's, not another on PATH
missing_tests=""
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/gcore /usr/sbin/nginx; do
    [ -x "$tool" ] || missing_tests="$test_packages"
done
# Without root the tests that need a missing component skip it and say so.
if [ -n "$missing_tests" ] && ! $check_only && [ "$(id -u)" -eq 0 ]; then
    missing="$missing $missing_tests"
elif [ -n "$missing_tests" ] && ! $check_only; then
    echo "mcz: not root: tests needing $missing_tests will be skipped" >&2
fi
[ -z "$missing" ] && exit 0
missing=$(echo "$missing" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
if $check_only; then
    echo "mcz: build dependencies are missing; install them with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y $missing" >&2
    echo "(or run 'make deps', which does it as root)" >&2
    exit 1
fi
echo "mcz: installing: $missing" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "mcz: not root; run: sudo apt-get update && sudo apt-get install -y $missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
