/*
 * fuzz_csv.c - the -details CSV reader (tools/tool_csv.c) on arbitrary bytes. Every record read
 * must lie inside the text, give the same fields whether they are kept or only counted, and,
 * written back with tool_csv_field, read back to the same values; a mismatch aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define FIELDS_MAX 64 /* fields kept per record: wider records exercise TOOL_CSV_WIDE */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A field's value, malloc'ed and NUL-terminated (it may hold NUL bytes: *len says). */
static char *value_of(const tool_csv_span *f, size_t *len)
{
    *len = tool_csv_value(f, NULL, 0);
    char *v = malloc(*len + 1);
    if (!v)
        abort();
    if (tool_csv_value(f, v, *len + 1) != *len || v[*len] != '\0')
        abort();
    /* a buffer too small holds the value's start, cut */
    char cut[4];
    tool_csv_value(f, cut, sizeof cut);
    if (strncmp(cut, v, sizeof cut - 1) != 0 && memchr(v, '\0', *len) == NULL)
        abort();
    return v;
}

static void check_span(const tool_csv_span *f, const char *text, const char *end)
{
    if (f->start < text || f->len > (size_t)(end - f->start))
        abort();
    if (f->quoted && (f->len < 2 || f->start[0] != '"' || f->start[f->len - 1] != '"'))
        abort();
    if (!f->quoted && memchr(f->start, '"', f->len))
        abort();
}

/* The record's values written with tool_csv_field and read back: the same values. */
static void round_trip(char **values, size_t count)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    for (size_t i = 0; i < count; i++) {
        if (i)
            fputc(',', f);
        tool_csv_field(f, values[i]);
    }
    fputc('\n', f);
    if (fclose(f) != 0)
        abort();
    const char *p = text;
    tool_csv_span back[FIELDS_MAX];
    size_t n;
    if (tool_csv_next(&p, text + len, back, FIELDS_MAX, &n) != 1 || n != count ||
        p != text + len)
        abort();
    for (size_t i = 0; i < n; i++) {
        size_t vlen;
        char *v = value_of(&back[i], &vlen);
        if (strcmp(v, values[i]) != 0 || !tool_csv_is(&back[i], values[i]) != (vlen >= 256))
            abort();
        free(v);
    }
    free(text);
}

static void check_record(const tool_csv_span *fields, size_t count, const char *text,
                         const char *end)
{
    char *values[FIELDS_MAX];
    bool has_nul = false;
    for (size_t i = 0; i < count; i++) {
        size_t len;
        check_span(&fields[i], text, end);
        values[i] = value_of(&fields[i], &len);
        has_nul = has_nul || strlen(values[i]) != len;
        if (i > 0 && fields[i].start < fields[i - 1].start + fields[i - 1].len)
            abort();
    }
    if (!has_nul)
        round_trip(values, count);
    for (size_t i = 0; i < count; i++)
        free(values[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *end = text + size;
    const char *p = text, *q = text;
    for (;;) {
        tool_csv_span fields[FIELDS_MAX];
        size_t count, counted;
        const char *before = p;
        int rc = tool_csv_next(&p, end, fields, FIELDS_MAX, &count);
        int rc_counted = tool_csv_next(&q, end, NULL, 0, &counted);
        if (rc != 1) {
            /* the end only at the end; a wide record is one the counting walk reads */
            if ((rc == 0) != (before == end) || (rc == 0 && rc_counted != 0) ||
                (rc == TOOL_CSV_BAD && rc_counted != TOOL_CSV_BAD) ||
                (rc == TOOL_CSV_WIDE && (rc_counted == 0 || count != FIELDS_MAX)) ||
                (rc != 0 && rc != TOOL_CSV_BAD && rc != TOOL_CSV_WIDE))
                abort();
            break;
        }
        if (rc_counted != 1 || counted != count || p != q || p <= before || p > end ||
            count == 0 || count > FIELDS_MAX)
            abort();
        check_record(fields, count, text, end);
    }
    return 0;
}
