/*
 * recover.c - rebuilding an archive from a damaged or truncated one by walking its frames
 * (FORMAT.md §4): every chunk whose header, data frame and checksum verify is copied byte for
 * byte, keeping its context numbers; a new index and footer are written after them. The output
 * appears atomically (mcz_outfile) and only when something was recovered.
 *
 * An input that does not start with an archive header is a memory image (an ELF core dump of a
 * process running a MEMORY writer, a Windows full-memory minidump, or any byte image, FORMAT.md
 * §13): the header, dictionary and chunks are found wherever they lie, the chunks sorted by
 * context number, each chunk kept once. Of a minidump, only the memory it holds is searched.
 * The input is a source (io/source.h: a file, a stream, a URL), viewed whole: a file's view is
 * its mapping, never read whole, and pages behind a forward scan leave memory.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "mcz_common.h"
#include "reader_impl.h"
#include "../platform/platform.h"

/* A verified chunk of an image, kept for the second pass. */
typedef struct found_chunk {
    uint64_t offset, checksum;
    uint32_t first_number, count;
} found_chunk;

typedef struct recovery {
    mcz_src *src;            /* the input; data is one view of base + [0, size) of it */
    const uint8_t *data;
    size_t size;
    uint64_t base;           /* where data lies in src: 0, or a minidump's memory */
    bool minidump;
    uint64_t dropped;        /* what of src left memory (mcz_src_drop_behind) */
    mcz_arc_header header;
    uint64_t header_at;        /* where the header frame lies */
    const uint8_t *dict_head;  /* the dictionary frame's head, NULL without a dictionary */
    uint8_t *dict_copy;        /* an image's dictionary frame, assembled (owned) */
    mcz_arc_dict dict;
    const uint8_t *meta_frame; /* the metadata frame that verified (FORMAT.md §2a), or NULL */
    ZSTD_DDict *ddict;
    ZSTD_DCtx *dctx;
    mcz_arc_buffer buf;
    mcz_arc_table table;
    mcz_outfile *out;
    const char *out_path;
    uint64_t last_number;    /* last number kept, 0 before the first chunk */
    uint64_t pending_failed; /* contexts of damaged chunks since the last kept chunk */
    uint64_t lost;
    mcz_hash128 *identity, *dedup;
    uint32_t hash_cap;
    mcz_recovery report;
    found_chunk *found;        /* image: verified chunks, in image order until sorted */
    size_t found_count, found_cap;
} recovery;

#define ZDICT_MAGIC 0xEC30A437u

/* The first occurrence of a pattern at or after *at, searched only in the extents the file
 * stores: a core dump's holes (FORMAT.md §13) are zeros, and every pattern here starts with a
 * frame or dictionary magic, which has none. NULL when there is none. */
/* The end of the extent the file stores at or after *at (moved past a hole), in data's
 * offsets, within size. */
static uint64_t stored_end(const recovery *r, uint64_t *at)
{
    uint64_t in_src = r->base + *at; /* only moves forward: never below base */
    uint64_t end = mcz_src_data_end(r->src, &in_src) - r->base;
    *at = in_src - r->base;
    return end < r->size ? end : r->size;
}

/* Drops what of the input lies behind pos (in data's offsets). */
static void drop_behind(recovery *r, uint64_t pos)
{
    mcz_src_drop_behind(r->src, &r->dropped, r->base + pos);
}

static const uint8_t *find_stored(const recovery *r, uint64_t *at, const void *pattern,
                                  size_t len)
{
    while (*at < r->size) {
        uint64_t end = stored_end(r, at);
        const uint8_t *hit =
            end > *at ? mcz_os_memmem(r->data + *at, (size_t)(end - *at), pattern, len) : NULL;
        if (hit)
            return hit;
        *at = end;
    }
    return NULL;
}

/* Next offset at or after `from` where an mcz frame tagged tag (ANY_CHUNK: any chunk tag)
 * starts, or size. This is how a scan resyncs after bytes that are no frame. */
