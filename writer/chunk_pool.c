/*
 * chunk_pool.c - the chunks appends copy into, kept ready so that an append only copies.
 *
 * An append must not allocate, fault pages in or wait for a compression thread (unless the
 * memory bound is full), since the thread appending is the runtime's: a JIT thread, paying for
 * every microsecond. So the chunk an append opens comes ready from a small pool (w->ready, at
 * most MCZ_WR_READY): a zeroed chunk whose raw buffer of MCZ_WR_CHUNK_CAP bytes has every page
 * touched already. The pool is filled off the append path: at open, by the worker that
 * compressed a chunk (its raw buffer, mapped already, goes into a new ready chunk) and by a
 * worker that finds the pool short (e.g. while the dictionary is pending and nothing is
 * compressed yet, so no buffer comes back).
 *
 * An append reserves its room in the open chunk under the writer's lock (offset, number, count)
 * and copies without it, so that a thread preempted in the middle of its copy holds no other
 * append up. c->copying counts the copies still running; whoever reads a sealed chunk's raw
 * bytes first waits for them (mcz_wr_chunk_settle), then derives the lengths from the
 * contexts' own headers, which the append no longer records.
 */
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "writer_impl.h"

#define PAGE_STEP 4096u                 /* touching one byte in each maps the page */
#define COPY_POLL_NS 20000              /* a copy still running is a preempted thread: 20 us */

/* A ready chunk around raw (cap bytes, mapped), or around a new buffer, every page touched when
 * touch. No lock held: this is where allocation and page faults happen. */
static chunk *make_ready(size_t cap, uint8_t *raw, bool touch)
{
    chunk *c = calloc(1, sizeof *c);
    if (!c) {
        free(raw);
        return NULL;
    }
    if (!raw) {
        raw = malloc(cap);
        for (size_t at = 0; raw && touch && at < cap; at += PAGE_STEP)
            raw[at] = 0;
    }
    if (!raw) {
        free(c);
        return NULL;
    }
    c->raw = raw;
    c->raw_cap = cap;
    atomic_init(&c->retained_next, NULL);
    atomic_init(&c->copying, 0);
    return c;
}

int mcz_wr_pool_fill(mcz_writer *w, mcz_diag *d)
{
    while (w->ready_count < MCZ_WR_READY) {
        chunk *c = make_ready(MCZ_WR_CHUNK_CAP(w), NULL, true);
        if (!c)
            return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        w->ready[w->ready_count++] = c;
    }
    return MCZ_OK;
}

bool mcz_wr_pool_short(const mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    return w->ready_count + w->pool_making < MCZ_WR_READY && w->state == WRITER_OPEN &&
           w->error.code == MCZ_OK;
}

chunk *mcz_wr_pool_take(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    /* Made here, a chunk's pages are left to fault in one append at a time, not all in this one. */
    chunk *c = w->ready_count ? w->ready[--w->ready_count]
                              : make_ready(MCZ_WR_CHUNK_CAP(w), NULL, false);
    /* A compressed chunk gives its buffer back; while the dictionary is pending none comes, so a
     * worker makes the next one: the watcher finds the job, and a worker is woken only when none
     * watches or the pool is empty. */
    if (w->ready_count == 0)
        mcz_cond_signal(&w->work);
    else if (!atomic_load(&w->dict_ready))
        mcz_wr_wake_worker(w);
    return c;
}

/* Keeps c in the pool when it is short (lock held); returns c when it is not kept. */
static chunk *keep(mcz_writer *w, chunk *c)
{
    MCZ_LOCK_HELD(&w->lock);
    if (!c || !mcz_wr_pool_short(w))
        return c;
    w->ready[w->ready_count++] = c;
    return NULL;
}

void mcz_wr_pool_refill(mcz_writer *w, uint8_t *raw, size_t cap)
{
    MCZ_LOCK_HELD(&w->lock);
    size_t want = MCZ_WR_CHUNK_CAP(w);
    if (raw && (cap != want || !mcz_wr_pool_short(w))) {
        mcz_lock_drop(&w->lock);
        free(raw); /* grown for one large context, or not needed */
        mcz_lock_take(&w->lock);
        raw = NULL;
    }
    if (!mcz_wr_pool_short(w))
        return;
    w->pool_making++;
    mcz_lock_drop(&w->lock);
    chunk *made = make_ready(want, raw, true);
    mcz_lock_take(&w->lock);
    w->pool_making--;
    if (!made) {
        mcz_wr_fail(w, MCZ_ENOMEM, -1, "out of memory"); /* sticky, else workers would retry */
        return;
    }
    made = keep(w, made);
    if (made) {
        mcz_lock_drop(&w->lock);
        mcz_wr_chunk_free(made);
        mcz_lock_take(&w->lock);
    }
}

chunk *mcz_wr_chunk_alone(const void *mc, size_t size)
{
    chunk *c = make_ready(size, NULL, false);
    if (!c)
        return NULL;
    memcpy(c->raw, mc, size);
    c->raw_len = size;
    c->count = 1;
    return c;
}

void mcz_wr_pool_free(mcz_writer *w)
{
    while (w->ready_count)
        mcz_wr_chunk_free(w->ready[--w->ready_count]);
}

void mcz_wr_chunk_copy_in(chunk *c, uint8_t *dst, const void *mc, size_t size)
{
    memcpy(dst, mc, size);
    atomic_fetch_sub_explicit(&c->copying, 1, memory_order_release);
}

void mcz_wr_chunk_wait_copies(chunk *c)
{
    while (atomic_load_explicit(&c->copying, memory_order_acquire) != 0)
        mcz_os_nap(COPY_POLL_NS);
}

int mcz_wr_chunk_settle(chunk *c, mcz_diag *d)
{
    mcz_wr_chunk_wait_copies(c);
    if (c->lengths)
        return MCZ_OK;
    c->lengths = malloc((c->count ? c->count : 1) * sizeof *c->lengths);
    if (!c->lengths)
        return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "out of memory");
    /* Each context was checked when appended: the walk finds exactly count of them. */
    uint64_t pos = 0;
    uint32_t number = c->first_number - 1, i = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(c->raw, c->raw_len, &pos, &number, &mc, d)) == 1 && i < c->count)
        c->lengths[i++] = (uint32_t)mc.size;
    if (rc < 0)
        return rc;
    if (rc == 1 || i != c->count)
        return mcz_diag_set(d, MCZ_ECORRUPT, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "chunk of context %u: its bytes do not hold the %u contexts appended",
                            c->first_number, c->count);
    return MCZ_OK;
}
