/*
 * frames.c - the archive's frames as a stream (mcz_frame_parser, include/mcz.h; FORMAT.md §12
 * "Streams"): bytes pushed in pieces of any size, one event per complete frame.
 *
 * A stage machine in the manner of a frame decoder: FRAME_HEAD collects a frame's first 12
 * bytes (magic, payload size, tag), which say what the frame is and how long; FRAME_BODY
 * collects the rest into one buffer; a chunk header frame is followed by CHUNK_DATA, its data
 * frame, into the same buffer. A complete frame is handed to the decoder archive.c (or
 * chunk_decode.c, meta.c) has for the same frame in a file, on the buffer, and the faults it
 * reports are moved to the frame's stream offset: what the stream is allowed to hold is what
 * a file is, checked by the same code. The order of the frames is checked here (`expect`).
 *
 * The index and footer are checked together, when the footer has come (the footer holds the
 * index's checksum), and against the chunks the stream held: their chunk entries and context
 * lengths are hashed as they pass (two running XXH3), so memory does not grow with the stream.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "archive.h"
#include "mcz_common.h"
#include "mcz_xxhash.h"

/* A stream is no file: no size bounds a frame before it is read, so the frames a writer can
 * send bound it. A chunk holds at most MAX_RAW raw bytes (the writer's chunk target is at most
 * 1 GiB; a larger context goes alone); its data frame at most that, compressed (zstd and xz add
 * well under 1/128 to bytes they cannot compress), and its header a length per context of at
 * least MCZ_MC_OVERHEAD bytes. */
#define MAX_DICT ((uint32_t)64 << 20) /* far above any dictionary the writer trains */
#define MAX_RAW MCZ_MC_MAX_SIZE
#define MAX_CHUNK_HEAD_PAYLOAD \
    (MCZ_ARC_CHUNK_HEAD - MCZ_ARC_FRAME_HEAD + 4 * (MAX_RAW / MCZ_MC_OVERHEAD))
#define MAX_CHUNK_DATA (MAX_RAW + (MAX_RAW >> 7) + 4096u)
_Static_assert((uint64_t)MAX_CHUNK_HEAD_PAYLOAD + MCZ_ARC_FRAME_HEAD + MAX_CHUNK_DATA <= UINT32_MAX,
               "a chunk's stored size is a u32 in the index");

typedef enum stage {
    FRAME_HEAD, /* the first 12 bytes of the next frame */
    FRAME_BODY, /* the rest of the frame */
    CHUNK_DATA, /* a chunk's data frame, after its header frame */
    DONE,       /* the footer came: nothing may follow */
    FAILED,     /* sticky: err holds the failure */
} stage;

/* What the stream may hold next. */
typedef enum expect {
    EXPECT_HEADER,
    EXPECT_DICT,   /* the header names a dictionary */
    EXPECT_META,   /* metadata, a chunk or the index */
    EXPECT_CHUNK,  /* a chunk or the index */
    EXPECT_FOOTER, /* the index came */
} expect;

struct mcz_frame_parser {
    stage stage;
    expect expect;
    uint64_t offset;   /* stream bytes taken */
    uint64_t frame_at; /* where the frame being read starts */
    uint8_t *buf;      /* the frame being read: have of need bytes */
    size_t cap, have, need;
    uint8_t *index;    /* the index frame, kept until the footer proves it */
    size_t index_size;
    uint64_t index_at;
    mcz_frame_event settings; /* the header's (and metadata's) fields, copied into each event */
    uint64_t data_start;      /* where chunks begin: after header, dictionary, metadata */
    ZSTD_DDict *ddict;
    ZSTD_DCtx *dctx;
    mcz_arc_buffer raw;       /* a chunk's decoded bytes */
    uint32_t chunks;
    uint64_t contexts, last_number;
    XXH3_state_t entries, lengths; /* the index rows the chunks so far call for */
    bool footer_pending;           /* the index's event was given; the footer's is next */
    mcz_frame_event footer;
    mcz_diag err;
};

mcz_frame_parser *mcz_frame_parser_create(void)
{
    mcz_frame_parser *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dctx = ZSTD_createDCtx();
    if (!p->dctx) {
        free(p);
        return NULL;
    }
    p->need = 12;
    XXH3_64bits_reset(&p->entries);
    XXH3_64bits_reset(&p->lengths);
    mcz_diag_clear(&p->err);
    return p;
}

void mcz_frame_parser_free(mcz_frame_parser *p)
{
    if (!p)
        return;
    free(p->buf);
    free(p->index);
    free(p->raw.bytes);
    ZSTD_freeDDict(p->ddict);
    ZSTD_freeDCtx(p->dctx);
    free(p);
}