#define ANY_CHUNK 0u /* next_frame: any chunk header tag (mcz_arc_is_chunk_tag) */
static uint64_t next_frame(const recovery *r, uint64_t from, uint32_t tag)
{
    uint8_t magic[4];
    mcz_put_le32(magic, MCZ_ARC_SKIP_MAGIC);
    for (uint64_t at = from; mcz_fits(r->size, at, 12);) {
        const uint8_t *hit = find_stored(r, &at, magic, sizeof magic);
        if (!hit)
            break;
        at = (uint64_t)(hit - r->data);
        uint32_t t = mcz_fits(r->size, at, 12) ? mcz_get_le32(hit + 8) : 0;
        if (tag == ANY_CHUNK ? mcz_arc_is_chunk_tag(t) : t == tag)
            return at;
        at++;
    }
    return r->size;
}

static uint64_t next_chunk(const recovery *r, uint64_t from)
{
    return next_frame(r, from, ANY_CHUNK);
}

/* The decoded dictionary must be the one the header names and usable by zstd. */
static int use_dict(recovery *r, mcz_diag *diag)
{
    r->ddict = ZSTD_createDDict(r->dict.bytes, r->dict.size);
    if (!r->ddict || ZDICT_getDictID(r->dict.bytes, r->dict.size) != r->header.dict_id)
        return mcz_diag_set(diag, MCZ_EDICT,
                            mcz_at_offset((int64_t)r->header_at + MCZ_ARC_HEADER_SIZE),
                            MCZ_NO_CONTEXT, "dictionary: unusable");
    return MCZ_OK;
}

/* The metadata frame at off, kept when it verifies (a damaged one is left out: the chunks do
 * not need it). Returns its size, 0 when none is kept. */
static uint64_t take_meta(recovery *r, uint64_t off)
{
    mcz_arc_meta meta;
    uint64_t frame_size;
    if (mcz_arc_meta_decode(r->data, r->size, off, off, &meta, &frame_size, NULL) != MCZ_OK ||
        frame_size == 0)
        return 0;
    r->meta_frame = r->data + off;
    return frame_size;
}

/* Archive: header and dictionary must be intact at the start, without them no chunk can be
 * decoded. *data_start: where the chunks begin. */
static int recover_head(recovery *r, uint64_t *data_start, mcz_diag *diag)
{
    int rc = mcz_arc_header_decode(r->data, r->size, &r->header, diag);
    if (rc != MCZ_OK)
        return rc;
    *data_start = MCZ_ARC_HEADER_SIZE;
    if (r->header.flags & MCZ_ARC_FLAG_HAS_DICT) {
        rc = mcz_arc_dict_decode(r->data, r->size, *data_start, r->header.dict_id, &r->dict,
                                 diag);
        if (rc != MCZ_OK)
            return rc;
        r->dict_head = r->data + *data_start;
        *data_start += r->dict.frame_size;
        rc = use_dict(r, diag);
    }
    *data_start += take_meta(r, *data_start);
    return rc;
}

/* An image's metadata frame: the first that verifies, wherever it lies (a writer keeps it in
 * a buffer of its own). */
static void image_meta(recovery *r)
{
    for (uint64_t at = next_frame(r, 0, MCZ_ARC_TAG_META); at < r->size;
         at = next_frame(r, at + 1, MCZ_ARC_TAG_META))
        if (take_meta(r, at))
            return;
}

/* ---- Memory images ---- */

/* The dictionary bytes of the frame head at `at` in an image: right after it (an archive's
 * copy), else anywhere (a writer keeps them in a buffer of their own), found by the zstd
 * dictionary magic and id and proved by the frame's XXH3. Assembled into r->dict_copy. */
