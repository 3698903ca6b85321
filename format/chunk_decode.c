/*
 * chunk_decode.c - decoding one chunk with every check (FORMAT.md §8): nothing is handed out
 * before the whole chunk decoded to exactly its raw size and its XXH3 matched, so a damaged
 * archive gives an error, never wrong bytes. The one place this happens, for the reader (cursor,
 * verification, recovery) and for the writer (chunk copies) alike.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd_errors.h>

#include "archive.h"
#include "layout.h"
#include "mcz_common.h"

#if MCZ_HAVE_XZ
#include <lzma.h>
#endif

/* What a chunk's data may decode to at most: its raw size, or for the packet layout (§4a) the
 * layout's bound for its raw size and count. */
static uint64_t data_max(const mcz_arc_chunk_head *h)
{
    return h->packets ? mcz_arc_layout_bound(h) : h->raw_size;
}

/* The data frame must be one zstd frame filling its slot, with the expected content size (the
 * raw size; in the packet layout, no more than its bound) and dictionary; checked before
 * anything is allocated. */
static int check_data_frame(const uint8_t *data, size_t len, uint64_t off,
                            const mcz_arc_chunk_head *h, uint32_t dict_id, mcz_diag *diag)
{
    int64_t n = h->first_number;
    if (len < 4 || mcz_get_le32(data) != MCZ_ARC_ZSTD_MAGIC)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: not a zstd frame");
    if (ZSTD_findFrameCompressedSize(data, len) != len)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: the zstd frame does not fill its %zu bytes", len);
    unsigned long long content = ZSTD_getFrameContentSize(data, len);
    if (h->packets ? content > data_max(h) : content != h->raw_size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: content size does not fit the raw size %u", h->raw_size);
    unsigned frame_dict = ZSTD_getDictID_fromFrame(data, len);
    if (frame_dict != dict_id)
        return mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: compressed with dictionary %u, the archive holds %u",
                            frame_dict, dict_id);
    if (content > (uint64_t)len * MCZ_ARC_MAX_EXPANSION)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: impossible raw size");
    return MCZ_OK;
}

/* xz's decoder may use at most this much memory: what xz -9 needs (a 64 MiB dictionary) with
 * room to spare; a stream asking for more is refused, not allocated. */
#define XZ_MEMLIMIT (256u << 20)

/* The data of an xz chunk must be one .xz stream (magic FD 37 7A 58 5A 00) no larger than the
 * expansion cap allows for its raw size; the decode then proves it fills its slot exactly. */
static int check_xz_stream(const uint8_t *data, size_t len, uint64_t off,
                           const mcz_arc_chunk_head *h, uint32_t dict_id, mcz_diag *diag)
{
    static const uint8_t magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0};
    int64_t n = h->first_number;
    if (len < sizeof magic || memcmp(data, magic, sizeof magic) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: not an xz stream");
    if (dict_id != 0)
        return mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: an xz chunk in an archive with dictionary %u", dict_id);
    if (h->raw_size > (uint64_t)len * MCZ_ARC_MAX_EXPANSION)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: impossible raw size");
    return MCZ_OK;
}

/* Decodes the xz stream data[0, len) into out: exactly the raw size, or in the packet layout
 * at most its bound (*got receives the size). A stream that ends early, runs on past its slot
 * or decodes to another size is corrupt. */
#if MCZ_HAVE_XZ
static int xz_decode(const uint8_t *data, size_t len, uint64_t off, const mcz_arc_chunk_head *h,
                     uint8_t *out, size_t *got, mcz_diag *diag)
{
    uint64_t memlimit = XZ_MEMLIMIT;
    size_t in_pos = 0, out_pos = 0, cap = (size_t)data_max(h);
    lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, data, &in_pos, len, out, &out_pos,
                                           cap);
    int64_t n = h->first_number;
    if (r == LZMA_MEMLIMIT_ERROR)
        return mcz_diag_set(diag, MCZ_ELIMIT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: the xz stream needs more than %u MiB to decode",
                            XZ_MEMLIMIT >> 20);
    if (r == LZMA_MEM_ERROR)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "out of memory");
    if (r == LZMA_BUF_ERROR && out_pos == cap)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: the xz stream decodes to more than %zu bytes", cap);
    if (r != LZMA_OK)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: xz: %s",
                            r == LZMA_BUF_ERROR ? "truncated stream" : "corrupt stream");
    if (in_pos != len || (!h->packets && out_pos != h->raw_size))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), mcz_in_context(n),
                            "chunk data: the xz stream fills %zu of %zu bytes and decodes to %zu, "
                            "expected %u",
                            in_pos, len, out_pos, h->raw_size);
    *got = out_pos;
    return MCZ_OK;
}
#else
/* A build without liblzma (mcz_common.h) refuses the chunk: an error, never wrong bytes. */
static int xz_decode(const uint8_t *data, size_t len, uint64_t off, const mcz_arc_chunk_head *h,
                     uint8_t *out, size_t *got, mcz_diag *diag)
{
    (void)data, (void)len, (void)out, (void)got;
    return mcz_diag_set(diag, MCZ_EUNSUPPORTED, mcz_at_offset((int64_t)off),
                        mcz_in_context(h->first_number), "chunk data: " MCZ_NO_XZ_REASON);
}
#endif

