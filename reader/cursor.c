/*
 * cursor.c - per-thread decoding: one ZSTD_DCtx, one decode buffer, the last chunk decoded. Each
 * chunk is checked against its index entry as well as against itself, so a chunk frame moved or
 * swapped inside the file is caught.
 */
#include <stdlib.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_d_forceIgnoreChecksum */
#include "mcz_common.h"
#include "reader_impl.h"

struct mcz_cursor {
    const mcz_reader *r;
    ZSTD_DCtx *dctx;
    mcz_arc_buffer buf;
    int64_t cached; /* chunk index held in buf, -1 for none */
    uint32_t *offsets; /* its contexts' offsets in buf, from its own header (count + 1) */
    uint32_t offsets_cap;
    uint64_t dropped; /* the archive's bytes before this left memory (mcz_src_drop_behind) */
};

mcz_cursor *mcz_cursor_create(const mcz_reader *r)
{
    if (!r)
        return NULL;
    mcz_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->r = r;
    c->cached = -1;
    c->dctx = ZSTD_createDCtx();
    /* Every decoded chunk is checked against its XXH3-64 (stored twice): zstd's own XXH64 of
     * the same bytes would add nothing but time. */
    if (c->dctx && ZSTD_isError(ZSTD_DCtx_setParameter(c->dctx, ZSTD_d_forceIgnoreChecksum,
                                                       ZSTD_d_ignoreChecksum))) {
        ZSTD_freeDCtx(c->dctx);
        c->dctx = NULL;
    }
    if (!c->dctx) {
        free(c);
        return NULL;
    }
    return c;
}

int mcz_rd_cursor_strict(mcz_cursor *c)
{
    size_t r = ZSTD_DCtx_setParameter(c->dctx, ZSTD_d_forceIgnoreChecksum, ZSTD_d_validateChecksum);
    return ZSTD_isError(r) ? MCZ_EZSTD : MCZ_OK;
}

void mcz_cursor_free(mcz_cursor *c)
{
    if (!c)
        return;
    ZSTD_freeDCtx(c->dctx);
    free(c->buf.bytes);
    free(c->offsets);
    free(c);
}

/* The offsets of h's contexts, the prefix sums of its lengths (which the index's match), kept
 * for mcz_cursor_get: the index keeps none (FORMAT.md §5). */
static int keep_offsets(mcz_cursor *c, const mcz_arc_chunk_head *h, mcz_diag *diag)
{
    if (h->count >= c->offsets_cap) {
        uint32_t *grown = realloc(c->offsets, ((size_t)h->count + 1) * sizeof *grown);
        if (!grown)
            return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "out of memory");
        c->offsets = grown;
        c->offsets_cap = h->count + 1;
    }
    c->offsets[0] = 0;
    for (uint32_t i = 0; i < h->count; i++) /* summing to the raw size: checked */
        c->offsets[i + 1] = c->offsets[i] + mcz_arc_chunk_head_length(h, i);
    return MCZ_OK;
}

int mcz_cursor_chunk(mcz_cursor *c, uint64_t index, const uint8_t **raw, size_t *len,
                     mcz_diag *diag)
{
    if (raw)
        *raw = NULL;
    if (len)
        *len = 0;
    if (!c)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_cursor_chunk: NULL cursor");
    const mcz_reader *r = c->r;
    if (index >= r->index.chunk_count)
        return mcz_diag_set(diag, MCZ_ENOTFOUND, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "no chunk %llu (the archive has %u)", (unsigned long long)index,
                            r->index.chunk_count);
    mcz_chunk_info e;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, &e);
    if (c->cached != (int64_t)index) {
        c->cached = -1;
        mcz_arc_chunk_head h;
        mcz_src_drop_behind(r->src, &c->dropped, e.offset); /* walks in file order keep
                                                             * their memory flat */
        const uint8_t *img;
        int rc = mcz_rd_chunk_bytes(r, index, &img, diag);
        if (rc == MCZ_OK)
            rc = mcz_arc_decode_chunk(img, r->size, e.offset, c->dctx, r->ddict,
                                      r->header.dict_id, &c->buf, &h, diag);
        if (rc == MCZ_OK)
            rc = mcz_rd_match_index(r, index, &h, diag);
        if (rc == MCZ_OK)
            rc = keep_offsets(c, &h, diag);
        if (rc != MCZ_OK && diag && diag->context < 0)
            diag->context = e.first_number; /* the index knows what the damaged chunk held */
        if (rc != MCZ_OK)
            return rc;
        c->cached = (int64_t)index;
    }
    if (raw)
        *raw = c->buf.bytes;
    if (len)
        *len = e.raw_size;
    return MCZ_OK;
}

int mcz_cursor_get(mcz_cursor *c, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    if (!c || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, mcz_in_context(number),
                            "mcz_cursor_get: NULL argument");
    const mcz_reader *r = c->r;
    int64_t chunk = mcz_reader_chunk_of(r, number);
    if (chunk < 0)
        return mcz_diag_set(diag, MCZ_ENOTFOUND, MCZ_NO_OFFSET, mcz_in_context(number),
                            "the archive holds no context %u", number);
    const uint8_t *raw;
    int rc = mcz_cursor_chunk(c, (uint64_t)chunk, &raw, NULL, diag);
    if (rc != MCZ_OK)
        return rc;
    uint32_t first = mcz_get_le32(r->index.chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * chunk + 16);
    uint32_t at = number - first, off = c->offsets[at];
    return mcz_mc_from_bytes(raw + off, c->offsets[at + 1] - off, number,
                             r->raw_base[chunk] + off, out, diag);
}