static bool image_dict_bytes(recovery *r, uint64_t at)
{
    uint32_t id = r->header.dict_id, len = mcz_get_le32(r->data + at + 16);
    if (mcz_arc_dict_decode(r->data, r->size, at, id, &r->dict, NULL) == MCZ_OK) {
        r->dict_head = r->data + at;
        return true;
    }
    if (len < 8 || len > r->size)
        return false;
    uint8_t pattern[8], *frame = realloc(r->dict_copy, MCZ_ARC_DICT_HEAD + (size_t)len);
    if (!frame)
        return false;
    r->dict_copy = frame;
    memcpy(frame, r->data + at, MCZ_ARC_DICT_HEAD);
    mcz_put_le32(pattern, ZDICT_MAGIC);
    mcz_put_le32(pattern + 4, id);
    for (uint64_t p = 0; mcz_fits(r->size, p, len); p++) {
        const uint8_t *hit = find_stored(r, &p, pattern, sizeof pattern);
        if (!hit || !mcz_fits(r->size, (uint64_t)(hit - r->data), len))
            break;
        p = (uint64_t)(hit - r->data);
        memcpy(frame + MCZ_ARC_DICT_HEAD, hit, len);
        if (mcz_arc_dict_decode(frame, MCZ_ARC_DICT_HEAD + (size_t)len, 0, id, &r->dict, NULL) ==
            MCZ_OK) {
            r->dict_head = frame;
            return true;
        }
    }
    return false;
}

/* The dictionary of r->header in an image: a dictionary frame head of its id, with its bytes. */
static bool image_dict(recovery *r)
{
    for (uint64_t at = next_frame(r, 0, MCZ_ARC_TAG_DICT); at < r->size;
         at = next_frame(r, at + 1, MCZ_ARC_TAG_DICT))
        if (mcz_fits(r->size, at, MCZ_ARC_DICT_HEAD) &&
            mcz_get_le32(r->data + at + 12) == r->header.dict_id && image_dict_bytes(r, at))
            return true;
    return false;
}

/* The first header frame of the image that verifies and whose dictionary (if it names one) is
 * in the image too. */
static int image_head(recovery *r, mcz_diag *diag)
{
    for (uint64_t at = next_frame(r, 0, MCZ_ARC_TAG_HEADER); at < r->size;
         at = next_frame(r, at + 1, MCZ_ARC_TAG_HEADER)) {
        if (mcz_arc_header_decode(r->data + at, (size_t)(r->size - at), &r->header, NULL) !=
            MCZ_OK)
            continue;
        r->header_at = at;
        if (!(r->header.flags & MCZ_ARC_FLAG_HAS_DICT))
            return MCZ_OK;
        if (image_dict(r))
            return use_dict(r, diag);
    }
    return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                        "memory image: no archive header (MCZH frame) that verifies with its "
                        "dictionary: no MEMORY writer had compressed anything");
}

static int hash_chunk(recovery *r, const mcz_arc_chunk_head *h, const uint8_t *raw)
{
    if (h->count > r->hash_cap) {
        free(r->identity);
        free(r->dedup);
        r->identity = malloc(h->count * sizeof *r->identity);
        r->dedup = malloc(h->count * sizeof *r->dedup);
        r->hash_cap = r->identity && r->dedup ? h->count : 0;
        if (!r->hash_cap)
            return MCZ_ENOMEM;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        uint32_t len = mcz_arc_chunk_head_length(h, i);
        mcz_mc mc;
        if (mcz_mc_from_bytes(raw + at, len, h->first_number + i, at, &mc, NULL) != MCZ_OK)
            return MCZ_ECORRUPT; /* already checked by the decode */
        mcz_arc_context_hashes(mcz_arc_hash_jit_ee(&r->header), &mc, &r->identity[i],
                               &r->dedup[i]);
        at += len;
    }
    return MCZ_OK;
}

