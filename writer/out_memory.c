/*
 * out_memory.c - MEMORY: nothing is written while the writer runs. Compressed chunks stay in
 * memory in the retained list (the ring, its oldest discarded past max_bytes), and a dump (a
 * call, a signal, the end) writes them out as a whole archive.
 */
#include <stdlib.h>

#include "mcz_common.h"
#include "out.h"

static int memory_begin(mcz_wr_out *o, const mcz_wr_head *h, mcz_diag *d)
{
    (void)o, (void)h, (void)d;
    return MCZ_OK;
}

static int memory_chunk(mcz_wr_out *o, chunk *c, mcz_diag *d)
{
    (void)o, (void)c, (void)d;
    return MCZ_OK; /* its frames stay where they are */
}

static int memory_finish(mcz_wr_out *o, const mcz_wr_head *h, const mcz_wr_list *l,
                         uint64_t *written, mcz_diag *d)
{
    *written = 0;
    return mcz_wr_archive_to(o->path, h, l, NULL, d);
}

static void memory_free(mcz_wr_out *o)
{
    free(o);
}

static const mcz_wr_out_ops memory_ops = {
    .flags = MCZ_WR_OUT_IN_MEMORY | MCZ_WR_OUT_DUMPS | MCZ_WR_OUT_COLLECTS,
    .begin = memory_begin,
    .chunk = memory_chunk,
    .finish = memory_finish,
    .free = memory_free,
};

mcz_wr_out *mcz_wr_out_memory(const mcz_wr_out_args *args, mcz_diag *d)
{
    mcz_wr_out *o = calloc(1, sizeof *o);
    if (!o) {
        mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_wr_out_init(o, &memory_ops, args->path);
    return o;
}
