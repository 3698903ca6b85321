/*
 * base.c - what every file of the writer core uses: the sticky error, the clocks, freeing a
 * chunk, waking a worker. It calls no other file of the writer (lock.h aside).
 */
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "writer_impl.h"

void mcz_wr_chunk_free(chunk *c)
{
    if (!c)
        return;
    free(c->lengths);
    free(c->raw);
    /* The chunk header's magic and tag go first, so a memory image (a core dump) never shows a
     * discarded chunk as retained (FORMAT.md §13). */
    if (c->frames && c->frames_len >= MCZ_ARC_FRAME_HEAD + 4)
        memset(c->frames, 0, MCZ_ARC_FRAME_HEAD + 4);
    free(c->frames);
    free(c->identity);
    free(c->dedup);
    free(c);
}

uint64_t mcz_wr_now_ns(void)
{
    return mcz_os_monotonic_ns();
}

uint64_t mcz_wr_thread_cpu_ns(void)
{
    return mcz_os_thread_cpu_ns();
}

/* Records the first error (sticky) and wakes everyone so nothing waits on a dead writer. */
int mcz_wr_set_error(mcz_writer *w, const mcz_diag *d)
{
    MCZ_LOCK_HELD(&w->lock);
    if (w->error.code == MCZ_OK)
        w->error = *d;
    mcz_cond_broadcast(&w->space);
    mcz_cond_broadcast(&w->work);
    mcz_cond_broadcast(&w->progress);
    return w->error.code;
}

int mcz_wr_fail(mcz_writer *w, int code, int64_t context, const char *what)
{
    mcz_diag d;
    mcz_diag_set(&d, code, MCZ_NO_OFFSET, mcz_in_context(context), "%s", what);
    return mcz_wr_set_error(w, &d);
}

void mcz_wr_wake_worker(mcz_writer *w)
{
    MCZ_LOCK_HELD(&w->lock);
    if (!w->watching)
        mcz_cond_signal(&w->work);
}
