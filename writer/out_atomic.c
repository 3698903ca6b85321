/*
 * out_atomic.c - ATOMIC: the archive goes to a temporary file beside the name (io/outfile.c),
 * the index is written once, at the end, and the temporary renamed over the name: the name
 * shows the old file or the whole new archive, never a part. A writer that does not finish
 * leaves nothing behind; a signal handler removes the temporary (mcz_remove_temporaries).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "out.h"

typedef struct out_atomic {
    mcz_wr_out base;
    mcz_outfile *file; /* NULL once committed */
} out_atomic;

/* Writing `what` failed with rc: an I/O error says its errno (the outfile records its failure
 * with no call in between that sets errno), e.g. a full disk. */
static int failure(const out_atomic *a, mcz_diag *d, int rc, int64_t off, int64_t number,
                   const char *what)
{
    const char *why = rc == MCZ_EIO ? strerror(errno) : mcz_error_name(rc);
    return mcz_fail_at(d, a->base.path, rc, mcz_at_offset(off), mcz_in_context(number),
                       "%s failed: %s", what, why);
}

static int file_sink(void *arg, const void *bytes, size_t len)
{
    return mcz_outfile_write(arg, bytes, len);
}

static int atomic_begin(mcz_wr_out *o, const mcz_wr_head *h, mcz_diag *d)
{
    out_atomic *a = (out_atomic *)o;
    int rc = mcz_outfile_write(a->file, h->head, h->head_len);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(a->file, h->dict, h->dict_len);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(a->file, h->meta, h->meta_len);
    return rc == MCZ_OK ? MCZ_OK : failure(a, d, rc, 0, -1, "archive write");
}

static int atomic_chunk(mcz_wr_out *o, chunk *c, mcz_diag *d)
{
    out_atomic *a = (out_atomic *)o;
    c->offset = mcz_outfile_tell(a->file);
    int rc = mcz_outfile_write(a->file, c->frames, c->frames_len);
    if (rc != MCZ_OK)
        return failure(a, d, rc, (int64_t)c->offset, c->first_number, "archive write");
    return MCZ_OK;
}

static int atomic_finish(mcz_wr_out *o, const mcz_wr_head *h, const mcz_wr_list *l,
                         uint64_t *written, mcz_diag *d)
{
    (void)h;
    out_atomic *a = (out_atomic *)o;
    uint64_t at = mcz_outfile_tell(a->file);
    int rc = mcz_wr_index_write(l, at, file_sink, a->file);
    if (rc != MCZ_OK && l->spill && l->spill->err)
        return mcz_wr_spill_failure(l->spill, o->path, -1, d);
    if (rc != MCZ_OK)
        return failure(a, d, rc, (int64_t)at, -1, "index write");
    *written = mcz_outfile_tell(a->file) - at;
    mcz_outfile *file = a->file;
    a->file = NULL;
    return mcz_outfile_commit(file, d);
}

static void atomic_free(mcz_wr_out *o)
{
    out_atomic *a = (out_atomic *)o;
    mcz_outfile_abort(a->file);
    free(a);
}

static const mcz_wr_out_ops atomic_ops = {
    .flags = MCZ_WR_OUT_SPILLS,
    .begin = atomic_begin,
    .chunk = atomic_chunk,
    .finish = atomic_finish,
    .free = atomic_free,
};

mcz_wr_out *mcz_wr_out_atomic(const mcz_wr_out_args *args, mcz_diag *d)
{
    out_atomic *a = calloc(1, sizeof *a);
    if (!a) {
        mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_wr_out_init(&a->base, &atomic_ops, args->path);
    a->file = mcz_outfile_open(args->path, d);
    if (!a->file) {
        free(a);
        return NULL;
    }
    return &a->base;
}
