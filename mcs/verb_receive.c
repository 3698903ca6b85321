/*
 * verb_receive.c - mcs -receive: keeps what a STREAM writer sends (FORMAT.md §12 "Streams") as
 * a LIVE archive, rolling when --max-bytes is given.
 *
 * The stream is the archive's frames in order: header, dictionary, chunks, and (after a close)
 * index and footer. Each whole chunk is handed to a LIVE writer opened with the stream's
 * dictionary and settings by mcz_writer_append_compressed, which verifies it in full and copies
 * it byte for byte, numbered as sent: the output is a complete archive at every checkpoint and
 * after the end, and after a crash of the receiver mcs -recover gives back every chunk written.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_verbs.h"

const mcs_usage usage_receive = {
    "-receive OUT.mcz [--max-bytes N]",
    "keep the archive a collector streams on stdin (MCZ_WRITE_STREAM) in OUT.mcz",
    "Reads the frames a STREAM writer sends (a pipe, or a socket's stream on stdin) and keeps\n"
    "every whole chunk in OUT.mcz, a LIVE archive: complete at every checkpoint and at the end\n"
    "of the stream. --max-bytes N (K, M, G suffixes) keeps only the newest chunks that fit\n"
    "in N bytes, as the writer's max_bytes would. A stream that ends inside a frame (its\n"
    "writer was killed) loses that frame only, with a warning; a stream that is not an\n"
    "archive's frames fails, keeping the chunks before the damage.\n"};

#define FRAME_MAGIC 0x184D2A5Cu
#define HEADER_PAYLOAD 36u
#define META_PAYLOAD 84u
#define MAX_DICT_PAYLOAD (64u << 20)       /* far above any dictionary the writer trains */
#define MAX_CHUNK_PAYLOAD (256u << 20)      /* 4 bytes a context of a 1 GiB chunk, and more */
#define MAX_CHUNK_DATA ((1u << 30) + (64u << 20)) /* the largest chunk's data, compressed */

typedef struct receiver {
    const char *out_path;
    uint64_t max_bytes;
    uint64_t offset;                   /* stream bytes read */
    uint8_t *frame;                    /* the frame being read */
    size_t cap;
    bool have_header;
    bool torn;                         /* the stream ended inside a frame */
    int32_t level;
    uint32_t flags, chunk_target, dict_id, jit_ee_id;
    uint8_t *dict;
    uint32_t dict_len;
    bool have_meta;
    char guid[MCZ_GUID_TEXT_SIZE], os[MCZ_TARGET_TEXT_SIZE], arch[MCZ_TARGET_TEXT_SIZE];
    mcz_writer *w;
    uint64_t chunks, contexts;
} receiver;

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads len more bytes into the frame buffer at `at`: 1 done, 0 a clean end before any, -1 the
 * stream ended inside (a warning) or out of memory (an error). */
static int read_more(receiver *r, size_t at, size_t len)
{
    if (at + len > r->cap) {
        size_t cap = at + len;
        uint8_t *bigger = realloc(r->frame, cap);
        if (!bigger) {
            tool_error("out of memory reading a frame of %zu bytes", cap);
            return -1;
        }
        r->frame = bigger;
        r->cap = cap;
    }
    size_t got = fread(r->frame + at, 1, len, stdin);
    r->offset += got;
    if (got == len)
        return 1;
    if (got == 0 && at == 0)
        return 0;
    r->torn = true;
    tool_warn("stdin: the stream ends inside a frame at offset %" PRIu64 ": %zu bytes of it "
              "dropped (its writer stopped mid-write)",
              r->offset - got - at, at + got);
    return -1;
}