/* Copies a verified chunk (raw: its decoded contexts) to the output and records it. */
static int keep_chunk(recovery *r, uint64_t off, const mcz_arc_chunk_head *h, uint64_t stored,
                      const uint8_t *raw)
{
    uint32_t *lengths = malloc(h->count * sizeof *lengths);
    if (!lengths)
        return MCZ_ENOMEM;
    for (uint32_t i = 0; i < h->count; i++)
        lengths[i] = mcz_arc_chunk_head_length(h, i);
    mcz_chunk_info info = {mcz_outfile_tell(r->out), (uint32_t)stored, h->raw_size,
                           h->first_number, h->count, h->checksum};
    int rc = hash_chunk(r, h, raw);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(r->out, r->data + off, (size_t)stored);
    if (rc == MCZ_OK)
        rc = mcz_arc_table_add(&r->table, &info, lengths, r->identity, r->dedup);
    free(lengths);
    if (rc != MCZ_OK)
        return rc;
    if (r->last_number)
        r->lost += h->first_number - r->last_number - 1; /* the gap, damaged chunks included */
    else
        r->lost += r->pending_failed;
    r->pending_failed = 0;
    r->last_number = (uint64_t)h->first_number + h->count - 1;
    r->report.chunks++;
    return MCZ_OK;
}

/* Tries the frame at off as a chunk; returns the bytes to skip on success, 0 when it is not a
 * usable chunk, negative on an output failure. */
static int64_t try_chunk(recovery *r, uint64_t off)
{
    mcz_arc_chunk_head h;
    mcz_diag d;
    int rc = mcz_arc_decode_chunk(r->data, r->size, off, r->dctx, r->ddict, r->header.dict_id,
                                  &r->buf, &h, &d);
    if (rc != MCZ_OK) {
        if (mcz_arc_chunk_head_decode(r->data, r->size, off, &h, NULL) == MCZ_OK) {
            r->pending_failed += h.count; /* the header is sound: we know what was lost */
            r->report.skipped++;
        }
        return 0;
    }
    if (h.first_number <= r->last_number)
        return 0; /* numbers must increase; a stray copy of an earlier chunk is dropped */
    uint64_t stored = mcz_arc_chunk_head_size(h.count) + h.data_size;
    if (stored > UINT32_MAX)
        return 0;
    rc = keep_chunk(r, off, &h, stored, r->buf.bytes);
    return rc == MCZ_OK ? (int64_t)stored : rc;
}

/* Walks the frames from pos: try takes a chunk (returns its size), or says 0 (resync). */
static int scan_chunks(recovery *r, uint64_t pos, int64_t (*try)(recovery *, uint64_t))
{
    while (mcz_fits(r->size, pos, MCZ_ARC_CHUNK_HEAD)) {
        drop_behind(r, pos);
        int64_t used = try(r, pos);
        if (used < 0)
            return (int)used;
        pos = used > 0 ? pos + (uint64_t)used : next_chunk(r, pos + 1);
    }
    r->lost += r->pending_failed;
    return MCZ_OK;
}

/* ---- Chunks of an archive, in order ---- */

static int write_head(recovery *r);

/* The output, with the head frames, once the head is known. */
static int open_output(recovery *r, mcz_diag *diag)
{
    if (r->out)
        return MCZ_OK;
    r->out = mcz_outfile_open(r->out_path, diag);
    if (!r->out)
        return MCZ_EIO;
    int rc = write_head(r);
    return rc == MCZ_OK ? MCZ_OK : mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                                "recovery: %s", mcz_error_name(rc));
}

/* A walk of an archive's frames from its start by the frame parser (mcz_frame_parser), which
 * checks each as the file reader does: what it reached, and where its frames stopped. */
typedef struct walk {
    bool head;           /* the header, and the dictionary it names, came */
    uint64_t data_start; /* after the head frames that verified */
    uint64_t next;       /* where the first frame not taken begins */
} walk;

