/*
 * spill.c - the index rows of the chunks in an output that writes its index once, at the end
 * (ATOMIC, STREAM: MCZ_WR_OUT_SPILLS), kept in memory up to a bound and written past it to an
 * unnamed temporary file under TMPDIR, from which the final index reads them back (retained.c).
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

#include "../io/platform.h"
#include "mcz_common.h"
#include "out.h"

/*
 * Row bytes held before chunks spill: 4 MiB, 116,508 contexts with hashes. Spilling costs one
 * write of the rows and one read per pass of the index encoder, from the page cache; nothing
 * measurable next to the index's compression (bench/FIGURES.md §13), so the bound is low.
 * MCZ_INDEX_SPILL_MIN=BYTES sets another (the tests spill every chunk with 0).
 */
#define SPILL_MIN (4u << 20)

static uint64_t spill_bound(void)
{
    const char *text = getenv("MCZ_INDEX_SPILL_MIN");
    char *end;
    unsigned long long v = text && *text ? strtoull(text, &end, 10) : 0;
    return text && *text && *end == '\0' ? (uint64_t)v : SPILL_MIN;
}

void mcz_wr_spill_init(mcz_wr_spill *s, bool enabled)
{
    s->bound = enabled ? spill_bound() : UINT64_MAX;
    s->held = 0;
    s->fd = -1;
    s->size = 0;
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

/* Writes c's rows at the end of the file (made on first use): lengths, identity, dedup. */
static int spill_write(mcz_wr_spill *s, const chunk *c, bool hashes)
{
    if (s->fd < 0) {
        snprintf(s->dir, sizeof s->dir, "%s", mcz_os_temp_dir()); /* the environment may change */
        s->fd = mcz_os_temp_create(s->dir, "mcz-rows");
        if (s->fd < 0)
            return MCZ_EIO;
    }
    size_t lengths = (size_t)c->count * sizeof *c->lengths;
    size_t hash = (size_t)c->count * sizeof(mcz_hash128);
    int rc = mcz_os_pwrite_all(s->fd, c->lengths, lengths, s->size);
    if (rc == MCZ_OK && hashes)
        rc = mcz_os_pwrite_all(s->fd, c->identity, hash, s->size + lengths);
    if (rc == MCZ_OK && hashes)
        rc = mcz_os_pwrite_all(s->fd, c->dedup, hash, s->size + lengths + hash);
    return rc;
}

int mcz_wr_spill_chunk(mcz_wr_spill *s, chunk *c, bool hashes, const char *path, mcz_diag *d)
{
    size_t size = mcz_wr_rows_size(c->count, hashes);
    if (s->held <= s->bound && size <= s->bound - s->held) {
        s->held += size;
        return MCZ_OK;
    }
    if (spill_write(s, c, hashes) != MCZ_OK) {
        int err = errno;
        return mcz_fail_at(d, path, MCZ_EIO, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                           "cannot write the index rows to a temporary file in %s: %s", s->dir,
                           strerror(err));
    }
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

int mcz_wr_spill_read(const mcz_wr_spill *s, const chunk *c, bool hashes, uint8_t *buf)
{
    assert(c->rows_spilled && s->fd >= 0);
    size_t size = mcz_wr_rows_size(c->count, hashes);
    size_t done = 0;
    while (done < size) {
        int64_t n = mcz_os_pread(s->fd, buf + done, size - done, c->rows_at + done);
        if (n <= 0)
            return MCZ_EIO;
        done += (size_t)n;
    }
    return MCZ_OK;
}