/* The writer, opened on the first chunk with the stream's settings and its numbering. */
static int open_writer(receiver *r, uint32_t first_number)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = MCZ_WRITE_LIVE;
    o.max_bytes = r->max_bytes;
    o.first_number = first_number;
    o.level = r->level;
    o.chunk_size = r->chunk_target;
    o.codec = (r->flags & 2u) ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD;
    o.layout = (r->flags & 4u) ? MCZ_LAYOUT_PACKETS : MCZ_LAYOUT_PLAIN;
    o.dict = r->dict;
    o.dict_len = r->dict_len;
    o.no_dict = !r->dict;
    o.jit_ee = mcz_jit_ee_by_id(r->jit_ee_id);
    o.jit_ee_guid = r->guid[0] ? r->guid : NULL; /* the writer checks the texts */
    o.target_os = r->os[0] ? r->os : NULL;
    o.target_arch = r->arch[0] ? r->arch : NULL;
    mcz_diag d;
    r->w = mcz_writer_open(r->out_path, &o, &d);
    if (!r->w) {
        mcs_error_diag(r->out_path, &d);
        return -1;
    }
    return 0;
}

static int bad_stream(uint64_t at, const char *what)
{
    tool_error("stdin: offset %" PRIu64 ": %s", at, what);
    return -1;
}

/* The file header frame (FORMAT.md §2): the settings the output takes. */
static int take_header(receiver *r, uint64_t at, uint32_t payload)
{
    if (r->have_header || payload != HEADER_PAYLOAD || memcmp(r->frame + 8, "MCZH", 4) != 0)
        return bad_stream(at, "not an mcz stream (no archive header first)");
    if (read_more(r, 12, payload - 4) != 1)
        return -1;
    const uint8_t *h = r->frame;
    r->flags = get_u32(h + 16);
    r->level = (int32_t)get_u32(h + 20);
    r->chunk_target = get_u32(h + 24);
    r->dict_id = get_u32(h + 28);
    r->jit_ee_id = get_u32(h + 32);
    bool xz = (r->flags & 2u) != 0;
    if (xz ? r->level < 1 || r->level > 9 : r->level < 1 || r->level > 22)
        r->level = 0; /* the writer's default, as -copy does (FORMAT.md §2) */
    if (r->chunk_target == 0 || r->chunk_target > (1u << 30))
        r->chunk_target = 0;
    if (r->jit_ee_id && !mcz_jit_ee_by_id(r->jit_ee_id))
        return bad_stream(at, "the header names a JIT-EE version this build does not know");
    r->have_header = true;
    return 0;
}

/* The dictionary frame (FORMAT.md §3); the writer checks the bytes are a zstd dictionary. */
static int take_dict(receiver *r, uint64_t at, uint32_t payload)
{
    if (!(r->flags & 1u) || r->dict || r->w || r->have_meta || payload < 28 ||
        payload > MAX_DICT_PAYLOAD)
        return bad_stream(at, "a dictionary frame where none belongs");
    if (read_more(r, 12, payload - 4) != 1)
        return -1;
    uint32_t len = get_u32(r->frame + 16);
    if (get_u32(r->frame + 12) != r->dict_id || len != payload - 24 || len == 0)
        return bad_stream(at, "the dictionary frame does not match the header");
    r->dict = malloc(len);
    if (!r->dict)
        return bad_stream(at, "out of memory");
    memcpy(r->dict, r->frame + 32, len);
    r->dict_len = len;
    return 0;
}

/* Text field `width` bytes at p (zero-padded) into out (width + 1 bytes). */
static void take_text(const uint8_t *p, size_t width, char *out)
{
    memcpy(out, p, width);
    out[width] = '\0';
}

/* The metadata frame (FORMAT.md §2a), after the header and dictionary: what the output records. */
static int take_meta(receiver *r, uint64_t at, uint32_t payload)
{
    if (r->have_meta || r->w || ((r->flags & 1u) && !r->dict) || payload != META_PAYLOAD)
        return bad_stream(at, "a metadata frame out of place or of a bad size");
    if (read_more(r, 12, payload - 4) != 1)
        return -1;
    take_text(r->frame + 16, MCZ_GUID_TEXT_SIZE - 1, r->guid);
    take_text(r->frame + 52, MCZ_TARGET_TEXT_SIZE - 1, r->os);
    take_text(r->frame + 68, MCZ_TARGET_TEXT_SIZE - 1, r->arch);
    r->have_meta = true;
    return 0;
}

