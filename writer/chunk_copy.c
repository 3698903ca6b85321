/*
 * chunk_copy.c - mcz_writer_append_compressed: a chunk stored in an archive copied without
 * recompression when it uses the writer's dictionary (mcs -merge, -concat, -strip). The writer
 * trusts nothing of the frames it is handed: the chunk is decoded and verified in full
 * (mcz_arc_decode_chunk: header, data frame, decode, XXH3, every context's container) before
 * anything is queued, so a damaged chunk is an error, never copied. The contexts' hashes come
 * from the caller, or from that decode when the caller has none and the writer stores them.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "writer_impl.h"

/* Decides w's dictionary if it is still pending (on what w buffered) and waits for it: the copy
 * needs its id and bytes, which do not change afterwards. */
static int settle_dictionary(mcz_writer *w)
{
    mcz_lock_take(&w->lock);
    int rc = w->error.code;
    if (rc == MCZ_OK && w->state != WRITER_OPEN)
        rc = MCZ_ESTATE;
    if (rc == MCZ_OK)
        rc = mcz_wr_dict_wait(w);
    mcz_lock_drop(&w->lock);
    return rc;
}

/* The chunk's frames fill exactly len bytes: nothing follows its data frame. */
static int check_stored_size(size_t len, const mcz_arc_chunk_head *h, mcz_diag *diag)
{
    uint64_t stored = mcz_arc_chunk_head_size(h->count) + h->data_size; /* <= len: decoded */
    if (stored == len)
        return MCZ_OK;
    return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)stored),
                        mcz_in_context(h->first_number), "chunk: %llu bytes follow its data frame",
                        (unsigned long long)(len - stored));
}

/*
 * The chunk in frames[0, len), decoded with w's dictionary into raw and verified; *h describes
 * it. MCZ_EDICT, before any decoding, when its data uses another codec or dictionary. zstd's own
 * content checksum is checked too (unlike reads), since the frame is kept as it is. The zstd
 * contexts are made per call, without the lock: calls may run on several threads at once, and
 * making them costs little next to decoding a chunk.
 */
static int verify_chunk(const mcz_writer *w, const uint8_t *frames, size_t len,
                        mcz_arc_buffer *raw, mcz_arc_chunk_head *h, mcz_diag *diag)
{
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    ZSTD_DDict *ddict = w->dict_len ? ZSTD_createDDict(w->dict, w->dict_len) : NULL;
    int rc = mcz_arc_chunk_head_decode(frames, len, 0, h, diag);
    if (rc == MCZ_OK && h->codec != w->codec)
        rc = mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset(0), mcz_in_context(h->first_number),
                          "chunk: compressed with another codec than the writer's");
    else if (rc == MCZ_OK && (!dctx || (w->dict_len && !ddict)))
        rc = mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    else if (rc == MCZ_OK)
        rc = mcz_arc_decode_chunk(frames, len, 0, dctx, ddict, w->dict_id, raw, h, diag);
    if (rc == MCZ_OK)
        rc = check_stored_size(len, h, diag);
    ZSTD_freeDDict(ddict);
    ZSTD_freeDCtx(dctx);
    return rc;
}

/* The hashes the copy stores: none when the writer stores none, else the caller's, else (the
 * caller has none) computed from raw, the chunk as decoded. */
static int copy_hashes(const mcz_writer *w, chunk *c, const uint8_t *raw,
                       const mcz_hash128 *identity, const mcz_hash128 *dedup, mcz_diag *diag)
{
    if (w->no_hashes)
        return MCZ_OK;
    if (!identity || !dedup)
        return mcz_wr_hash_contexts(w->jit_ee, c, raw, diag);
    c->identity = malloc(c->count * sizeof *c->identity);
    c->dedup = malloc(c->count * sizeof *c->dedup);
    if (!c->identity || !c->dedup)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    memcpy(c->identity, identity, c->count * sizeof *identity);
    memcpy(c->dedup, dedup, c->count * sizeof *dedup);
    return MCZ_OK;
}

/* The verified chunk's stored bytes, lengths and hashes, as a finished chunk still to be
 * numbered. */
