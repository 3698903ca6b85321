/* tool_csv.c - CSV fields as RFC 4180 writes them, the one writer of every program's CSV. */
#include <string.h>

#include "tool.h"

void tool_csv_field(FILE *f, const char *text)
{
    if (strpbrk(text, ",\"\r\n"))
        tool_csv_quoted(f, text);
    else
        fputs(text, f);
}

void tool_csv_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

/* One field from *p: quoted ("...", "" for a quote) or plain up to a comma or line end. */
static int csv_field(const char **p, const char *end, tool_csv_span *f)
{
    const char *s = *p;
    f->start = s;
    f->quoted = s < end && *s == '"';
    if (f->quoted) {
        for (s++;; s++) {
            if (s == end)
                return TOOL_CSV_BAD; /* an unterminated quote */
            if (*s == '"' && s + 1 < end && s[1] == '"')
                s++;
            else if (*s == '"')
                break;
        }
        s++;
        if (s < end && *s != ',' && *s != '\n' && *s != '\r')
            return TOOL_CSV_BAD; /* text after the closing quote */
    } else {
        while (s < end && *s != ',' && *s != '\n' && *s != '\r') {
            if (*s == '"')
                return TOOL_CSV_BAD; /* a quote inside an unquoted field */
            s++;
        }
    }
    f->len = (size_t)(s - f->start);
    *p = s;
    return 1;
}

int tool_csv_next(const char **p, const char *end, tool_csv_span *fields, size_t max,
                  size_t *count)
{
    const char *s = *p;
    *count = 0;
    if (s >= end)
        return 0;
    for (;;) {
        tool_csv_span scratch;
        if (fields && *count == max)
            return TOOL_CSV_WIDE;
        int rc = csv_field(&s, end, fields ? &fields[*count] : &scratch);
        if (rc != 1)
            return rc;
        (*count)++;
        if (s < end && *s == ',') {
            s++;
            continue;
        }
        if (s < end && *s == '\r')
            s++;
        if (s < end && *s != '\n')
            return TOOL_CSV_BAD; /* a CR alone */
        *p = s < end ? s + 1 : s;
        return 1;
    }
}

size_t tool_csv_value(const tool_csv_span *f, char *buf, size_t cap)
{
    const char *s = f->start, *e = f->start + f->len;
    if (f->quoted)
        s++, e--;
    size_t n = 0;
    for (; s < e; s++) {
        if (f->quoted && *s == '"')
            s++; /* "" is one quote */
        if (n + 1 < cap)
            buf[n] = *s;
        n++;
    }
    if (cap)
        buf[n < cap ? n : cap - 1] = '\0';
    return n;
}

bool tool_csv_is(const tool_csv_span *f, const char *text)
{
    char buf[256];
    size_t n = tool_csv_value(f, buf, sizeof buf);
    return n < sizeof buf && strcmp(buf, text) == 0;
}
