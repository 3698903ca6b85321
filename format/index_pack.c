/*
 * index_pack.c - the compressed index (FORMAT.md §5, version 4): the tables of a raw index frame
 * less its offset column, which follows from the lengths, as one zstd frame. A writer compresses
 * the raw frame as it streams (never holding it), but compressing allocates (zstd's context, the
 * compressed frame), so a fatal-signal dump, which may not, writes the raw form
 * (mcz_arc_index_stream); readers take both, and keep a large one's hash columns in the frame
 * (FORMAT.md §5 "What a reader holds").
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "archive.h"
#include "mcz_xxhash.h"
#include "mcz_common.h"

_Static_assert(MCZ_ARC_INDEX_PACKED_HEAD == MCZ_ARC_INDEX_HEAD + 8, "head + decoded size");

/* Bytes of the columns a compressed index holds: chunk table, lengths, and the hash columns. */
static uint64_t packed_columns(uint32_t chunk_count, uint32_t context_count, bool hashes)
{
    uint64_t per_context = hashes ? MCZ_ARC_CONTEXT_ENTRY - 4 : MCZ_ARC_CONTEXT_ENTRY_NO_HASHES - 4;
    return (uint64_t)MCZ_ARC_CHUNK_ENTRY * chunk_count + per_context * context_count;
}

/* ---- Writing ---- */

/*
 * Compresses the columns of raw (a raw index frame of raw_len bytes: chunk table, offsets, the
 * rest) into out[0, cap) as one frame with its content size; returns its size, or 0 when it
 * fails or does not fit.
 */
static size_t compress_columns(const uint8_t *raw, size_t raw_len, uint8_t *out, size_t cap)
{
    size_t table = (size_t)MCZ_ARC_CHUNK_ENTRY * mcz_get_le32(raw + 12);
    size_t offsets = 4 * (size_t)mcz_get_le32(raw + 16);
    size_t rest = raw_len - MCZ_ARC_INDEX_HEAD - table - offsets;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    size_t rc = cctx ? ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, MCZ_ARC_INDEX_LEVEL)
                     : (size_t)-1;
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setPledgedSrcSize(cctx, table + rest); /* the content size is written */
    ZSTD_outBuffer dst = {out, cap, 0};
    ZSTD_inBuffer first = {raw + MCZ_ARC_INDEX_HEAD, table, 0};
    ZSTD_inBuffer second = {raw + MCZ_ARC_INDEX_HEAD + table + offsets, rest, 0};
    if (!ZSTD_isError(rc))
        rc = ZSTD_compressStream2(cctx, &dst, &first, ZSTD_e_continue);
    if (!ZSTD_isError(rc))
        rc = ZSTD_compressStream2(cctx, &dst, &second, ZSTD_e_end);
    ZSTD_freeCCtx(cctx);
    return rc == 0 ? dst.pos : 0; /* non-zero: output left over, the frame did not fit */
}

void mcz_arc_index_pack(uint8_t **frame, size_t *len, uint64_t index_offset,
                        uint8_t footer[MCZ_ARC_FOOTER_SIZE])
{
    const uint8_t *raw = *frame;
    assert(*len >= MCZ_ARC_INDEX_HEAD);
    if (*len <= MCZ_ARC_INDEX_PACKED_HEAD)
        return;
    uint8_t *packed = malloc(*len);
    size_t z = packed ? compress_columns(raw, *len, packed + MCZ_ARC_INDEX_PACKED_HEAD,
                                         *len - MCZ_ARC_INDEX_PACKED_HEAD - 1)
                      : 0;
    if (z == 0) {
        free(packed);
        return;
    }
    uint32_t flags = mcz_get_le32(raw + 32);
    size_t packed_len = MCZ_ARC_INDEX_PACKED_HEAD + z;
    memcpy(packed, raw, MCZ_ARC_INDEX_HEAD);
    mcz_put_le32(packed + 4, (uint32_t)(packed_len - MCZ_ARC_FRAME_HEAD));
    mcz_put_le32(packed + 32, flags | MCZ_ARC_INDEX_COMPRESSED);
    mcz_put_le64(packed + 36, packed_columns(mcz_get_le32(raw + 12), mcz_get_le32(raw + 16),
                                             (flags & MCZ_ARC_INDEX_NO_HASHES) == 0));
    mcz_arc_footer f = {mcz_get_le32(footer + 12), index_offset, packed_len,
                        mcz_arc_xxh3(packed, packed_len), mcz_get_le32(footer + 40),
                        mcz_get_le32(footer + 44)};
    mcz_arc_footer_encode(&f, footer);
    free(*frame);
    *frame = packed;
    *len = packed_len;
}