/* Makes the parser fail for good; returns the code. */
static int fail(mcz_frame_parser *p, int code, uint64_t at, int64_t context, const char *what)
{
    mcz_diag_set(&p->err, code, mcz_at_offset((int64_t)at), mcz_in_context(context), "%s", what);
    p->stage = FAILED;
    return code;
}

/* Makes a decoder's failure the parser's: d's offset is counted from base (the frame's stream
 * offset for a decoder given the frame alone, 0 for one given the frame's stream offset). */
static int fail_decode(mcz_frame_parser *p, int code, const mcz_diag *d, uint64_t base)
{
    p->err = *d;
    p->err.code = code;
    p->err.offset = d->offset >= 0 ? (int64_t)base + d->offset : (int64_t)p->frame_at;
    p->stage = FAILED;
    return code;
}

static int fail_frame(mcz_frame_parser *p, int code, const mcz_diag *d)
{
    return fail_decode(p, code, d, p->frame_at);
}

static int copy_failure(const mcz_frame_parser *p, mcz_diag *diag)
{
    if (diag)
        *diag = p->err;
    return p->err.code;
}

/* Room in buf for need bytes. */
static int reserve(mcz_frame_parser *p, size_t need)
{
    if (need <= p->cap)
        return MCZ_OK;
    uint8_t *bigger = realloc(p->buf, need);
    if (!bigger)
        return fail(p, MCZ_ENOMEM, p->frame_at, -1, "stream: out of memory for a frame");
    p->buf = bigger;
    p->cap = need;
    return MCZ_OK;
}

/* ---- What a frame head announces ---- */

/* A chunk's header frame, or the index of the chunks so far (a compressed one is smaller than
 * the raw one). */
static uint64_t chunk_or_index_cap(const mcz_frame_parser *p, uint32_t tag)
{
    if (mcz_arc_is_chunk_tag(tag))
        return MAX_CHUNK_HEAD_PAYLOAD;
    return tag == MCZ_ARC_TAG_INDEX
               ? mcz_arc_index_size(p->chunks, (uint32_t)p->contexts, true) - MCZ_ARC_FRAME_HEAD
               : 0;
}

/* The largest payload a frame with this tag may have here, 0 when no such frame may come
 * next. The sizes the frame's own decoder checks are checked there; this only bounds what is
 * read before. */
static uint64_t payload_cap(const mcz_frame_parser *p, uint32_t tag)
{
    switch (p->expect) {
    case EXPECT_HEADER:
        return tag == MCZ_ARC_TAG_HEADER ? MCZ_ARC_HEADER_SIZE - MCZ_ARC_FRAME_HEAD : 0;
    case EXPECT_DICT:
        return tag == MCZ_ARC_TAG_DICT ? MCZ_ARC_DICT_HEAD - MCZ_ARC_FRAME_HEAD + MAX_DICT : 0;
    case EXPECT_META:
        return tag == MCZ_ARC_TAG_META ? MCZ_ARC_META_SIZE - MCZ_ARC_FRAME_HEAD
                                       : chunk_or_index_cap(p, tag);
    case EXPECT_CHUNK:
        return chunk_or_index_cap(p, tag);
    case EXPECT_FOOTER:
        return tag == MCZ_ARC_TAG_FOOTER ? MCZ_ARC_FOOTER_SIZE - MCZ_ARC_FRAME_HEAD : 0;
    }
    return 0;
}

static const char *unexpected(const mcz_frame_parser *p)
{
    switch (p->expect) {
    case EXPECT_HEADER:
        return "not an archive stream: it does not begin with an archive header";
    case EXPECT_DICT:
        return "the header names a dictionary and no dictionary frame follows it";
    case EXPECT_META:
    case EXPECT_CHUNK:
        return "a frame that is no chunk, index or metadata frame where one belongs";
    case EXPECT_FOOTER:
        return "the index is not followed by the footer";
    }
    return "";
}

