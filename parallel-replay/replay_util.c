/*
 * replay_util.c - small helpers every part of mcz-replay uses.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

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
