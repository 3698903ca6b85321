/*
 * writer_test.h - what the writer's unit tests reach besides the API: a hook that holds the
 * compression workers still, so a test can fill the queue and see what a full queue does; hooks
 * at the output, so a test can make finished chunks pile up and stop or look at any chunk write
 * (in the spirit of SQLite's crash-simulating test layer, src/test6.c: a crash lands at a chosen
 * write, not after a random delay); and the LIVE checkpoint rule as a pure function.
 */
#ifndef MCZ_WRITER_TEST_H
#define MCZ_WRITER_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/mcz_common.h"

/* While paused, no worker takes a chunk or trains the dictionary. Unpause before closing. */
void mcz_wr_test_pause(mcz_writer *w, bool paused);

/*
 * Called before each chunk is written to the output (the file; in MEMORY mode the ring), with
 * the output token held and no lock, so it may read the file or call mcz_writer_get_stats (but
 * not flush or dump). index counts the chunks output before this one. Any code but MCZ_OK fails
 * that write as an I/O error would: the writer stops there, and a LIVE file stays as a crash
 * at that write would leave it. NULL removes the hook.
 */
typedef int (*mcz_wr_test_write_fn)(mcz_writer *w, uint64_t index, void *arg);
void mcz_wr_test_on_write(mcz_writer *w, mcz_wr_test_write_fn fn, void *arg);

/* Bytes of index rows written so far to the writer's temporary file (writer/spill.c; the
 * bound: MCZ_INDEX_SPILL_MIN), from a write hook (the output token held). */
uint64_t mcz_wr_test_spilled(const mcz_writer *w);

/* held: takes the output token, so finished chunks pile up in the queue. Not held: waits until
 * every queued chunk is compressed (none may be paused), then gives the token back, which
 * writes them all from this thread, one after another. No dictionary may be pending. */
void mcz_wr_test_hold_output(mcz_writer *w, bool held);

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
