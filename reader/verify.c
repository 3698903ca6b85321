/*
 * verify.c - deep verification of an archive: every chunk decoded and checked (cursor), every
 * context's packets (mcz_mc_check), every stored hash recomputed (an archive without hashes has
 * none to compare; everything else is checked alike).
 */
#include <string.h>

#include "mcz_common.h"
#include "reader_impl.h"

static int verify_context(const mcz_reader *r, const mcz_mc *mc, uint64_t chunk_offset,
                          mcz_diag *diag)
{
    int rc = mcz_mc_check(mc, diag);
    if (rc != MCZ_OK || !r->index.has_hashes)
        return rc;
    mcz_hash128 identity, dedup, stored_identity, stored_dedup;
    mcz_arc_context_hashes(mcz_arc_hash_jit_ee(&r->header), mc, &identity, &dedup);
    mcz_reader_hashes(r, mc->number, &stored_identity, &stored_dedup);
    if (memcmp(identity.bytes, stored_identity.bytes, 16) != 0 ||
        memcmp(dedup.bytes, stored_dedup.bytes, 16) != 0)
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)chunk_offset),
                            mcz_in_context(mc->number),
                            "context %u: stored hash differs from the recomputed one", mc->number);
    return MCZ_OK;
}

static int verify_chunk(const mcz_reader *r, mcz_cursor *cur, uint32_t index, uint64_t *done,
                        mcz_progress_fn progress, void *arg, mcz_diag *diag)
{
    mcz_chunk_info c;
    mcz_arc_index_chunk(&r->index, index, &c);
    int rc = mcz_cursor_chunk(cur, index, NULL, NULL, diag);
    for (uint32_t i = 0; rc == MCZ_OK && i < c.count; i++) {
        mcz_mc mc;
        rc = mcz_cursor_get(cur, c.first_number + i, &mc, diag);
        if (rc == MCZ_OK)
            rc = verify_context(r, &mc, c.offset, diag);
    }
    if (rc == MCZ_OK && progress) {
        *done += c.count;
        progress(arg, *done, r->index.context_count);
    }
    return rc;
}

int mcz_reader_verify(const mcz_reader *r, mcz_progress_fn progress, void *arg, mcz_diag *diag)
{
    if (!r)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_reader_verify: NULL reader");
    mcz_cursor *cur = mcz_cursor_create(r);
    if (!cur || mcz_rd_cursor_strict(cur) != MCZ_OK) {
        mcz_cursor_free(cur);
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "cannot create a decoding context");
    }
    uint64_t done = 0;
    int rc = MCZ_OK;
    for (uint32_t i = 0; rc == MCZ_OK && i < r->index.chunk_count; i++)
        rc = verify_chunk(r, cur, i, &done, progress, arg, diag);
    mcz_cursor_free(cur);
    return rc;
}
