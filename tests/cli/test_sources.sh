#!/usr/bin/env bash
# Every input comes through one library source, whatever it is: a file, standard input ("-"), a
# FIFO, or an http:// URL (nginx, started here on 127.0.0.1 as test_http.sh does). What a verb
# or mcz-replay gives for each is what it gives for the file (names aside):
#   - an MCH and its .mct over HTTP (-info, -dumpMap, -stat, -dump of one context by number,
#     which reads the .mct the server has beside it, -copy, -toc URL);
#   - mcs -recover of a URL (a cut archive, a cut MCH);
#   - "-" and a FIFO for every verb and program that reads a collection;
#   - mcz-replay over "-", a FIFO and a URL, .mch and .mcz, with and without --exec (the
#     superpmi stand-in tests/collector/spmi_today.c as the command), and a -c list given as a
#     FIFO (spooled, then held to the cap a file is).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$MCZ_ROOT/tests/cli/nginx.sh"
M="$BIN/mcs"
R="$BIN/mcz-replay"
SP=$(cd "${BUILD:-build}" && pwd)/tests/spmi_today
[ -x "$SP" ] || { fail "setup: $SP is built"; cli_done; exit; }
: >"$T/base.so"
# the stand-in's words for --exec (superpmi.py's -v ewi, a JIT); run with -j 1, as the
# command's stderr, passed through as written, interleaves with other workers' otherwise
EXEC=(--exec-batch 0 --exec-word "$SP" --exec-word -v --exec-word ewi --exec-word "$T/base.so")

"$BIN/mchgen" --seed 11 --contexts 200 --out "$T/c.mch" >/dev/null 2>&1
"$M" -convert "$T/c.mch" "$T/c.mcz" --chunk-size 64K >/dev/null 2>&1
[ -s "$T/c.mcz" ] || { fail "setup: mchgen, mcs -convert"; cli_done; exit; }

# run_as OUT KIND FILE CMD...: runs CMD with IN replaced by FILE given as KIND (file, stdin,
# fifo, url) and OUT. by $T/o.KIND.EXT; stdout, stderr and the exit code into OUT, the input's
# name and the output's replaced by X and Y, rates left out.
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
    # a rate is no result
    sed -i "s|$name|X|g; s|$T/o\.$kind\.|Y.|g; s| at [0-9]* per second| at N per second|" "$out"
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
    alike "mcs -copy $f" "$T/$f" "stdin fifo" "$M" -copy 7-150 IN OUT.mch
    alike "mcs -removeDup $f" "$T/$f" "stdin fifo" "$M" -removeDup IN OUT.mch
    alike "mcs -strip $f" "$T/$f" "stdin fifo" "$M" -strip 5-9 IN OUT.mch
    alike "mcs -export $f" "$T/$f" "stdin fifo" "$M" -export IN OUT.mch
    alike "mcz-replay $f" "$T/$f" "stdin fifo" "$R" -q -j 2 --details OUT.csv IN
    alike "mcz-replay --exec $f" "$T/$f" "stdin fifo" "$R" -q -j 1 -f OUT.mcl --details OUT.csv \
        "${EXEC[@]}" IN
done
# --exec-original gives the command the collection's path, which a stream has not
FAIL_EXIT=255 fail_run "mcz-replay --exec-original of standard input: refused" \
    "$R" -q --exec-original "${EXEC[@]}" - <"$T/c.mch"
contains "mcz-replay --exec-original of standard input: says why" "$T/err" "has no path to give"

# --- a -c list given as a FIFO: read as a file's; one over the cap refused as a file's is
printf '5\r\n7\r\n9\r\n100\r\n' >"$T/list.mcl"
"$R" -q -j 2 -c "$T/list.mcl" --details "$T/list.file.csv" "$T/c.mch" >/dev/null 2>&1
rm -f "$T/fifo.mcl"; mkfifo "$T/fifo.mcl"
cat "$T/list.mcl" >"$T/fifo.mcl" &
ok_run "mcz-replay -c FIFO.mcl" timeout 60 "$R" -q -j 2 -c "$T/fifo.mcl" --details "$T/list.fifo.csv" \
    "$T/c.mch"
wait
same "mcz-replay -c FIFO.mcl: the contexts of the file's list" "$T/list.file.csv" "$T/list.fifo.csv"
grep -q '^100,' "$T/list.fifo.csv" && pass "mcz-replay -c FIFO.mcl: replays the list's last" ||
    fail "mcz-replay -c FIFO.mcl: replays the list's last"
yes 1 | head -c 16777216 >"$T/big.mcl" # one byte past SuperPMI's cap
FAIL_EXIT=255 fail_run "mcz-replay -c of an .mcl file over the cap" "$R" -q -c "$T/big.mcl" "$T/c.mch"
cp "$T/err" "$T/big.file.err"
rm -f "$T/fifo.mcl"; mkfifo "$T/fifo.mcl"
cat "$T/big.mcl" >"$T/fifo.mcl" &
FAIL_EXIT=255 fail_run "mcz-replay -c of a FIFO.mcl over the cap" \
    timeout 60 "$R" -q -c "$T/fifo.mcl" "$T/c.mch"
wait
sed -i "s|$T/big.mcl|X|" "$T/big.file.err"
sed -i "s|$T/fifo.mcl|X|" "$T/err"
same "mcz-replay -c of a FIFO.mcl over the cap: the file's message" "$T/big.file.err" "$T/err"
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
alike "mcs -copy of an MCH" "$T/www/c.mch" url "$M" -copy 7-150 IN OUT.mch
for f in c.mch c.mcz; do
    alike "mcz-replay of a URL, $f" "$T/www/$f" url "$R" -q -j 2 --details OUT.csv IN
    alike "mcz-replay --exec of a URL, $f" "$T/www/$f" url "$R" -q -j 1 -f OUT.mcl \
        --details OUT.csv "${EXEC[@]}" IN
done
FAIL_EXIT=255 fail_run "mcz-replay --exec-original of a URL: refused" \
    "$R" -q --exec-original "${EXEC[@]}" "$U/c.mch"
contains "mcz-replay --exec-original of a URL: says why" "$T/err" "has no path to give"
"$M" -toc "$T/www/c.mch" >/dev/null 2>&1
[ -s "$T/www/c.mch.mct" ] || fail "setup: mcs -toc"
alike "mcs -info of an MCH with its .mct" "$T/www/c.mch" url "$M" -info IN
contains "mcs -info of an MCH's URL: its toc: line" "$T/got" "toc:           X.mct"

# --- its .mct over HTTP: a context by number is found through it
: >"$T/logs/access.log"
alike "mcs -dump 150 of an MCH, with its .mct" "$T/www/c.mch" url "$M" -dump 150 IN
grep -q '^/c.mch.mct 206 ' "$T/logs/access.log" && pass "mcs -dump 150 of a URL: reads the .mct beside it" ||
    fail "mcs -dump 150 of a URL: no request for its .mct ($(cat "$T/logs/access.log" | tr '\n' ' '))"
printf 'INDX\1\0\0\0' >"$T/bad.mct"
cat "$T/bad.mct" >"$T/www/c.mch.mct" # a table that cannot be this file's: not used
alike "mcs -dump 150 of an MCH, with a wrong .mct" "$T/www/c.mch" url "$M" -dump 150 IN
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