/* The frame head is in buf: what the frame is, and its length. */
static int start_frame(mcz_frame_parser *p)
{
    uint32_t payload = mcz_get_le32(p->buf + 4), tag = mcz_get_le32(p->buf + 8);
    if (mcz_get_le32(p->buf) != MCZ_ARC_SKIP_MAGIC)
        return fail(p, MCZ_ECORRUPT, p->frame_at, -1,
                    p->expect == EXPECT_HEADER ? unexpected(p) : "stream: no frame magic where a frame begins");
    uint64_t cap = payload_cap(p, tag);
    if (cap == 0)
        return fail(p, MCZ_ECORRUPT, p->frame_at + 8, -1, unexpected(p));
    if (tag == MCZ_ARC_TAG_FOOTER && payload != cap) /* its decoder takes the fixed size */
        return fail(p, MCZ_ECORRUPT, p->frame_at, -1, "footer: bad frame header");
    if (payload < 4 || payload > cap)
        return fail(p, tag == MCZ_ARC_TAG_INDEX || mcz_arc_is_chunk_tag(tag) ? MCZ_ELIMIT : MCZ_ECORRUPT,
                    p->frame_at + 4, -1,
                    "stream: a frame larger than the format allows there, or too small");
    p->need = MCZ_ARC_FRAME_HEAD + (size_t)payload;
    p->stage = FRAME_BODY;
    return reserve(p, p->need);
}

/* ---- Complete frames ---- */

/* The event of the frame in buf, with the stream's settings. */
static void frame_event(const mcz_frame_parser *p, mcz_frame_kind kind, mcz_frame_event *ev)
{
    *ev = p->settings;
    ev->kind = kind;
    ev->offset = p->frame_at;
    ev->bytes = p->buf;
    ev->size = p->have;
}

static int take_header(mcz_frame_parser *p, mcz_frame_event *ev)
{
    mcz_arc_header h;
    mcz_diag d;
    int rc = mcz_arc_header_decode(p->buf, p->have, &h, &d);
    if (rc != MCZ_OK)
        return fail_frame(p, rc, &d);
    mcz_frame_event *s = &p->settings;
    s->version = h.version;
    s->flags = h.flags;
    s->level = h.level;
    s->chunk_size = h.chunk_size;
    s->dict_id = h.dict_id;
    s->jit_ee_id = h.jit_ee;
    s->codec = (h.flags & MCZ_ARC_FLAG_CODEC_XZ) ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD;
    s->layout = (h.flags & MCZ_ARC_FLAG_PACKETS) ? MCZ_LAYOUT_PACKETS : MCZ_LAYOUT_PLAIN;
    p->expect = (h.flags & MCZ_ARC_FLAG_HAS_DICT) ? EXPECT_DICT : EXPECT_META;
    frame_event(p, MCZ_FRAME_HEADER, ev);
    return MCZ_OK;
}

/* The dictionary, as the reader takes it: the header's id, in the bytes too, usable by zstd. */
static int take_dict(mcz_frame_parser *p, mcz_frame_event *ev)
{
    mcz_arc_dict dict;
    mcz_diag d;
    int rc = mcz_arc_dict_decode(p->buf, p->have, 0, p->settings.dict_id, &dict, &d);
    if (rc != MCZ_OK)
        return fail_frame(p, rc, &d);
    if (ZDICT_getDictID(dict.bytes, dict.size) != p->settings.dict_id)
        return fail(p, MCZ_EDICT, p->frame_at + MCZ_ARC_DICT_HEAD, -1,
                    "dictionary: not a zstd dictionary of the header's id");
    p->ddict = ZSTD_createDDict(dict.bytes, dict.size);
    if (!p->ddict)
        return fail(p, MCZ_EDICT, p->frame_at + MCZ_ARC_DICT_HEAD, -1,
                    "dictionary: unusable");
    p->expect = EXPECT_META;
    frame_event(p, MCZ_FRAME_DICT, ev);
    ev->dict = dict.bytes;
    ev->dict_size = dict.size;
    return MCZ_OK;
}

static int take_meta(mcz_frame_parser *p, mcz_frame_event *ev)
{
    mcz_arc_meta meta;
    uint64_t frame_size;
    mcz_diag d;
    int rc = mcz_arc_meta_decode(p->buf, p->have, 0, UINT64_MAX, &meta, &frame_size, &d);
    if (rc != MCZ_OK)
        return fail_frame(p, rc, &d);
    if (frame_size != p->have) /* the tag was seen: the decoder cannot take it for absent */
        return fail(p, MCZ_ECORRUPT, p->frame_at, -1, "metadata: not a metadata frame");
    mcz_frame_event *s = &p->settings;
    memcpy(s->jit_ee_guid, meta.guid, sizeof s->jit_ee_guid);
    memcpy(s->target_os, meta.os, sizeof s->target_os);
    memcpy(s->target_arch, meta.arch, sizeof s->target_arch);
    p->expect = EXPECT_CHUNK;
    frame_event(p, MCZ_FRAME_META, ev);
    return MCZ_OK;
}

