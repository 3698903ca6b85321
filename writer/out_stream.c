/*
 * out_stream.c - STREAM: the archive is sent to the caller's descriptor (a pipe, a socket, a
 * file) as it is made: the head, each chunk as it comes, index and footer at the end. The
 * stream never raises SIGPIPE. A failed send closes it for good without failing the writer:
 * the output is lost, the chunk goes back to the queue's head and the output stops, so the
 * queue fills and appends meet the full policy; close reports why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "out.h"

typedef struct out_stream {
    mcz_wr_out base;
    int fd;         /* the caller's (never closed here) */
    bool is_socket;
    uint64_t end;   /* bytes sent: the next chunk's offset */
} out_stream;

/* A send failed: the stream is closed for good. */
static void lost(out_stream *s, uint64_t off)
{
    mcz_fail_at(&s->base.lost_error, s->base.path, MCZ_EIO, mcz_at_offset((int64_t)off),
                MCZ_NO_CONTEXT, "the stream's receiver is gone: %s", strerror(errno));
    atomic_store(&s->base.lost, true);
}

static int send_all(const out_stream *s, const void *data, size_t len)
{
    return mcz_os_send_all(s->fd, s->is_socket, data, len);
}

static int stream_begin(mcz_wr_out *o, const mcz_wr_head *h, mcz_diag *d)
{
    (void)d;
    out_stream *s = (out_stream *)o;
    if (send_all(s, h->head, h->head_len) != MCZ_OK || send_all(s, h->dict, h->dict_len) != MCZ_OK ||
        send_all(s, h->meta, h->meta_len) != MCZ_OK)
        lost(s, 0); /* not the writer's error: the chunks stay queued */
    s->end = MCZ_WR_HEAD_SIZE(h);
    return MCZ_OK;
}

static int stream_chunk(mcz_wr_out *o, chunk *c, mcz_diag *d)
{
    (void)d;
    out_stream *s = (out_stream *)o;
    c->offset = s->end;
    if (send_all(s, c->frames, c->frames_len) != MCZ_OK) {
        lost(s, c->offset);
        return MCZ_EIO;
    }
    s->end += c->frames_len;
    return MCZ_OK;
}

typedef struct counting_sink {
    out_stream *s;
    uint64_t sent;
} counting_sink;

static int sink_send(void *arg, const void *bytes, size_t len)
{
    counting_sink *k = arg;
    k->sent += len;
    return send_all(k->s, bytes, len);
}

static int stream_finish(mcz_wr_out *o, const mcz_wr_head *h, const mcz_wr_list *l,
                         uint64_t *written, mcz_diag *d)
{
    (void)h;
    out_stream *s = (out_stream *)o;
    counting_sink sink = {s, 0};
    int rc = atomic_load(&o->lost) ? MCZ_EIO : mcz_wr_index_write(l, s->end, sink_send, &sink);
    *written = sink.sent;
    if (rc != MCZ_OK && l->spill && l->spill->err)
        return mcz_wr_spill_failure(l->spill, o->path, -1, d);
    if (rc == MCZ_ELIMIT || rc == MCZ_ENOMEM)
        return mcz_wr_index_failure(o->path, s->end, rc, d);
    if (rc != MCZ_OK && !atomic_load(&o->lost))
        lost(s, s->end);
    if (rc != MCZ_OK && d)
        *d = o->lost_error;
    return rc == MCZ_OK ? MCZ_OK : o->lost_error.code;
}

static void stream_free(mcz_wr_out *o)
{
    free(o);
}

static const mcz_wr_out_ops stream_ops = {
    .flags = MCZ_WR_OUT_COLLECTS | MCZ_WR_OUT_SPILLS,
    .begin = stream_begin,
    .chunk = stream_chunk,
    .finish = stream_finish,
    .free = stream_free,
};

/* Checks the descriptor and notes whether it is a socket. */
mcz_wr_out *mcz_wr_out_stream(const mcz_wr_out_args *args, mcz_diag *d)
{
    out_stream *s = calloc(1, sizeof *s);
    if (!s) {
        mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_wr_out_init(&s->base, &stream_ops, args->path);
    s->fd = args->stream_fd;
    if (!mcz_os_descriptor(s->fd, &s->is_socket)) {
        mcz_fail_at(d, args->path, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                    "stream_fd %d is no open descriptor", args->stream_fd);
        free(s);
        return NULL;
    }
    return &s->base;
}
