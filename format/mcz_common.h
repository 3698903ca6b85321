/*
 * mcz_common.h - internal helpers shared by the library layers (format/, writer/, reader/).
 * Not installed, not for tools: they use include/ only.
 */
#ifndef MCZ_COMMON_H
#define MCZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MCZ_STATIC_LINKING_ONLY
#include "mcz.h"
#include "mcz_agnostic.h"
#include "mcz_superpmi.h"

#if defined(__GNUC__)
#define MCZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MCZ_PRINTF(f, a)
#endif


/*
 * The one place every failure is reported: fills d (when not NULL) and returns code, so callers
 * write `return mcz_fail(d, MCZ_ECORRUPT, off, n, "...")`. A breakpoint here catches them all.
 */
int mcz_fail(mcz_diag *d, int code, int64_t offset, int64_t context, const char *fmt, ...)
    MCZ_PRINTF(5, 6);

#endif /* MCZ_COMMON_H */
