/*
 * dictionary.c - the writer's dictionary decision (format/FORMAT.md §3, §12). Chunks cannot be
 * compressed before it: sealed chunks wait in the queue (they are the training samples) until
 * train_bytes are buffered or a flush, a dump, close or flush_ms asks for the decision; then a
 * worker trains (dict.c), digests the dictionary, writes the head, and the backlog drains. A
 * dictionary given at open, or adopted from the archive of a chunk copy, is decided at once.
 *
 * The samples are the chunks queued when the decision is asked for: the first chunks to reach
 * train_bytes (or all of them at a flush or close), a prefix fixed by the input, never by how
 * soon a worker takes the job. So the same input and options give the same dictionary, and the
 * same archive, whatever the number of threads and their timing.
 */
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "mcz_common.h"
#include "writer_impl.h"

#define DICT_SHARE 64        /* the dictionary is at most 1/64 of the samples it comes from */
#define MIN_DICT_SIZE 1024u  /* below this a dictionary is not worth a frame */
/* A dictionary judged on n held-out chunks is kept when its projected saving is at least
 * 1 + DICT_DOUBT / n times its cost: a projection from few chunks is noisy
 * (bench/FIGURES.md §5). */
#define DICT_DOUBT 2.0

/*
 * Sample chunks are walked by count, never by reaching a NULL next: the last sample's next is the
 * appending thread's to set, concurrently. next_sample gives the chunk after c when c is sample
 * i - 1 of k, NULL after the last; chunk_after the chunk k places after c (k below the count).
 */
static chunk *next_sample(chunk *c, uint32_t i, uint32_t k)
{
    return i < k ? c->next : NULL;
}

static chunk *chunk_after(chunk *c, uint32_t k)
{
    while (k-- > 0)
        c = c->next;
    return c;
}

/* Drops the trained dictionary: the archive goes without one. */
static void drop_dict(mcz_writer *w)
{
    ZSTD_freeCDict(w->cdict);
    w->cdict = NULL;
    free(w->dict);
    w->dict = NULL;
    w->dict_len = 0;
}

/*
 * Bytes the k sample chunks (*raw of them) compress to with the workers' own settings, with
 * w->cdict when set: the very sizes their frames will have, so two runs compare exactly.
 */
static int compressed_size(mcz_writer *w, chunk *first, uint32_t k, uint64_t *raw,
                           uint64_t *total, mcz_diag *d)
{
    size_t largest = 0;
    *raw = 0;
    uint32_t i = 0;
    for (chunk *c = first; c; c = next_sample(c, ++i, k)) {
        size_t data_max = w->packets ? (size_t)mcz_layout_bound(c->raw_len, c->count) : c->raw_len;
        largest = data_max > largest ? data_max : largest;
        *raw += c->raw_len;
    }
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(largest);
    void *out = malloc(cap);
    mcz_arc_buffer scratch = {NULL, 0};
    int rc = !cctx || !out ? MCZ_ENOMEM : mcz_wr_setup_cctx(w, cctx);
    *total = 0;
    i = 0;
    for (chunk *c = first; c && rc == MCZ_OK; c = next_sample(c, ++i, k)) {
        const uint8_t *data;
        size_t len;
        rc = mcz_wr_chunk_data(w, c, &scratch, &data, &len, d);
        if (rc != MCZ_OK)
            break;
        size_t n = ZSTD_compress2(cctx, out, cap, data, len);
        if (ZSTD_isError(n))
            rc = MCZ_EZSTD;
        *total += n;
    }
    ZSTD_freeCCtx(cctx);
    free(out);
    free(scratch.bytes);
    if (rc == MCZ_ENOMEM)
        return mcz_diag_set(d, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "dictionary decision: out of memory");
    return rc == MCZ_OK ? MCZ_OK : mcz_diag_set(d, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                                "dictionary decision: zstd failed");
}

/*
 * Keeps the trained dictionary only when it pays for itself: the bytes it saves on the `judged`
 * chunks from `first`, per input byte, times `horizon` input bytes, must exceed `margin` times
 * what it costs to store (its frame). Digests the dictionary (w->cdict) to try it.
 */
static int keep_if_it_pays(mcz_writer *w, chunk *first, uint32_t judged, uint64_t horizon,
                           double margin, mcz_diag *d)
{
    uint64_t raw, without, with;
    int rc = compressed_size(w, first, judged, &raw, &without, d);
    if (rc == MCZ_OK) {
        w->cdict = ZSTD_createCDict(w->dict, w->dict_len, w->level);
        rc = w->cdict ? compressed_size(w, first, judged, &raw, &with, d)
                      : mcz_diag_set(d, MCZ_EZSTD, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                     "zstd: cannot digest the dictionary");
    }
    if (rc != MCZ_OK)
        return rc;
    double saved = with < without ? (double)(without - with) * ((double)horizon / (double)raw) : 0;
    if (saved <= margin * (double)(w->dict_len + MCZ_ARC_DICT_HEAD))
        drop_dict(w);
    return MCZ_OK;
}