/* A sink into a growing heap buffer. */
typedef struct heap_sink {
    uint8_t *bytes;
    size_t used, cap;
} heap_sink;

/*
 * A sink that compresses the raw index frame as mcz_arc_index_stream streams it: the bytes of
 * the chunk table and of the columns after the offsets go to one zstd frame (as
 * compress_columns makes it), the head, the offset column and the footer are skipped. So the
 * raw frame is never held: memory is the compressed frame and zstd's context, or with a store
 * only zstd's context and one output buffer, passed on to the store as it fills.
 */
typedef struct packing_sink {
    ZSTD_CCtx *cctx;
    heap_sink out;         /* MCZ_ARC_INDEX_PACKED_HEAD bytes left for the head, then the frame;
                            * with a store, the frame's next bytes only */
    const mcz_arc_store *store; /* NULL: the frame stays in out */
    uint64_t stored;       /* bytes of the frame given to the store */
    uint64_t at;           /* bytes of the raw stream seen */
    uint64_t table_end;    /* where the offset column begins in the raw frame */
    uint64_t offsets_end;  /* and ends */
    uint64_t frame_end;    /* where the footer begins */
    uint8_t head[MCZ_ARC_INDEX_HEAD];
    uint8_t footer[MCZ_ARC_FOOTER_SIZE]; /* the raw form's */
    uint8_t packed_head[MCZ_ARC_INDEX_PACKED_HEAD]; /* the compressed frame's, once made */
} packing_sink;

/* Room for at least `room` more bytes in h. */
static int heap_reserve(heap_sink *h, size_t room)
{
    if (h->cap - h->used >= room)
        return MCZ_OK;
    size_t cap = h->cap ? h->cap : 65536;
    while (cap - h->used < room)
        cap *= 2;
    uint8_t *bigger = realloc(h->bytes, cap);
    if (!bigger)
        return MCZ_ENOMEM;
    h->bytes = bigger;
    h->cap = cap;
    return MCZ_OK;
}

/* With a store, hands it what p->out holds (its error stops the index). */
static int pack_flush(packing_sink *p)
{
    if (!p->store || p->out.used == 0)
        return MCZ_OK;
    int rc = p->store->append(p->store->arg, p->out.bytes, p->out.used);
    p->stored += p->out.used;
    p->out.used = 0;
    return rc;
}