int mcz_arc_buffer_reserve(mcz_arc_buffer *buf, size_t need)
{
    if (need <= buf->cap && buf->bytes)
        return MCZ_OK;
    uint8_t *bigger = realloc(buf->bytes, need ? need : 1);
    if (!bigger)
        return MCZ_ENOMEM;
    buf->bytes = bigger;
    buf->cap = need;
    return MCZ_OK;
}

static int zstd_failure(size_t r, uint64_t off, int64_t n, mcz_diag *diag)
{
    ZSTD_ErrorCode e = ZSTD_getErrorCode(r);
    int code = e == ZSTD_error_dictionary_wrong ? MCZ_EDICT
               : e == ZSTD_error_checksum_wrong ? MCZ_ECHECKSUM
               : e == ZSTD_error_memory_allocation ? MCZ_ENOMEM
                                                   : MCZ_ECORRUPT;
    return mcz_diag_set(diag, code, mcz_at_offset((int64_t)off), mcz_in_context(n),
                        "chunk data: zstd: %s", ZSTD_getErrorName(r));
}

/* Every context's container (magic, length, trailer) inside the decoded bytes. */
static int check_contexts(const uint8_t *raw, const mcz_arc_chunk_head *h, uint64_t off,
                          mcz_diag *diag)
{
    size_t at = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        uint32_t len = mcz_arc_chunk_head_length(h, i);
        mcz_mc mc;
        int rc = mcz_mc_from_bytes(raw + at, len, h->first_number + i, at, &mc, diag);
        if (rc != MCZ_OK) {
            if (diag)
                diag->offset = (int64_t)off;
            return rc;
        }
        at += len;
    }
    return MCZ_OK;
}

/* The decoded raw bytes of the chunk at off: their XXH3 (the chunk header's), then each
 * context's container. */
static int check_raw(const uint8_t *raw, const mcz_arc_chunk_head *head, uint64_t off,
                     mcz_diag *diag)
{
    uint64_t data_off = off + mcz_arc_chunk_head_size(head->count);
    if (mcz_arc_xxh3(raw, head->raw_size) != head->checksum)
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)data_off),
                            mcz_in_context(head->first_number), "chunk data: checksum mismatch");
    return check_contexts(raw, head, off, diag);
}

int mcz_arc_decode_chunk(const uint8_t *file, size_t size, uint64_t off, ZSTD_DCtx *dctx,
                         const ZSTD_DDict *ddict, uint32_t dict_id, mcz_arc_buffer *buf,
                         mcz_arc_chunk_head *head, mcz_diag *diag)
{
    int rc = mcz_arc_chunk_head_decode(file, size, off, head, diag);
    if (rc != MCZ_OK)
        return rc;
    uint64_t data_off = off + mcz_arc_chunk_head_size(head->count);
    int64_t n = head->first_number;
    if (!mcz_fits(size, data_off, head->data_size))
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)data_off),
                            mcz_in_context(n), "chunk data: %u bytes run past the end of the file",
                            head->data_size);
    const uint8_t *data = file + data_off;
    bool xz = head->codec == MCZ_CODEC_XZ;
    rc = xz ? check_xz_stream(data, head->data_size, data_off, head, dict_id, diag)
            : check_data_frame(data, head->data_size, data_off, head, dict_id, diag);
    if (rc != MCZ_OK)
        return rc;
    /* The packet layout decodes behind the raw bytes' place, then into it: one buffer. */
    size_t place = head->packets ? head->raw_size : 0, cap = (size_t)data_max(head);
    if (mcz_arc_buffer_reserve(buf, place + cap) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_ENOMEM, mcz_at_offset((int64_t)data_off), mcz_in_context(n),
                            "out of memory");
    uint8_t *out = buf->bytes + place;
    size_t got = 0;
    if (xz) {
        rc = xz_decode(data, head->data_size, data_off, head, out, &got, diag);
        if (rc != MCZ_OK)
            return rc;
    } else {
        got = ddict ? ZSTD_decompress_usingDDict(dctx, out, cap, data, head->data_size, ddict)
                    : ZSTD_decompressDCtx(dctx, out, cap, data, head->data_size);
        if (ZSTD_isError(got))
            return zstd_failure(got, data_off, n, diag);
        if (!head->packets && got != head->raw_size)
            return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)data_off),
                                mcz_in_context(n), "chunk data: decoded %zu bytes, expected %u",
                                got, head->raw_size);
    }
    if (head->packets) {
        rc = mcz_layout_decode(out, got, head->count, buf->bytes, head->raw_size, diag);
        if (rc != MCZ_OK) {
            if (diag) {
                diag->offset = (int64_t)data_off;
                diag->context = n + (diag->context >= 0 ? diag->context : 0);
            }
            return rc;
        }
    }
    return check_raw(buf->bytes, head, off, diag);
}
