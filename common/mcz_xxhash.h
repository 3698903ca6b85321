/*
 * mcz_xxhash.h - xxHash (XXH3, 64 and 128 bits) for the checksums and dedup keys, from
 * xxhash.h alone: common/xxhash.c compiles its implementation once into the library, its
 * names prefixed mcz_ (XXH_NAMESPACE), so no libxxhash is linked and a program that has its
 * own xxHash (a runtime, zstd's copy) keeps it. The state types are public here
 * (XXH_STATIC_LINKING_ONLY): a hash state lives on the stack or in its owner, never allocated.
 * The header is libxxhash-dev's (one file, BSD-2-Clause): a build elsewhere may point at any
 * copy of xxHash 0.8.
 */
#ifndef MCZ_XXHASH_H
#define MCZ_XXHASH_H

#define XXH_NAMESPACE mcz_
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#endif /* MCZ_XXHASH_H */
