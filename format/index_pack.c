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

/*
 * The offset column of a compressed index, which does not store it: the prefix sums of the
 * lengths, restarting at each chunk (FORMAT.md §4: contexts back to back in number order).
 * Only memory safety is ensured here (counts past N stop the rebuild, a sum past u32
 * saturates); mcz_arc_index_decode's table check then judges the result as it judges a raw
 * index: offsets that are the prefix sums tile their chunk exactly when its lengths stay within
 * and sum to its raw size, and a saturated one never matches.
 */
static void rebuild_offsets(const mcz_arc_index *idx, uint8_t *offsets)
{
    uint32_t pos = 0;
    for (uint32_t i = 0; i < idx->chunk_count && pos < idx->context_count; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(idx, i, &c);
        uint64_t sum = 0;
        for (uint32_t j = 0; j < c.count && pos < idx->context_count; j++, pos++) {
            mcz_put_le32(offsets + 4 * (size_t)pos, sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum);
            sum += mcz_arc_index_length(idx, pos);
        }
    }
    memset(offsets + 4 * (size_t)pos, 0, 4 * (size_t)(idx->context_count - pos));
}

/* Decompresses the zstd frame src[0, len), at file offset at, into exactly out[0, decoded):
 * nothing before or after it, no dictionary, its content size recorded and right. */
static int decompress_columns(const uint8_t *src, size_t len, uint64_t at, uint8_t *out,
                              size_t decoded, mcz_diag *diag)
{
    if (ZSTD_findFrameCompressedSize(src, len) != len ||
        ZSTD_getFrameContentSize(src, len) != decoded || ZSTD_getDictID_fromFrame(src, len) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: not one zstd frame of %zu bytes with content size %zu", len,
                            decoded);
    size_t got = ZSTD_decompress(out, decoded, src, len);
    if (ZSTD_isError(got) || got != decoded)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: its zstd frame: %s",
                            ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
    return MCZ_OK;
}

/*
 * A lean decode: the frame decoded whole as a stream (so every check of decompress_columns is
 * made: one frame, its content size, nothing after it), keeping its first `keep` bytes (the
 * chunk table and the lengths) in out and dropping the hash columns as they come.
 */
static int stream_columns(const uint8_t *src, size_t len, uint64_t at, uint64_t decoded,
                          uint8_t *out, size_t keep, const mcz_arc_lean *lean, mcz_diag *diag)
{
    if (ZSTD_findFrameCompressedSize(src, len) != len ||
        ZSTD_getFrameContentSize(src, len) != decoded || ZSTD_getDictID_fromFrame(src, len) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: not one zstd frame of %zu bytes with content size %llu", len,
                            (unsigned long long)decoded);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    uint8_t *scratch = malloc(ZSTD_DStreamOutSize());
    ZSTD_inBuffer in = {src, len, 0};
    uint64_t produced = 0;
    size_t rc = dctx && scratch ? 1 : (size_t)-1;
    while (!ZSTD_isError(rc) && rc != 0 && produced <= decoded) {
        bool kept = produced < keep;
        ZSTD_outBuffer o = {kept ? out + produced : scratch,
                            kept ? keep - (size_t)produced : ZSTD_DStreamOutSize(), 0};
        size_t before = in.pos;
        rc = ZSTD_decompressStream(dctx, &o, &in);
        produced += o.pos;
        if (lean->release && in.pos > before)
            lean->release(lean->arg, at + in.pos);
        if (!ZSTD_isError(rc) && rc != 0 && o.pos == 0 && in.pos == before)
            rc = (size_t)-1; /* no progress: the input ended inside the frame */
    }
    ZSTD_freeDCtx(dctx);
    free(scratch);
    if (!dctx || !scratch)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: out of memory");
    if (ZSTD_isError(rc) || rc != 0 || produced != decoded || in.pos != len)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                            "index: its zstd frame: %s",
                            ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "short");
    return MCZ_OK;
}

int mcz_arc_index_unpack(const uint8_t *frame, uint64_t off, uint64_t frame_size,
                         uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                         mcz_diag *diag)
{
    if (frame_size < MCZ_ARC_INDEX_PACKED_HEAD)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: compressed frame of %llu bytes",
                            (unsigned long long)frame_size);
    uint64_t decoded = mcz_get_le64(frame + MCZ_ARC_INDEX_HEAD);
    int rc = check_packed_size(out, off, frame_size, data_start, decoded, diag);
    if (rc != MCZ_OK)
        return rc;
    size_t n = out->context_count;
    if (!out->has_hashes || (lean && 32 * (uint64_t)n < lean->min_hashes))
        lean = NULL; /* nothing to leave in the frame, or too little to be worth it */
    size_t columns = lean ? (size_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count + 4 * n
                          : (size_t)decoded; /* lean: the hash columns are not kept */
    out->owned = malloc(columns + 4 * n + 1); /* + the offset column, rebuilt by the caller */
    if (!out->owned)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: out of memory");
    uint64_t at = off + MCZ_ARC_INDEX_PACKED_HEAD;
    const uint8_t *src = frame + MCZ_ARC_INDEX_PACKED_HEAD;
    size_t src_len = (size_t)(frame_size - MCZ_ARC_INDEX_PACKED_HEAD);
    rc = lean ? stream_columns(src, src_len, at, decoded, out->owned, columns, lean, diag)
              : decompress_columns(src, src_len, at, out->owned, columns, diag);
    out->chunks = out->owned;
    out->lengths = out->chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count;
    out->identity = out->has_hashes && !lean ? out->lengths + 4 * n : NULL;
    out->dedup = out->has_hashes && !lean ? out->identity + 16 * n : NULL;
    out->packed = lean ? src : NULL;
    out->packed_size = lean ? src_len : 0;
    out->offsets = out->owned + columns;
    if (rc == MCZ_OK)
        rebuild_offsets(out, out->owned + columns);
    return rc;
}