/* Compresses bytes[0, len) into p->out; end: the last input, the frame is ended. */
static int pack_bytes(packing_sink *p, const uint8_t *bytes, size_t len, bool end)
{
    ZSTD_inBuffer in = {bytes, len, 0};
    for (;;) {
        if (heap_reserve(&p->out, ZSTD_CStreamOutSize()) != MCZ_OK)
            return MCZ_ENOMEM;
        ZSTD_outBuffer o = {p->out.bytes, p->out.cap, p->out.used};
        size_t left = ZSTD_compressStream2(p->cctx, &o, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        p->out.used = o.pos;
        if (ZSTD_isError(left))
            return MCZ_ENOMEM;
        int rc = pack_flush(p);
        if (rc != MCZ_OK)
            return rc;
        if (end ? left == 0 : in.pos == len)
            return MCZ_OK;
    }
}

static int packing_append(void *arg, const void *data, size_t len)
{
    packing_sink *p = arg;
    const uint8_t *b = data;
    int rc = MCZ_OK;
    for (size_t done = 0; done < len && rc == MCZ_OK;) {
        uint64_t at = p->at + done;
        uint64_t until = at < MCZ_ARC_INDEX_HEAD ? MCZ_ARC_INDEX_HEAD
                         : at < p->table_end     ? p->table_end
                         : at < p->offsets_end   ? p->offsets_end
                         : at < p->frame_end     ? p->frame_end
                                                 : UINT64_MAX;
        size_t step = until - at < len - done ? (size_t)(until - at) : len - done;
        if (at < MCZ_ARC_INDEX_HEAD)
            memcpy(p->head + at, b + done, step);
        else if (at < p->table_end || (at >= p->offsets_end && at < p->frame_end))
            rc = pack_bytes(p, b + done, step, false);
        else if (at >= p->frame_end && at - p->frame_end < MCZ_ARC_FOOTER_SIZE)
            memcpy(p->footer + (at - p->frame_end), b + done,
                   step < MCZ_ARC_FOOTER_SIZE - (at - p->frame_end)
                       ? step
                       : (size_t)(MCZ_ARC_FOOTER_SIZE - (at - p->frame_end)));
        done += step;
    }
    p->at += len;
    return rc;
}

/* The compressed index frame of the stream rows give, into p->out (its head in p->packed_head
 * too) or, with a store, its head into p->packed_head and the rest into the store; *len its
 * length, or 0 when it is not smaller than the raw frame (raw_len bytes) or memory runs out.
 * MCZ_OK, or the store's error. */
static int pack_stream(packing_sink *p, uint32_t chunk_count, uint32_t contexts,
                       uint32_t first_number, bool hashes, mcz_arc_rows_fn rows, void *rows_arg,
                       uint64_t index_offset, uint64_t raw_len, size_t *len)
{
    *len = 0;
    p->table_end = MCZ_ARC_INDEX_HEAD + (uint64_t)MCZ_ARC_CHUNK_ENTRY * chunk_count;
    p->offsets_end = p->table_end + 4 * (uint64_t)contexts;
    p->frame_end = raw_len;
    uint64_t columns = packed_columns(chunk_count, contexts, hashes);
    p->cctx = ZSTD_createCCtx();
    size_t rc = p->cctx ? ZSTD_CCtx_setParameter(p->cctx, ZSTD_c_compressionLevel,
                                                 MCZ_ARC_INDEX_LEVEL)
                        : (size_t)-1;
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setPledgedSrcSize(p->cctx, columns);
    size_t head_room = p->store ? 0 : MCZ_ARC_INDEX_PACKED_HEAD; /* the head, written last */
    int done = ZSTD_isError(rc) ? MCZ_ENOMEM : heap_reserve(&p->out, head_room);
    p->out.used = head_room;
    done = done != MCZ_OK ? done
                                : mcz_arc_index_stream(chunk_count, first_number, hashes, rows,
                                                       rows_arg, index_offset, packing_append, p);
    if (done == MCZ_OK)
        done = pack_bytes(p, NULL, 0, true);
    ZSTD_freeCCtx(p->cctx);
    uint64_t frame = MCZ_ARC_INDEX_PACKED_HEAD + p->stored + p->out.used - head_room;
    if (done != MCZ_OK || frame >= raw_len)
        return done == MCZ_ENOMEM || done == MCZ_OK ? MCZ_OK : done; /* the raw form, or fail */
    uint8_t *h = p->packed_head;
    memcpy(h, p->head, MCZ_ARC_INDEX_HEAD);
    mcz_put_le32(h + 4, (uint32_t)(frame - MCZ_ARC_FRAME_HEAD));
    mcz_put_le32(h + 32, mcz_get_le32(p->head + 32) | MCZ_ARC_INDEX_COMPRESSED);
    mcz_put_le64(h + 36, columns);
    if (!p->store)
        memcpy(p->out.bytes, h, MCZ_ARC_INDEX_PACKED_HEAD);
    *len = (size_t)frame;
    return MCZ_OK;
}

/* A sink that hashes what it passes on: the stored frame's XXH3, for the footer. */
typedef struct hashing_sink {
    XXH3_state_t hash;
    mcz_arc_sink_fn sink;
    void *arg;
} hashing_sink;

static int hash_and_pass(void *arg, const void *bytes, size_t len)
{
    hashing_sink *h = arg;
    XXH3_64bits_update(&h->hash, bytes, len);
    return h->sink(h->arg, bytes, len);
}

/* The compressed frame p made to sink (its head, then the rest from p->out or the store);
 * *xxh3: its XXH3. */
static int emit_packed(const packing_sink *p, size_t len, mcz_arc_sink_fn sink, void *sink_arg,
                       uint64_t *xxh3)
{
    if (!p->store) {
        *xxh3 = mcz_arc_xxh3(p->out.bytes, len);
        return sink(sink_arg, p->out.bytes, len);
    }
    hashing_sink h;
    XXH3_64bits_reset(&h.hash);
    h.sink = sink;
    h.arg = sink_arg;
    int rc = hash_and_pass(&h, p->packed_head, MCZ_ARC_INDEX_PACKED_HEAD);
    if (rc == MCZ_OK)
        rc = p->store->replay(p->store->arg, hash_and_pass, &h);
    *xxh3 = XXH3_64bits_digest(&h.hash);
    return rc;
}

int mcz_arc_index_write(uint32_t chunk_count, uint32_t first_number, bool hashes,
                        mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                        mcz_arc_sink_fn sink, void *sink_arg)
{
    return mcz_arc_index_write_via(chunk_count, first_number, hashes, rows, rows_arg,
                                   index_offset, NULL, sink, sink_arg);
}

int mcz_arc_index_write_via(uint32_t chunk_count, uint32_t first_number, bool hashes,
                            mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                            const mcz_arc_store *store, mcz_arc_sink_fn sink, void *sink_arg)
{
    uint32_t contexts = 0; /* a pass of its own: rows are walked in order */
    for (uint32_t i = 0; i < chunk_count; i++) {
        mcz_arc_rows r;
        rows(rows_arg, i, &r);
        contexts += r.info.count;
    }
    uint64_t raw_len = mcz_arc_index_size(chunk_count, contexts, hashes);
    packing_sink p;
    memset(&p, 0, sizeof p);
    p.store = store;
    size_t len = 0;
    int rc = raw_len > MCZ_ARC_INDEX_PACKED_HEAD
                 ? pack_stream(&p, chunk_count, contexts, first_number, hashes, rows, rows_arg,
                               index_offset, raw_len, &len)
                 : MCZ_OK;
    if (rc != MCZ_OK || len == 0) { /* the store failed, or the raw form, streamed as it is */
        free(p.out.bytes);
        return rc != MCZ_OK ? rc
                            : mcz_arc_index_stream(chunk_count, first_number, hashes, rows,
                                                   rows_arg, index_offset, sink, sink_arg);
    }
    uint64_t xxh3 = 0;
    rc = emit_packed(&p, len, sink, sink_arg, &xxh3);
    free(p.out.bytes);
    uint8_t footer[MCZ_ARC_FOOTER_SIZE]; /* the raw form's, but for the index's size and XXH3 */
    mcz_arc_footer f = {mcz_get_le32(p.footer + 12), index_offset, len, xxh3,
                        mcz_get_le32(p.footer + 40), mcz_get_le32(p.footer + 44)};
    mcz_arc_footer_encode(&f, footer);
    return rc == MCZ_OK ? sink(sink_arg, footer, sizeof footer) : rc;
}

/* ---- Reading ---- */

/* The counts must fit the file before anything is allocated for them: every chunk takes more
 * than a chunk header of 40 + 4 bytes per context between data_start and the index, and no zstd
 * frame expands more than MCZ_ARC_MAX_EXPANSION times. So the buffer stays within a small
 * multiple of the file size. */
static int check_packed_size(const mcz_arc_index *idx, uint64_t off, uint64_t frame_size,
                             uint64_t data_start, uint64_t decoded, mcz_diag *diag)
{
    uint64_t expect = packed_columns(idx->chunk_count, idx->context_count, idx->has_hashes);
    if (decoded != expect)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + MCZ_ARC_INDEX_HEAD),
                            MCZ_NO_CONTEXT,
                            "index: %llu bytes of columns, %u chunks and %u contexts need %llu",
                            (unsigned long long)decoded, idx->chunk_count, idx->context_count,
                            (unsigned long long)expect);
    uint64_t room = off > data_start ? off - data_start : 0;
    uint64_t least =
        (uint64_t)MCZ_ARC_CHUNK_HEAD * idx->chunk_count + 4 * (uint64_t)idx->context_count;
    uint64_t stored = frame_size - MCZ_ARC_INDEX_PACKED_HEAD;
    if (least > room || decoded / MCZ_ARC_MAX_EXPANSION > stored)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 12), MCZ_NO_CONTEXT,
                            "index: %u chunks and %u contexts cannot lie in the %llu bytes before "
                            "it, or come from a %llu-byte frame",
                            idx->chunk_count, idx->context_count, (unsigned long long)room,
                            (unsigned long long)stored);
    return MCZ_OK;
}