/* One event: the head frames are taken from the file (views), each chunk is kept. */
static int take_event(recovery *r, walk *w, const mcz_frame_event *ev, mcz_diag *diag)
{
    int rc = MCZ_OK;
    if (ev->kind == MCZ_FRAME_HEADER) {
        rc = mcz_arc_header_decode(r->data, r->size, &r->header, diag);
        w->head = !(r->header.flags & MCZ_ARC_FLAG_HAS_DICT);
    } else if (ev->kind == MCZ_FRAME_DICT) {
        rc = mcz_arc_dict_decode(r->data, r->size, ev->offset, r->header.dict_id, &r->dict, diag);
        r->dict_head = r->data + ev->offset;
        rc = rc == MCZ_OK ? use_dict(r, diag) : rc;
        w->head = true;
    } else if (ev->kind == MCZ_FRAME_META) {
        r->meta_frame = r->data + ev->offset;
    } else if (ev->kind == MCZ_FRAME_CHUNK) {
        mcz_arc_chunk_head h;
        rc = open_output(r, diag);
        if (rc == MCZ_OK && mcz_arc_chunk_head_decode(r->data, r->size, ev->offset, &h, diag) ==
                                MCZ_OK)
            rc = keep_chunk(r, ev->offset, &h, ev->size, ev->raw);
        if (rc != MCZ_OK)
            return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "recovery: %s",
                                mcz_error_name(rc));
    }
    if (ev->kind <= MCZ_FRAME_META)
        w->data_start = ev->offset + ev->size;
    w->next = ev->offset + ev->size;
    return rc;
}

/* Pushes the archive's bytes to the parser until its end or its first damage. */
static int walk_frames(recovery *r, walk *w, mcz_diag *diag)
{
    mcz_frame_parser *p = mcz_frame_parser_create();
    if (!p)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    uint64_t pos = 0;
    int rc = MCZ_OK;
    for (;;) {
        size_t used;
        mcz_frame_event ev;
        drop_behind(r, w->next);
        if (mcz_frame_parser_push(p, r->data + pos, (size_t)(r->size - pos), &used, &ev, NULL) !=
                MCZ_OK ||
            ev.kind == MCZ_FRAME_NONE)
            break; /* damage, or the end: the scan takes it from w->next */
        pos += used;
        if ((rc = take_event(r, w, &ev, diag)) != MCZ_OK)
            break;
    }
    mcz_frame_parser_free(p);
    return rc;
}

/* An archive: its frames walked in order while they verify; from the first that does not (a
 * damaged chunk, the index a LIVE writer was writing over, a torn frame), the chunks are found
 * by scanning. Without an intact header and dictionary nothing can be decoded: the file
 * reader's decoders say what is wrong with them. */
static int recover_archive(recovery *r, uint64_t *data_start, mcz_diag *diag)
{
    walk w = {false, 0, 0};
    int rc = walk_frames(r, &w, diag);
    if (rc != MCZ_OK)
        return rc;
    if (!w.head) {
        rc = recover_head(r, &w.data_start, diag);
        w.next = w.data_start;
    }
    *data_start = w.data_start;
    if (rc == MCZ_OK)
        rc = open_output(r, diag);
    if (rc == MCZ_OK && (rc = scan_chunks(r, w.next, try_chunk)) != MCZ_OK)
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "recovery: %s",
                            mcz_error_name(rc));
    return rc;
}

/* ---- Chunks of a memory image ---- */

/* Decodes the chunk at off; a chunk header that verifies but whose chunk does not (a buffer
 * half written, overwritten, another writer's) is counted as skipped. Returns the stored size,
 * 0 when there is no usable chunk at off. */
static uint64_t verified_chunk(recovery *r, uint64_t off, mcz_arc_chunk_head *h)
{
    if (mcz_arc_decode_chunk(r->data, r->size, off, r->dctx, r->ddict, r->header.dict_id,
                             &r->buf, h, NULL) != MCZ_OK) {
        if (mcz_arc_chunk_head_decode(r->data, r->size, off, h, NULL) == MCZ_OK)
            r->report.skipped++;
        return 0;
    }
    uint64_t stored = mcz_arc_chunk_head_size(h->count) + h->data_size;
    return stored > UINT32_MAX ? 0 : stored;
}

/* First pass over an image: records every chunk that verifies, wherever it lies. */
static int64_t find_chunk(recovery *r, uint64_t off)
{
    mcz_arc_chunk_head h;
    uint64_t stored = verified_chunk(r, off, &h);
    if (!stored)
        return 0;
    if (r->found_count == r->found_cap) {
        size_t cap = r->found_cap ? 2 * r->found_cap : 64;
        found_chunk *grown = realloc(r->found, cap * sizeof *grown);
        if (!grown)
            return MCZ_ENOMEM;
        r->found = grown;
        r->found_cap = cap;
    }
    r->found[r->found_count++] = (found_chunk){off, h.checksum, h.first_number, h.count};
    return (int64_t)stored;
}

