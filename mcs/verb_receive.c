/*
 * verb_receive.c - mcs -receive: keeps what a STREAM writer sends (FORMAT.md §12 "Streams") as
 * a LIVE archive, rolling when --max-bytes is given.
 *
 * The stream is the archive's frames in order: header, dictionary, chunks, and (after a close)
 * index and footer, read by the library's frame parser (mcz_frame_parser), which checks each
 * frame as the file reader would. Each whole chunk is handed to a LIVE writer opened with the
 * stream's dictionary and settings by mcz_writer_append_compressed, which copies it byte for
 * byte, numbered as sent: the output is a complete archive at every checkpoint and
 * after the end, and after a crash of the receiver mcs -recover gives back every chunk written.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_verbs.h"

typedef struct receive_args {
    uint64_t max_bytes; /* 0: no bound */
} receive_args;

static const mcs_option receive_options[] = {
    {.name = "--max-bytes", .type = MCS_OPT_SIZE, MCS_FIELD(receive_args, max_bytes), .arg = "N",
     .min = 1, .max = UINT64_MAX,
     .help = "keep only the newest chunks that fit in N bytes (K, M or G:\n"
             "powers of 1024), as the writer's max_bytes would"},
    MCS_OPTIONS_END};

const mcs_usage usage_receive = {
    "-receive OUT.mcz",
    "keep the archive a collector streams on stdin (MCZ_WRITE_STREAM) in OUT.mcz",
    "Reads the frames a STREAM writer sends (a pipe, or a socket's stream on stdin) and keeps\n"
    "every whole chunk in OUT.mcz, a LIVE archive: complete at every checkpoint and at the end\n"
    "of the stream. A stream that ends inside a frame (its writer was killed) loses that\n"
    "frame only, with a warning; a stream that is not an archive's frames, or whose frames\n"
    "fail the checks an archive file's would (checksums, version, flags, order, the index and\n"
    "footer sent at the end), fails at the offset of the damage, keeping the chunks before it.\n",
    receive_options};

/* Bytes read from stdin at a time. */
#define READ_SIZE 65536

typedef struct receiver {
    mcs_run *run;
    const char *out_path;
    uint64_t max_bytes;
    mcz_frame_parser *parser;
    mcz_frame_event settings; /* the last event: the stream's header and metadata fields */
    uint8_t *dict;            /* the stream's dictionary, kept for the writer */
    size_t dict_len;
    mcz_writer *w;
    uint64_t chunks, contexts, offset;
} receiver;

/* The writer, opened on the first chunk with the stream's settings and its numbering. */
static int open_writer(receiver *r, uint32_t first_number)
{
    const mcz_frame_event *s = &r->settings;
    bool xz = s->codec == MCZ_CODEC_XZ;
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = MCZ_WRITE_LIVE;
    o.max_bytes = r->max_bytes;
    o.first_number = first_number;
    o.level = (xz ? s->level < 1 || s->level > 9 : s->level < 1 || s->level > 22)
                  ? 0 /* the writer's default, as -copy does (FORMAT.md §2) */
                  : s->level;
    o.chunk_size = s->chunk_size > (1u << 30) ? 0 : s->chunk_size;
    o.codec = xz ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD;
    o.layout = s->layout == MCZ_LAYOUT_PACKETS ? MCZ_LAYOUT_PACKETS : MCZ_LAYOUT_PLAIN;
    o.dict = r->dict;
    o.dict_len = r->dict_len;
    o.no_dict = !r->dict;
    o.jit_ee = mcz_jit_ee_by_id(s->jit_ee_id);
    o.jit_ee_guid = s->jit_ee_guid[0] ? s->jit_ee_guid : NULL; /* the writer checks the texts */
    o.target_os = s->target_os[0] ? s->target_os : NULL;
    o.target_arch = s->target_arch[0] ? s->target_arch : NULL;
    mcz_diag d;
    r->w = mcz_writer_open(r->out_path, &o, &d);
    if (!r->w) {
        mcs_error_diag(r->run, r->out_path, &d);
        return -1;
    }
    return 0;
}

/* A fault in the stream at d's offset. */
static int bad_stream(const mcz_diag *d)
{
    tool_error("stdin: offset %" PRId64 ": %s", d->offset, d->message);
    return -1;
}