/* A frame's shape before it is decoded: a zstd frame at src naming no dictionary and recording
 * its content size, which must be `decoded`, and (whole: its block headers walked, which a lean
 * open leaves to its one decode, so as not to touch every page of the frame at once) exactly
 * src[0, len). */
static int check_frame_shape(const uint8_t *src, size_t len, uint64_t at, uint64_t decoded,
                             bool whole, mcz_diag *diag)
{
    if ((whole && ZSTD_findFrameCompressedSize(src, len) != len) ||
        ZSTD_getFrameContentSize(src, len) != decoded || ZSTD_getDictID_fromFrame(src, len) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: not one zstd frame of %zu bytes with content size %llu", len,
                            (unsigned long long)decoded);
    return MCZ_OK;
}

/* Decompresses the zstd frame src[0, len), at file offset at, of the shape check_frame_shape
 * accepts, into exactly out[0, decoded). */
static int decompress_columns(const uint8_t *src, size_t len, uint64_t at, uint8_t *out,
                              size_t decoded, mcz_diag *diag)
{
    size_t got = ZSTD_decompress(out, decoded, src, len);
    if (ZSTD_isError(got) || got != decoded)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: its zstd frame: %s",
                            ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
    return MCZ_OK;
}

/* ---- The per-context columns of a lean index, read forward ---- */