static int compare_found(const void *pa, const void *pb)
{
    const found_chunk *a = pa, *b = pb;
    if (a->first_number != b->first_number)
        return a->first_number < b->first_number ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Second pass: the chunks in number order, each once. A copy of the chunk just kept (same
 * numbers, same raw XXH3) is a duplicate; a chunk overlapping a kept one with other contexts
 * cannot belong to the same writer's numbering and is skipped. */
static int keep_found(recovery *r)
{
    qsort(r->found, r->found_count, sizeof *r->found, compare_found);
    const found_chunk *last = NULL;
    for (size_t i = 0; i < r->found_count; i++) {
        const found_chunk *f = &r->found[i];
        if (last && f->first_number <= r->last_number) {
            bool same = f->first_number == last->first_number && f->count == last->count &&
                        f->checksum == last->checksum;
            same ? r->report.duplicates++ : r->report.skipped++;
            continue;
        }
        mcz_arc_chunk_head h;
        uint64_t stored = verified_chunk(r, f->offset, &h);
        int rc = stored ? keep_chunk(r, f->offset, &h, stored, r->buf.bytes) : MCZ_ECORRUPT;
        if (rc != MCZ_OK)
            return rc;
        last = f;
    }
    return MCZ_OK;
}

/* An image's chunks: found in image order, kept in number order. The gaps between the kept
 * chunks are what is known lost; damaged copies are counted as skipped. */
static int scan_image(recovery *r)
{
    int rc = scan_chunks(r, 0, find_chunk);
    r->lost = r->pending_failed = 0;
    return rc == MCZ_OK ? keep_found(r) : rc;
}

/* The header frame, with a dictionary the dictionary frame, and the metadata frame if one
 * verified, wherever they were found. */
static int write_head(recovery *r)
{
    int rc = mcz_outfile_write(r->out, r->data + r->header_at, MCZ_ARC_HEADER_SIZE);
    if (rc == MCZ_OK && r->dict_head)
        rc = mcz_outfile_write(r->out, r->dict_head, MCZ_ARC_DICT_HEAD);
    if (rc == MCZ_OK && r->dict_head)
        rc = mcz_outfile_write(r->out, r->dict.bytes, r->dict.size);
    if (rc == MCZ_OK && r->meta_frame)
        rc = mcz_outfile_write(r->out, r->meta_frame, MCZ_ARC_META_SIZE);
    return rc;
}

static int write_tail(recovery *r, mcz_diag *diag)
{
    uint8_t *frame, footer[MCZ_ARC_FOOTER_SIZE];
    size_t len;
    int rc = mcz_arc_table_encode(&r->table, mcz_outfile_tell(r->out), &frame, &len, footer);
    if (rc != MCZ_OK)
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "recovery: cannot encode the index");
    rc = mcz_outfile_write(r->out, frame, len);
    free(frame);
    if (rc == MCZ_OK)
        rc = mcz_outfile_write(r->out, footer, sizeof footer);
    if (rc != MCZ_OK)
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "recovery: write failed");
    rc = mcz_outfile_commit(r->out, diag);
    r->out = NULL;
    return rc;
}

/* When the original footer and its index survived, they say how many contexts there were. A
 * footer whose index no longer verifies says nothing: a LIVE writer (FORMAT.md §12) wrote chunks
 * over that index after its last checkpoint, so the file holds more than the footer knew. */
/* lost_open was added in the padding after image: mcz_recovery keeps 3.0's size. */
_Static_assert(offsetof(mcz_recovery, lost_open) <
                   (offsetof(mcz_recovery, image) / _Alignof(uint64_t) + 1) * _Alignof(uint64_t),
               "mcz_recovery.lost_open must lie in 3.0's padding");

