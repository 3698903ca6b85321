/*
 * mcl.c - context-number lists: SuperPMI's command-line range syntax ("1-5,9,12-14") and .mcl
 * files (one decimal number per line, written "%d\r\n"), mch-format §5.4.
 *
 * Both forms must be strictly increasing and start at >= 1, as SuperPMI requires. mcz is
 * stricter than SuperPMI's reader in what it calls a number (no skipping of garbage before the
 * digits, no blank lines) and more lenient in one place: a last line without its newline, which
 * SuperPMI's reader mishandles, is accepted. Lists are kept as coalesced ranges, so a list reads
 * back identical after encoding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "mcz_common.h"

#define MCL_NUMBER_MAX 0x7FFFFFFFu /* SuperPMI numbers contexts with a signed 32-bit int */

/* Appends [first, last] to l, which must stay strictly increasing; merges touching ranges. */
static int list_push(mcz_list *l, size_t *cap, uint32_t first, uint32_t last)
{
    if (l->count > 0) {
        mcz_range *prev = &l->ranges[l->count - 1];
        if (first == prev->last + 1) {
            prev->last = last;
            return MCZ_OK;
        }
    }
    if (l->count == *cap) {
        size_t grown = *cap ? *cap * 2 : 16;
        mcz_range *r = realloc(l->ranges, grown * sizeof *r);
        if (!r)
            return MCZ_ENOMEM;
        l->ranges = r;
        *cap = grown;
    }
    l->ranges[l->count].first = first;
    l->ranges[l->count].last = last;
    l->count++;
    return MCZ_OK;
}

static uint32_t list_last(const mcz_list *l)
{
    return l->count ? l->ranges[l->count - 1].last : 0;
}

/* Reads a decimal number of at most MCL_NUMBER_MAX at *pos; returns false when there is none. */
static bool number_read(const char *s, size_t len, size_t *pos, uint32_t *value)
{
    size_t i = *pos;
    uint64_t v = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > MCL_NUMBER_MAX)
            return false;
        i++;
    }
    if (i == *pos)
        return false;
    *pos = i;
    *value = (uint32_t)v;
    return true;
}

/* ---- Range syntax ---- */

static int range_item(const char *text, size_t len, size_t *pos, mcz_list *l, size_t *cap,
                      mcz_diag *diag)
{
    size_t start = *pos;
    uint32_t first, last;
    if (!number_read(text, len, pos, &first))
        return mcz_fail(diag, MCZ_EINVAL, (int64_t)start, -1,
                        "range list '%s': expected a number of at most %u at column %zu", text,
                        MCL_NUMBER_MAX, start + 1);
    last = first;
    if (*pos < len && text[*pos] == '-') {
        ++*pos;
        size_t at = *pos;
        if (!number_read(text, len, pos, &last))
            return mcz_fail(diag, MCZ_EINVAL, (int64_t)at, -1,
                            "range list '%s': expected a number after '-' at column %zu", text,
                            at + 1);
        if (first >= last)
            return mcz_fail(diag, MCZ_EINVAL, (int64_t)start, -1,
                            "range list '%s': range %u-%u must go up", text, first, last);
    }
    if (first == 0)
        return mcz_fail(diag, MCZ_EINVAL, (int64_t)start, -1,
                        "range list '%s': context numbers start at 1", text);
    if (first <= list_last(l))
        return mcz_fail(diag, MCZ_EINVAL, (int64_t)start, -1,
                        "range list '%s': %u does not follow %u (numbers must increase)", text,
                        first, list_last(l));
    if (list_push(l, cap, first, last) != MCZ_OK)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    return MCZ_OK;
}

int mcz_list_parse_ranges(const char *text, mcz_list *out, mcz_diag *diag)
{
    if (!text || !out)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_list_parse_ranges: NULL argument");
    memset(out, 0, sizeof *out);
    size_t len = strlen(text), pos = 0, cap = 0;
    if (len == 0)
        return mcz_fail(diag, MCZ_EINVAL, 0, -1, "empty range list");
    int rc = MCZ_OK;
    while (rc == MCZ_OK) {
        rc = range_item(text, len, &pos, out, &cap, diag);
        if (rc != MCZ_OK || pos == len)
            break;
        if (text[pos] != ',')
            rc = mcz_fail(diag, MCZ_EINVAL, (int64_t)pos, -1,
                          "range list '%s': unexpected '%c' at column %zu", text, text[pos],
                          pos + 1);
        pos++;
    }
    if (rc != MCZ_OK)
        mcz_list_free(out);
    return rc;
}

/* ---- .mcl files ---- */

/* One line's number: digits, then an optional CR before the line end. */
static int mcl_line(const char *line, size_t len, unsigned line_no, int64_t at, mcz_list *l,
                    size_t *cap, mcz_diag *diag)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len == 0)
        return mcz_fail(diag, MCZ_EINVAL, at, -1, "line %u: blank line", line_no);
    size_t pos = 0;
    uint32_t n;
    if (!number_read(line, len, &pos, &n) || pos != len)
        return mcz_fail(diag, MCZ_EINVAL, at, -1,
                        "line %u: not a decimal context number of at most %u", line_no,
                        MCL_NUMBER_MAX);
    if (n == 0)
        return mcz_fail(diag, MCZ_EINVAL, at, -1, "line %u: context numbers start at 1",
                        line_no);
    if (n <= list_last(l))
        return mcz_fail(diag, MCZ_EINVAL, at, (int64_t)n,
                        "line %u: %u does not follow %u (numbers must increase)", line_no, n,
                        list_last(l));
    if (list_push(l, cap, n, n) != MCZ_OK)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    return MCZ_OK;
}