static uint64_t column_start(const mcz_arc_index *idx, mcz_arc_column c)
{
    uint64_t n = idx->context_count;
    uint64_t lengths = (uint64_t)MCZ_ARC_CHUNK_ENTRY * idx->chunk_count;
    return c == MCZ_ARC_COL_LENGTHS ? lengths
                                    : lengths + 4 * n + (c == MCZ_ARC_COL_DEDUP ? 16 * n : 0);
}

static size_t column_width(mcz_arc_column c)
{
    return c == MCZ_ARC_COL_LENGTHS ? 4 : 16;
}

/* Starts s again at the frame's first byte. */
static int column_restart(mcz_arc_column_stream *s)
{
    if (!s->dctx && !(s->dctx = ZSTD_createDCtx()))
        return MCZ_ENOMEM;
    ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
    s->in_pos = 0;
    s->out_pos = 0;
    s->last = 1;
    s->first = s->count = 0;
    return MCZ_OK;
}

/* Decodes the next len bytes of the frame into out (NULL: dropped, through the window). */
static int column_read(const mcz_arc_index *idx, mcz_arc_column_stream *s, uint8_t *out,
                       uint64_t len)
{
    ZSTD_inBuffer in = {idx->packed, idx->packed_size, s->in_pos};
    while (len > 0) {
        size_t step = len < sizeof s->window ? (size_t)len : sizeof s->window;
        ZSTD_outBuffer o = {out ? out : s->window, step, 0};
        size_t before = in.pos;
        s->last = ZSTD_decompressStream(s->dctx, &o, &in);
        s->in_pos = in.pos;
        s->out_pos += o.pos;
        if (ZSTD_isError(s->last) || (o.pos == 0 && in.pos == before))
            return MCZ_ECORRUPT; /* damaged, or the input ended inside the frame */
        len -= o.pos;
        if (out)
            out += o.pos;
    }
    return MCZ_OK;
}

