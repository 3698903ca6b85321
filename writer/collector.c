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

mcz_wr_live_step mcz_wr_live_decide(const mcz_wr_live_clock *c, uint64_t now, uint64_t *wake)
{
    *wake = UINT64_MAX;
    if (!c->dirty && !c->unsynced)
        return MCZ_WR_LIVE_WAIT;
    if (now < c->last_ns + c->period_ns) {
        *wake = c->last_ns + c->period_ns;
        return MCZ_WR_LIVE_WAIT;
    }
    bool quiet = now >= c->chunk_ns + c->period_ns;
    if (c->dirty && (c->since_index / MCZ_WR_INDEX_SHARE >= c->index_bytes || quiet))
        return MCZ_WR_LIVE_INDEX;
    if (c->dirty)
        *wake = c->chunk_ns + c->period_ns; /* the index comes when chunks stop */
    return c->unsynced ? MCZ_WR_LIVE_SYNC : MCZ_WR_LIVE_WAIT;
}

/* LIVE: the step mcz_wr_live_decide says (lock held, released while writing). */
static void service_checkpoint(mcz_writer *w, uint64_t now, uint64_t *deadline)
{
    if (w->mode != MCZ_WRITE_LIVE || w->error.code != MCZ_OK)
        return;
    mcz_wr_live_clock clock = {w->dirty, w->unsynced, (uint64_t)w->checkpoint_ms * 1000000u,
                               w->checkpoint_ns, w->chunk_ns, w->since_index, w->index_bytes};
    uint64_t wake;
    mcz_wr_live_step step = mcz_wr_live_decide(&clock, now, &wake);
    earliest(deadline, wake);
    if (step == MCZ_WR_LIVE_WAIT)
        return;
    if (w->output_busy) {
        earliest(deadline, now + SERVICE_RETRY_NS);
        return;
    }
    mcz_wr_output_acquire(w);
    pthread_mutex_unlock(&w->lock);
    mcz_diag d;
    int rc = step == MCZ_WR_LIVE_INDEX ? mcz_wr_checkpoint(w, &d) : mcz_wr_sync(w, &d);
    pthread_mutex_lock(&w->lock);
    if (rc != MCZ_OK)
        mcz_wr_set_error(w, &d);
    mcz_wr_output_release(w);
}

static void service_sleep(mcz_writer *w, uint64_t deadline)
{
    if (deadline == UINT64_MAX) {
        sem_wait(&w->wake);
        return;
    }
    struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
    sem_clockwait(&w->wake, CLOCK_MONOTONIC, &ts);
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
    pthread_mutex_lock(&w->lock);
    while (w->state == WRITER_OPEN) {
        if (atomic_exchange(&w->dump_wanted, false) && w->signal_path) {
            pthread_mutex_unlock(&w->lock);
            service_dump(w);
            pthread_mutex_lock(&w->lock);
            continue;
        }
        uint64_t now = mcz_wr_now_ns(), deadline = UINT64_MAX;
        service_flush(w, now, &deadline);
        service_checkpoint(w, now, &deadline);
        w->service_wake = deadline; /* a chunk opened from now on posts only if due before */
        pthread_mutex_unlock(&w->lock);
        service_sleep(w, deadline);
        pthread_mutex_lock(&w->lock);
        w->service_wake = UINT64_MAX; /* awake: every chunk opened posts */
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Only collectors and writers with a flush interval need the service thread. */
int mcz_wr_service_start(mcz_writer *w, mcz_diag *d)
{
    if (w->mode == MCZ_WRITE_ATOMIC && !w->flush_ms)
        return MCZ_OK;
    if (pthread_create(&w->service, NULL, service_main, w) != 0)
        return mcz_fail(d, MCZ_ENOMEM, -1, -1, "cannot start the writer's service thread");
    w->service_started = true;
    return MCZ_OK;
}

void mcz_wr_service_stop(mcz_writer *w)
{
    if (!w->service_started)
        return;
    sem_post(&w->wake);
    pthread_join(w->service, NULL);
    w->service_started = false;
}

/* ---- Flush, dump ---- */

/* Seals the open chunk, waiting for room (lock held). */
static int seal_waiting(mcz_writer *w)
{
    while (w->error.code == MCZ_OK && w->state == WRITER_OPEN && w->open && w->open->count > 0) {
        if (!mcz_wr_queue_full(w))
            mcz_wr_seal_open(w, true);
        else
            pthread_cond_wait(&w->space, &w->lock);
    }
    return w->error.code != MCZ_OK ? w->error.code
           : w->state != WRITER_OPEN ? MCZ_ESTATE
                                     : MCZ_OK;
}

int mcz_wr_flush_wait(mcz_writer *w)
{
    pthread_mutex_lock(&w->lock);
    int rc = seal_waiting(w);
    if (rc == MCZ_OK)
        rc = mcz_wr_dict_wait(w);
    uint64_t sealed = w->stats.chunks_sealed;
    while (rc == MCZ_OK && w->chunks_out < sealed) {
        if (atomic_load(&w->stream_gone)) {
            rc = MCZ_EIO; /* not sticky: the writer stays usable, under its full policy */
            break;
        }
        pthread_cond_wait(&w->progress, &w->lock);
        rc = w->error.code;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

/* Runs fn with the output token (lock not held on entry or exit). */
static int with_output(mcz_writer *w, int (*fn)(mcz_writer *, const char *, mcz_diag *),
                       const char *path, mcz_diag *d)
{
    pthread_mutex_lock(&w->lock);
    mcz_wr_output_acquire(w);
    pthread_mutex_unlock(&w->lock);
    int rc = fn(w, path, d);
    pthread_mutex_lock(&w->lock);
    mcz_wr_output_release(w);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static int checkpoint_now(mcz_writer *w, const char *unused, mcz_diag *d)
{
    (void)unused;
    int rc = mcz_wr_checkpoint(w, d);
    if (rc != MCZ_OK) {
        pthread_mutex_lock(&w->lock);
        mcz_wr_set_error(w, d);
        pthread_mutex_unlock(&w->lock);
    }
    return rc;
}

int mcz_writer_flush(mcz_writer *w)
{
    if (!w)
        return MCZ_EINVAL;
    int rc = mcz_wr_flush_wait(w);
    if (rc == MCZ_OK && w->mode == MCZ_WRITE_LIVE) {
        mcz_diag d;
        rc = with_output(w, checkpoint_now, NULL, &d);
    }
    return rc;
}

/* rc as a diag: the writer's sticky error when it has one, else rc alone. */
int mcz_wr_report(mcz_writer *w, int rc, mcz_diag *diag)
{
    pthread_mutex_lock(&w->lock);
    mcz_diag sticky = w->error;
    pthread_mutex_unlock(&w->lock);
    if (sticky.code == MCZ_OK)
        return mcz_fail(diag, rc, -1, -1, "writer: %s", mcz_error_name(rc));
    if (diag)
        *diag = sticky;
    return rc;
}

int mcz_writer_dump(mcz_writer *w, const char *path, mcz_diag *diag)
{
    if (!w || !path)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_writer_dump: NULL argument");
    if (w->mode == MCZ_WRITE_ATOMIC || w->mode == MCZ_WRITE_STREAM)
        return mcz_fail(diag, MCZ_ESTATE, -1, -1,
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
    pthread_mutex_lock(&w->lock);
    *out = w->stats;
    pthread_mutex_unlock(&w->lock);
}

void mcz_wr_test_pause(mcz_writer *w, bool paused)
{
    pthread_mutex_lock(&w->lock);
    w->paused = paused;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
}