int mcz_list_parse_mcl(const uint8_t *buf, size_t len, mcz_list *out, mcz_diag *diag)
{
    if ((!buf && len) || !out)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_list_parse_mcl: NULL argument");
    memset(out, 0, sizeof *out);
    const char *text = (const char *)buf;
    size_t pos = 0, cap = 0;
    unsigned line_no = 0;
    int rc = MCZ_OK;
    while (pos < len && rc == MCZ_OK) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - (text + pos)) : len - pos;
        rc = mcl_line(text + pos, line_len, ++line_no, (int64_t)pos, out, &cap, diag);
        pos += line_len + (nl ? 1 : 0);
    }
    if (rc != MCZ_OK)
        mcz_list_free(out);
    return rc;
}

/* ---- Arguments ---- */

static bool is_range_syntax(const char *arg)
{
    if (arg[0] == '\0')
        return false;
    return strspn(arg, "0123456789,-") == strlen(arg);
}

static bool has_mcl_suffix(const char *arg)
{
    const char *dot = strrchr(arg, '.');
    return dot && strcasecmp(dot, ".mcl") == 0;
}

bool mcz_list_is_arg(const char *arg)
{
    return arg && (is_range_syntax(arg) || has_mcl_suffix(arg));
}

/* Reads a whole .mcl file, refusing one larger than SuperPMI would read. */
static int mcl_file_read(const char *path, FILE *f, uint8_t **buf, size_t *len, mcz_diag *diag)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "%s: not a regular file", path);
    if ((uint64_t)st.st_size > MCZ_MCL_MAX_SIZE)
        return mcz_fail(diag, MCZ_ELIMIT, -1, -1,
                        "%s: %lld bytes, more than the %u an .mcl file may hold", path,
                        (long long)st.st_size, MCZ_MCL_MAX_SIZE);
    size_t size = (size_t)st.st_size;
    *buf = malloc(size ? size : 1);
    if (!*buf)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: out of memory", path);
    *len = fread(*buf, 1, size, f);
    if (*len != size || ferror(f))
        return mcz_fail(diag, MCZ_EIO, (int64_t)*len, -1, "%s: short read", path);
    return MCZ_OK;
}

static int mcl_file_parse(const char *path, mcz_list *out, mcz_diag *diag)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = mcl_file_read(path, f, &buf, &len, diag);
    fclose(f);
    if (rc == MCZ_OK) {
        mcz_diag local;
        mcz_diag_clear(&local);
        rc = mcz_list_parse_mcl(buf, len, out, &local);
        if (rc != MCZ_OK)
            mcz_fail(diag, rc, local.offset, local.context, "%s: %s", path, local.message);
    }
    free(buf);
    return rc;
}

int mcz_list_from_arg(const char *arg, mcz_list *out, mcz_diag *diag)
{
    if (!arg || !out)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_list_from_arg: NULL argument");
    memset(out, 0, sizeof *out);
    if (is_range_syntax(arg))
        return mcz_list_parse_ranges(arg, out, diag);
    if (has_mcl_suffix(arg))
        return mcl_file_parse(arg, out, diag);
    return mcz_fail(diag, MCZ_EINVAL, -1, -1,
                    "'%s' is neither a range list (like 1-5,9) nor an .mcl file", arg);
}

/* ---- Queries and encoding ---- */

bool mcz_list_contains(const mcz_list *l, uint32_t number)
{
    if (!l)
        return false;
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (number < l->ranges[mid].first)
            hi = mid;
        else if (number > l->ranges[mid].last)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

uint64_t mcz_list_size(const mcz_list *l)
{
    uint64_t n = 0;
    for (size_t i = 0; l && i < l->count; i++)
        n += (uint64_t)l->ranges[i].last - l->ranges[i].first + 1;
    return n;
}

/* Bytes of "%u\r\n" for every number in [first, last], counted per number of digits. */
static uint64_t range_text_size(uint32_t first, uint32_t last)
{
    uint64_t total = 0, band_lo = 1, band_hi = 9;
    for (unsigned digits = 1; digits <= 10; digits++) {
        uint64_t lo = first > band_lo ? first : band_lo;
        uint64_t hi = last < band_hi ? last : band_hi;
        if (lo <= hi)
            total += (hi - lo + 1) * (digits + 2);
        band_lo = band_hi + 1;
        band_hi = band_hi * 10 + 9;
    }
    return total;
}

int mcz_list_encode_mcl(const mcz_list *l, char **out, size_t *len)
{
    if (!l || (!l->ranges && l->count) || !out || !len)
        return MCZ_EINVAL;
    *out = NULL;
    *len = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < l->count && total <= MCZ_MCL_MAX_SIZE; i++)
        total += range_text_size(l->ranges[i].first, l->ranges[i].last);
    if (total > MCZ_MCL_MAX_SIZE)
        return MCZ_ELIMIT;
    char *buf = malloc((size_t)total + 1); /* + the NUL snprintf writes */
    if (!buf)
        return MCZ_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < l->count; i++) {
        for (uint64_t n = l->ranges[i].first; n <= l->ranges[i].last; n++)
            at += (size_t)snprintf(buf + at, (size_t)total + 1 - at, "%u\r\n", (unsigned)n);
    }
    buf[at] = '\0';
    *out = buf;
    *len = at;
    return MCZ_OK;
}

void mcz_list_free(mcz_list *l)
{
    if (!l)
        return;
    free(l->ranges);
    l->ranges = NULL;
    l->count = 0;
}
