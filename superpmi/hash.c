/*
 * hash.c - SuperPMI's 128-bit hash (MurmurHash3 x64 128, seed 0) and its text form: the 16
 * bytes h1 then h2, each little-endian, as 32 uppercase hex digits (Hash::HashBuffer).
 */
#include "mcz_common.h"

/*
 * MurmurHash3 x64 128 (Austin Appleby's public-domain reference, MurmurHash3_x64_128) written
 * here, so that no build needs a library for it (a collector needs zstd and the C library
 * only). tests/unit/test_murmur3.c holds it to the digest the reference (Debian's
 * libmurmurhash) gave over every length of a block and its tails at every alignment, and to
 * the reference's published test vectors. Blocks are read little-endian whatever the host, as
 * the reference reads them on x86-64.
 */

static uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

#define MURMUR_C1 0x87c37b91114253d5ull
#define MURMUR_C2 0x4cf5ad432745937full

static uint64_t mix_k1(uint64_t k1)
{
    return rotl64(k1 * MURMUR_C1, 31) * MURMUR_C2;
}

static uint64_t mix_k2(uint64_t k2)
{
    return rotl64(k2 * MURMUR_C2, 33) * MURMUR_C1;
}

/* The tail's bytes [from, to) as a little-endian word (fewer than 8 bytes: the rest zero). */
static uint64_t tail_word(const uint8_t *tail, size_t from, size_t to)
{
    uint64_t k = 0;
    for (size_t i = to; i > from; i--)
        k = (k << 8) | tail[i - 1];
    return k;
}

static void murmur3_x64_128(const void *data, size_t len, uint64_t h[2])
{
    const uint8_t *p = data;
    size_t blocks = len / 16;
    uint64_t h1 = 0, h2 = 0; /* seed 0 */
    for (size_t i = 0; i < blocks; i++, p += 16) {
        h1 ^= mix_k1(mcz_get_le64(p));
        h1 = (rotl64(h1, 27) + h2) * 5 + 0x52dce729;
        h2 ^= mix_k2(mcz_get_le64(p + 8));
        h2 = (rotl64(h2, 31) + h1) * 5 + 0x38495ab5;
    }
    size_t rest = len & 15;
    if (rest > 8)
        h2 ^= mix_k2(tail_word(p, 8, rest));
    if (rest > 0)
        h1 ^= mix_k1(tail_word(p, 0, rest < 8 ? rest : 8));
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    h[0] = h1;
    h[1] = h2;
}

void mcz_murmur3_128(const void *data, size_t len, mcz_hash128 *out)
{
    uint64_t h[2];
    murmur3_x64_128(data, len, h);
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
