/*
 * hash.c - SuperPMI's 128-bit hash (MurmurHash3 x64 128, seed 0) and its text form: the 16
 * bytes h1 then h2, each little-endian, as 32 uppercase hex digits (Hash::HashBuffer).
 */
#include <assert.h>
#include <limits.h>
#include <murmurhash.h>

#include "mcz_common.h"

void mcz_murmur3_128(const void *data, size_t len, mcz_hash128 *out)
{
    /* The library takes an unsigned length; everything mcz hashes is sized by a u32. */
    assert(len <= UINT_MAX);
    uint64_t h[2];
    lmmh_x64_128(data, (unsigned)len, 0, h);
    mcz_put_le64(out->bytes, h[0]);
    mcz_put_le64(out->bytes + 8, h[1]);
}

void mcz_hash_hex(const mcz_hash128 *h, char out[33])
{
    static const char digits[] = "0123456789ABCDEF";
    for (size_t i = 0; i < sizeof h->bytes; i++) {
        out[2 * i] = digits[h->bytes[i] >> 4];
        out[2 * i + 1] = digits[h->bytes[i] & 0xF];
    }
    out[32] = '\0';
}

bool mcz_hash_is_zero(const mcz_hash128 *h)
{
    uint8_t any = 0;
    for (size_t i = 0; i < sizeof h->bytes; i++)
        any |= h->bytes[i];
    return any == 0;
}