/* ---- The hash columns of a lean index, read forward ---- */

/* Starts s again at the frame's first byte. */
static int hash_stream_restart(mcz_arc_hash_stream *s)
{
    if (!s->dctx && !(s->dctx = ZSTD_createDCtx()))
        return MCZ_ENOMEM;
    ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
    s->in_pos = 0;
    s->out_pos = 0;
    s->first = s->count = 0;
    return MCZ_OK;
}

/* Decodes the next len bytes of the frame into out (NULL: dropped, through the window). */
static int hash_stream_read(const mcz_arc_index *idx, mcz_arc_hash_stream *s, uint8_t *out,
                            uint64_t len)
{
    ZSTD_inBuffer in = {idx->packed, idx->packed_size, s->in_pos};
    while (len > 0) {
        size_t step = len < sizeof s->window ? (size_t)len : sizeof s->window;
        ZSTD_outBuffer o = {out ? out : s->window, step, 0};
        size_t before = in.pos;
        size_t rc = ZSTD_decompressStream(s->dctx, &o, &in);
        s->in_pos = in.pos;
        s->out_pos += o.pos;
        if (ZSTD_isError(rc) || (o.pos == 0 && in.pos == before))
            return MCZ_ECORRUPT; /* checked whole at open: not expected */
        len -= o.pos;
        if (out)
            out += o.pos;
    }
    return MCZ_OK;
}

int mcz_arc_hash_stream_get(const mcz_arc_index *idx, mcz_arc_hash_stream *s, bool dedup,
                            uint32_t pos, uint8_t out[16])
{
    assert(idx->packed && idx->has_hashes && pos < idx->context_count);
    if (pos - s->first < s->count) {
        memcpy(out, s->window + 16 * (size_t)(pos - s->first), 16);
        return MCZ_OK;
    }
    uint64_t n = idx->context_count;
    uint64_t column = (uint64_t)MCZ_ARC_CHUNK_ENTRY * idx->chunk_count + 4 * n + (dedup ? 16 * n : 0);
    uint64_t want = column + 16 * (uint64_t)pos;
    int rc = MCZ_OK;
    if (!s->dctx || want < s->out_pos) {
        s->restarts += s->dctx != NULL;
        rc = hash_stream_restart(s);
    }
    s->count = 0; /* the window is the skip's scratch */
    if (rc == MCZ_OK)
        rc = hash_stream_read(idx, s, NULL, want - s->out_pos);
    uint64_t left = n - pos;
    uint32_t count = left < MCZ_ARC_HASH_WINDOW ? (uint32_t)left : MCZ_ARC_HASH_WINDOW;
    if (rc == MCZ_OK)
        rc = hash_stream_read(idx, s, s->window, 16 * (uint64_t)count);
    if (rc != MCZ_OK)
        return rc;
    s->first = pos;
    s->count = count;
    memcpy(out, s->window, 16);
    return MCZ_OK;
}

void mcz_arc_hash_stream_free(mcz_arc_hash_stream *s)
{
    ZSTD_freeDCtx(s->dctx);
    memset(s, 0, sizeof *s);
}

uint8_t *mcz_arc_index_hash_columns(const mcz_arc_index *idx)
{
    assert(idx->packed && idx->has_hashes);
    uint64_t n = idx->context_count;
    uint64_t skip = (uint64_t)MCZ_ARC_CHUNK_ENTRY * idx->chunk_count + 4 * n;
    uint8_t *columns = malloc(32 * (size_t)n + 1);
    mcz_arc_hash_stream s = {0};
    int rc = columns ? hash_stream_restart(&s) : MCZ_ENOMEM;
    if (rc == MCZ_OK)
        rc = hash_stream_read(idx, &s, NULL, skip);
    if (rc == MCZ_OK)
        rc = hash_stream_read(idx, &s, columns, 32 * n);
    mcz_arc_hash_stream_free(&s);
    if (rc == MCZ_OK)
        return columns;
    free(columns);
    return NULL;
}
