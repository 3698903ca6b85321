/*
 * xxhash.c - xxHash's implementation, compiled here once (mcz_xxhash.h says why).
 */
#define XXH_IMPLEMENTATION
#include "mcz_xxhash.h"
