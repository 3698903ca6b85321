/*
 * recover.c - rebuilding an archive from a damaged or truncated one by walking its frames
 * (FORMAT.md §4): every chunk whose header, data frame and checksum verify is copied byte for
 * byte, keeping its context numbers; a new index and footer are written after them. The output
 * appears atomically (mcz_outfile) and only when something was recovered.
 */
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "mcz_common.h"
#include "reader_impl.h"

typedef struct recovery {
    const mcz_file *file;
    const uint8_t *data;
    size_t size;
    uint64_t dropped;        /* what of file left memory (mcz_file_drop_behind) */
    mcz_arc_header header;
    mcz_arc_dict dict;
    ZSTD_DDict *ddict;
    ZSTD_DCtx *dctx;
    mcz_arc_buffer buf;
    mcz_arc_table table;
    mcz_outfile *out;
    uint64_t last_number;    /* last number kept, 0 before the first chunk */
    uint64_t pending_failed; /* contexts of damaged chunks since the last kept chunk */
    uint64_t lost;
    mcz_hash128 *identity, *dedup;
    uint32_t hash_cap;
} recovery;

/* Header and dictionary must be intact: without them no chunk can be decoded. */
static int recover_head(recovery *r, uint64_t *data_start, mcz_diag *diag)
{
    int rc = mcz_arc_header_decode(r->data, r->size, &r->header, diag);
    if (rc != MCZ_OK)
        return rc;
    *data_start = MCZ_ARC_HEADER_SIZE;
    if (!(r->header.flags & MCZ_ARC_FLAG_HAS_DICT))
        return MCZ_OK;
    rc = mcz_arc_dict_decode(r->data, r->size, *data_start, r->header.dict_id, &r->dict,
                             diag);
    if (rc != MCZ_OK)
        return rc;
    r->ddict = ZSTD_createDDict(r->dict.bytes, r->dict.size);
    if (!r->ddict || ZDICT_getDictID(r->dict.bytes, r->dict.size) != r->header.dict_id)
        return mcz_fail(diag, MCZ_EDICT, (int64_t)*data_start, -1, "dictionary: unusable");
    *data_start += r->dict.frame_size;
    return MCZ_OK;
}

static int hash_chunk(recovery *r, const mcz_arc_chunk_head *h)
{
    if (h->count > r->hash_cap) {
        free(r->identity);
        free(r->dedup);
        r->identity = malloc(h->count * sizeof *r->identity);
        r->dedup = malloc(h->count * sizeof *r->dedup);
        r->hash_cap = r->identity && r->dedup ? h->count : 0;
        if (!r->hash_cap)
            return MCZ_ENOMEM;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        uint32_t len = mcz_arc_chunk_head_length(h, i);
        mcz_mc mc;
        if (mcz_mc_from_bytes(r->buf.bytes + at, len, h->first_number + i, at, &mc, NULL) != MCZ_OK)
            return MCZ_ECORRUPT; /* already checked by the decode */
        mcz_arc_context_hashes(mcz_arc_hash_jit_ee(&r->header), &mc, &r->identity[i],
                               &r->dedup[i]);
        at += len;
    }
    return MCZ_OK;
}

/* Copies a verified chunk to the output and records it. */
static int keep_chunk(recovery *r, uint64_t off, const mcz_arc_chunk_head *h, uint64_t stored)
{
    uint32_t *lengths = malloc(h->count * sizeof *lengths);
    if (!lengths)
        return MCZ_ENOMEM;
    for (uint32_t i = 0; i < h->count; i++)
        lengths[i] = mcz_arc_chunk_head_length(h, i);
    mcz_chunk_info info = {mcz_outfile_tell(r->out), (uint32_t)stored, h->raw_size,
                           h->first_number, h->count, h->checksum};
    int rc = hash_chunk(r, h);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(r->out, r->data + off, (size_t)stored);
    if (rc == MCZ_OK)
        rc = mcz_arc_table_add(&r->table, &info, lengths, r->identity, r->dedup);
    free(lengths);
    if (rc != MCZ_OK)
        return rc;
    if (r->last_number)
        r->lost += h->first_number - r->last_number - 1; /* the gap, damaged chunks included */
    else
        r->lost += r->pending_failed;
    r->pending_failed = 0;
    r->last_number = (uint64_t)h->first_number + h->count - 1;
    return MCZ_OK;
}

/* Tries the frame at off as a chunk; returns the bytes to skip on success, 0 when it is not a
 * usable chunk, negative on an output failure. */
static int64_t try_chunk(recovery *r, uint64_t off)
{
    mcz_arc_chunk_head h;
    mcz_diag d;
    int rc = mcz_arc_decode_chunk(r->data, r->size, off, r->dctx, r->ddict, r->header.dict_id,
                                  &r->buf, &h, &d);
    if (rc != MCZ_OK) {
        if (mcz_arc_chunk_head_decode(r->data, r->size, off, &h, NULL) == MCZ_OK)
            r->pending_failed += h.count; /* the header is sound: we know what was lost */
        return 0;
    }
    if (h.first_number <= r->last_number)
        return 0; /* numbers must increase; a stray copy of an earlier chunk is dropped */
    uint64_t stored = mcz_arc_chunk_head_size(h.count) + h.data_size;
    if (stored > UINT32_MAX)
        return 0;
    rc = keep_chunk(r, off, &h, stored);
    return rc == MCZ_OK ? (int64_t)stored : rc;
}

