/*
 * mcl.c - context-number lists: SuperPMI's command-line range syntax ("1-5,9,12-14") and .mcl
 * files (one decimal number per line), as superpmi/SUPERPMI.md "MCL files and range lists"
 * describes them.
 *
 * A list is accepted exactly when every SuperPMI version read accepts it and reads the same
 * numbers from it; where versions part ways (a sign, text beside a number, a range that goes
 * down, a number past 2^31-1) the input is refused with a message naming the spot, because
 * there is no one number SuperPMI would take. Lists are kept as coalesced ranges, so a list
 * reads back identical after encoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcz_common.h"
#include "../io/source.h"

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

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* c as a message shows it: itself when printable, else its byte value. */
static const char *char_shown(char c, char buf[8])
{
    if (c >= 0x20 && c < 0x7F)
        snprintf(buf, 8, "'%c'", c);
    else
        snprintf(buf, 8, "0x%02X", (unsigned char)c);
    return buf;
}

/* Reads the digits at *pos (there must be one) into *value and moves *pos past them all.
 * False when the number exceeds MCL_NUMBER_MAX. */
static bool number_read(const char *s, size_t len, size_t *pos, uint32_t *value)
{
    uint64_t v = 0;
    bool fits = true;
    for (; *pos < len && is_digit(s[*pos]); ++*pos) {
        v = v * 10 + (uint64_t)(s[*pos] - '0');
        if (v > MCL_NUMBER_MAX) {
            fits = false;
            v = MCL_NUMBER_MAX;
        }
    }
    *value = (uint32_t)v;
    return fits;
}

/* ---- Range syntax ----
 * The text is runs of digits (numbers) with runs of '-' and ',' between them; a ',' only
 * separates. A number with a '-' anywhere between it and the number before it (or the start of
 * the text) ends a range, which starts after the last number that did not itself end a range
 * (0 at the start: "-5" is 1-5) and adds start+1 .. end. Every other number stands for itself.
 * The numbers so produced must start at 1 and increase.
 */

typedef struct range_scan {
    const char *text;
    size_t len, pos;
    uint32_t start; /* the last number that did not end a range; 0 before the first */
    bool dash;      /* a '-' was seen since the last number */
    mcz_list *out;
    size_t cap;
} range_scan;

static int range_add(range_scan *r, size_t at, uint32_t first, uint32_t last, mcz_diag *diag)
{
    uint32_t prev = list_last(r->out);
    if (first == 0)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "range list '%s': context numbers start at 1", r->text);
    if (first <= prev && r->dash)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "range list '%s': the range ending in %u at column %zu continues from "
                            "%u, but the list is already at %u (numbers must increase)",
                            r->text, last, at + 1, first - 1, prev);
    if (first <= prev)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "range list '%s': %u does not follow %u (numbers must increase)",
                            r->text, first, prev);
    if (list_push(r->out, &r->cap, first, last) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    return MCZ_OK;
}

/* The number at r->pos: a context of its own, or the end of a range. */
static int range_number(range_scan *r, mcz_diag *diag)
{
    size_t at = r->pos;
    uint32_t n;
    if (!number_read(r->text, r->len, &r->pos, &n))
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "range list '%s': the number at column %zu is more than %u, the "
                            "largest "
                            "context number",
                            r->text, at + 1, MCL_NUMBER_MAX);
    if (!r->dash) {
        r->start = n;
        return range_add(r, at, n, n, diag);
    }
    if (n <= r->start) /* older SuperPMI refuses it, newer ones drop the range: refused */
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "range list '%s': range %u-%u must go up", r->text, r->start, n);
    int rc = range_add(r, at, r->start + 1, n, diag);
    r->dash = false;
    return rc;
}

static int range_scan_all(range_scan *r, mcz_diag *diag)
{
    if (r->len == 0)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(0), MCZ_NO_CONTEXT, "empty range list");
    char shown[8];
    while (r->pos < r->len) {
        char c = r->text[r->pos];
        if (is_digit(c)) {
            int rc = range_number(r, diag);
            if (rc != MCZ_OK)
                return rc;
            continue;
        }
        if (c != '-' && c != ',')
            return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)r->pos), MCZ_NO_CONTEXT,
                                "range list '%s': unexpected %s at column %zu (only digits, '-' "
                                "and ',')",
                                r->text, char_shown(c, shown), r->pos + 1);
        r->dash = r->dash || c == '-';
        r->pos++;
    }
    if (r->out->count == 0)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(0), MCZ_NO_CONTEXT,
                            "range list '%s' holds no number", r->text);
    if (r->dash)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset((int64_t)r->len - 1), MCZ_NO_CONTEXT,
                            "range list '%s' ends in a '-' with no number after it", r->text);
    return MCZ_OK;
}