/* The dictionary frame (FORMAT.md §3), kept for the writer, which checks it is a zstd one. */
static int take_dict(receiver *r, const mcz_frame_event *ev)
{
    assert(!r->dict); /* the parser gives one dictionary frame, right after the header */
    r->dict = malloc(ev->dict_size);
    if (!r->dict) {
        tool_error("out of memory keeping a dictionary of %zu bytes", ev->dict_size);
        return -1;
    }
    memcpy(r->dict, ev->dict, ev->dict_size);
    r->dict_len = ev->dict_size;
    return 0;
}

/* A chunk (FORMAT.md §4), verified by the parser: handed to the writer as it came. */
static int take_chunk(receiver *r, const mcz_frame_event *ev)
{
    if (!r->w && open_writer(r, ev->first_number) != 0)
        return -1;
    mcz_diag d;
    if (mcz_writer_append_compressed(r->w, ev->bytes, ev->size, NULL, NULL, ev->count, &d) !=
        MCZ_OK) {
        d.offset = d.offset >= 0 ? d.offset + (int64_t)ev->offset : (int64_t)ev->offset;
        return bad_stream(&d);
    }
    r->chunks++;
    r->contexts += ev->count;
    return 0;
}

/* One event of the parser. The index and footer are the sender's: the output writes its own. */
static int take_event(receiver *r, const mcz_frame_event *ev)
{
    r->settings = *ev;
    if (ev->kind == MCZ_FRAME_DICT)
        return take_dict(r, ev);
    if (ev->kind == MCZ_FRAME_CHUNK)
        return take_chunk(r, ev);
    return 0;
}

/* Hands bytes[0, len) to the parser and takes every event they complete. */
static int push_bytes(receiver *r, const uint8_t *bytes, size_t len)
{
    for (;;) {
        size_t used;
        mcz_frame_event ev;
        mcz_diag d;
        if (mcz_frame_parser_push(r->parser, bytes, len, &used, &ev, &d) != MCZ_OK)
            return bad_stream(&d);
        bytes += used;
        len -= used;
        if (ev.kind == MCZ_FRAME_NONE)
            return 0;
        if (take_event(r, &ev) != 0)
            return -1;
    }
}

/* Reads the stream to its end (0) or to damage (-1); a torn last frame is dropped with a
 * warning. */
static int receive_frames(receiver *r)
{
    uint8_t buf[READ_SIZE];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
        r->offset += n;
        if (push_bytes(r, buf, n) != 0)
            return -1;
    }
    mcz_frame_event end;
    mcz_diag d;
    if (mcz_frame_parser_end(r->parser, &end, &d) != MCZ_OK)
        return bad_stream(&d);
    if (end.torn)
        tool_warn("stdin: the stream ends inside a frame at offset %" PRIu64 ": %" PRIu64
                  " bytes of it dropped (its writer stopped mid-write)",
                  end.offset - end.torn, end.torn);
    return 0;
}

/* A stream that ended before its first chunk still gives an archive (empty). */
static int finish(receiver *r)
{
    if (!r->w && open_writer(r, 0) != 0)
        return -1;
    mcz_diag d;
    int rc = mcz_writer_close(r->w, &d);
    r->w = NULL;
    if (rc != MCZ_OK) {
        mcs_error_diag(r->run, r->out_path, &d);
        return -1;
    }
    return 0;
}

int cmd_receive(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    receive_args a = {0};
    if (mcs_parse_args(run, argc, argv, &usage_receive, &a, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    receiver r = {.run = run, .out_path = pos[0], .parser = mcz_frame_parser_create(),
                  .max_bytes = a.max_bytes};
    if (!r.parser) {
        tool_error("out of memory");
        return MCS_EXIT_FAIL;
    }
    if (mcs_output_check_binary(run, pos[0]) != 0)
        return MCS_EXIT_FAIL;
    int rc = receive_frames(&r);
    int closed = finish(&r);
    mcz_frame_parser_free(r.parser);
    free(r.dict);
    if (closed != 0)
        return MCS_EXIT_FAIL;
    tool_info("Received %" PRIu64 " contexts in %" PRIu64 " chunks (%" PRIu64
              " stream bytes) into %s",
              r.contexts, r.chunks, r.offset, tool_display_name(pos[0], true));
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
