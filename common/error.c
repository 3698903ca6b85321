/* error.c - the error list's names, and the single failure-reporting function. */
#include <stdio.h>
#include <string.h>

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
}

int mcz_diag_vset(mcz_diag *d, int code, int64_t offset, int64_t context, const char *fmt,
                  va_list ap)
{
    if (!d)
        return code;
    d->code = code;
    d->offset = offset;
    d->context = context;
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    return code;
}

int mcz_diag_set(mcz_diag *d, int code, int64_t offset, int64_t context, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcz_diag_vset(d, code, offset, context, fmt, ap);
    va_end(ap);
    return code;
}
