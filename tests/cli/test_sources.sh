#!/usr/bin/env bash
# Every input comes through one library source, whatever it is: a file, standard input ("-"), a
# FIFO, or an http:// URL (nginx, started here on 127.0.0.1 as test_http.sh does). What a verb
# or mcz-replay gives for each is what it gives for the file (names aside):
#   - an MCH and its .mct over HTTP (-info, -dumpMap, -stat, -dump of one context by number,
#     which reads the .mct the server has beside it, -copy, -toc URL);
#   - mcs -recover of a URL (a cut archive, a cut MCH);
#   - "-" and a FIFO for every verb and program that reads a collection.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$MCZ_ROOT/tests/cli/nginx.sh"
M="$BIN/mcs"
R="$BIN/mcz-replay"

"$BIN/mchgen" --seed 11 --contexts 400 --out "$T/c.mch" >/dev/null 2>&1
"$M" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 64K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }

# run_as OUT KIND FILE CMD...: runs CMD with IN replaced by FILE given as KIND (file, stdin,
# fifo, url) and OUT. by $T/o.KIND.EXT; stdout, stderr and the exit code into OUT, the input's
# name and the output's replaced by X and Y, rates and an MCH's offsets left out.
run_as() {
    local out=$1 kind=$2 file=$3; shift 3
    local name=$file args=() a feeder=
    case $kind in
    stdin) name=- ;;
    fifo) rm -f "$T/fifo"; mkfifo "$T/fifo"; name=$T/fifo
          cat "$file" >"$T/fifo" 2>/dev/null </dev/null & feeder=$! ;;
    url) name=$U/$(basename "$file") ;;
    esac
    for a in "$@"; do a=${a//IN/$name}; args+=("${a//OUT./$T/o.$kind.}"); done
    if [ "$kind" = stdin ]; then timeout 60 "${args[@]}" <"$file" >"$out" 2>&1
    else timeout 60 "${args[@]}" </dev/null >"$out" 2>&1; fi
    echo "exit $?" >>"$out"
    [ -n "$feeder" ] && { kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null; }
    [ "$kind" = stdin ] && name="standard input"
    # a rate is no result; an MCH's offsets are said for a file only (mcs_diag_text)
    sed -i "s|$name|X|g; s|$T/o\.$kind\.|Y.|g; s| at [0-9]* per second| at N per second|;
            s| at offset [0-9]*||" "$out"
}

# alike NAME FILE KINDS CMD...: CMD gives for each of KINDS what it gives for the file, and
# writes the same output file, if it writes one.
alike() {
    local name=$1 file=$2 kinds=$3 kind o; shift 3
    run_as "$T/want" file "$file" "$@"
    for kind in $kinds; do
        run_as "$T/got" "$kind" "$file" "$@"
        same "$name, input $kind: what the file gives" "$T/want" "$T/got"
        for o in "$T"/o.file.*; do
            [ -e "$o" ] || continue
            same "$name, input $kind: the same ${o##*/o.file.}" "$o" "$T/o.$kind.${o##*/o.file.}"
        done
    done
    rm -f "$T"/o.*
}

# --- "-" and a FIFO, everywhere a collection is read
for f in c.mch c.mcz; do
    for verb in -info -dumpMap -stat -verify -dump -integ -jitflags -printJITEEVersion; do
        alike "mcs $verb $f" "$T/$f" "stdin fifo" "$M" $verb IN
    done
    alike "mcs -copy $f" "$T/$f" "stdin fifo" "$M" -copy 7-300 IN OUT.mch
    alike "mcs -removeDup $f" "$T/$f" "stdin fifo" "$M" -removeDup IN OUT.mch
    alike "mcs -strip $f" "$T/$f" "stdin fifo" "$M" -strip 5-9 IN OUT.mch
    alike "mcs -export $f" "$T/$f" "stdin fifo" "$M" -export IN OUT.mch
    alike "mcz-replay $f" "$T/$f" "stdin fifo" "$R" -q -j 2 --details OUT.csv IN
done
alike "mcs -convert c.mch" "$T/c.mch" "stdin fifo" "$M" -convert IN OUT.mcz
head -c $(( $(stat -c %s "$T/c.mcz") * 2 / 3 )) "$T/c.mcz" >"$T/cut.mcz"
head -c $(( $(stat -c %s "$T/c.mch") * 2 / 3 )) "$T/c.mch" >"$T/cut.mch"
alike "mcs -recover of a cut archive" "$T/cut.mcz" "stdin fifo" "$M" -recover IN OUT.mcz
alike "mcs -recover of a cut MCH" "$T/cut.mch" "stdin fifo" "$M" -recover IN OUT.mch

if [ ! -x "$NGINX" ] || [ ! -x /usr/bin/python3 ]; then
    echo "ok - skip the URLs: nginx (Debian nginx-light) or python3 is not installed"
    cli_done; exit
fi
trap 'nginx_stop; rm -rf "$T"' EXIT
nginx_start "$T" || { fail "setup: nginx does not start"; cli_done; exit; }
U=http://127.0.0.1:$NGINX_PORT
cp "$T/c.mch" "$T/c.mcz" "$T/cut.mcz" "$T/cut.mch" "$T/www/"

# --- an MCH over HTTP (-info of a file names its .mct, which a URL's does not look for: the
# table comes after)
for verb in -info -dumpMap -stat -verify; do
    alike "mcs $verb of an MCH" "$T/www/c.mch" url "$M" $verb IN
done
alike "mcs -copy of an MCH" "$T/www/c.mch" url "$M" -copy 7-300 IN OUT.mch
"$M" -toc "$T/www/c.mch" >/dev/null 2>&1
[ -s "$T/www/c.mch.mct" ] || fail "setup: mcs -toc"

# --- its .mct over HTTP: a context by number is found through it
: >"$T/logs/access.log"
alike "mcs -dump 250 of an MCH, with its .mct" "$T/www/c.mch" url "$M" -dump 250 IN
grep -q '^/c.mch.mct 206 ' "$T/logs/access.log" && pass "mcs -dump 250 of a URL: reads the .mct beside it" ||
    fail "mcs -dump 250 of a URL: no request for its .mct ($(cat "$T/logs/access.log" | tr '\n' ' '))"
printf 'INDX\1\0\0\0' >"$T/bad.mct"
cat "$T/bad.mct" >"$T/www/c.mch.mct" # a table that cannot be this file's: not used
alike "mcs -dump 250 of an MCH, with a wrong .mct" "$T/www/c.mch" url "$M" -dump 250 IN
"$M" -toc "$T/www/c.mch" >/dev/null 2>&1

# --- mcs -toc of a URL: the table in the current directory, as the file's
mkdir -p "$T/here" && cd "$T/here"
ok_run "mcs -toc of an MCH's URL" "$M" -toc "$U/c.mch"
same "mcs -toc of an MCH's URL: ./c.mch.mct, the file's table" "$T/www/c.mch.mct" "$T/here/c.mch.mct"
cd - >/dev/null

# --- mcs -recover of a URL
alike "mcs -recover of a cut archive's URL" "$T/www/cut.mcz" url "$M" -recover IN OUT.mcz
alike "mcs -recover of a cut MCH's URL" "$T/www/cut.mch" url "$M" -recover IN OUT.mch
fail_run "mcs -recover of a URL that is not there" "$M" -recover "$U/none.mcz" "$T/none.mcz"
contains "mcs -recover of a URL that is not there: names it" "$T/err" "$U/none.mcz"
cli_done
