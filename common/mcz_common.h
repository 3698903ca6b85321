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
 * Every failure inside the library is reported through the public mcz_diag_set (mcz.h):
 * `return mcz_fail(d, MCZ_ECORRUPT, off, n, "...")`. A breakpoint on mcz_diag_vset catches them
 * all, the tools' included.
 */
#define mcz_fail mcz_diag_set

#endif /* MCZ_COMMON_H */