static int prepare_copy(const mcz_writer *w, const uint8_t *frames, size_t len,
                        const mcz_arc_chunk_head *h, const uint8_t *raw,
                        const mcz_hash128 *identity, const mcz_hash128 *dedup, chunk **out,
                        mcz_diag *diag)
{
    chunk *c = calloc(1, sizeof *c);
    if (!c)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    *out = c;
    c->count = h->count;
    c->packets = h->packets; /* a copy keeps its layout, whatever the writer's */
    c->first_number = h->first_number; /* the source's, for messages until numbered */
    c->lengths = malloc(h->count * sizeof *c->lengths);
    c->frames = malloc(len);
    if (!c->lengths || !c->frames)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    for (uint32_t i = 0; i < h->count; i++)
        c->lengths[i] = mcz_arc_chunk_head_length(h, i);
    int rc = copy_hashes(w, c, raw, identity, dedup, diag);
    if (rc != MCZ_OK)
        return rc;
    size_t head = (size_t)mcz_arc_chunk_head_size(h->count);
    memcpy(c->frames + head, frames + head, len - head); /* the data frame, byte for byte */
    c->frames_len = len;
    c->raw_len = h->raw_size;
    c->checksum = h->checksum;
    c->state = CHUNK_DONE;
    atomic_init(&c->retained_next, NULL);
    return MCZ_OK;
}

/* Gives c its numbers: the chunk header re-encoded, the data frame untouched. */
static void number_copy(const mcz_writer *w, chunk *c, uint32_t first)
{
    size_t head = (size_t)mcz_arc_chunk_head_size(c->count);
    mcz_arc_chunk_head h = {first, c->count, (uint32_t)c->raw_len,
                            (uint32_t)(c->frames_len - head), c->checksum, NULL, w->codec,
                            c->packets};
    c->first_number = first;
    mcz_arc_chunk_head_encode(&h, c->lengths, c->frames);
}

/* Seals the open chunk, waits for room, and queues c behind it in one critical section, so no
 * context appended meanwhile can take numbers below c's. Always waits (whatever when_full). */
static int queue_copy(mcz_writer *w, chunk *c)
{
    mcz_lock_take(&w->lock);
    int rc;
    for (;;) {
        rc = w->error.code != MCZ_OK ? w->error.code : w->state != WRITER_OPEN ? MCZ_ESTATE : 0;
        if (rc != MCZ_OK)
            break;
        bool full = mcz_wr_queue_full(w);
        if (!full && w->open && w->open->count > 0) {
            mcz_wr_seal_open(w, false);
            continue;
        }
        if (full) {
            mcz_lock_wait(&w->lock, &w->space);
            continue;
        }
        if (w->next_number + c->count - 1 > UINT32_MAX) {
            rc = mcz_wr_fail(w, MCZ_ELIMIT, -1, "context numbers exhausted");
            break;
        }
        number_copy(w, c, (uint32_t)w->next_number);
        mcz_wr_enqueue(w, c);
        w->next_number += c->count;
        w->stats.appended += c->count;
        w->stats.raw_bytes += c->raw_len;
        mcz_wr_pump_output(w);
        break;
    }
    mcz_lock_drop(&w->lock);
    return rc;
}

static int copy_verified(mcz_writer *w, const uint8_t *frames, size_t len,
                         const mcz_arc_chunk_head *h, const uint8_t *raw,
                         const mcz_hash128 *identity, const mcz_hash128 *dedup, mcz_diag *diag)
{
    chunk *c = NULL;
    int rc = prepare_copy(w, frames, len, h, raw, identity, dedup, &c, diag);
    if (rc != MCZ_OK) {
        mcz_wr_chunk_free(c);
        return rc;
    }
    rc = queue_copy(w, c);
    if (rc == MCZ_OK)
        return MCZ_OK;
    mcz_wr_chunk_free(c);
    return mcz_wr_report(w, rc, diag);
}

int mcz_writer_append_compressed(mcz_writer *w, const void *frames, size_t len,
                                 const mcz_hash128 *identity, const mcz_hash128 *dedup,
                                 uint32_t count, mcz_diag *diag)
{
    if (!w || !frames)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_append_compressed: NULL argument");
    int rc = settle_dictionary(w);
    if (rc != MCZ_OK)
        return mcz_wr_report(w, rc, diag);
    mcz_arc_buffer raw = {NULL, 0}; /* the decode proves the chunk sound (and may give hashes) */
    mcz_arc_chunk_head h;
    rc = verify_chunk(w, frames, len, &raw, &h, diag);
    if (rc == MCZ_OK && h.count != count)
        rc = mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, mcz_in_context(h.first_number),
                          "mcz_writer_append_compressed: %u hashes for a chunk of %u contexts",
                          count, h.count);
    if (rc == MCZ_OK)
        rc = copy_verified(w, frames, len, &h, raw.bytes, identity, dedup, diag);
    free(raw.bytes);
    return rc;
}
