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

/*
 * Trains from the k chunks at the queue's head (no lock held: before the dictionary is decided
 * no queued chunk changes or leaves, and only their own fields are read); no dictionary when
 * training fails. The capacity is capped at 1/DICT_SHARE of the samples: on a small input a
 * large dictionary would cost more than it saves (it is stored once, and pays only when many
 * chunks share it).
 */
static int train_from_chunks(mcz_writer *w, chunk *first, uint32_t k, mcz_diag *d)
{
    size_t n = 0, total = 0;
    chunk *c = first;
    for (uint32_t i = 0; i < k; i++, c = i < k ? c->next : NULL) {
        n += c->count;
        total += c->raw_len;
    }
    size_t cap = total / DICT_SHARE < w->dict_size ? total / DICT_SHARE : w->dict_size;
    if (cap < MIN_DICT_SIZE || n > UINT32_MAX)
        return MCZ_OK; /* go without: too little to learn from */
    uint8_t *samples = malloc(total);
    size_t *sizes = malloc(n * sizeof *sizes);
    if (!samples || !sizes) {
        free(samples);
        free(sizes);
        return mcz_fail(d, MCZ_ENOMEM, -1, -1, "dictionary training: out of memory");
    }
    size_t at = 0, s = 0;
    c = first;
    for (uint32_t i = 0; i < k; i++, c = i < k ? c->next : NULL) {
        memcpy(samples + at, c->raw, c->raw_len);
        at += c->raw_len;
        for (uint32_t j = 0; j < c->count; j++)
            sizes[s++] = c->lengths[j];
    }
    int rc = mcz_dict_train(samples, sizes, (unsigned)n, cap, w->level, &w->dict, &w->dict_len, d);
    free(samples);
    free(sizes);
    return rc == MCZ_EUNSUPPORTED ? MCZ_OK : rc; /* go without: it would not have helped */
}

/* The file header and, with a dictionary, the dictionary frame's head (FORMAT.md §2, §3). */
static void encode_head(mcz_writer *w)
{
    mcz_arc_header h = {MCZ_ARC_VERSION, w->dict_len ? MCZ_ARC_FLAG_HAS_DICT : 0, w->level,
                        w->chunk_size, w->dict_id, mcz_jit_ee_id(w->jit_ee)};
    mcz_arc_header_encode(&h, w->head);
    w->head_len = MCZ_ARC_HEADER_SIZE;
    if (w->dict_len) {
        mcz_arc_dict_encode_head(w->dict_id, w->dict, (uint32_t)w->dict_len, w->head + w->head_len);
        w->head_len += MCZ_ARC_DICT_HEAD;
    }
}

int mcz_wr_prepare_dict(mcz_writer *w, mcz_diag *d)
{
    if (w->dict_len) {
        w->dict_id = ZDICT_getDictID(w->dict, w->dict_len);
        if (w->dict_id == 0)
            return mcz_fail(d, MCZ_EDICT, -1, -1, "the dictionary is not a zstd dictionary");
        w->cdict = ZSTD_createCDict(w->dict, w->dict_len, w->level);
        if (!w->cdict)
            return mcz_fail(d, MCZ_EZSTD, -1, -1, "zstd: cannot digest the dictionary");
    }
    encode_head(w);
    return w->mode == MCZ_WRITE_MEMORY ? MCZ_OK : mcz_wr_write_head(w, d);
}

void mcz_wr_publish_dict(mcz_writer *w)
{
    if (w->mode != MCZ_WRITE_MEMORY)
        w->stats.written_bytes += w->head_len + w->dict_len;
    w->dirty = w->mode == MCZ_WRITE_LIVE; /* the first checkpoint makes the file an archive */
    atomic_store(&w->dict_ready, true);
    pthread_cond_broadcast(&w->work);
    pthread_cond_broadcast(&w->progress);
}

void mcz_wr_dict_begin(mcz_writer *w)
{
    w->training = true;
    mcz_wr_output_acquire(w);
}

void mcz_wr_dict_end(mcz_writer *w, int rc, const mcz_diag *d)
{
    if (rc == MCZ_OK)
        mcz_wr_publish_dict(w);
    else
        mcz_wr_set_error(w, d);
    w->training = false;
    mcz_wr_output_release(w);
}

void mcz_wr_decide_dict(mcz_writer *w)
{
    mcz_wr_dict_begin(w);
    chunk *first = w->head_chunk;
    uint32_t k = w->train_chunks;
    pthread_mutex_unlock(&w->lock);
    uint64_t cpu = mcz_wr_thread_cpu_ns();
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = train_from_chunks(w, first, k, &d);
    if (rc == MCZ_OK)
        rc = mcz_wr_prepare_dict(w, &d);
    cpu = mcz_wr_thread_cpu_ns() - cpu;
    pthread_mutex_lock(&w->lock);
    w->stats.compress_cpu_ns += cpu;
    mcz_wr_dict_end(w, rc, &d);
}

void mcz_wr_want_dict(mcz_writer *w)
{
    if (atomic_load(&w->dict_ready) || w->train_wanted)
        return;
    w->train_wanted = true;
    w->train_chunks = w->in_flight;
    pthread_cond_broadcast(&w->work);
}

int mcz_wr_dict_wait(mcz_writer *w)
{
    mcz_wr_want_dict(w);
    while (w->error.code == MCZ_OK && !atomic_load(&w->dict_ready))
        pthread_cond_wait(&w->progress, &w->lock);
    return w->error.code;
}
