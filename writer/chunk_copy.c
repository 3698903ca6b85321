/*
 * chunk_copy.c - mcz_writer_append_chunk: a chunk of another archive copied without
 * recompression when both archives use the same dictionary (mcs -merge, -concat, -strip), else
 * context by context. The source chunk is verified in full first (mcz_cursor_chunk: its header
 * against the index, the decode, the XXH3 of the raw bytes, every context's container), so a
 * damaged chunk is an error naming its offset and first context, never copied.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "writer_impl.h"

/* Takes the source's dictionary as w's (lock held, released meanwhile): w had none decided and
 * nothing buffered, so every chunk of a source with that dictionary is then copied as it is. */
static int adopt_dictionary(mcz_writer *w, const mcz_reader *r)
{
    const void *dict;
    size_t len;
    mcz_reader_dict(r, &dict, &len);
    mcz_wr_dict_begin(w);
    pthread_mutex_unlock(&w->lock);
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = MCZ_OK;
    if (len) {
        w->dict = malloc(len);
        rc = w->dict ? MCZ_OK : mcz_fail(&d, MCZ_ENOMEM, -1, -1, "out of memory");
        if (rc == MCZ_OK)
            memcpy(w->dict, dict, len);
        w->dict_len = w->dict ? len : 0;
    }
    if (rc == MCZ_OK)
        rc = mcz_wr_prepare_dict(w, &d);
    pthread_mutex_lock(&w->lock);
    mcz_wr_dict_end(w, rc, &d);
    return rc;
}

/* Settles w's dictionary before a copy: adopted from the source when w is still empty,
 * otherwise decided on what w buffered (and awaited). */
static int settle_dictionary(mcz_writer *w, const mcz_reader *r, mcz_diag *diag)
{
    pthread_mutex_lock(&w->lock);
    int rc = w->error.code;
    if (rc == MCZ_OK && w->state != WRITER_OPEN)
        rc = MCZ_ESTATE;
    bool empty = !w->head_chunk && !(w->open && w->open->count > 0);
    if (rc == MCZ_OK && !atomic_load(&w->dict_ready) && !w->training && !w->train_wanted && empty)
        rc = adopt_dictionary(w, r);
    if (rc == MCZ_OK)
        rc = mcz_wr_dict_wait(w);
    pthread_mutex_unlock(&w->lock);
    return rc == MCZ_OK ? MCZ_OK : mcz_wr_report(w, rc, diag);
}

/* The source chunk's stored bytes, lengths and stored hashes, as a finished chunk still to be
 * numbered. */
static int prepare_copy(const mcz_reader *r, uint64_t index, const mcz_chunk_info *info,
                        chunk **out, mcz_diag *diag)
{
    const uint8_t *frames;
    size_t len;
    mcz_arc_chunk_head h;
    int rc = mcz_reader_chunk_frames(r, index, &frames, &len);
    if (rc == MCZ_OK)
        rc = mcz_arc_chunk_head_decode(frames, len, 0, &h, diag); /* verified: cannot fail */
    if (rc != MCZ_OK)
        return mcz_fail(diag, rc, (int64_t)info->offset, info->first_number,
                        "source chunk %llu: unreadable", (unsigned long long)index);
    chunk *c = calloc(1, sizeof *c);
    if (!c)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    *out = c;
    c->lengths = malloc(h.count * sizeof *c->lengths);
    c->identity = malloc(h.count * sizeof *c->identity);
    c->dedup = malloc(h.count * sizeof *c->dedup);
    c->frames = malloc(len);
    if (!c->lengths || !c->identity || !c->dedup || !c->frames)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    for (uint32_t i = 0; i < h.count; i++) {
        c->lengths[i] = mcz_arc_chunk_head_length(&h, i);
        mcz_reader_hashes(r, h.first_number + i, &c->identity[i], &c->dedup[i]);
    }
    size_t head = (size_t)mcz_arc_chunk_head_size(h.count);
    memcpy(c->frames + head, frames + head, len - head); /* the data frame, byte for byte */
    c->frames_len = len;
    c->count = h.count;
    c->raw_len = h.raw_size;
    c->checksum = h.checksum;
    c->state = CHUNK_DONE;
    atomic_init(&c->retained_next, NULL);
    return MCZ_OK;
}

