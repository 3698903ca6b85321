/* error.c - the error list's names, and the single failure-reporting function. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MCZ_ERROR_DEFINITIONS /* the functions themselves, not the analyzer's model */
#include "mcz_common.h"

const char *mcz_error_name(int code)
{
    switch (code) {
#define MCZ_X_CASE(name, value, text) \
    case value:                       \
        return text;
        MCZ_ERROR_LIST(MCZ_X_CASE)
#undef MCZ_X_CASE
    default:
        return "unknown error";
    }
}

void mcz_diag_clear(mcz_diag *d)
{
    if (!d)
        return;
    d->code = MCZ_OK;
    d->offset = -1;
    d->context = -1;
    d->message[0] = '\0';
    d->subject[0] = '\0';
}

int mcz_diag_vset(mcz_diag *d, int code, mcz_diag_offset offset, mcz_diag_context context,
                  const char *fmt, va_list ap)
{
    if (!d)
        return code;
    d->code = code;
    d->offset = offset.value;
    d->context = context.value;
    d->subject[0] = '\0';
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    return code;
}

int mcz_diag_set(mcz_diag *d, int code, mcz_diag_offset offset, mcz_diag_context context,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcz_diag_vset(d, code, offset, context, fmt, ap);
    va_end(ap);
    return code;
}

int mcz_fail_at(mcz_diag *d, const char *subject, int code, mcz_diag_offset offset,
                mcz_diag_context context, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcz_diag_vset(d, code, offset, context, fmt, ap);
    va_end(ap);
    mcz_diag_set_subject(d, subject);
    return code;
}

void mcz_diag_set_subject(mcz_diag *d, const char *subject)
{
    if (d)
        snprintf(d->subject, sizeof d->subject, "%s", subject ? subject : "");
}

/* The "context N at offset X: " part of a diag's line, empty when neither is known. */
static void where_text(const mcz_diag *d, char *buf, size_t cap)
{
    if (d->context > 0 && d->offset >= 0)
        snprintf(buf, cap, "context %" PRId64 " at offset %" PRId64 ": ", d->context, d->offset);
    else if (d->context > 0)
        snprintf(buf, cap, "context %" PRId64 ": ", d->context);
    else if (d->offset >= 0)
        snprintf(buf, cap, "at offset %" PRId64 ": ", d->offset);
    else
        buf[0] = '\0';
}

const char *mcz_diag_format(const mcz_diag *d, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    const char *text = d->message[0] ? d->message : mcz_error_name(d->code);
    char where[80];
    where_text(d, where, sizeof where);
    snprintf(buf, cap, "%s%s%s%s", d->subject, d->subject[0] ? ": " : "", where, text);
    return buf;
}
