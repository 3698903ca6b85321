/*
 * mcz_common.h - internal helpers shared by the library layers (format/, writer/, reader/).
 * Not installed, not for tools: they use mcz.h only.
 */
#ifndef MCZ_COMMON_H
#define MCZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcz.h"

#if defined(__GNUC__)
#define MCZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MCZ_PRINTF(f, a)
#endif

/* Little-endian access; never memcpy a struct to or from disk. */
static inline uint16_t mcz_get_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static inline uint32_t mcz_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t mcz_get_le64(const uint8_t *p)
{
    return (uint64_t)mcz_get_le32(p) | ((uint64_t)mcz_get_le32(p + 4) << 32);
}

static inline void mcz_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void mcz_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void mcz_put_le64(uint8_t *p, uint64_t v)
{
    mcz_put_le32(p, (uint32_t)v);
    mcz_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* True when [off, off+len) lies inside a buffer of `size` bytes. Written so it cannot overflow. */
static inline bool mcz_fits(size_t size, size_t off, size_t len)
{
    return off <= size && len <= size - off;
}

/*
 * The one place every failure is reported: fills d (when not NULL) and returns code, so callers
 * write `return mcz_fail(d, MCZ_ECORRUPT, off, n, "...")`. A breakpoint here catches them all.
 */
int mcz_fail(mcz_diag *d, int code, int64_t offset, int64_t context, const char *fmt, ...)
    MCZ_PRINTF(5, 6);

#endif /* MCZ_COMMON_H */
