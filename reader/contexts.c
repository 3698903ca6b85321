/* contexts.c - the index's per-context columns, by position, without decompression. */
#include <string.h>

#include "mcz_common.h"
#include "reader_impl.h"

/* The chunk whose contexts include position: context_base is increasing, one entry per chunk. */
static uint64_t chunk_of_position(const mcz_reader *r, uint64_t position)
{
    uint64_t lo = 0, hi = r->index.chunk_count; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (r->context_base[mid] <= position)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int mcz_reader_context(const mcz_reader *r, uint64_t position, mcz_context_info *out)
{
    return mcz_reader_context_with(r, position, MCZ_CONTEXT_ALL, out);
}

int mcz_reader_context_with(const mcz_reader *r, uint64_t position, unsigned parts,
                            mcz_context_info *out)
{
    if (!r || !out || (parts & ~(unsigned)MCZ_CONTEXT_ALL))
        return MCZ_EINVAL;
    if (position >= r->index.context_count)
        return MCZ_ENOTFOUND;
    uint64_t chunk = chunk_of_position(r, position);
    const uint8_t *entry = r->index.chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * chunk;
    out->chunk = chunk;
    out->number = mcz_get_le32(entry + 16) + (uint32_t)(position - r->context_base[chunk]);
    uint32_t offset;
    int rc = mcz_rd_place(r, chunk, position, &offset, &out->size);
    out->mch_offset = r->raw_base[chunk] + offset;
    out->hashes = r->index.has_hashes;
    memset(out->identity.bytes, 0, sizeof out->identity.bytes);
    memset(out->dedup.bytes, 0, sizeof out->dedup.bytes);
    if (rc == MCZ_OK && out->hashes && parts != MCZ_CONTEXT_PLACE)
        rc = mcz_rd_hashes_at(r, position, parts & MCZ_CONTEXT_IDENTITY ? &out->identity : NULL,
                              parts & MCZ_CONTEXT_DEDUP ? &out->dedup : NULL);
    return rc;
}