static bool count_lost(recovery *r, uint64_t data_start)
{
    mcz_arc_footer f;
    mcz_arc_index index;
    if (mcz_arc_footer_decode(r->data, r->size, &f, NULL) != MCZ_OK ||
        mcz_arc_index_decode(r->data, r->size, &f, data_start, &index, NULL) != MCZ_OK)
        return false;
    mcz_arc_index_free(&index);
    if (f.context_count >= r->table.context_count)
        r->lost = f.context_count - r->table.context_count;
    return true;
}

/* A memory image: its head and metadata found wherever they lie, then its chunks. */
static int recover_image(recovery *r, mcz_diag *diag)
{
    int rc = image_head(r, diag);
    if (rc != MCZ_OK)
        return rc;
    image_meta(r);
    rc = open_output(r, diag);
    if (rc == MCZ_OK && (rc = scan_image(r)) != MCZ_OK)
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "recovery: %s",
                            mcz_error_name(rc));
    return rc;
}

static int run_recovery(recovery *r, const char *out_path, mcz_diag *diag)
{
    uint64_t data_start = 0;
    r->report.image = r->minidump || !mcz_arc_looks_like(r->data, r->size);
    r->out_path = out_path;
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    r->table.first_number = 1;
    int rc = r->report.image ? recover_image(r, diag) : recover_archive(r, &data_start, diag);
    if (rc != MCZ_OK)
        return rc;
    if (r->table.context_count == 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)data_start), MCZ_NO_CONTEXT,
                            r->report.image
                                ? "memory image: no chunk of the archive header's writer verifies"
                                : "recovery: no intact chunk found");
    if (!r->report.image) /* without the footer's count, the loss past the cut is not known */
        r->report.lost_open = !count_lost(r, data_start);
    return write_tail(r, diag);
}

/* ---- Minidumps ---- */

/* A Windows minidump (MiniDumpWriteDump): a header, a directory of streams, the streams. With
 * MiniDumpWithFullMemory its Memory64ListStream lists the process's memory ranges, whose bytes
 * lie back to back in the file from the list's base offset, in the order listed. */
#define MDMP_SIGNATURE 0x504D444Du /* "MDMP" */
#define MDMP_VERSION 0xA793u       /* the low half of the header's version */
#define MDMP_HEADER 32             /* signature, version, streams, directory offset, ... */
#define MDMP_DIR_ENTRY 12          /* stream type, size, offset */
#define MDMP_MEMORY64_LIST 9u      /* stream type */
#define MDMP_MEMORY64_HEAD 16      /* range count, base offset */
#define MDMP_MEMORY64_RANGE 16     /* address, size */

static bool is_minidump(const uint8_t *data, size_t size)
{
    return size >= MDMP_HEADER && mcz_get_le32(data) == MDMP_SIGNATURE &&
           (mcz_get_le32(data + 4) & 0xFFFFu) == MDMP_VERSION;
}

static int minidump_damaged(mcz_diag *diag, uint64_t at, const char *what)
{
    return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)at), MCZ_NO_CONTEXT,
                        "minidump: %s", what);
}

/* The memory of the Memory64ListStream whose entry is at `entry`: [*start, *start + *len). */
static int minidump_ranges(const uint8_t *data, size_t size, uint64_t entry, uint64_t *start,
                           uint64_t *len, mcz_diag *diag)
{
    uint32_t stream_size = mcz_get_le32(data + entry + 4), at = mcz_get_le32(data + entry + 8);
    if (stream_size < MDMP_MEMORY64_HEAD || !mcz_fits(size, at, stream_size))
        return minidump_damaged(diag, entry, "memory list outside the file");
    uint64_t count = mcz_get_le64(data + at), base = mcz_get_le64(data + at + 8), total = 0;
    if (count > (stream_size - MDMP_MEMORY64_HEAD) / MDMP_MEMORY64_RANGE)
        return minidump_damaged(diag, at, "more memory ranges than the list holds");
    for (uint64_t i = 0; i < count; i++) {
        uint64_t range = mcz_get_le64(data + at + MDMP_MEMORY64_HEAD +
                                      i * MDMP_MEMORY64_RANGE + 8);
        if (range > size - total)
            return minidump_damaged(diag, at, "memory ranges larger than the file");
        total += range;
    }
    if (!mcz_fits(size, base, total))
        return minidump_damaged(diag, at, "memory beyond the end of the file");
    *start = base;
    *len = total;
    return MCZ_OK;
}

