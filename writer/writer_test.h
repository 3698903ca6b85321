/*
 * writer_test.h - what the writer's unit tests reach besides the API: a hook that holds the
 * compression workers still, so a test can fill the queue and see what a full queue does, and
 * the LIVE checkpoint rule as a pure function.
 */
#ifndef MCZ_WRITER_TEST_H
#define MCZ_WRITER_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "mcz.h"

/* While paused, no worker takes a chunk or trains the dictionary. Unpause before closing. */
void mcz_wr_test_pause(mcz_writer *w, bool paused);

/*
 * LIVE checkpoints (collector.c). Every checkpoint_ms once chunks were written, the service
 * thread writes a new index when the chunk bytes written since the last one reach
 * MCZ_WR_INDEX_SHARE times the size of the index it would write, or once chunks have stopped
 * coming for checkpoint_ms; otherwise it only calls fdatasync. Rewriting the index thus costs
 * at most a quarter of the chunks' own writes, however many contexts it holds; a power loss
 * still loses at most checkpoint_ms of written chunks; and a file whose writer pauses is a
 * complete archive checkpoint_ms later.
 */
#define MCZ_WR_INDEX_SHARE 4
typedef enum { MCZ_WR_LIVE_WAIT, MCZ_WR_LIVE_SYNC, MCZ_WR_LIVE_INDEX } mcz_wr_live_step;

typedef struct mcz_wr_live_clock {
    bool dirty;           /* chunks written since the last index */
    bool unsynced;        /* chunks written since the last fdatasync */
    uint64_t period_ns;   /* checkpoint_ms */
    uint64_t last_ns;     /* the last index or sync */
    uint64_t chunk_ns;    /* the last chunk written */
    uint64_t since_index; /* chunk bytes written since the last index */
    uint64_t index_bytes; /* size of the index a checkpoint would write now */
} mcz_wr_live_clock;

/* What to do at `now`; *wake: when to decide again (UINT64_MAX: when a chunk is written). */
mcz_wr_live_step mcz_wr_live_decide(const mcz_wr_live_clock *c, uint64_t now, uint64_t *wake);

#endif /* MCZ_WRITER_TEST_H */