int mcz_list_parse_ranges(const char *text, mcz_list *out, mcz_diag *diag)
{
    if (!text || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_list_parse_ranges: NULL argument");
    memset(out, 0, sizeof *out);
    range_scan r = {.text = text, .len = strlen(text), .out = out};
    int rc = range_scan_all(&r, diag);
    if (rc != MCZ_OK)
        mcz_list_free(out);
    return rc;
}

/* ---- .mcl files ----
 * A line (ended by LF; the last may lack it) holds one decimal number with optional white
 * space around it, or only white space (then it is skipped). SuperPMI versions disagree on a
 * sign, on text before or after the number and on a line of text without digits, so those are
 * refused.
 */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static size_t skip_blanks(const char *s, size_t len, size_t pos)
{
    while (pos < len && is_blank(s[pos]))
        pos++;
    return pos;
}

static int mcl_line(const char *line, size_t len, unsigned line_no, int64_t at, mcz_list *l,
                    size_t *cap, mcz_diag *diag)
{
    char shown[8];
    size_t pos = skip_blanks(line, len, 0);
    if (pos == len)
        return MCZ_OK;
    if (!is_digit(line[pos]))
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(at + (int64_t)pos), MCZ_NO_CONTEXT,
                            "line %u: %s where a context number should be (one decimal number per "
                            "line)",
                            line_no, char_shown(line[pos], shown));
    size_t digits_at = pos;
    uint32_t n;
    if (!number_read(line, len, &pos, &n))
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(at + (int64_t)digits_at),
                            MCZ_NO_CONTEXT,
                            "line %u: %.*s is more than %u, the largest context number", line_no,
                            (int)(pos - digits_at), line + digits_at, MCL_NUMBER_MAX);
    size_t rest = skip_blanks(line, len, pos);
    if (rest != len)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(at + (int64_t)rest), MCZ_NO_CONTEXT,
                            "line %u: %s after the number %u (one decimal number per line)",
                            line_no, char_shown(line[rest], shown), n);
    if (n == 0)
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(at + (int64_t)digits_at),
                            MCZ_NO_CONTEXT, "line %u: context numbers start at 1", line_no);
    if (n <= list_last(l))
        return mcz_diag_set(diag, MCZ_EINVAL, mcz_at_offset(at + (int64_t)digits_at),
                            MCZ_NO_CONTEXT,
                            "line %u: %u does not follow %u (numbers must increase)", line_no, n,
                            list_last(l));
    if (list_push(l, cap, n, n) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    return MCZ_OK;
}

int mcz_list_parse_mcl(const uint8_t *buf, size_t len, mcz_list *out, mcz_diag *diag)
{
    if ((!buf && len) || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_list_parse_mcl: NULL argument");
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

/* An .mcl file's bytes come in through a source like every input's: a file mapped, a URL's
 * fetched, and a FIFO, a device or "-" spooled by the source (to an unlinked temporary file,
 * not memory) and then held to the same cap as a file: a list larger than SuperPMI would read
 * is refused whatever it came through. The cap is checked before a byte is viewed, so a remote
 * list that large is never fetched. */
static int mcl_file_parse(const char *path, mcz_list *out, mcz_diag *diag)
{
    mcz_src *src = mcz_src_open(path, 0, diag);
    if (!src) /* the source names path as the subject */
        return diag && diag->code != MCZ_OK ? diag->code : MCZ_EIO;
    uint64_t size = mcz_src_size(src);
    const uint8_t *buf = NULL;
    int rc = MCZ_OK;
    if (size > MCZ_MCL_MAX_SIZE)
        rc = mcz_diag_set(diag, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                          "%llu bytes, more than the %u an .mcl file may hold",
                          (unsigned long long)size, MCZ_MCL_MAX_SIZE);
    else
        rc = mcz_src_view(src, 0, size, &buf, diag);
    if (rc == MCZ_OK) {
        mcz_diag local;
        mcz_diag_clear(&local);
        rc = mcz_list_parse_mcl(buf, (size_t)size, out, &local);
        if (rc != MCZ_OK) /* the line number locates it; an offset would only repeat it */
            mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", local.message);
        else if (out->count == 0) /* SuperPMI would read the first entry of an empty list */
            rc = mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                              "holds no context number");
    }
    mcz_src_close(src);
    if (rc != MCZ_OK)
        mcz_diag_set_subject(diag, path);
    return rc;
}

int mcz_list_from_arg(const char *arg, mcz_list *out, mcz_diag *diag)
{
    if (!arg || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_list_from_arg: NULL argument");
    memset(out, 0, sizeof *out);
    if (is_range_syntax(arg))
        return mcz_list_parse_ranges(arg, out, diag);
    if (has_mcl_suffix(arg))
        return mcl_file_parse(arg, out, diag);
    return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
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