/* Where a minidump holds the process's memory; a minidump without it (written without
 * MiniDumpWithFullMemory: stacks at most) is refused, as it cannot hold the writer's ring. */
static int minidump_memory(const uint8_t *data, size_t size, uint64_t *start, uint64_t *len,
                           mcz_diag *diag)
{
    uint32_t streams = mcz_get_le32(data + 8), dir = mcz_get_le32(data + 12);
    if (!mcz_fits(size, dir, (uint64_t)streams * MDMP_DIR_ENTRY))
        return minidump_damaged(diag, 12, "stream directory outside the file");
    for (uint32_t i = 0; i < streams; i++) {
        uint64_t entry = dir + (uint64_t)i * MDMP_DIR_ENTRY;
        if (mcz_get_le32(data + entry) == MDMP_MEMORY64_LIST)
            return minidump_ranges(data, size, entry, start, len, diag);
    }
    return mcz_diag_set(diag, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                        "minidump without the process's memory (no Memory64ListStream): "
                        "write it with MiniDumpWithFullMemory");
}

/* A minidump's memory is the image recovered from; anything else is taken whole. */
static int recovery_window(recovery *r, mcz_diag *diag)
{
    if (!is_minidump(r->data, r->size))
        return MCZ_OK;
    uint64_t start = 0, len = 0;
    int rc = minidump_memory(r->data, r->size, &start, &len, diag);
    if (rc != MCZ_OK)
        return rc;
    r->minidump = true;
    r->base = start;
    r->data += start;
    r->size = (size_t)len;
    return MCZ_OK;
}

int mcz_recover_input(mcz_input *src, const char *out_path, mcz_recovery *report,
                      mcz_diag *diag)
{
    if (report)
        *report = (mcz_recovery){0};
    if (!src || !out_path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_recover: NULL argument");
    const uint8_t *data = NULL;
    int rc = mcz_src_view(src, 0, mcz_src_size(src), &data, diag);
    if (rc != MCZ_OK)
        return rc;
    recovery r = {.src = src, .data = data, .size = (size_t)mcz_src_size(src)};
    rc = recovery_window(&r, diag);
    if (rc == MCZ_OK)
        rc = run_recovery(&r, out_path, diag);
    r.report.contexts = rc == MCZ_OK ? r.table.context_count : 0;
    r.report.chunks = rc == MCZ_OK ? r.report.chunks : 0;
    r.report.lost = r.lost;
    if (report)
        *report = r.report;
    mcz_outfile_abort(r.out);
    mcz_arc_table_free(&r.table);
    ZSTD_freeDDict(r.ddict);
    ZSTD_freeDCtx(r.dctx);
    free(r.buf.bytes);
    free(r.identity);
    free(r.dedup);
    free(r.found);
    free(r.dict_copy);
    return rc;
}

int mcz_recover_report(const char *in_path, const char *out_path, mcz_recovery *report,
                       mcz_diag *diag)
{
    if (report)
        *report = (mcz_recovery){0};
    if (!in_path || !out_path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_recover: NULL path");
    mcz_src *src = mcz_src_open(in_path, MCZ_ARC_FOOTER_SIZE, diag);
    if (!src)
        return diag ? diag->code : MCZ_EIO;
    int rc = mcz_recover_input(src, out_path, report, diag);
    mcz_src_close(src);
    return rc;
}

int mcz_recover(const char *in_path, const char *out_path, uint64_t *kept, uint64_t *lost,
                mcz_diag *diag)
{
    mcz_recovery report;
    int rc = mcz_recover_report(in_path, out_path, &report, diag);
    if (kept)
        *kept = report.contexts;
    if (lost)
        *lost = report.lost;
    return rc;
}
