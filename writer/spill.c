/*
 * spill.c - the index rows of the chunks in an output that writes its index once, at the end
 * (ATOMIC, STREAM: MCZ_WR_OUT_SPILLS), kept in memory up to a bound and written past it to an
 * unnamed temporary file under TMPDIR, from which the final index reads them back (retained.c);
 * the compressed index frame, made before its head can be written, goes there too after them.
 * So a writer's memory does not grow with the number of contexts: what stays per chunk is its
 * struct chunk (about 150 bytes for a chunk of 2 MiB). A file the rows cannot be written to is
 * the writer's sticky error, naming errno and the directory: the output is then never
 * finished (an ATOMIC temporary is removed), so no archive with a wrong index can appear.
 *
 * Collectors (LIVE, MEMORY) keep their rows in memory: LIVE rewrites its index at every
 * checkpoint, and a MEMORY ring's fatal-signal dump encodes it from a signal handler, which may
 * read only memory (FORMAT.md §12); a rolling collector's rows are bounded by max_bytes.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "out.h"

/*
 * Row bytes held before chunks spill: 4 MiB, 116,508 contexts with hashes. Spilling costs one
 * write of the rows and one read per pass of the index encoder, from the page cache; nothing
 * measurable next to the index's compression (bench/FIGURES.md §13), so the bound is low.
 * MCZ_INDEX_SPILL_MIN=BYTES sets another (the tests spill every chunk with 0).
 */
#define SPILL_MIN (4u << 20)

void mcz_wr_spill_init(mcz_wr_spill *s, bool enabled)
{
    s->bound = enabled ? mcz_env_u64("MCZ_INDEX_SPILL_MIN", SPILL_MIN) : UINT64_MAX;
    s->held = 0;
    s->fd = -1;
    s->size = 0;
    s->frame_len = 0;
    s->err = 0;
    s->dir[0] = '\0';
}

void mcz_wr_spill_close(mcz_wr_spill *s)
{
    if (s->fd >= 0)
        mcz_os_close(s->fd); /* unnamed, or unlinked when made: nothing else to remove */
    s->fd = -1;
}

size_t mcz_wr_rows_size(uint32_t count, bool hashes)
{
    return (size_t)count * (hashes ? 4 + 2 * sizeof(mcz_hash128) : 4);
}

/* Records a failure of the file: errno names it (mcz_wr_spill_failure). */
static int failed(mcz_wr_spill *s, int err)
{
    if (s->err == 0)
        s->err = err ? err : EIO;
    return MCZ_EIO;
}

/* The file, made on first use. */
static int spill_open(mcz_wr_spill *s)
{
    if (s->fd >= 0)
        return MCZ_OK;
    snprintf(s->dir, sizeof s->dir, "%s", mcz_os_temp_dir()); /* the environment may change */
    s->fd = mcz_os_temp_create(s->dir, "mcz-rows");
    return s->fd >= 0 ? MCZ_OK : failed(s, errno);
}

/* Writes len bytes at off. */
static int spill_put(mcz_wr_spill *s, const void *bytes, size_t len, uint64_t off)
{
    return mcz_os_pwrite_all(s->fd, bytes, len, off) == MCZ_OK ? MCZ_OK : failed(s, errno);
}

/* Reads exactly len bytes at off. */
static int spill_get(mcz_wr_spill *s, void *buf, size_t len, uint64_t off)
{
    for (size_t done = 0; done < len;) {
        int64_t n = mcz_os_pread(s->fd, (uint8_t *)buf + done, len - done, off + done);
        if (n <= 0)
            return failed(s, n == 0 ? EIO : errno); /* short: the file lost bytes */
        done += (size_t)n;
    }
    return MCZ_OK;
}

/* Writes c's rows at the end of the file: lengths, identity, dedup. */
static int spill_write(mcz_wr_spill *s, const chunk *c, bool hashes)
{
    size_t lengths = (size_t)c->count * sizeof *c->lengths;
    size_t hash = (size_t)c->count * sizeof(mcz_hash128);
    int rc = spill_open(s);
    if (rc == MCZ_OK)
        rc = spill_put(s, c->lengths, lengths, s->size);
    if (rc == MCZ_OK && hashes)
        rc = spill_put(s, c->identity, hash, s->size + lengths);
    if (rc == MCZ_OK && hashes)
        rc = spill_put(s, c->dedup, hash, s->size + lengths + hash);
    return rc;
}

int mcz_wr_spill_chunk(mcz_wr_spill *s, chunk *c, bool hashes, const char *path, mcz_diag *d)
{
    size_t size = mcz_wr_rows_size(c->count, hashes);
    if (s->held <= s->bound && size <= s->bound - s->held) {
        s->held += size;
        return MCZ_OK;
    }
    if (spill_write(s, c, hashes) != MCZ_OK)
        return mcz_wr_spill_failure(s, path, c->first_number, d);
    c->rows_at = s->size;
    c->rows_spilled = true;
    s->size += size;
    free(c->lengths);
    free(c->identity);
    free(c->dedup);
    c->lengths = NULL;
    c->identity = c->dedup = NULL;
    return MCZ_OK;
}

int mcz_wr_spill_read(mcz_wr_spill *s, const chunk *c, bool hashes, uint8_t *buf)
{
    assert(c->rows_spilled && s->fd >= 0);
    return spill_get(s, buf, mcz_wr_rows_size(c->count, hashes), c->rows_at);
}

int mcz_wr_spill_failure(const mcz_wr_spill *s, const char *path, int64_t number, mcz_diag *d)
{
    assert(s->err != 0);
    return mcz_fail_at(d, path, MCZ_EIO, MCZ_NO_OFFSET,
                       number < 0 ? MCZ_NO_CONTEXT : mcz_in_context(number),
                       "cannot keep the index rows in a temporary file in %s: %s", s->dir,
                       strerror(s->err));
}

/* ---- The compressed index frame, after the rows (mcz_arc_store) ---- */

static int frame_append(void *arg, const void *bytes, size_t len)
{
    mcz_wr_spill *s = arg;
    int rc = spill_put(s, bytes, len, s->size + s->frame_len);
    s->frame_len += len;
    return rc;
}

#define REPLAY_PIECE (64u << 10)

static int frame_replay(void *arg, mcz_arc_sink_fn sink, void *sink_arg)
{
    mcz_wr_spill *s = arg;
    uint8_t *piece = malloc(REPLAY_PIECE);
    if (!piece)
        return MCZ_ENOMEM;
    int rc = MCZ_OK;
    for (uint64_t at = 0; at < s->frame_len && rc == MCZ_OK;) {
        size_t len = s->frame_len - at < REPLAY_PIECE ? (size_t)(s->frame_len - at) : REPLAY_PIECE;
        rc = spill_get(s, piece, len, s->size + at);
        if (rc == MCZ_OK)
            rc = sink(sink_arg, piece, len);
        at += len;
    }
    free(piece);
    return rc;
}

bool mcz_wr_spill_store(mcz_wr_spill *s, mcz_arc_store *store)
{
    if (s->fd < 0)
        return false;
    s->frame_len = 0; /* a frame left by an earlier index is overwritten */
    store->append = frame_append;
    store->replay = frame_replay;
    store->arg = s;
    return true;
}