/* A chunk's header frame is in buf: checked now, so that its data size can be believed. */
static int start_chunk_data(mcz_frame_parser *p)
{
    mcz_arc_chunk_head h;
    mcz_diag d;
    int rc = mcz_arc_chunk_head_decode(p->buf, p->have, 0, &h, &d);
    if (rc != MCZ_OK)
        return fail_frame(p, rc, &d);
    if (h.data_size > MAX_CHUNK_DATA || h.raw_size > MAX_RAW)
        return fail(p, MCZ_ELIMIT, p->frame_at + 20, h.first_number,
                    "chunk header: sizes larger than the format allows a writer to send");
    p->need = p->have + h.data_size;
    p->stage = CHUNK_DATA;
    return reserve(p, p->need);
}

/* The chunk's rows in the index to come, hashed as the index holds them. */
static void add_rows(mcz_frame_parser *p, const mcz_arc_chunk_head *h)
{
    mcz_chunk_info info = {p->frame_at, (uint32_t)p->have, h->raw_size, h->first_number,
                           h->count, h->checksum};
    uint8_t entry[MCZ_ARC_CHUNK_ENTRY];
    mcz_arc_chunk_entry_encode(&info, entry);
    XXH3_64bits_update(&p->entries, entry, sizeof entry);
    XXH3_64bits_update(&p->lengths, h->lengths, 4 * (size_t)h->count);
}

static int take_chunk(mcz_frame_parser *p, mcz_frame_event *ev)
{
    mcz_arc_chunk_head h;
    mcz_diag d;
    int rc = mcz_arc_decode_chunk(p->buf, p->have, 0, p->dctx, p->ddict, p->settings.dict_id,
                                  &p->raw, &h, &d);
    if (rc != MCZ_OK)
        return fail_frame(p, rc, &d);
    if (h.first_number <= p->last_number)
        return fail(p, MCZ_ECORRUPT, p->frame_at + 12, h.first_number,
                    "chunk header: numbers do not follow the previous chunk's");
    if (p->chunks == UINT32_MAX || h.count > UINT32_MAX - p->contexts)
        return fail(p, MCZ_ELIMIT, p->frame_at, h.first_number,
                    "stream: more chunks or contexts than an index can hold");
    add_rows(p, &h);
    p->chunks++;
    p->contexts += h.count;
    p->last_number = (uint64_t)h.first_number + h.count - 1;
    p->expect = EXPECT_CHUNK;
    frame_event(p, MCZ_FRAME_CHUNK, ev);
    ev->first_number = h.first_number;
    ev->count = h.count;
    ev->raw_size = h.raw_size;
    ev->raw = p->raw.bytes;
    return MCZ_OK;
}

/* The index frame is kept (its event waits for the footer, which proves it). */
static int keep_index(mcz_frame_parser *p)
{
    free(p->index);
    p->index = p->buf;
    p->index_size = p->have;
    p->index_at = p->frame_at;
    p->buf = NULL;
    p->cap = 0;
    p->expect = EXPECT_FOOTER;
    return MCZ_OK;
}

/* The decoded index against the chunks the stream held. */
static int index_matches(mcz_frame_parser *p, const mcz_arc_index *idx)
{
    if (idx->chunk_count != p->chunks || idx->context_count != p->contexts)
        return fail(p, MCZ_ECORRUPT, p->index_at + 12, -1,
                    "index: its counts are not those of the chunks in the stream");
    if (XXH3_64bits(idx->chunks, (size_t)MCZ_ARC_CHUNK_ENTRY * idx->chunk_count) !=
        XXH3_64bits_digest(&p->entries))
        return fail(p, MCZ_ECORRUPT, p->index_at, -1,
                    "index: its chunk entries are not the chunks in the stream");
    if (XXH3_64bits(idx->lengths, 4 * (size_t)idx->context_count) !=
        XXH3_64bits_digest(&p->lengths))
        return fail(p, MCZ_ECORRUPT, p->index_at, -1,
                    "index: its context lengths are not the chunks' in the stream");
    return MCZ_OK;
}

/* The footer, then the index it points at (each with the file reader's checks), then the index
 * against the chunks. Gives the index's event; the footer's comes next. */
