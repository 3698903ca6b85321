#!/bin/sh
# mcs-man-verbs.sh MCS: prints a help2man include file (help2man --include) with a VERBS
# section: each verb that `MCS --help` lists, with its full help (`MCS --help VERB`) word for
# word, so the man page says what --help says. The options every verb takes are left out of
# each verb (the page's OPTIONS has them once). Exits non-zero when MCS lists no verb or a
# verb's help fails.
set -eu
mcs=$1
verbs=$("$mcs" --help | sed -n 's/^  [ *] -\([A-Za-z]*\) .*/\1/p')
[ -n "$verbs" ] || { echo "$0: $mcs --help lists no verb" >&2; exit 1; }
printf '%s\n' "[VERBS]" \
    'Each verb with its options, as \fBmcs \-\-help\fR \fIVERB\fR prints them.'
for verb in $verbs; do
    help=$("$mcs" --help "$verb")
    printf '.SS "\\-%s"\n.nf\n' "$verb"
    # roff: a backslash is \e, a dash \- (so it can be copied), a leading . or ' is escaped.
    printf '%s\n' "$help" | sed -e '/^Options of every verb/,$d' -e 's/\\/\\e/g' \
        -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
    printf '.fi\n'
done