/* Appends chunk c's samples to samples + *at and their sizes to sizes + *s: its contexts, or in
 * the packet layout its data (what the dictionary will meet) cut into as many equal pieces as
 * it has contexts: a layout has no context boundaries, and fastCover wants many samples (on the
 * default corpus, 4, 16 and 64 KiB pieces trained dictionaries of equal worth;
 * bench/FIGURES.md §5). */
static int add_samples(const mcz_writer *w, const chunk *c, mcz_arc_buffer *scratch,
                       uint8_t *samples, size_t *at, size_t *sizes, size_t *s, mcz_diag *d)
{
    const uint8_t *data;
    size_t len;
    int rc = mcz_wr_chunk_data(w, c, scratch, &data, &len, d);
    if (rc != MCZ_OK)
        return rc;
    memcpy(samples + *at, data, len);
    *at += len;
    if (!w->packets) {
        for (uint32_t j = 0; j < c->count; j++)
            sizes[(*s)++] = c->lengths[j];
        return MCZ_OK;
    }
    size_t piece = (len + c->count - 1) / c->count;
    for (size_t off = 0; off < len; off += piece)
        sizes[(*s)++] = len - off < piece ? len - off : piece;
    return MCZ_OK;
}

/* The capacity of a dictionary trained on sample_bytes: 1/DICT_SHARE of them at most. On a
 * small input a large dictionary would cost more than it saves (it is stored once, and pays
 * only when many chunks share it). */
static size_t dict_cap(const mcz_writer *w, uint64_t sample_bytes)
{
    return sample_bytes / DICT_SHARE < w->dict_size ? (size_t)(sample_bytes / DICT_SHARE)
                                                    : w->dict_size;
}

/*
 * Trains a dictionary from the k chunks from first (no lock held: before the dictionary is
 * decided no queued chunk changes or leaves, and only their own fields are read), of at most
 * dict_cap of them and max_len bytes; no dictionary when training fails or the cap is too small
 * to be worth a frame.
 */
static int train_from_chunks(mcz_writer *w, chunk *first, uint32_t k, size_t max_len,
                             mcz_diag *d)
{
    assert(!w->dict && w->dict_len == 0); /* none yet, or the judged one dropped */
    size_t n = 0, room = 0;
    uint64_t total = 0;
    uint32_t i = 0;
    for (chunk *c = first; c; c = next_sample(c, ++i, k)) {
        uint64_t data_max = w->packets ? mcz_layout_bound(c->raw_len, c->count) : c->raw_len;
        n += c->count;
        total += c->raw_len;
        room += (size_t)data_max;
    }
    size_t cap = dict_cap(w, total) < max_len ? dict_cap(w, total) : max_len;
    if (cap < MIN_DICT_SIZE || n > UINT32_MAX)
        return MCZ_OK; /* go without: too little to learn from */
    uint8_t *samples = malloc(room);
    size_t *sizes = malloc(n * sizeof *sizes);
    size_t at = 0, s = 0;
    mcz_arc_buffer scratch = {NULL, 0};
    int rc = samples && sizes ? MCZ_OK
                              : mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                             "dictionary training: out of memory");
    i = 0;
    for (chunk *c = first; c && rc == MCZ_OK; c = next_sample(c, ++i, k))
        rc = add_samples(w, c, &scratch, samples, &at, sizes, &s, d);
    if (rc == MCZ_OK)
        rc = mcz_dict_train(samples, sizes, (unsigned)s, cap, w->level, &w->dict, &w->dict_len, d);
    free(scratch.bytes);
    free(samples);
    free(sizes);
    return rc == MCZ_EUNSUPPORTED ? MCZ_OK : rc; /* go without: it would not have helped */
}

/*
 * The decision on the k chunks queued (bench/FIGURES.md §5). When they are all the input there will
 * be (the caller expects no more), the dictionary is trained on them and judged on them: exact, so
 * the archive is never larger with it. When more input is expected, a dictionary judged on its own
 * training chunks looks better than it is on the rest (seen: 2.2 KB larger on an 86 MB collection),
 * so one trained on the first half is judged on the second, the saving scaled to the input
 * expected. When it pays, the dictionary stored is trained on all k, no larger than the one judged:
 * twice its size (the cap all k allow) left collections of 43 and 130 MB 13-14 KB larger than
 * without, and so did one of that size judged on the half (bench/FIGURES.md §5).
 */