int mcz_arc_column_get(const mcz_arc_index *idx, mcz_arc_column_stream *s, mcz_arc_column c,
                       uint32_t pos, uint8_t *out)
{
    assert(idx->packed && pos < idx->context_count);
    assert(c == MCZ_ARC_COL_LENGTHS || idx->has_hashes);
    size_t width = column_width(c);
    if (pos - s->first < s->count) {
        memcpy(out, s->window + width * (pos - s->first), width);
        return MCZ_OK;
    }
    uint64_t want = column_start(idx, c) + width * (uint64_t)pos;
    int rc = MCZ_OK;
    if (!s->dctx || want < s->out_pos) {
        s->restarts += s->dctx != NULL;
        rc = column_restart(s);
    }
    s->count = 0; /* the window is the skip's scratch */
    if (rc == MCZ_OK)
        rc = column_read(idx, s, NULL, want - s->out_pos);
    uint64_t left = idx->context_count - pos, fits = sizeof s->window / width;
    uint32_t count = (uint32_t)(left < fits ? left : fits);
    if (rc == MCZ_OK)
        rc = column_read(idx, s, s->window, width * (uint64_t)count);
    if (rc != MCZ_OK)
        return rc;
    s->first = pos;
    s->count = count;
    memcpy(out, s->window, width);
    return MCZ_OK;
}

const char *mcz_arc_column_error(const mcz_arc_column_stream *s)
{
    return ZSTD_isError(s->last) ? ZSTD_getErrorName(s->last) : "short";
}

void mcz_arc_column_free(mcz_arc_column_stream *s)
{
    ZSTD_freeDCtx(s->dctx);
    memset(s, 0, sizeof *s);
}

uint8_t *mcz_arc_index_columns(const mcz_arc_index *idx, mcz_arc_column c, uint64_t len)
{
    assert(idx->packed &&
           column_start(idx, c) + len <=
               packed_columns(idx->chunk_count, idx->context_count, idx->has_hashes));
    uint8_t *columns = malloc((size_t)len + 1);
    mcz_arc_column_stream s = {0};
    int rc = columns ? column_restart(&s) : MCZ_ENOMEM;
    if (rc == MCZ_OK)
        rc = column_read(idx, &s, NULL, column_start(idx, c));
    if (rc == MCZ_OK)
        rc = column_read(idx, &s, columns, len);
    mcz_arc_column_free(&s);
    if (rc == MCZ_OK)
        return columns;
    free(columns);
    return NULL;
}

/* ---- Opening ---- */

/* Reports s's failure at the zstd frame (file offset at). */
static int stream_failed(const mcz_arc_column_stream *s, int rc, uint64_t at, mcz_diag *diag)
{
    return mcz_diag_set(diag, rc == MCZ_ENOMEM ? MCZ_ENOMEM : MCZ_ECORRUPT,
                        mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT, "index: its zstd frame: %s",
                        rc == MCZ_ENOMEM ? "out of memory" : mcz_arc_column_error(s));
}

/* Past the frame's last decoded byte, what remains of it (its last block's end, a checksum):
 * nothing more may decode, and the frame must end where the index frame ends. */
