/*
 * collector.c - what makes the writer a collector inside a running process (FORMAT.md §12): the
 * service thread (flush_ms, LIVE checkpoints, dumps asked for by a signal), flush and dump,
 * statistics.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcz_common.h"
#include "writer_impl.h"
#include "writer_test.h"

#define SERVICE_RETRY_NS 10000000u /* a seal or checkpoint that found the way busy: 10 ms */

/* ---- Service thread ---- */

static void earliest(uint64_t *deadline, uint64_t at)
{
    if (at < *deadline)
        *deadline = at;
}

/* flush_ms: seals the open chunk once it is old enough (lock held). */
static void service_flush(mcz_writer *w, uint64_t now, uint64_t *deadline)
{
    MCZ_LOCK_HELD(&w->lock);
    if (!w->flush_ms || !w->open || w->open->count == 0)
        return;
    uint64_t due = w->open->opened_ns + (uint64_t)w->flush_ms * 1000000u;
    if (now < due)
        earliest(deadline, due);
    else if (mcz_wr_queue_full(w))
        earliest(deadline, now + SERVICE_RETRY_NS);
    else
        mcz_wr_seal_open(w, true);
}

/* An output with checkpoints (LIVE): the step it says is due (lock held, released while
 * writing). */
static void service_checkpoint(mcz_writer *w, uint64_t now, uint64_t *deadline)
{
    MCZ_LOCK_HELD(&w->lock);
    if (!w->out->ops->due || w->error.code != MCZ_OK)
        return;
    uint64_t wake;
    mcz_wr_live_step step = w->out->ops->due(w->out, now, &wake);
    earliest(deadline, wake);
    if (step == MCZ_WR_LIVE_WAIT)
        return;
    if (w->output_busy) {
        earliest(deadline, now + SERVICE_RETRY_NS);
        return;
    }
    mcz_wr_output_acquire(w);
    mcz_lock_drop(&w->lock);
    mcz_diag d;
    int rc = mcz_wr_checkpoint(w, step == MCZ_WR_LIVE_INDEX, &d);
    mcz_lock_take(&w->lock);
    if (rc != MCZ_OK)
        mcz_wr_set_error(w, &d);
    mcz_wr_output_release(w);
}

static void service_sleep(mcz_writer *w, uint64_t deadline)
{
    if (deadline == UINT64_MAX) {
        mcz_sem_wait(&w->wake);
        return;
    }
    mcz_sem_wait_until(&w->wake, deadline);
}

/* A dump asked for by the request signal. A failure is not the writer's: it goes on, and the
 * next request tries again. */
static void service_dump(mcz_writer *w)
{
    mcz_diag d;
    if (mcz_writer_dump(w, w->signal_path, &d) != MCZ_OK) {
        /* nothing to do here: see above */
    }
}

static void *service_main(void *arg)
{
    mcz_writer *w = arg;
    mcz_lock_take(&w->lock);
    while (w->state == WRITER_OPEN) {
        if (atomic_exchange(&w->dump_wanted, false) && w->signal_path) {
            mcz_lock_drop(&w->lock);
            service_dump(w);
            mcz_lock_take(&w->lock);
            continue;
        }
        uint64_t now = mcz_wr_now_ns(), deadline = UINT64_MAX;
        service_flush(w, now, &deadline);
        service_checkpoint(w, now, &deadline);
        w->service_wake = deadline; /* a chunk opened from now on posts only if due before */
        mcz_lock_drop(&w->lock);
        service_sleep(w, deadline);
        mcz_lock_take(&w->lock);
        w->service_wake = UINT64_MAX; /* awake: every chunk opened posts */
    }
    mcz_lock_drop(&w->lock);
    return NULL;
}

/* Only collectors and writers with a flush interval need the service thread. */
int mcz_wr_service_start(mcz_writer *w, mcz_diag *d)
{
    if (!(w->out->ops->flags & MCZ_WR_OUT_COLLECTS) && !w->flush_ms)
        return MCZ_OK;
    if (mcz_thread_create(&w->service, service_main, w) != 0)
        return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "cannot start the writer's service thread");
    w->service_started = true;
    return MCZ_OK;
}

void mcz_wr_service_stop(mcz_writer *w)
{
    if (!w->service_started)
        return;
    mcz_sem_post(&w->wake);
    mcz_thread_join(&w->service);
    w->service_started = false;
}

