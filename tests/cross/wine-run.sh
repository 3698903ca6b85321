#!/usr/bin/env bash
# wine-run.sh WINE PROGRAM.exe ARGS...: runs a Windows program under Wine as the tests' own
# programs are run (tests/cross/windows-programs.sh makes mcs, mchgen and mcz-replay wrappers of
# it), with its exit code, its standard input and output as they are, and its standard error
# without Wine's own messages.
#
# Debian's Wine has no preloader, and now and then a process fails before the program's first
# instruction (twice in half an hour of these tests run two at a time beside other builds; never
# in 12,000 starts one after another on an idle machine, ASLR on or off): Wine prints
# "wine: failed to map the shared user data: c0000018" (err:virtual, STATUS_CONFLICTING_ADDRESSES:
# the page it needs at 0x7ffe0000 was not free) and exits 1. Under WINEDEBUG=-all that is an
# exit 1 with nothing on stdout or stderr, which a test took for the program's. So Wine's
# virtual-memory errors are asked for (WINEDEBUG=-all,err+virtual), and when that one is
# printed the program, which never ran, is started again (three times at most); each such start
# is counted in $WINE_RUN_RETRIES when it names a file. Wine's messages are kept out of what
# the program wrote to stderr.
set -u
wine=$1
shift
err=$(mktemp "${TMPDIR:-/tmp}/wine-run.XXXXXX") || exit 125
trap 'rm -f "$err"' EXIT
for attempt in 1 2 3; do
    WINEDEBUG=-all,err+virtual "$wine" "$@" 2>"$err"
    rc=$?
    grep -q 'failed to map the shared user data' "$err" || break
    [ -n "${WINE_RUN_RETRIES:-}" ] && echo "$(basename "$1") ${*:2}" >>"$WINE_RUN_RETRIES"
done
grep -v -E '^([0-9a-f]+:)?err:virtual:' "$err" >&2
exit "$rc"
