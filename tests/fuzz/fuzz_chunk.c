/*
 * fuzz_chunk.c - one chunk on hostile bytes: the input is a chunk header frame followed by its
 * data (a zstd frame without dictionary, or an xz stream; plain or in the packet layout, as the
 * tag says). It is decoded and verified; when it passes, every context it holds is deep-checked
 * and hashed. Nothing may crash or read outside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/archive.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_contexts(const mcz_arc_chunk_head *h, const uint8_t *raw)
{
    size_t at = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        uint32_t len = mcz_arc_chunk_head_length(h, i);
        mcz_mc mc;
        if (mcz_mc_from_bytes(raw + at, len, h->first_number + i, at, &mc, NULL) != MCZ_OK)
            abort(); /* the decode promised whole contexts */
        (void)mcz_mc_check(&mc, NULL);
        mcz_hash128 identity, dedup;
        mcz_arc_context_hashes(NULL, &mc, &identity, &dedup);
        at += len;
    }
    if (at != h->raw_size)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* exact size: the sanitizer sees any overread */
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (copy && dctx) {
        if (size)
            memcpy(copy, data, size);
        mcz_arc_buffer buf = {NULL, 0};
        mcz_arc_chunk_head h;
        if (mcz_arc_decode_chunk(copy, size, 0, dctx, NULL, 0, &buf, &h, NULL) == MCZ_OK)
            check_contexts(&h, buf.bytes);
        free(buf.bytes);
    }
    ZSTD_freeDCtx(dctx);
    free(copy);
    return 0;
}