static int column_frame_end(const mcz_arc_index *idx, mcz_arc_column_stream *s)
{
    ZSTD_inBuffer in = {idx->packed, idx->packed_size, s->in_pos};
    while (s->last != 0) {
        ZSTD_outBuffer o = {s->window, sizeof s->window, 0};
        size_t before = in.pos;
        s->last = ZSTD_decompressStream(s->dctx, &o, &in);
        s->in_pos = in.pos;
        if (ZSTD_isError(s->last) || o.pos != 0 || (s->last != 0 && in.pos == before))
            return MCZ_ECORRUPT;
    }
    return s->in_pos == idx->packed_size ? MCZ_OK : MCZ_ECORRUPT;
}

#define UNPACK_STEP (1u << 20) /* the end of a lean frame is decoded 1 MiB at a time */

int mcz_arc_index_unpack_end(const mcz_arc_index *idx, mcz_arc_column_stream *s,
                             const mcz_arc_lean *lean, uint64_t at, mcz_diag *diag)
{
    uint64_t decoded = packed_columns(idx->chunk_count, idx->context_count, idx->has_hashes);
    int rc = s->dctx ? MCZ_OK : column_restart(s);
    s->count = 0; /* the window is the scratch */
    while (rc == MCZ_OK && s->out_pos < decoded) {
        uint64_t step = decoded - s->out_pos < UNPACK_STEP ? decoded - s->out_pos : UNPACK_STEP;
        rc = column_read(idx, s, NULL, step);
        if (lean->release)
            lean->release(lean->arg, at + s->in_pos);
    }
    if (rc == MCZ_OK)
        rc = column_frame_end(idx, s);
    if (rc != MCZ_OK)
        return stream_failed(s, rc, at, diag);
    return MCZ_OK;
}

/* The chunk table of a lean index (out->packed set), read through s into out->owned. */
static int unpack_table(mcz_arc_index *out, mcz_arc_column_stream *s, uint64_t at,
                        mcz_diag *diag)
{
    size_t table = (size_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count;
    out->owned = malloc(table + 1);
    out->chunk_lengths = malloc(((size_t)out->chunk_count + 1) * sizeof *out->chunk_lengths);
    if (!out->owned || !out->chunk_lengths)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: out of memory");
    out->chunks = out->owned;
    int rc = column_restart(s);
    if (rc == MCZ_OK)
        rc = column_read(out, s, out->owned, table);
    return rc == MCZ_OK ? MCZ_OK : stream_failed(s, rc, at, diag);
}

int mcz_arc_index_unpack(const uint8_t *frame, uint64_t off, uint64_t frame_size,
                         uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                         mcz_arc_column_stream *s, mcz_diag *diag)
{
    if (frame_size < MCZ_ARC_INDEX_PACKED_HEAD)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: compressed frame of %llu bytes",
                            (unsigned long long)frame_size);
    uint64_t decoded = mcz_get_le64(frame + MCZ_ARC_INDEX_HEAD);
    int rc = check_packed_size(out, off, frame_size, data_start, decoded, diag);
    if (rc != MCZ_OK)
        return rc;
    uint64_t at = off + MCZ_ARC_INDEX_PACKED_HEAD;
    const uint8_t *src = frame + MCZ_ARC_INDEX_PACKED_HEAD;
    size_t src_len = (size_t)(frame_size - MCZ_ARC_INDEX_PACKED_HEAD);
    uint64_t per_context = decoded - (uint64_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count;
    bool streamed = lean && per_context >= lean->min_columns; /* else too little to be worth it */
    rc = check_frame_shape(src, src_len, at, decoded, !streamed, diag);
    if (rc != MCZ_OK)
        return rc;
    if (streamed) {
        out->packed = src;
        out->packed_size = src_len;
        return unpack_table(out, s, at, diag);
    }
    size_t n = out->context_count;
    out->owned = malloc((size_t)decoded + 1);
    if (!out->owned)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: out of memory");
    rc = decompress_columns(src, src_len, at, out->owned, (size_t)decoded, diag);
    out->chunks = out->owned;
    out->lengths = out->chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count;
    out->identity = out->has_hashes ? out->lengths + 4 * n : NULL;
    out->dedup = out->has_hashes ? out->identity + 16 * n : NULL;
    return rc;
}
