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

/* The printf checks of include/mcz.h (MinGW's C99 printf on Windows). */
#define MCZ_PRINTF(f, a) MCZ_DIAG_PRINTF(f, a)

/* The xz codec is optional at build time (liblzma): a build with MCZ_NO_XZ (a collector's,
 * CMake's MCZ_WITH_XZ=OFF, the Makefile's XZ=0) refuses to write xz chunks and to decode them,
 * MCZ_EUNSUPPORTED with this reason; zstd archives are the same bytes either way. */
#ifdef MCZ_NO_XZ
#define MCZ_HAVE_XZ 0
#else
#define MCZ_HAVE_XZ 1
#endif
#define MCZ_NO_XZ_REASON "xz: this build of mcz has no xz codec (built without liblzma)"

/*
 * Every failure inside the library is reported through the public mcz_diag_set (mcz.h), one
 * breakpoint on mcz_diag_vset catching them all, the tools' included:
 * `return mcz_diag_set(d, MCZ_ECORRUPT, mcz_at_offset(off), mcz_in_context(n), "...")`, and
 * mcz_diag_set_subject(d, path) where the file is known. The message never names the file.
 */

/* The decimal value of environment variable name (a tuning variable, e.g. a bound in bytes), or
 * fallback when it is unset, empty or not a whole decimal number. */
uint64_t mcz_env_u64(const char *name, uint64_t fallback);

/* mcz_diag_set naming the subject too (the file or URL that failed), in one call that returns
 * the code: `return mcz_fail_at(d, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", why)`. */
int mcz_fail_at(mcz_diag *d, const char *subject, int code, mcz_diag_offset offset,
                mcz_diag_context context, const char *fmt, ...) MCZ_PRINTF(6, 7);

/*
 * For clang's static analyzer (make analyze), which reads one file at a time: the two return
 * their code, as common/error.c does. Without this it follows `return mcz_diag_set(...)` as if
 * it could return MCZ_OK or 1 (success), into paths no run takes. Every code given is a
 * constant or a variable: evaluating it twice here changes nothing.
 */
#if defined(__clang_analyzer__) && !defined(MCZ_ERROR_DEFINITIONS)
#define mcz_diag_set(d, code, ...) ((void)mcz_diag_set(d, code, __VA_ARGS__), (code))
#define mcz_fail_at(d, subject, code, ...)                                                     \
    ((void)mcz_fail_at(d, subject, code, __VA_ARGS__), (code))
#endif

#endif /* MCZ_COMMON_H */
