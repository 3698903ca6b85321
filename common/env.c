/* env.c - the library's tuning variables (MCZ_INDEX_STREAM_MIN, MCZ_INDEX_SPILL_MIN...). */
#include <stdlib.h>

#include "mcz_common.h"

uint64_t mcz_env_u64(const char *name, uint64_t fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    return *end == '\0' ? (uint64_t)v : fallback;
}
