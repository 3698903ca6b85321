/*
 * replay_util.c - small helpers every part of mcz-replay uses.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

static int fail_v(mcz_diag *d, int code, int64_t context, int64_t offset, const char *fmt,
                  va_list ap) REPLAY_PRINTF(5, 0);

static int fail_v(mcz_diag *d, int code, int64_t context, int64_t offset, const char *fmt,
                  va_list ap)
{
    if (!d)
        return code;
    mcz_diag_clear(d);
    d->code = code;
    d->context = context;
    d->offset = offset;
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    return code;
}

int replay_fail(mcz_diag *d, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(d, code, -1, -1, fmt, ap);
    va_end(ap);
    return code;
}

int replay_fail_at(mcz_diag *d, int code, int64_t context, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(d, code, context, offset, fmt, ap);
    va_end(ap);
    return code;
}

/* Skips "NAME: " at the front of *text. */
static void skip_prefix(const char **text, const char *name)
{
    size_t n = strlen(name);
    if (n && strncmp(*text, name, n) == 0 && strncmp(*text + n, ": ", 2) == 0)
        *text += n + 2;
}

/* Appends to buf (of cap bytes, *len used); once full, later parts are dropped. */
static void text_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    REPLAY_PRINTF(4, 5);

static void text_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len = n < 0 ? cap : *len + (size_t)n;
}

const char *replay_where_text(const replay_where *w, const mcz_diag *d, char *buf, size_t cap)
{
    assert(cap > 0);
    char chunk[32] = "", context[32] = "", known[32] = "";
    if (w->chunk >= 0)
        snprintf(chunk, sizeof chunk, "chunk %lld", (long long)w->chunk);
    if (w->context > 0 && w->context != w->known)
        snprintf(context, sizeof context, "context %lld", (long long)w->context);
    if (w->known > 0)
        snprintf(known, sizeof known, "context %lld", (long long)w->known);
    const char *text = d->message[0] ? d->message : mcz_error_name(d->code);
    skip_prefix(&text, w->path ? w->path : "");
    skip_prefix(&text, chunk);
    skip_prefix(&text, context);
    skip_prefix(&text, known);
    size_t len = 0;
    buf[0] = '\0';
    if (w->path)
        text_append(buf, cap, &len, "%s: ", w->path);
    if (chunk[0])
        text_append(buf, cap, &len, "%s: ", chunk);
    if (context[0])
        text_append(buf, cap, &len, w->offset >= 0 ? "%s " : "%s: ", context);
    if (w->offset >= 0)
        text_append(buf, cap, &len, "at offset %lld: ", (long long)w->offset);
    text_append(buf, cap, &len, "%s", text);
    return buf;
}

bool replay_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    return tool_parse_count(s, false, min, max, out) == MCZ_OK;
}

int replay_grow(void *array, size_t *cap, size_t count, size_t elem_size)
{
    if (count < *cap)
        return MCZ_OK;
    size_t n = *cap ? *cap * 2 : 64;
    void *old;
    memcpy(&old, array, sizeof old); /* array is the address of some T * */
    void *grown = n <= SIZE_MAX / elem_size ? realloc(old, n * elem_size) : NULL;
    if (!grown)
        return MCZ_ENOMEM;
    memcpy(array, &grown, sizeof grown);
    *cap = n;
    return MCZ_OK;
}

static const char *const kind_names[] = {
#define REPLAY_X_NAME(name, text) text,
    REPLAY_KIND_LIST(REPLAY_X_NAME)
#undef REPLAY_X_NAME
};

const char *replay_kind_name(int kind)
{
    return kind >= 0 && kind < REPLAY_KIND_COUNT ? kind_names[kind] : "unknown";
}

int replay_kind_parse(const char *name)
{
    for (int k = 0; k < REPLAY_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}