/* Gives c its numbers: the chunk header re-encoded, the data frame untouched. */
static void number_copy(chunk *c, uint32_t first)
{
    size_t head = (size_t)mcz_arc_chunk_head_size(c->count);
    mcz_arc_chunk_head h = {first, c->count, (uint32_t)c->raw_len,
                            (uint32_t)(c->frames_len - head), c->checksum, NULL};
    c->first_number = first;
    mcz_arc_chunk_head_encode(&h, c->lengths, c->frames);
}

/* Seals the open chunk, waits for room, and queues c behind it in one critical section, so no
 * context appended meanwhile can take numbers below c's. Always waits (whatever when_full). */
static int queue_copy(mcz_writer *w, chunk *c)
{
    pthread_mutex_lock(&w->lock);
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
            pthread_cond_wait(&w->space, &w->lock);
            continue;
        }
        if (w->next_number + c->count - 1 > UINT32_MAX) {
            rc = mcz_wr_fail(w, MCZ_ELIMIT, -1, "context numbers exhausted");
            break;
        }
        number_copy(c, (uint32_t)w->next_number);
        mcz_wr_enqueue(w, c);
        w->next_number += c->count;
        w->stats.appended += c->count;
        w->stats.raw_bytes += c->raw_len;
        mcz_wr_pump_output(w);
        break;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static int copy_verbatim(mcz_writer *w, const mcz_reader *r, uint64_t index,
                         const mcz_chunk_info *info, mcz_diag *diag)
{
    chunk *c = NULL;
    int rc = prepare_copy(r, index, info, &c, diag);
    if (rc == MCZ_OK) {
        rc = queue_copy(w, c);
        if (rc == MCZ_OK)
            return MCZ_OK;
        rc = mcz_wr_report(w, rc, diag);
    }
    mcz_wr_chunk_free(c);
    return rc;
}

/* Another dictionary: the verified raw bytes go through the normal append, context by context. */
static int append_decoded(mcz_writer *w, const uint8_t *raw, size_t len, mcz_diag *diag)
{
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(raw, len, &pos, &number, &mc, diag)) == 1) {
        rc = mcz_wr_append(w, mc.bytes, mc.size, NULL, true);
        if (rc != MCZ_OK)
            return mcz_wr_report(w, rc, diag);
    }
    return rc;
}

int mcz_writer_append_chunk(mcz_writer *w, const mcz_reader *r, uint64_t index, bool *verbatim,
                            mcz_diag *diag)
{
    if (verbatim)
        *verbatim = false;
    if (!w || !r)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_writer_append_chunk: NULL argument");
    mcz_chunk_info info;
    if (mcz_reader_chunk(r, index, &info) != MCZ_OK)
        return mcz_fail(diag, MCZ_ENOTFOUND, -1, -1, "the source archive has no chunk %llu",
                        (unsigned long long)index);
    mcz_cursor *cursor = mcz_cursor_create(r);
    if (!cursor)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
    const uint8_t *raw;
    size_t raw_len;
    int rc = mcz_cursor_chunk(cursor, index, &raw, &raw_len, diag);
    if (rc == MCZ_OK)
        rc = settle_dictionary(w, r, diag);
    mcz_archive_info source;
    mcz_reader_get_info(r, &source);
    bool same_dict = rc == MCZ_OK && source.dict_id == w->dict_id;
    if (same_dict)
        rc = copy_verbatim(w, r, index, &info, diag);
    else if (rc == MCZ_OK)
        rc = append_decoded(w, raw, raw_len, diag);
    if (verbatim)
        *verbatim = rc == MCZ_OK && same_dict;
    mcz_cursor_free(cursor);
    return rc;
}