static int decide_from_chunks(mcz_writer *w, chunk *first, uint32_t k, mcz_diag *d)
{
    uint64_t sampled = 0;
    uint32_t i = 0;
    for (chunk *c = first; c; c = next_sample(c, ++i, k)) {
        int settled = mcz_wr_chunk_settle(c, d); /* the last appends into it may still copy */
        if (settled != MCZ_OK)
            return settled;
        sampled += c->raw_len;
    }
    bool held_out = w->expected_bytes > sampled && k >= 2;
    if (!held_out) {
        int rc = train_from_chunks(w, first, k, SIZE_MAX, d);
        return rc != MCZ_OK || !w->dict_len ? rc : keep_if_it_pays(w, first, k, sampled, 1.0, d);
    }
    uint32_t trained = k / 2, judged = k - trained;
    int rc = train_from_chunks(w, first, trained, SIZE_MAX, d);
    if (rc == MCZ_OK && w->dict_len)
        rc = keep_if_it_pays(w, chunk_after(first, trained), judged, w->expected_bytes,
                             1.0 + DICT_DOUBT / judged, d);
    if (rc != MCZ_OK || !w->dict_len)
        return rc;
    size_t judged_len = w->dict_len; /* it pays: trained on all the samples it serves better */
    drop_dict(w);
    return train_from_chunks(w, first, k, judged_len, d);
}

/* The file header and, with a dictionary, the dictionary frame's head (FORMAT.md §2, §3). */
static void encode_head(mcz_writer *w)
{
    uint32_t flags = (w->dict_len ? MCZ_ARC_FLAG_HAS_DICT : 0) |
                     (w->codec == MCZ_CODEC_XZ ? MCZ_ARC_FLAG_CODEC_XZ : 0) |
                     (w->packets ? MCZ_ARC_FLAG_PACKETS : 0);
    mcz_arc_header h = {MCZ_ARC_VERSION, flags, w->level, w->chunk_size, w->dict_id,
                        mcz_jit_ee_id(w->jit_ee)};
    mcz_arc_header_encode(&h, w->head);
    w->head_len = MCZ_ARC_HEADER_SIZE;
    if (w->dict_len) {
        mcz_arc_dict_encode_head(w->dict_id, w->dict, (uint32_t)w->dict_len, w->head + w->head_len);
        w->head_len += MCZ_ARC_DICT_HEAD;
    }
}

int mcz_wr_prepare_dict(mcz_writer *w, mcz_diag *d)
{
    MCZ_LOCK_FREE(&w->lock);
    if (w->dict_len) {
        w->dict_id = ZDICT_getDictID(w->dict, w->dict_len);
        if (w->dict_id == 0)
            return mcz_diag_set(d, MCZ_EDICT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "the dictionary is not a zstd dictionary");
        if (!w->cdict) /* a trained one is digested already, to try it */
            w->cdict = ZSTD_createCDict(w->dict, w->dict_len, w->level);
        if (!w->cdict)
            return mcz_diag_set(d, MCZ_EZSTD, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "zstd: cannot digest the dictionary");
    }
    encode_head(w);
    return mcz_wr_write_head(w, d);
}

void mcz_wr_publish_dict(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    bool kept = w->out->ops->flags & MCZ_WR_OUT_IN_MEMORY;
    if (!kept && !atomic_load(&w->out->lost))
        w->stats.written_bytes += MCZ_WR_DATA_START(w);
    if (w->out->ops->ready)
        w->out->ops->ready(w->out);
    atomic_store(&w->dict_ready, true);
    mcz_cond_broadcast(&w->work);
    mcz_cond_broadcast(&w->progress);
}

void mcz_wr_dict_begin(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    w->training = true;
    mcz_wr_output_acquire(w);
}

void mcz_wr_dict_end(mcz_writer *w, int rc, const mcz_diag *d)
{
    MCZ_LOCK_HELD(&w->lock);
    if (rc == MCZ_OK)
        mcz_wr_publish_dict(w);
    else
        mcz_wr_set_error(w, d);
    w->training = false;
    mcz_wr_output_release(w);
}

void mcz_wr_decide_dict(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    mcz_wr_dict_begin(w);
    chunk *first = w->head_chunk;
    uint32_t k = w->train_chunks;
    mcz_lock_drop(&w->lock);
    uint64_t cpu = mcz_wr_thread_cpu_ns();
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = decide_from_chunks(w, first, k, &d);
    if (rc == MCZ_OK)
        rc = mcz_wr_prepare_dict(w, &d);
    cpu = mcz_wr_thread_cpu_ns() - cpu;
    mcz_lock_take(&w->lock);
    w->stats.compress_cpu_ns += cpu;
    mcz_wr_dict_end(w, rc, &d);
}

void mcz_wr_want_dict(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    if (atomic_load(&w->dict_ready) || w->train_wanted)
        return;
    w->train_wanted = true;
    w->train_chunks = w->in_flight;
    mcz_wr_wake_worker(w); /* one worker trains: from an append, no wake-up when one watches */
}

int mcz_wr_dict_wait(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    mcz_wr_want_dict(w);
    while (w->error.code == MCZ_OK && !atomic_load(&w->dict_ready))
        mcz_lock_wait(&w->lock, &w->progress);
    return w->error.code;
}
