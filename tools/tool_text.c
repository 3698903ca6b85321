/* tool_text.c - words compared (what "did you mean ...?" answers are made of), and copied. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static int ascii_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

int tool_strncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ca = ascii_lower((unsigned char)a[i]), cb = ascii_lower((unsigned char)b[i]);
        if (ca != cb || ca == 0)
            return ca - cb;
    }
    return 0;
}

int tool_strcasecmp(const char *a, const char *b) { return tool_strncasecmp(a, b, SIZE_MAX); }

size_t tool_edit_distance(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    size_t row[64];
    if (alen >= 64 || blen >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t best = diag + (tolower((unsigned char)a[i - 1]) !=
                                  tolower((unsigned char)b[j - 1]));
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    return row[blen];
}

char *tool_strndup(const char *s, size_t n)
{
    const char *end = memchr(s, '\0', n);
    size_t len = end ? (size_t)(end - s) : n;
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}