/* A chunk (FORMAT.md §4): its header frame, then S bytes of data, handed to the writer. */
static int take_chunk(receiver *r, uint64_t at, uint32_t payload)
{
    if (!r->have_header || ((r->flags & 1u) && !r->dict) || payload < 36 ||
        payload > MAX_CHUNK_PAYLOAD)
        return bad_stream(at, "a chunk header out of place or of a bad size");
    if (read_more(r, 12, payload - 4) != 1)
        return -1;
    uint32_t first = get_u32(r->frame + 12), count = get_u32(r->frame + 16);
    uint32_t data = get_u32(r->frame + 24);
    if (first == 0 || count == 0 || (uint64_t)count * 4 + 32 != payload || data > MAX_CHUNK_DATA)
        return bad_stream(at, "a chunk header with bad fields");
    if (read_more(r, 8 + payload, data) != 1)
        return -1;
    if (!r->w && open_writer(r, first) != 0)
        return -1;
    mcz_diag d;
    if (mcz_writer_append_compressed(r->w, r->frame, 8 + (size_t)payload + data, NULL, NULL,
                                     count, &d) != MCZ_OK) {
        d.offset = d.offset >= 0 ? d.offset + (int64_t)at : (int64_t)at;
        mcs_error_diag("stdin", &d);
        return -1;
    }
    r->chunks++;
    r->contexts += count;
    return 0;
}

/* Reads what follows the index to the end, so the writer's last bytes are taken, not refused. */
static int drain(receiver *r)
{
    uint8_t buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
        r->offset += n;
    return 0;
}

/* Reads frames until the stream ends (0), its index (0), or damage (-1). */
static int receive_frames(receiver *r)
{
    for (;;) {
        uint64_t at = r->offset;
        int got = read_more(r, 0, 8);
        if (got <= 0)
            return got;
        uint32_t payload = get_u32(r->frame + 4);
        if (get_u32(r->frame) != FRAME_MAGIC || payload < 4)
            return bad_stream(at, "not an mcz frame");
        if (read_more(r, 8, 4) != 1)
            return -1;
        const char *tag = (const char *)r->frame + 8;
        int rc;
        if (!r->have_header)
            rc = take_header(r, at, payload);
        else if (!memcmp(tag, "MCZD", 4))
            rc = take_dict(r, at, payload);
        else if (!memcmp(tag, "MCZM", 4))
            rc = take_meta(r, at, payload);
        else if (!memcmp(tag, "MCZC", 4) || !memcmp(tag, "MCZX", 4) || !memcmp(tag, "MCZP", 4) ||
                 !memcmp(tag, "MCZQ", 4))
            rc = take_chunk(r, at, payload);
        else if (!memcmp(tag, "MCZI", 4))
            return drain(r); /* the writer closed: index and footer, the output has its own */
        else
            return bad_stream(at, "an unknown frame in the stream");
        if (rc != 0)
            return rc;
    }
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
        mcs_error_diag(r->out_path, &d);
        return -1;
    }
    return 0;
}

int cmd_receive(int argc, char **argv)
{
    const char *pos[1], *max_text = NULL;
    const mcs_option opts[] = {{"--max-bytes", &max_text, NULL}, {NULL}};
    if (mcs_parse_args(argc, argv, &usage_receive, opts, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    receiver r = {.out_path = pos[0]};
    if (max_text && mcs_parse_number(&usage_receive, "--max-bytes", max_text, true, 1,
                                     UINT64_MAX, &r.max_bytes) != 0)
        return MCS_EXIT_USAGE;
    if (mcs_output_check_binary(pos[0]) != 0)
        return MCS_EXIT_FAIL;
    int rc = receive_frames(&r);
    int closed = finish(&r);
    free(r.frame);
    free(r.dict);
    if (closed != 0)
        return MCS_EXIT_FAIL;
    tool_info("Received %" PRIu64 " contexts in %" PRIu64 " chunks (%" PRIu64
              " stream bytes) into %s",
              r.contexts, r.chunks, r.offset, tool_display_name(pos[0], true));
    return rc == 0 || r.torn ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
