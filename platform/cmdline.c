/*
 * cmdline.c - an argument vector as one Windows command line. Windows hands a program one
 * string, which its C runtime (and CommandLineToArgvW) splits into words: a word is quoted
 * when it is empty or holds a blank or a quote; inside quotes a quote is escaped by a
 * backslash, and backslashes are doubled only where a quote (or the closing one) follows
 * them. Plain string work, compiled on every system; the Windows files start programs with it.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "platform.h"

/* Appends word to o, quoted when it must be; returns the end. */
static char *put_word(char *o, const char *a)
{
    if (*a && !strpbrk(a, " \t\n\v\"")) {
        size_t len = strlen(a);
        memcpy(o, a, len);
        return o + len;
    }
    *o++ = '"';
    for (;; a++) {
        size_t slashes = 0;
        while (*a == '\\')
            a++, slashes++;
        /* backslashes are literal unless a quote, or the closing one, follows them */
        size_t times = !*a || *a == '"' ? 2 * slashes : slashes;
        memset(o, '\\', times);
        o += times;
        if (!*a)
            break;
        if (*a == '"')
            *o++ = '\\';
        *o++ = *a;
    }
    *o++ = '"';
    return o;
}

char *mcz_os_command_line(char *const argv[])
{
    size_t cap = 1;
    for (size_t i = 0; argv[i]; i++)
        cap += 2 * strlen(argv[i]) + 3; /* every character escaped, two quotes, a space */
    char *line = malloc(cap), *o = line;
    if (!line)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            *o++ = ' ';
        o = put_word(o, argv[i]);
    }
    *o = '\0';
    return line;
}