/* Next offset after `from` where an mcz chunk header frame could start, or size. */
static uint64_t resync(const recovery *r, uint64_t from)
{
    static const uint8_t magic[4] = {0x5C, 0x2A, 0x4D, 0x18};
    for (uint64_t at = from; mcz_fits(r->size, at, 12);) {
        const uint8_t *hit = memmem(r->data + at, r->size - at, magic, sizeof magic);
        if (!hit)
            break;
        at = (uint64_t)(hit - r->data);
        uint32_t tag = mcz_fits(r->size, at, 12) ? mcz_get_le32(hit + 8) : 0;
        if (tag == MCZ_ARC_TAG_CHUNK || tag == MCZ_ARC_TAG_CHUNK_XZ)
            return at;
        at++;
    }
    return r->size;
}

static int scan_chunks(recovery *r, uint64_t pos)
{
    while (mcz_fits(r->size, pos, MCZ_ARC_CHUNK_HEAD)) {
        mcz_file_drop_behind(r->file, &r->dropped, pos);
        int64_t used = try_chunk(r, pos);
        if (used < 0)
            return (int)used;
        pos = used > 0 ? pos + (uint64_t)used : resync(r, pos + 1);
    }
    r->lost += r->pending_failed;
    return MCZ_OK;
}

static int write_tail(recovery *r, mcz_diag *diag)
{
    uint8_t *frame, footer[MCZ_ARC_FOOTER_SIZE];
    size_t len;
    int rc = mcz_arc_table_encode(&r->table, mcz_outfile_tell(r->out), &frame, &len, footer);
    if (rc != MCZ_OK)
        return mcz_fail(diag, rc, -1, -1, "recovery: cannot encode the index");
    rc = mcz_outfile_write(r->out, frame, len);
    free(frame);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(r->out, footer, sizeof footer);
    if (rc != MCZ_OK)
        return mcz_fail(diag, rc, -1, -1, "recovery: write failed");
    rc = mcz_outfile_commit(r->out, diag);
    r->out = NULL;
    return rc;
}

/* When the original footer and its index survived, they say how many contexts there were. A
 * footer whose index no longer verifies says nothing: a LIVE writer (FORMAT.md §12) wrote chunks
 * over that index after its last checkpoint, so the file holds more than the footer knew. */
static void count_lost(recovery *r, uint64_t data_start)
{
    mcz_arc_footer f;
    mcz_arc_index index;
    if (mcz_arc_footer_decode(r->data, r->size, &f, NULL) == MCZ_OK &&
        mcz_arc_index_decode(r->data, r->size, &f, data_start, &index, NULL) == MCZ_OK &&
        f.context_count >= r->table.context_count)
        r->lost = f.context_count - r->table.context_count;
}

static int run_recovery(recovery *r, const char *out_path, mcz_diag *diag)
{
    uint64_t data_start;
    int rc = recover_head(r, &data_start, diag);
    if (rc != MCZ_OK)
        return rc;
    r->dctx = ZSTD_createDCtx();
    r->out = r->dctx ? mcz_outfile_open(out_path, diag) : NULL;
    if (!r->out)
        return r->dctx ? MCZ_EIO : mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    r->table.first_number = 1;
    rc = mcz_outfile_write(r->out, r->data, (size_t)data_start);
    if (rc == MCZ_OK)
        rc = scan_chunks(r, data_start);
    if (rc != MCZ_OK)
        return mcz_fail(diag, rc, -1, -1, "recovery: %s", mcz_error_name(rc));
    if (r->table.context_count == 0)
        return mcz_fail(diag, MCZ_ECORRUPT, (int64_t)data_start, -1,
                        "recovery: no intact chunk found");
    count_lost(r, data_start);
    return write_tail(r, diag);
}

int mcz_recover(const char *in_path, const char *out_path, uint64_t *kept, uint64_t *lost,
                mcz_diag *diag)
{
    if (!in_path || !out_path)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_recover: NULL path");
    mcz_file file;
    int rc = mcz_file_map(in_path, &file, diag);
    if (rc != MCZ_OK)
        return rc;
    recovery r = {.file = &file, .data = file.data, .size = file.size};
    rc = run_recovery(&r, out_path, diag);
    if (kept)
        *kept = rc == MCZ_OK ? r.table.context_count : 0;
    if (lost)
        *lost = r.lost;
    mcz_outfile_abort(r.out);
    mcz_arc_table_free(&r.table);
    ZSTD_freeDDict(r.ddict);
    ZSTD_freeDCtx(r.dctx);
    free(r.buf.bytes);
    free(r.identity);
    free(r.dedup);
    mcz_file_unmap(&file);
    return rc;
}
