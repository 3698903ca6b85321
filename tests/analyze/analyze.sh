#!/usr/bin/env bash
# The static analyzers (make analyze; HACKING.md "Static analysis"):
#   analyze.sh REPORT_DIR "CPPCHECK_ARGS" BUILD_COMMAND...
# runs clang's scan-build over BUILD_COMMAND (a build from clean: scan-build sees only what is
# compiled) and cppcheck over CPPCHECK_ARGS (its -D/-I flags and the directories to check).
# Exits 0 when neither reports anything; else 1, after every report (scan-build's HTML pages
# under REPORT_DIR/scan-build); 2 when an analyzer is missing.
#
# cppcheck's options that matter: --enable=warning adds the likely bugs (null pointers on some
# path, uninitialized reads, misuse of the standard library) to the errors it always reports;
# style and portability are left out (their advice is taste, or wrong here: readdir_r is
# deprecated). A -D flag makes it check that one configuration, as the compiler sees it, not
# every #ifdef combination. A false positive is made plain in the code, or silenced at its
# line with the reason: `// cppcheck-suppress ID` (--inline-suppr).
set -u
if [ $# -lt 3 ]; then
    echo "usage: analyze.sh REPORT_DIR CPPCHECK_ARGS BUILD_COMMAND..." >&2
    exit 2
fi
report=$1 cppcheck_args=$2
shift 2
for tool in scan-build:clang-tools cppcheck:cppcheck; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
        echo "analyze: ${tool%%:*} is missing (Debian package ${tool#*:}; .ci/deps.sh)" >&2
        exit 2
    fi
done
mkdir -p "$report"
status=0
echo "analyze: scan-build $*"
scan-build --status-bugs -o "$report/scan-build" "$@" >"$report/scan-build.log" 2>&1 ||
    status=1
grep -E 'warning:|error:|scan-build: ' "$report/scan-build.log"
echo "analyze: cppcheck $cppcheck_args"
# shellcheck disable=SC2086 # the flags and directories, split as given
cppcheck -q --std=c11 --enable=warning --inline-suppr --error-exitcode=1 $cppcheck_args ||
    status=1
if [ "$status" -ne 0 ]; then
    echo "analyze: FAILED (scan-build's log: $report/scan-build.log)" >&2
else
    echo "analyze: nothing reported"
fi
exit "$status"