/* ---- Flush, dump ---- */

/* Seals the open chunk, waiting for room (lock held). */
static int seal_waiting(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    while (w->error.code == MCZ_OK && w->state == WRITER_OPEN && w->open && w->open->count > 0) {
        if (!mcz_wr_queue_full(w))
            mcz_wr_seal_open(w, true);
        else if (atomic_load(&w->out->lost))
            return MCZ_EIO; /* STREAM's receiver gone: its queue stays full (requeue_head) */
        else
            mcz_lock_wait(&w->lock, &w->space);
    }
    return w->error.code != MCZ_OK ? w->error.code
           : w->state != WRITER_OPEN ? MCZ_ESTATE
                                     : MCZ_OK;
}

int mcz_wr_flush_wait(mcz_writer *w)
{
    MCZ_LOCK_FREE(&w->lock);
    mcz_lock_take(&w->lock);
    int rc = seal_waiting(w);
    if (rc == MCZ_OK)
        rc = mcz_wr_dict_wait(w);
    uint64_t sealed = w->stats.chunks_sealed;
    while (rc == MCZ_OK && w->chunks_out < sealed) {
        if (atomic_load(&w->out->lost)) {
            rc = MCZ_EIO; /* not sticky: the writer stays usable, under its full policy */
            break;
        }
        mcz_lock_wait(&w->lock, &w->progress);
        rc = w->error.code;
    }
    mcz_lock_drop(&w->lock);
    return rc;
}

/* Runs fn with the output token (lock not held on entry or exit). */
static int with_output(mcz_writer *w, int (*fn)(mcz_writer *, const char *, mcz_diag *),
                       const char *path, mcz_diag *d)
{
    mcz_lock_take(&w->lock);
    mcz_wr_output_acquire(w);
    mcz_lock_drop(&w->lock);
    int rc = fn(w, path, d);
    mcz_lock_take(&w->lock);
    mcz_wr_output_release(w);
    mcz_lock_drop(&w->lock);
    return rc;
}

static int checkpoint_now(mcz_writer *w, const char *unused, mcz_diag *d)
{
    (void)unused;
    int rc = mcz_wr_checkpoint(w, true, d);
    if (rc != MCZ_OK) {
        mcz_lock_take(&w->lock);
        mcz_wr_set_error(w, d);
        mcz_lock_drop(&w->lock);
    }
    return rc;
}

int mcz_writer_flush(mcz_writer *w)
{
    if (!w)
        return MCZ_EINVAL;
    int rc = mcz_wr_flush_wait(w);
    if (rc == MCZ_OK && w->out->ops->checkpoint) {
        mcz_diag d;
        rc = with_output(w, checkpoint_now, NULL, &d);
    }
    return rc;
}

/* rc as a diag: the writer's sticky error when it has one, else rc alone. */
int mcz_wr_report(mcz_writer *w, int rc, mcz_diag *diag)
{
    MCZ_LOCK_FREE(&w->lock);
    mcz_lock_take(&w->lock);
    mcz_diag sticky = w->error;
    mcz_lock_drop(&w->lock);
    if (sticky.code == MCZ_OK)
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "writer: %s",
                            mcz_error_name(rc));
    if (diag)
        *diag = sticky;
    return rc;
}

int mcz_writer_dump(mcz_writer *w, const char *path, mcz_diag *diag)
{
    if (!w || !path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump: NULL argument");
    if (!(w->out->ops->flags & MCZ_WR_OUT_DUMPS))
        return mcz_diag_set(diag, MCZ_ESTATE, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump: not for an ATOMIC or STREAM writer");
    int rc = mcz_wr_flush_wait(w);
    if (rc != MCZ_OK)
        return mcz_wr_report(w, rc, diag);
    return with_output(w, mcz_wr_dump_retained, path, diag);
}

/* ---- Statistics ---- */

void mcz_writer_get_stats(mcz_writer *w, mcz_writer_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!w)
        return;
    mcz_lock_take(&w->lock);
    *out = w->stats;
    mcz_lock_drop(&w->lock);
}

void mcz_wr_test_pause(mcz_writer *w, bool paused)
{
    mcz_lock_take(&w->lock);
    w->paused = paused;
    mcz_cond_broadcast(&w->work);
    mcz_lock_drop(&w->lock);
}
