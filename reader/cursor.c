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
    free(c);
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
    uint32_t pos = r->context_base[chunk] + (number - first);
    uint32_t off = mcz_arc_index_offset(&r->index, pos);
    return mcz_mc_from_bytes(raw + off, mcz_arc_index_length(&r->index, pos), number,
                             r->raw_base[chunk] + off, out, diag);
}
