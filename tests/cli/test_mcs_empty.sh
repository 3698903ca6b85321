#!/usr/bin/env bash
# An input with nothing in it, an empty regular file or /dev/null, is refused by every verb that
# reads contexts with the same line, "FILE: empty file: no method contexts", exit 1, and no
# output. (-merge skips empty files with a line saying so, as SuperPMI's mcs does.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$BIN/mcs

"$BIN/mchgen" --seed 3 --contexts 2 --out "$T/a.mch" >/dev/null 2>&1 ||
    fail "mchgen writes a collection"
: >"$T/empty.mch"

# refused LABEL FILE VERB ARGS...: ARGS with @ standing for FILE; one line naming FILE.
refused() {
    local label=$1 f=$2; shift 2
    local args=() a
    for a in "$@"; do args+=("${a//@/$f}"); done
    fail_run "$label: $1 refuses it" "$M" "${args[@]}"
    if [ "$(grep -c '' "$T/err")" -eq 1 ] &&
        grep -qxF "mcs: $f: empty file: no method contexts" "$T/err"; then
        pass "$label: $1 says so once, naming the file"
    else
        fail "$label: $1 says so once, naming the file"; sed 's/^/    /' "$T/err" | head -5
    fi
}

for f in "$T/empty.mch" /dev/null; do
    label=$([ "$f" = /dev/null ] && echo /dev/null || echo "an empty file")
    for verb in -info -verify -integ -dump -dumpMap -ildump -jitflags -toc -dumpToc; do
        refused "$label" "$f" "$verb" @
    done
    refused "$label" "$f" -stat @ "$T/out.csv"
    refused "$label" "$f" -copy 1 @ "$T/out.mch"
    refused "$label" "$f" -strip 1 @ "$T/out.mch"
    refused "$label" "$f" -convert @ "$T/out.mcz"
    refused "$label" "$f" -export @ "$T/out.mch"
    refused "$label" "$f" -removeDup @ "$T/out.mch"
    refused "$label" "$f" -fracture 1 @ "$T/part"
    refused "$label" "$f" -recover @ "$T/out.mcz"
    cp "$T/a.mch" "$T/target.mch"
    refused "$label" "$f" -concat "$T/target.mch" @
    same "$label: -concat leaves its target alone" "$T/a.mch" "$T/target.mch"
    if ls -a "$T" | grep -q "^out\.\|^part\|\.tmp\."; then fail "$label: no output left behind"
    else pass "$label: no output left behind"; fi
done

# -toc of an empty file writes no .mct beside it.
[ -e "$T/empty.mch.mct" ] && fail "-toc of an empty file writes no .mct" ||
    pass "-toc of an empty file writes no .mct"

cli_done
