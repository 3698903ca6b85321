/*
 * queue.c - the queue of sealed chunks: a chunk joins it when it is sealed, and the first
 * chunks, while the dictionary is undecided, are its samples (dictionary.c). Lock held
 * throughout.
 */
#include "mcz_common.h"
#include "writer_impl.h"

bool mcz_wr_queue_full(const mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    bool sampling = !atomic_load(&w->dict_ready) && !w->train_wanted && !w->training;
    return !sampling && w->in_flight >= w->queue_limit;
}

void mcz_wr_enqueue(mcz_writer *w, chunk *c)
{
    MCZ_LOCK_HELD(&w->lock);
    c->next = NULL;
    if (w->tail_chunk)
        w->tail_chunk->next = c;
    else
        w->head_chunk = c;
    w->tail_chunk = c;
    if (!w->todo && c->state == CHUNK_SEALED)
        w->todo = c;
    w->in_flight++;
    w->stats.chunks_sealed++;
    if (w->in_flight > w->stats.queue_peak)
        w->stats.queue_peak = w->in_flight;
}

void mcz_wr_seal_open(mcz_writer *w, bool force)
{
    MCZ_LOCK_HELD(&w->lock);
    chunk *c = w->open;
    w->open = NULL;
    c->state = CHUNK_SEALED;
    mcz_wr_enqueue(w, c);
    if (atomic_load(&w->dict_ready)) {
        mcz_wr_wake_worker(w);
        return;
    }
    w->buffered_raw += c->raw_len;
    if (force || w->buffered_raw >= w->train_bytes)
        mcz_wr_want_dict(w);
}
