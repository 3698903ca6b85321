/*
 * retained.c - the retained list (the chunks that reached the output, oldest first, output.c)
 * read as an index or as a whole archive: what checkpoints, closes and dumps write, whatever
 * the output. It reads the list through its atomic links, so a fatal-signal dump can use it
 * without a lock; it changes nothing.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "out.h"

uint32_t mcz_wr_list_count(chunk *first)
{
    uint32_t k = 0;
    for (chunk *c = first; c; c = atomic_load_explicit(&c->retained_next, memory_order_acquire))
        k++;
    return k;
}

/* Index rows of the listed chunks; relocated: laid back to back from data_start (a dump),
 * else at their offsets in the output (a checkpoint or a final index). A spilled chunk's rows
 * are read back into buf, which holds the largest; a read that fails leaves zeros there and
 * its code in rc, which fails the index once encoded (the encoder's rows cannot fail). */
typedef struct retained_walk {
    chunk *first, *at;
    uint64_t data_start, pos;
    bool relocate, hashes;
    mcz_wr_spill *spill;
    uint8_t *buf;
    int rc;
} retained_walk;

static void spilled_rows(retained_walk *k, const chunk *c, mcz_arc_rows *out)
{
    assert(k->buf);
    int rc = mcz_wr_spill_read(k->spill, c, k->hashes, k->buf);
    if (rc != MCZ_OK) {
        memset(k->buf, 0, mcz_wr_rows_size(c->count, k->hashes));
        if (k->rc == MCZ_OK)
            k->rc = rc;
    }
    const uint8_t *identity = k->buf + 4 * (size_t)c->count; /* after the lengths */
    out->lengths = (const uint32_t *)(const void *)k->buf;
    out->identity = k->hashes ? (const mcz_hash128 *)(const void *)identity : NULL;
    out->dedup = k->hashes ? out->identity + c->count : NULL;
}

static void retained_rows(void *arg, uint32_t i, mcz_arc_rows *out)
{
    retained_walk *k = arg;
    if (i == 0) {
        k->at = k->first;
        k->pos = k->data_start;
    } else {
        k->pos += k->at->frames_len;
        k->at = atomic_load_explicit(&k->at->retained_next, memory_order_acquire);
    }
    const chunk *c = k->at;
    mcz_chunk_info info = {k->relocate ? k->pos : c->offset, (uint32_t)c->frames_len,
                           (uint32_t)c->raw_len, c->first_number, c->count, c->checksum};
    out->info = info;
    if (c->rows_spilled) {
        spilled_rows(k, c, out);
        return;
    }
    out->lengths = c->lengths;
    out->identity = c->identity;
    out->dedup = c->dedup;
}

/* A walk over l; with spilled chunks, its buffer for the largest (allocates: never in a
 * fatal-signal dump, whose list has none). MCZ_ENOMEM. */
static int walk_start(retained_walk *k, const mcz_wr_list *l, uint64_t data_start,
                      bool relocate)
{
    memset(k, 0, sizeof *k);
    k->first = l->first;
    k->data_start = data_start;
    k->relocate = relocate;
    k->hashes = l->hashes;
    k->spill = l->spill;
    size_t largest = 0;
    const chunk *c = l->first;
    for (uint32_t i = 0; i < l->count; i++) {
        size_t size = c->rows_spilled ? mcz_wr_rows_size(c->count, l->hashes) : 0;
        largest = size > largest ? size : largest;
        c = atomic_load_explicit(&c->retained_next, memory_order_acquire);
    }
    if (largest == 0)
        return MCZ_OK;
    k->buf = malloc(largest);
    return k->buf ? MCZ_OK : MCZ_ENOMEM;
}

/* The encoder's result, or the walk's own failure (a row read back), then the walk freed. */
static int walk_end(retained_walk *k, int rc)
{
    if (k->buf) /* none in a fatal-signal dump, which may not call free */
        free(k->buf);
    k->buf = NULL;
    return rc == MCZ_OK ? k->rc : rc;
}

int mcz_wr_index_write(const mcz_wr_list *l, uint64_t at, mcz_arc_sink_fn sink, void *arg)
{
    retained_walk walk;
    int rc = walk_start(&walk, l, 0, false);
    mcz_arc_store store;
    bool stored = l->spill && mcz_wr_spill_store(l->spill, &store);
    if (rc == MCZ_OK)
        rc = mcz_arc_index_write_via(l->count, l->next_number, l->hashes, retained_rows, &walk,
                                     at, stored ? &store : NULL, sink, arg);
    return walk_end(&walk, rc);
}

/* A chunk's stored bytes: from memory, or read back from the output. */
static int emit_chunk(mcz_wr_out *from, const chunk *c, mcz_arc_sink_fn sink, void *arg)
{
    if (c->frames)
        return sink(arg, c->frames, c->frames_len);
    return from && from->ops->read_chunk ? from->ops->read_chunk(from, c, sink, arg) : MCZ_EIO;
}

int mcz_wr_archive_emit(const mcz_wr_head *h, const mcz_wr_list *l, mcz_wr_out *from,
                        bool raw_index, mcz_arc_sink_fn sink, void *arg)
{
    int rc = sink(arg, h->head, h->head_len);
    if (rc == MCZ_OK && h->dict_len)
        rc = sink(arg, h->dict, h->dict_len);
    if (rc == MCZ_OK && h->meta_len)
        rc = sink(arg, h->meta, h->meta_len);
    uint64_t data_start = MCZ_WR_HEAD_SIZE(h), end = data_start;
    chunk *c = l->first;
    for (uint32_t i = 0; i < l->count && rc == MCZ_OK; i++) {
        rc = emit_chunk(from, c, sink, arg);
        end += c->frames_len;
        c = atomic_load_explicit(&c->retained_next, memory_order_acquire);
    }
    if (rc != MCZ_OK)
        return rc;
    retained_walk walk;
    rc = walk_start(&walk, l, data_start, true);
    assert(!raw_index || !walk.buf); /* a fatal-signal dump allocates nothing */
    if (rc == MCZ_OK)
        rc = (raw_index ? mcz_arc_index_stream : mcz_arc_index_write)(
            l->count, l->next_number, l->hashes, retained_rows, &walk, end, sink, arg);
    return walk_end(&walk, rc);
}

static int outfile_sink(void *arg, const void *bytes, size_t len)
{
    return mcz_outfile_write(arg, bytes, len);
}

int mcz_wr_archive_to(const char *path, const mcz_wr_head *h, const mcz_wr_list *l,
                      mcz_wr_out *from, mcz_diag *d)
{
    mcz_outfile *out = mcz_outfile_open(path, d);
    if (!out)
        return d ? d->code : MCZ_EIO;
    int rc = mcz_wr_archive_emit(h, l, from, false, outfile_sink, out);
    if (rc != MCZ_OK) {
        mcz_outfile_abort(out);
        return mcz_fail_at(d, path, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "dump failed: %s",
                           mcz_error_name(rc));
    }
    return mcz_outfile_commit(out, d);
}

int mcz_wr_index_failure(const char *path, uint64_t at, int rc, mcz_diag *d)
{
    const char *why = rc == MCZ_ELIMIT ? "the index outgrew the format" : "no memory for the index";
    return mcz_fail_at(d, path, rc, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT, "%s", why);
}

void mcz_wr_out_init(mcz_wr_out *o, const mcz_wr_out_ops *ops, const char *path)
{
    o->ops = ops;
    o->path = path;
    atomic_init(&o->lost, false);
    mcz_diag_clear(&o->lost_error);
}
