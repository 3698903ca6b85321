/*
 * fuzz_layout.c - the packet layout (format/layout.c) on hostile bytes, both ways. The input is
 * u32 count, u32 raw size (at most 1 MiB), then bytes:
 *  - the bytes are decoded as the layout of count contexts into exactly raw size bytes (a buffer
 *    of that size: the sanitizer sees any write past it); decoding may fail, never crash;
 *  - the bytes are also taken as a chunk's raw contexts, cut where their "mc" headers say (else
 *    into pieces of up to 64 bytes, which the encoder must keep verbatim), encoded and decoded:
 *    that must succeed and give the bytes back exactly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RAW_MAX (1u << 20)

static void decode_hostile(const uint8_t *in, size_t len, uint32_t count, uint32_t raw_size)
{
    uint8_t *copy = malloc(len ? len : 1); /* exact size: the sanitizer sees any overread */
    uint8_t *out = malloc(raw_size ? raw_size : 1);
    if (copy && out) {
        if (len)
            memcpy(copy, in, len);
        (void)mcz_layout_decode(copy, len, count, out, raw_size, NULL);
    }
    free(copy);
    free(out);
}

/* Context lengths for raw[0, len): a context's own length where its header gives one that fits,
 * else a piece of up to 64 bytes. */
static uint32_t cut(const uint8_t *raw, size_t len, uint32_t *lengths)
{
    uint32_t n = 0;
    for (size_t at = 0; at < len; at += lengths[n++]) {
        size_t left = len - at;
        uint64_t own = left >= 6 && raw[at] == 'm' && raw[at + 1] == 'c'
                           ? (uint64_t)mcz_get_le32(raw + at + 2) + MCZ_MC_OVERHEAD
                           : 0;
        lengths[n] = own && own <= left ? (uint32_t)own : (uint32_t)(left < 64 ? left : 64);
    }
    return n;
}

static void round_trip(const uint8_t *raw, size_t len)
{
    uint32_t *lengths = malloc((len + 1) * sizeof *lengths);
    uint32_t count = lengths ? cut(raw, len, lengths) : 0;
    size_t cap = (size_t)mcz_layout_bound(len, count), got;
    uint8_t *layout = malloc(cap), *back = malloc(len ? len : 1);
    if (lengths && layout && back) {
        if (mcz_layout_encode(raw, lengths, count, NULL, layout, cap, &got) != MCZ_OK ||
            got > cap)
            abort();
        if (mcz_layout_decode(layout, got, count, back, len, NULL) != MCZ_OK ||
            (len && memcmp(back, raw, len) != 0))
            abort(); /* the layout is reversible, whatever the bytes */
    }
    free(lengths);
    free(layout);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    uint32_t count = mcz_get_le32(data), raw_size = mcz_get_le32(data + 4);
    decode_hostile(data + 8, size - 8, count, raw_size % (RAW_MAX + 1));
    if (size - 8 <= RAW_MAX)
        round_trip(data + 8, size - 8);
    return 0;
}
