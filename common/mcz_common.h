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
 * Every failure inside the library is reported through the public mcz_diag_set (mcz.h), one
 * breakpoint on mcz_diag_vset catching them all, the tools' included:
 * `return mcz_diag_set(d, MCZ_ECORRUPT, mcz_at_offset(off), mcz_in_context(n), "...")`, and
 * mcz_diag_set_subject(d, path) where the file is known. The message never names the file.
 */

/* mcz_diag_set naming the subject too (the file or URL that failed), in one call that returns
 * the code: `return mcz_fail_at(d, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", why)`. */
int mcz_fail_at(mcz_diag *d, const char *subject, int code, mcz_diag_offset offset,
                mcz_diag_context context, const char *fmt, ...) MCZ_PRINTF(6, 7);

/* The former form, offset and context as two int64_t the compiler cannot tell apart, whose
 * messages may still begin with "PATH: ": only for the call sites of io/, reader/ and writer/
 * not yet converted (`mcz_fail(d, code, off, n, "%s: ...", path, ...)` becomes the call above
 * with the path left out of the text and named by mcz_diag_set_subject). Goes with the last. */
int mcz_fail_unchecked(mcz_diag *d, int code, int64_t offset, int64_t context, const char *fmt,
                       ...) MCZ_PRINTF(5, 6);
#define mcz_fail mcz_fail_unchecked

#endif /* MCZ_COMMON_H */
