/*
 * compress.c - a chunk compressed (its hashes, its packet layout, zstd or xz) off the append
 * path: by the workers (writer.c), for the dictionary's trial (dictionary.c) and for chunk
 * copies (chunk_copy.c). No lock held; it calls no other file of the writer.
 */
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "writer_impl.h"

#if MCZ_HAVE_XZ
#include <lzma.h>
#endif

#define DEFAULT_WINDOW_LOG 23 /* what zstd's levels use at most below --long */
#define MAX_WINDOW_LOG 27     /* what every decoder accepts by default */

int mcz_wr_hash_contexts(const mcz_jit_ee *v, chunk *c, const uint8_t *raw, mcz_diag *d)
{
    c->identity = malloc(c->count * sizeof *c->identity);
    c->dedup = malloc(c->count * sizeof *c->dedup);
    if (!c->identity || !c->dedup)
        return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "out of memory");
    size_t off = 0;
    for (uint32_t i = 0; i < c->count; i++) {
        mcz_mc mc;
        int rc = mcz_mc_from_bytes(raw + off, c->lengths[i], c->first_number + i, off, &mc, d);
        if (rc != MCZ_OK)
            return rc;
        mcz_arc_context_hashes(v, &mc, &c->identity[i], &c->dedup[i]);
        off += c->lengths[i];
    }
    return MCZ_OK;
}

/*
 * An xz chunk's data (FORMAT.md §4): one .xz stream of LZMA2 at the writer's preset with xz's
 * extreme search, no integrity check of its own (the chunk header's XXH3 covers the bytes), and a
 * dictionary no larger than the chunk, so that decoding needs no more memory than the chunk does.
 */
#if MCZ_HAVE_XZ
static int xz_compress(const mcz_writer *w, const chunk *c, const uint8_t *data, size_t len,
                       uint8_t *out, size_t cap, size_t *n, mcz_diag *d)
{
    lzma_options_lzma lz;
    if (lzma_lzma_preset(&lz, (uint32_t)w->level | LZMA_PRESET_EXTREME))
        return mcz_diag_set(d, MCZ_EINVAL, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "xz: no preset %d", w->level);
    if (lz.dict_size > len)
        lz.dict_size = len > LZMA_DICT_SIZE_MIN ? (uint32_t)len : LZMA_DICT_SIZE_MIN;
    lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &lz}, {LZMA_VLI_UNKNOWN, NULL}};
    *n = 0;
    lzma_ret r = lzma_stream_buffer_encode(filters, LZMA_CHECK_NONE, NULL, data, len, out, n, cap);
    if (r == LZMA_MEM_ERROR)
        return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "out of memory");
    return r == LZMA_OK ? MCZ_OK : mcz_diag_set(d, MCZ_EINVAL, MCZ_NO_OFFSET,
                                                mcz_in_context(c->first_number), "xz: error %d", r);
}

static size_t compress_bound(const mcz_writer *w, size_t raw_len)
{
    return w->codec == MCZ_CODEC_XZ ? lzma_stream_buffer_bound(raw_len) : ZSTD_compressBound(raw_len);
}
#else
/* Unreached: mcz_writer_open refuses the codec (writer.c); kept as the refusal it would be. */
static int xz_compress(const mcz_writer *w, const chunk *c, const uint8_t *data, size_t len,
                       uint8_t *out, size_t cap, size_t *n, mcz_diag *d)
{
    (void)w, (void)data, (void)len, (void)out, (void)cap, (void)n;
    return mcz_diag_set(d, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                        MCZ_NO_XZ_REASON);
}

static size_t compress_bound(const mcz_writer *w, size_t raw_len)
{
    (void)w;
    return ZSTD_compressBound(raw_len);
}
#endif

static int zstd_compress(ZSTD_CCtx *cctx, const chunk *c, const uint8_t *data, size_t len,
                         uint8_t *out, size_t cap, size_t *n, mcz_diag *d)
{
    *n = ZSTD_compress2(cctx, out, cap, data, len);
    if (ZSTD_isError(*n))
        return mcz_diag_set(d, MCZ_EZSTD, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "zstd: %s", ZSTD_getErrorName(*n));
    return MCZ_OK;
}

