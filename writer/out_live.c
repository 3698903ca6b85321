/*
 * out_live.c - LIVE: chunks are written into the file at the name as they come, each over the
 * previous index; a checkpoint writes index and footer after the last chunk and cuts the file
 * there, so the file is a complete archive at every checkpoint. Chunks discarded by max_bytes
 * become a hole: disk use stays bounded, offsets stay valid.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "out.h"

#define COPY_BUFFER 65536 /* dumps copy chunks from the file through this buffer */
#define HOLE_BLOCK 4096   /* file system block size, for punching holes */

typedef struct out_live {
    mcz_wr_out base;
    int fd;              /* -1 once closed */
    bool hashes;
    uint64_t data_start; /* after the head */
    uint64_t end;        /* end of the data; the next chunk and the index go here */
    uint64_t punched;    /* [data_start, punched) is a hole */
    /* The checkpoint clock (mcz_wr_live_decide); the writer's lock guards it. */
    mcz_wr_live_clock clock;
} out_live;

static int failure(const out_live *l, mcz_diag *d, uint64_t off, const char *what)
{
    return mcz_fail_at(d, l->base.path, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                       "%s failed: %s", what, strerror(errno));
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

static int live_begin(mcz_wr_out *o, const mcz_wr_head *h, mcz_diag *d)
{
    out_live *l = (out_live *)o;
    if (mcz_os_pwrite_all(l->fd, h->head, h->head_len, 0) != MCZ_OK ||
        mcz_os_pwrite_all(l->fd, h->dict, h->dict_len, h->head_len) != MCZ_OK ||
        mcz_os_pwrite_all(l->fd, h->meta, h->meta_len, h->head_len + h->dict_len) != MCZ_OK)
        return failure(l, d, 0, "write");
    l->data_start = l->end = l->punched = MCZ_WR_HEAD_SIZE(h);
    return MCZ_OK;
}

static int live_chunk(mcz_wr_out *o, chunk *c, mcz_diag *d)
{
    out_live *l = (out_live *)o;
    c->offset = l->end;
    if (mcz_os_pwrite_all(l->fd, c->frames, c->frames_len, c->offset) != MCZ_OK)
        return failure(l, d, c->offset, "write");
    l->end += c->frames_len;
    return MCZ_OK;
}

/* Punches the discarded chunks out of the file: from the start of the block holding the
 * previous hole's end, so a block that chunks smaller than a block left partly punched is
 * freed too; never into the head. */
static int live_discard(mcz_wr_out *o, const chunk *gone, mcz_diag *d)
{
    out_live *l = (out_live *)o;
    const chunk *last = gone;
    while (last->next)
        last = last->next;
    uint64_t end = last->offset + last->frames_len;
    uint64_t from = l->punched - l->punched % HOLE_BLOCK;
    from = from < l->data_start ? l->data_start : from;
    int rc = MCZ_OK;
    if (mcz_os_punch_hole(l->fd, from, end - from) != 0)
        rc = failure(l, d, from, "punching a hole");
    l->punched = end;
    return rc;
}

/* A chunk read back from the file (never from a signal handler: it allocates). */
static int live_read_chunk(mcz_wr_out *o, const chunk *c, mcz_arc_sink_fn sink, void *arg)
{
    out_live *l = (out_live *)o;
    uint8_t *buf = malloc(COPY_BUFFER);
    int rc = buf ? MCZ_OK : MCZ_ENOMEM;
    for (size_t done = 0; rc == MCZ_OK && done < c->frames_len;) {
        size_t want = c->frames_len - done < COPY_BUFFER ? c->frames_len - done : COPY_BUFFER;
        int64_t n = mcz_os_pread(l->fd, buf, want, c->offset + done);
        rc = n > 0 ? sink(arg, buf, (size_t)n) : MCZ_EIO;
        done += n > 0 ? (size_t)n : 0;
    }
    free(buf);
    return rc;
}

static void live_ready(mcz_wr_out *o)
{
    ((out_live *)o)->clock.dirty = true; /* the first checkpoint makes the file an archive */
}

static void live_wrote(mcz_wr_out *o, uint64_t bytes, uint32_t chunks, uint32_t contexts,
                       uint64_t now)
{
    out_live *l = (out_live *)o;
    l->clock.dirty = l->clock.unsynced = true;
    l->clock.since_index += bytes;
    l->clock.chunk_ns = now;
    l->clock.index_bytes = mcz_arc_index_size(chunks, contexts, l->hashes);
}

static mcz_wr_live_step live_due(mcz_wr_out *o, uint64_t now, uint64_t *wake)
{
    return mcz_wr_live_decide(&((out_live *)o)->clock, now, wake);
}

typedef struct pwrite_sink {
    int fd;
    uint64_t at;
    uint64_t written;
} pwrite_sink;

static int sink_pwrite(void *arg, const void *bytes, size_t len)
{
    pwrite_sink *s = arg;
    int rc = mcz_os_pwrite_all(s->fd, bytes, len, s->at);
    s->at += len;
    s->written += len;
    return rc;
}

/* Index and footer after the last chunk, the file cut there, fdatasync. */
static int write_index(out_live *l, const mcz_wr_list *list, uint64_t *written, mcz_diag *d)
{
    pwrite_sink sink = {l->fd, l->end, 0};
    int rc = mcz_wr_index_write(list, l->end, sink_pwrite, &sink);
    if (rc == MCZ_ELIMIT || rc == MCZ_ENOMEM)
        return mcz_wr_index_failure(l->base.path, l->end, rc, d);
    if (rc != MCZ_OK)
        return failure(l, d, l->end, "index write");
    if (mcz_os_truncate(l->fd, l->end + sink.written) != 0)
        return failure(l, d, l->end, "truncate");
    if (mcz_os_fdatasync(l->fd) != 0)
        return failure(l, d, l->end, "fdatasync");
    *written = sink.written;
    return MCZ_OK;
}

static int live_checkpoint(mcz_wr_out *o, bool index, const mcz_wr_list *list,
                           uint64_t *written, mcz_diag *d)
{
    out_live *l = (out_live *)o;
    *written = 0;
    if (index)
        return write_index(l, list, written, d);
    return mcz_os_fdatasync(l->fd) == 0 ? MCZ_OK : failure(l, d, l->end, "fdatasync");
}

static void live_checkpointed(mcz_wr_out *o, bool index, uint64_t now)
{
    out_live *l = (out_live *)o;
    if (index) {
        l->clock.dirty = false;
        l->clock.since_index = 0;
    }
    l->clock.unsynced = false;
    l->clock.last_ns = now;
}

/* The final checkpoint, then the file is closed. */
static int live_finish(mcz_wr_out *o, const mcz_wr_head *h, const mcz_wr_list *list,
                       uint64_t *written, mcz_diag *d)
{
    (void)h;
    out_live *l = (out_live *)o;
    *written = 0;
    int rc = write_index(l, list, written, d);
    int fd = l->fd;
    l->fd = -1;
    if (mcz_os_close(fd) != 0 && rc == MCZ_OK)
        rc = mcz_fail_at(d, l->base.path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "close failed");
    return rc;
}

static void live_free(mcz_wr_out *o)
{
    out_live *l = (out_live *)o;
    if (l->fd >= 0)
        mcz_os_close(l->fd);
    free(l);
}

static const mcz_wr_out_ops live_ops = {
    .flags = MCZ_WR_OUT_DUMPS | MCZ_WR_OUT_COLLECTS,
    .begin = live_begin,
    .chunk = live_chunk,
    .discard = live_discard,
    .read_chunk = live_read_chunk,
    .ready = live_ready,
    .wrote = live_wrote,
    .due = live_due,
    .checkpoint = live_checkpoint,
    .checkpointed = live_checkpointed,
    .finish = live_finish,
    .free = live_free,
};

/* Creates or truncates the file, checking that holes can be punched when max_bytes is set. */
mcz_wr_out *mcz_wr_out_live(const mcz_wr_out_args *args, mcz_diag *d)
{
    out_live *l = calloc(1, sizeof *l);
    if (!l) {
        mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_wr_out_init(&l->base, &live_ops, args->path);
    l->hashes = args->hashes;
    l->clock.period_ns = (uint64_t)args->checkpoint_ms * 1000000u;
    l->fd = mcz_os_create(args->path, MCZ_OS_READ_WRITE);
    if (l->fd < 0) {
        mcz_fail_at(d, args->path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "cannot create: %s",
                    strerror(errno));
        live_free(&l->base);
        return NULL;
    }
    /* A rolling LIVE file needs holes; without them its disk use would not be bounded. */
    if (args->max_bytes && mcz_os_punch_hole(l->fd, 0, 1) != 0) {
        mcz_fail_at(d, args->path, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                    "max_bytes needs a file system that can punch holes: %s", strerror(errno));
        live_free(&l->base);
        return NULL;
    }
    return &l->base;
}