static int take_footer(mcz_frame_parser *p, mcz_frame_event *ev)
{
    mcz_arc_footer f;
    mcz_arc_index idx;
    mcz_diag d;
    assert(p->have == MCZ_ARC_FOOTER_SIZE); /* start_frame took no other size */
    int rc = mcz_arc_footer_decode_at(p->buf, p->frame_at, &f, &d);
    if (rc != MCZ_OK)
        return fail_decode(p, rc, &d, 0);
    if (f.index_offset != p->index_at)
        return fail(p, MCZ_ECORRUPT, p->frame_at + 16, -1,
                    "footer: its index offset is not where the index lies");
    rc = mcz_arc_index_decode_frame(p->index, &f, p->data_start, &idx, &d);
    if (rc != MCZ_OK)
        return fail_decode(p, rc, &d, 0);
    rc = index_matches(p, &idx);
    mcz_arc_index_free(&idx);
    if (rc != MCZ_OK)
        return rc;
    frame_event(p, MCZ_FRAME_FOOTER, &p->footer);
    p->footer.chunk_count = p->chunks;
    p->footer.context_count = (uint32_t)p->contexts;
    p->footer_pending = true;
    *ev = p->settings;
    ev->kind = MCZ_FRAME_INDEX;
    ev->offset = p->index_at;
    ev->bytes = p->index;
    ev->size = p->index_size;
    p->stage = DONE;
    return MCZ_OK;
}

/* The frame in buf is complete: its event (none for a chunk header frame or the index). */
static int frame_done(mcz_frame_parser *p, mcz_frame_event *ev)
{
    uint32_t tag = mcz_get_le32(p->buf + 8);
    if (p->stage == FRAME_BODY && mcz_arc_is_chunk_tag(tag))
        return start_chunk_data(p);
    int rc;
    if (tag == MCZ_ARC_TAG_HEADER)
        rc = take_header(p, ev);
    else if (tag == MCZ_ARC_TAG_DICT)
        rc = take_dict(p, ev);
    else if (tag == MCZ_ARC_TAG_META)
        rc = take_meta(p, ev);
    else if (tag == MCZ_ARC_TAG_INDEX)
        rc = keep_index(p);
    else if (tag == MCZ_ARC_TAG_FOOTER)
        rc = take_footer(p, ev);
    else
        rc = take_chunk(p, ev);
    if (tag == MCZ_ARC_TAG_HEADER || tag == MCZ_ARC_TAG_DICT || tag == MCZ_ARC_TAG_META)
        p->data_start = p->offset; /* chunks begin after these */
    if (rc == MCZ_OK && p->stage != DONE) {
        p->stage = FRAME_HEAD;
        p->need = 12;
        p->have = 0;
        p->frame_at = p->offset;
    }
    return rc;
}

/* ---- Pushing bytes ---- */

int mcz_frame_parser_push(mcz_frame_parser *p, const void *bytes, size_t len, size_t *used,
                          mcz_frame_event *ev, mcz_diag *diag)
{
    *used = 0;
    memset(ev, 0, sizeof *ev);
    if (p->stage == FAILED)
        return copy_failure(p, diag);
    if (p->footer_pending) {
        *ev = p->footer;
        p->footer_pending = false;
        return MCZ_OK;
    }
    const uint8_t *in = bytes;
    while (ev->kind == MCZ_FRAME_NONE) {
        if (p->stage == DONE) {
            if (*used < len)
                return copy_failure(p, (fail(p, MCZ_ECORRUPT, p->offset, -1,
                                             "stream: bytes after the footer"), diag));
            break;
        }
        int rc = MCZ_OK;
        if (p->have == p->need)
            rc = p->stage == FRAME_HEAD ? start_frame(p) : frame_done(p, ev);
        else if (*used == len)
            break;
        else if ((rc = reserve(p, p->need)) == MCZ_OK) {
            size_t take = p->need - p->have < len - *used ? p->need - p->have : len - *used;
            memcpy(p->buf + p->have, in + *used, take);
            p->have += take;
            p->offset += take;
            *used += take;
        }
        if (rc != MCZ_OK)
            return copy_failure(p, diag);
    }
    return MCZ_OK;
}

int mcz_frame_parser_end(mcz_frame_parser *p, mcz_frame_event *ev, mcz_diag *diag)
{
    memset(ev, 0, sizeof *ev);
    if (p->stage == FAILED)
        return copy_failure(p, diag);
    *ev = p->settings;
    ev->kind = MCZ_FRAME_END;
    ev->offset = p->offset;
    ev->complete = p->stage == DONE;
    ev->torn = p->stage == DONE ? 0 : p->offset - p->frame_at;
    if (p->expect == EXPECT_FOOTER && p->stage != DONE)
        ev->torn += p->index_size; /* the index without its footer is dropped with it */
    ev->chunk_count = p->chunks;
    ev->context_count = (uint32_t)p->contexts;
    return MCZ_OK;
}
