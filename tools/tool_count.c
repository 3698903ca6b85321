/*
 * tool_count.c - counts as the tools take them on command lines and in their own text files: one
 * parser, so that every tool accepts and refuses the same spellings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* Multiplier of a size suffix: K, M, G, optionally followed by B or iB; 0 when unknown. */
static uint64_t suffix_scale(const char *s)
{
    static const char letters[] = "KMG";
    const char *at = *s ? strchr(letters, toupper((unsigned char)*s)) : NULL;
    if (!at || *at == '\0')
        return 0;
    const char *rest = s + 1;
    if (*rest != '\0' && tool_strcasecmp(rest, "B") != 0 && tool_strcasecmp(rest, "iB") != 0)
        return 0;
    return (uint64_t)1 << (10 * (at - letters + 1));
}

int tool_parse_count(const char *text, bool suffix, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !out || *text < '0' || *text > '9') /* strtoull would take signs and spaces */
        return MCZ_EINVAL;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    uint64_t scale = *end == '\0' ? 1 : suffix ? suffix_scale(end) : 0;
    if (errno != 0 || scale == 0 || value > max / scale || value * scale < min)
        return MCZ_EINVAL;
    *out = value * scale;
    return MCZ_OK;
}