int mcz_wr_chunk_data(const mcz_writer *w, const chunk *c, mcz_arc_buffer *scratch,
                      const uint8_t **data, size_t *len, mcz_diag *d)
{
    *data = c->raw;
    *len = c->raw_len;
    if (!w->packets)
        return MCZ_OK;
    uint64_t cap = mcz_layout_bound(c->raw_len, c->count);
    if (cap > SIZE_MAX || mcz_arc_buffer_reserve(scratch, (size_t)cap) != MCZ_OK)
        return mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "out of memory");
    int rc = mcz_layout_encode(c->raw, c->lengths, c->count, w->jit_ee, scratch->bytes,
                               scratch->cap, len);
    if (rc != MCZ_OK)
        return mcz_diag_set(d, rc, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "packet layout: cannot encode the chunk");
    *data = scratch->bytes;
    return MCZ_OK;
}

int mcz_wr_compress_chunk(const mcz_writer *w, ZSTD_CCtx *cctx, mcz_arc_buffer *scratch,
                          chunk *c, mcz_diag *d)
{
    int rc = w->no_hashes ? MCZ_OK : mcz_wr_hash_contexts(w->jit_ee, c, c->raw, d);
    if (rc != MCZ_OK)
        return rc;
    c->checksum = mcz_arc_xxh3(c->raw, c->raw_len);
    const uint8_t *data;
    size_t len;
    rc = mcz_wr_chunk_data(w, c, scratch, &data, &len, d);
    if (rc != MCZ_OK)
        return rc;
    size_t head = (size_t)mcz_arc_chunk_head_size(c->count);
    size_t bound = compress_bound(w, len);
    c->frames = malloc(head + bound);
    size_t n = 0;
    rc = !c->frames ? mcz_diag_set(d, MCZ_ENOMEM, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                                   "out of memory")
         : w->codec == MCZ_CODEC_XZ
             ? xz_compress(w, c, data, len, c->frames + head, bound, &n, d)
             : zstd_compress(cctx, c, data, len, c->frames + head, bound, &n, d);
    if (rc != MCZ_OK)
        return rc;
    if (head + n > UINT32_MAX)
        return mcz_diag_set(d, MCZ_ELIMIT, MCZ_NO_OFFSET, mcz_in_context(c->first_number),
                            "chunk too large");
    mcz_arc_chunk_head h = {c->first_number, c->count, (uint32_t)c->raw_len, (uint32_t)n,
                            c->checksum, NULL, w->codec, w->packets};
    mcz_arc_chunk_head_encode(&h, c->lengths, c->frames);
    c->frames_len = head + n;
    uint8_t *fitted = realloc(c->frames, c->frames_len);
    if (fitted) /* a failed shrink leaves the larger block, still c's */
        c->frames = fitted;
    return MCZ_OK;
}

/* log2 of the smallest power of two holding a whole chunk, capped where decoders stop. */
static int chunk_window_log(uint32_t chunk_size)
{
    int log = DEFAULT_WINDOW_LOG;
    while (log < MAX_WINDOW_LOG && (1ull << log) < chunk_size)
        log++;
    return log;
}

/*
 * Frame parameters: content size, checksum and dictionary id always on (FORMAT.md §4). Chunks
 * larger than the levels' largest window (8 MiB) get a window covering the whole chunk and long
 * distance matching, as `zstd --long` would: 64 MiB chunks at level 19 then come within 2-3% of
 * a whole-file `zstd -19 --long=27` (FORMAT.md §11).
 */
int mcz_wr_setup_cctx(const mcz_writer *w, ZSTD_CCtx *cctx)
{
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, w->level);
    int window_log = chunk_window_log(w->chunk_size);
    if (!ZSTD_isError(r) && window_log > DEFAULT_WINDOW_LOG)
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
    if (!ZSTD_isError(r) && window_log > DEFAULT_WINDOW_LOG)
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 1);
    if (!ZSTD_isError(r) && w->cdict)
        r = ZSTD_CCtx_refCDict(cctx, w->cdict);
    return ZSTD_isError(r) ? MCZ_EZSTD : MCZ_OK;
}
