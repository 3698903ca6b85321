/*
 * reader.c - opening an archive: footer first (one read at the end), then the index and the
 * header, every field validated before use (FORMAT.md §8). The reader is immutable afterwards and
 * shared by any number of threads; per-thread state lives in mcz_cursor.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "mcz_common.h"
#include "reader_impl.h"

/* The metadata frame, when one follows the header and dictionary; moves r->data_start past it,
 * so no chunk may overlap it. img: the image, its head present. */
static int open_meta(mcz_reader *r, const uint8_t *img, uint64_t index_offset, mcz_diag *diag)
{
    uint64_t frame_size;
    int rc = mcz_arc_meta_decode(img, r->size, r->data_start, index_offset, &r->meta, &frame_size,
                                 diag);
    r->data_start += frame_size;
    return rc;
}

/* Header, dictionary and metadata frames, from img (its head present); sets r->data_start. */
static int open_head(mcz_reader *r, const uint8_t *img, uint64_t index_offset, mcz_diag *diag)
{
    int rc = mcz_arc_header_decode(img, r->size, &r->header, diag);
    if (rc != MCZ_OK)
        return rc;
    r->data_start = MCZ_ARC_HEADER_SIZE;
    if (!(r->header.flags & MCZ_ARC_FLAG_HAS_DICT))
        return open_meta(r, img, index_offset, diag);
    rc = mcz_arc_dict_decode(img, r->size, r->data_start, r->header.dict_id, &r->dict, diag);
    if (rc != MCZ_OK)
        return rc;
    if (ZDICT_getDictID(r->dict.bytes, r->dict.size) != r->header.dict_id)
        return mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset((int64_t)r->data_start), MCZ_NO_CONTEXT,
                            "dictionary: its bytes do not carry id %u", r->header.dict_id);
    r->ddict = ZSTD_createDDict(r->dict.bytes, r->dict.size);
    if (!r->ddict)
        return mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset((int64_t)r->data_start), MCZ_NO_CONTEXT,
                            "dictionary: zstd cannot load it");
    r->data_start += r->dict.frame_size;
    return open_meta(r, img, index_offset, diag);
}

/* Per-chunk positions of the first context and of the raw bytes (for chunk_of and offsets). */
static int build_bases(mcz_reader *r, mcz_diag *diag)
{
    uint32_t k = r->index.chunk_count;
    r->context_base = malloc((k ? k : 1) * sizeof *r->context_base);
    r->raw_base = malloc((k ? k : 1) * sizeof *r->raw_base);
    if (!r->context_base || !r->raw_base)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    uint32_t contexts = 0;
    uint64_t raw = 0;
    for (uint32_t i = 0; i < k; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(&r->index, i, &c);
        r->context_base[i] = contexts;
        r->raw_base[i] = raw;
        contexts += c.count;
        raw += c.raw_size;
    }
    return MCZ_OK;
}

/* Where the first chunk begins (the index, for an archive without one), as idx says. */
static uint64_t first_chunk_offset(const mcz_arc_index *idx, uint64_t index_offset)
{
    if (!idx->chunk_count)
        return index_offset;
    mcz_chunk_info first;
    mcz_arc_index_chunk(idx, 0, &first);
    return first.offset;
}

/* What lies between the head (header, dictionary, metadata) and the first chunk, or the index
 * of an empty archive: nothing, or the zeros of a hole a rolling writer punched. An mcz frame
 * there is one the index does not know: a metadata frame whose tag was damaged into a chunk's,
 * which must not pass for no frame (FORMAT.md §2a). img: the image, [0, head_end) present. */
static int check_head_gap(const mcz_reader *r, const uint8_t *img, uint64_t head_end,
                          uint64_t index_offset, mcz_diag *diag)
{
    uint64_t end = first_chunk_offset(&r->index, index_offset);
    if (end > r->data_start && mcz_fits(head_end, r->data_start, 4) &&
        mcz_get_le32(img + r->data_start) == MCZ_ARC_SKIP_MAGIC)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)r->data_start),
                            MCZ_NO_CONTEXT,
                            "metadata: an mcz frame the index does not know lies before the first "
                            "chunk");
    return MCZ_OK;
}

/* The end of the archive's head: everything before the index for a local archive (a view of
 * it costs nothing), the first chunk's offset for a remote one, found by decoding the index
 * (present) once more, so that opening fetches no chunk. */
static int head_end_of(const mcz_reader *r, const uint8_t *img, const mcz_arc_footer *f,
                       uint64_t *end, mcz_diag *diag)
{
    *end = f->index_offset;
    if (!mcz_src_remote(r->src))
        return MCZ_OK;
    mcz_arc_index idx;
    int rc = mcz_arc_index_decode(img, r->size, f, MCZ_ARC_HEADER_SIZE, &idx, diag);
    if (rc != MCZ_OK)
        return rc;
    uint64_t first = first_chunk_offset(&idx, f->index_offset);
    mcz_arc_index_free(&idx);
    *end = first < f->index_offset ? first : f->index_offset;
    return MCZ_OK;
}

/*
 * The per-context columns of the index (FORMAT.md §5, "What a reader holds"), behind one lock (a
 * reader serves any number of threads). A lean index's lengths, identities and dedup keys are
 * read from its zstd frame by three forward streams, one per column, each letting the frame's
 * pages in the file's mapping go behind it. Whatever the index, the last context placed
 * (mcz_rd_place) is remembered, so that a walk in order finds each offset in its chunk from the
 * one before it: the index keeps no offsets.
 */
struct rd_columns {
    mcz_mutex lock;
    mcz_arc_column_stream stream[MCZ_ARC_COLUMNS]; /* indexed by mcz_arc_column */
    uint64_t dropped[MCZ_ARC_COLUMNS];             /* where each stream last let pages go */
    uint64_t frame_offset;                         /* of the zstd frame in the file */
    uint8_t *lengths; /* the lengths decoded whole, once reads out of order made their stream
                       * start again RESTARTS_MAX times; NULL before */
    uint8_t *hashes;  /* both hash columns so (identity, then dedup); NULL before */
    uint64_t last_pos; /* the last context placed: its position, offset and length */
    uint32_t last_offset, last_length;
    bool placed;
};

/* Reads behind a column's window after which it is decoded whole instead (4 bytes per context
 * for the lengths, 32 for the two hash columns): a user reading out of order, not a walk. */
#define RESTARTS_MAX 16

/*
 * mcz_src_drop_behind lets a mapping's pages go in spans of at least its batch (8 MiB,
 * mcz_file_drop_behind), which would leave up to 8 MiB resident behind each stream. So each time
 * a stream has moved DROP_STEP, it is given the span of one batch that ends where it is: behind
 * it stays less than DROP_STEP (pages of that span let go before cost nothing).
 */
#define IO_DROP_BATCH (8u << 20)
#define DROP_STEP (1u << 20)

/* Lets the pages of [from, to) go, and those of up to a batch before to when the span is shorter
 * (mcz_src_drop_behind would keep them). */
static void drop_span(const mcz_src *src, uint64_t from, uint64_t to)
{
    if (to - from < IO_DROP_BATCH)
        from = to > IO_DROP_BATCH ? to - IO_DROP_BATCH : 0;
    mcz_src_drop_behind(src, &from, to);
}

static void drop_trailing(const mcz_src *src, uint64_t *mark, uint64_t pos)
{
    if (pos < *mark)
        *mark = pos; /* the stream started again */
    if (pos - *mark < DROP_STEP)
        return;
    drop_span(src, *mark, pos);
    *mark = pos;
}

static int columns_open(mcz_reader *r, uint64_t index_offset, mcz_diag *diag)
{
    r->columns = calloc(1, sizeof *r->columns);
    if (!r->columns)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    mcz_mutex_init(&r->columns->lock);
    r->columns->frame_offset = index_offset + MCZ_ARC_INDEX_PACKED_HEAD;
    return MCZ_OK;
}

static void columns_close(struct rd_columns *c)
{
    if (!c)
        return;
    for (int i = 0; i < MCZ_ARC_COLUMNS; i++)
        mcz_arc_column_free(&c->stream[i]);
    free(c->lengths);
    free(c->hashes);
    mcz_mutex_destroy(&c->lock);
    free(c);
}

/* Entry pos of column col of the lean index, through its stream (lock held). */
static int stream_entry(const mcz_reader *r, struct rd_columns *c, mcz_arc_column col,
                        uint64_t pos, uint8_t *out)
{
    int rc = mcz_arc_column_get(&r->index, &c->stream[col], col, (uint32_t)pos, out);
    drop_trailing(r->src, &c->dropped[col], c->frame_offset + c->stream[col].in_pos);
    return rc;
}

/* Length of the context at pos (lock held). */
static int length_at(const mcz_reader *r, struct rd_columns *c, uint64_t pos, uint32_t *len)
{
    if (r->index.lengths) {
        *len = mcz_arc_index_length(&r->index, (uint32_t)pos);
        return MCZ_OK;
    }
    if (!c->lengths && c->stream[MCZ_ARC_COL_LENGTHS].restarts >= RESTARTS_MAX &&
        (c->lengths = mcz_arc_index_columns(&r->index, MCZ_ARC_COL_LENGTHS,
                                            4 * (uint64_t)r->index.context_count)))
        mcz_arc_column_free(&c->stream[MCZ_ARC_COL_LENGTHS]); /* NULL: the stream goes on */
    if (c->lengths) {
        *len = mcz_get_le32(c->lengths + 4 * pos);
        return MCZ_OK;
    }
    uint8_t bytes[4];
    int rc = stream_entry(r, c, MCZ_ARC_COL_LENGTHS, pos, bytes);
    *len = rc == MCZ_OK ? mcz_get_le32(bytes) : 0;
    return rc;
}

int mcz_rd_place(const mcz_reader *r, uint64_t chunk, uint64_t pos, uint32_t *offset,
                 uint32_t *length)
{
    struct rd_columns *c = r->columns;
    uint64_t base = r->context_base[chunk];
    assert(pos >= base && pos < r->index.context_count);
    mcz_mutex_lock(&c->lock);
    uint32_t off = 0, len = 0;
    int rc = MCZ_OK;
    if (c->placed && pos == c->last_pos)
        off = c->last_offset;
    else if (c->placed && pos == c->last_pos + 1 && pos > base)
        off = c->last_offset + c->last_length; /* within the chunk's raw size: checked at open */
    else
        for (uint64_t i = base; i < pos && rc == MCZ_OK; i++, off += len)
            rc = length_at(r, c, i, &len);
    if (rc == MCZ_OK)
        rc = length_at(r, c, pos, &len);
    c->placed = rc == MCZ_OK;
    c->last_pos = pos;
    c->last_offset = off;
    c->last_length = len;
    mcz_mutex_unlock(&c->lock);
    *offset = off;
    *length = len;
    return rc;
}

bool mcz_rd_column_whole(const mcz_reader *r, mcz_arc_column c)
{
    mcz_mutex_lock(&r->columns->lock);
    bool whole = c == MCZ_ARC_COL_LENGTHS ? r->columns->lengths != NULL
                                          : r->columns->hashes != NULL;
    mcz_mutex_unlock(&r->columns->lock);
    return whole;
}

/* Copies entry pos of the identity and dedup columns held whole (either NULL when not wanted). */
static void hashes_copy(const uint8_t *identities, const uint8_t *dedups, uint64_t pos,
                        mcz_hash128 *identity, mcz_hash128 *dedup)
{
    if (identity)
        memcpy(identity->bytes, identities + 16 * pos, 16);
    if (dedup)
        memcpy(dedup->bytes, dedups + 16 * pos, 16);
}

/* Decodes both hash columns whole when their streams have started again too often (lock held). */
static void hashes_settle(const mcz_reader *r, struct rd_columns *c)
{
    if (c->hashes || c->stream[MCZ_ARC_COL_IDENTITY].restarts +
                             c->stream[MCZ_ARC_COL_DEDUP].restarts <
                         RESTARTS_MAX)
        return;
    c->hashes = mcz_arc_index_columns(&r->index, MCZ_ARC_COL_IDENTITY,
                                      32 * (uint64_t)r->index.context_count);
    if (!c->hashes)
        return; /* the streams go on */
    mcz_arc_column_free(&c->stream[MCZ_ARC_COL_IDENTITY]);
    mcz_arc_column_free(&c->stream[MCZ_ARC_COL_DEDUP]);
}

int mcz_rd_hashes_at(const mcz_reader *r, uint64_t pos, mcz_hash128 *identity,
                     mcz_hash128 *dedup)
{
    assert(r->index.has_hashes && pos < r->index.context_count);
    if (!r->index.packed) {
        hashes_copy(r->index.identity, r->index.dedup, pos, identity, dedup);
        return MCZ_OK;
    }
    struct rd_columns *c = r->columns;
    mcz_mutex_lock(&c->lock);
    hashes_settle(r, c);
    int rc = MCZ_OK;
    if (c->hashes)
        hashes_copy(c->hashes, c->hashes + 16 * (size_t)r->index.context_count, pos, identity,
                    dedup);
    else if (identity)
        rc = stream_entry(r, c, MCZ_ARC_COL_IDENTITY, pos, identity->bytes);
    if (rc == MCZ_OK && !c->hashes && dedup)
        rc = stream_entry(r, c, MCZ_ARC_COL_DEDUP, pos, dedup->bytes);
    mcz_mutex_unlock(&c->lock);
    return rc;
}

/*
 * The per-context columns (36 bytes per context, 4 without hashes) are held whole below this
 * many bytes, streamed from the index's frame from there: streaming costs a zstd window per
 * column (4 MiB at the index's level 9), three of them with hashes, as much as 12 MiB of
 * columns (349,526 contexts). MCZ_INDEX_STREAM_MIN=BYTES sets another bound (the tests stream
 * every index with 0).
 */
#define LEAN_MIN_COLUMNS (12u << 20)

/* The index's pages, let go behind its checksum and decode at open. */
typedef struct open_release {
    const mcz_reader *r;
    uint64_t *dropped;
} open_release;

static void release_behind(void *arg, uint64_t offset)
{
    open_release *o = arg;
    drop_trailing(o->r->src, o->dropped, offset);
}

/* Footer, index, head: each decoded from a view of its bytes (img, the image origin the views
 * share). A remote archive keeps them for its next open (mcz_src_keep). */
static int open_checked(mcz_reader *r, mcz_diag *diag)
{
    mcz_arc_footer footer;
    const uint8_t *v;
    int rc = r->size < MCZ_ARC_FOOTER_SIZE
                 ? mcz_src_view(r->src, 0, r->size, &v, diag)
                 : mcz_src_view(r->src, r->size - MCZ_ARC_FOOTER_SIZE, MCZ_ARC_FOOTER_SIZE, &v, diag);
    const uint8_t *img = NULL; /* the image origin: every view is img + its offset */
    if (rc == MCZ_OK)
        img = v - (r->size < MCZ_ARC_FOOTER_SIZE ? 0 : r->size - MCZ_ARC_FOOTER_SIZE);
    if (rc == MCZ_OK)
        rc = mcz_arc_footer_decode(img, r->size, &footer, diag);
    uint64_t index_len = rc == MCZ_OK && footer.index_offset <= r->size - MCZ_ARC_FOOTER_SIZE
                             ? r->size - MCZ_ARC_FOOTER_SIZE - footer.index_offset : 0;
    if (rc == MCZ_OK)
        rc = mcz_src_view(r->src, footer.index_offset, index_len, &v, diag);
    uint64_t head_end = 0;
    if (rc == MCZ_OK)
        rc = head_end_of(r, img, &footer, &head_end, diag);
    if (rc == MCZ_OK)
        rc = mcz_src_view(r->src, 0, head_end, &v, diag);
    if (rc == MCZ_OK)
        rc = open_head(r, img, footer.index_offset, diag);
    if (rc != MCZ_OK)
        return rc;
    if (r->data_start > footer.index_offset)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)footer.index_offset),
                            MCZ_NO_CONTEXT, "index at %llu overlaps the header",
                            (unsigned long long)footer.index_offset);
    uint64_t dropped = footer.index_offset;
    open_release release_arg = {r, &dropped};
    const mcz_arc_lean lean = {release_behind, &release_arg,
                               mcz_env_u64("MCZ_INDEX_STREAM_MIN", LEAN_MIN_COLUMNS)};
    rc = mcz_arc_index_decode_lean(img, r->size, &footer, r->data_start, &lean, &r->index, diag);
    if (rc == MCZ_OK)
        rc = check_head_gap(r, img, head_end, footer.index_offset, diag);
    drop_span(r->src, footer.index_offset, r->size); /* what the open decoded */
    if (rc == MCZ_OK)
        rc = columns_open(r, footer.index_offset, diag);
    if (rc == MCZ_OK) {
        mcz_src_range keep[2] = {{0, head_end}, {footer.index_offset, index_len}};
        mcz_src_keep(r->src, keep, 2);
    }
    return rc == MCZ_OK ? build_bases(r, diag) : rc;
}

/* An error opening an archive names the source, unless a lower layer named its own subject. */
static void name_source(const mcz_src *src, const mcz_diag *d, mcz_diag *diag)
{
    if (!diag)
        return;
    *diag = *d;
    if (!diag->subject[0])
        mcz_diag_set_subject(diag, mcz_src_name(src));
}

mcz_reader *mcz_rd_open_src(mcz_src *src, mcz_diag *diag)
{
    mcz_reader *r = calloc(1, sizeof *r);
    if (!r) {
        mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    r->src = mcz_src_ref(src);
    r->size = (size_t)mcz_src_size(src);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (open_checked(r, &d) != MCZ_OK) {
        name_source(src, &d, diag);
        mcz_reader_close(r);
        return NULL;
    }
    return r;
}

mcz_reader *mcz_reader_open_image(const uint8_t *data, size_t size, mcz_diag *diag)
{
    mcz_src *src = mcz_src_memory(data, size, "", diag);
    mcz_reader *r = src ? mcz_rd_open_src(src, diag) : NULL;
    mcz_src_close(src);
    return r;
}

mcz_reader *mcz_reader_open(const char *path, mcz_diag *diag)
{
    mcz_src *src = mcz_src_open(path, MCZ_ARC_FOOTER_SIZE, diag);
    mcz_reader *r = src ? mcz_rd_open_src(src, diag) : NULL;
    mcz_src_close(src);
    return r;
}

void mcz_reader_close(mcz_reader *r)
{
    if (!r)
        return;
    ZSTD_freeDDict(r->ddict);
    columns_close(r->columns);
    mcz_arc_index_free(&r->index);
    free(r->context_base);
    free(r->raw_base);
    mcz_src_close(r->src);
    free(r);
}

const mcz_jit_ee *mcz_reader_jit_ee(const mcz_reader *r)
{
    return r ? mcz_jit_ee_by_id(r->header.jit_ee) : NULL;
}

const mcz_jit_ee *mcz_reader_hash_jit_ee(const mcz_reader *r)
{
    return r ? mcz_arc_hash_jit_ee(&r->header) : NULL;
}

const char *mcz_reader_jit_ee_guid(const mcz_reader *r)
{
    return r && r->meta.guid[0] ? r->meta.guid : NULL;
}

void mcz_reader_target(const mcz_reader *r, const char **os, const char **arch)
{
    if (os)
        *os = r && r->meta.os[0] ? r->meta.os : NULL;
    if (arch)
        *arch = r && r->meta.arch[0] ? r->meta.arch : NULL;
}

void mcz_reader_get_info(const mcz_reader *r, mcz_archive_info *out)
{
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    const mcz_arc_index *idx = &r->index;
    out->version = r->header.version;
    out->contexts = idx->context_count;
    out->chunks = idx->chunk_count;
    out->first_number = idx->first_number;
    out->last_number = idx->first_number - 1;
    if (idx->chunk_count) {
        mcz_chunk_info last;
        mcz_arc_index_chunk(idx, idx->chunk_count - 1, &last);
        out->last_number = last.first_number + last.count - 1;
    }
    out->raw_bytes = idx->raw_bytes;
    out->file_bytes = r->size;
    out->dict_id = r->header.dict_id;
    out->dict_size = (uint32_t)r->dict.size;
    out->level = r->header.level;
    out->chunk_size = r->header.chunk_size;
    out->hashes = idx->has_hashes;
    out->codec = r->header.flags & MCZ_ARC_FLAG_CODEC_XZ ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD;
}

mcz_layout mcz_reader_layout(const mcz_reader *r)
{
    return r->header.flags & MCZ_ARC_FLAG_PACKETS ? MCZ_LAYOUT_PACKETS : MCZ_LAYOUT_PLAIN;
}

int mcz_reader_chunk(const mcz_reader *r, uint64_t index, mcz_chunk_info *out)
{
    if (!r || !out)
        return MCZ_EINVAL;
    if (index >= r->index.chunk_count)
        return MCZ_ENOTFOUND;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, out);
    return MCZ_OK;
}

int64_t mcz_reader_chunk_of(const mcz_reader *r, uint32_t number)
{
    if (!r)
        return MCZ_EINVAL;
    uint32_t lo = 0, hi = r->index.chunk_count; /* first chunk whose first number > number */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mcz_get_le32(r->index.chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * mid + 16) <= number)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return MCZ_ENOTFOUND;
    mcz_chunk_info c;
    mcz_arc_index_chunk(&r->index, lo - 1, &c);
    return number - c.first_number < c.count ? (int64_t)(lo - 1) : MCZ_ENOTFOUND;
}

int mcz_reader_hashes(const mcz_reader *r, uint32_t number, mcz_hash128 *identity,
                      mcz_hash128 *dedup)
{
    int64_t chunk = mcz_reader_chunk_of(r, number);
    if (chunk < 0)
        return (int)chunk;
    if (!r->index.has_hashes)
        return MCZ_EMISSING;
    uint32_t first = mcz_get_le32(r->index.chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * chunk + 16);
    return mcz_rd_hashes_at(r, r->context_base[chunk] + (number - first), identity, dedup);
}

void mcz_reader_dict(const mcz_reader *r, const void **dict, size_t *len)
{
    *dict = r && r->dict.size ? r->dict.bytes : NULL;
    *len = r ? r->dict.size : 0;
}

int mcz_rd_match_index(const mcz_reader *r, uint64_t index, const mcz_arc_chunk_head *h,
                       mcz_diag *diag)
{
    mcz_chunk_info e;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, &e);
    uint64_t stored = mcz_arc_chunk_head_size(h->count) + h->data_size;
    if (h->first_number != e.first_number || h->count != e.count || h->raw_size != e.raw_size ||
        h->checksum != e.checksum || stored != e.stored_size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)e.offset),
                            mcz_in_context(e.first_number),
                            "chunk %llu: its header disagrees with the index",
                            (unsigned long long)index);
    return mcz_rd_lengths_match(r, index, h, diag);
}

int mcz_rd_lengths_match(const mcz_reader *r, uint64_t index, const mcz_arc_chunk_head *h,
                         mcz_diag *diag)
{
    mcz_chunk_info e;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, &e);
    if (r->index.chunk_lengths &&
        mcz_arc_xxh3(h->lengths, 4 * (size_t)h->count) == r->index.chunk_lengths[index])
        return MCZ_OK; /* a lean index's lengths, as the open hashed them: not read again */
    struct rd_columns *c = r->columns; /* else the first that differs, named */
    uint64_t base = r->context_base[index];
    int rc = MCZ_OK;
    uint32_t i = 0, len = 0;
    mcz_mutex_lock(&c->lock);
    for (; i < h->count && rc == MCZ_OK; i++) {
        rc = length_at(r, c, base + i, &len);
        if (rc == MCZ_OK && len != mcz_arc_chunk_head_length(h, i))
            break;
    }
    mcz_mutex_unlock(&c->lock);
    if (rc != MCZ_OK)
        return mcz_diag_set(diag, rc, mcz_at_offset((int64_t)e.offset),
                            mcz_in_context((int64_t)e.first_number + i),
                            "chunk %llu: the index's lengths cannot be read",
                            (unsigned long long)index);
    if (i < h->count)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)e.offset),
                            mcz_in_context((int64_t)e.first_number + i),
                            "chunk %llu: context length disagrees with the index",
                            (unsigned long long)index);
    return MCZ_OK;
}

int mcz_rd_chunk_bytes(const mcz_reader *r, uint64_t index, const uint8_t **image, mcz_diag *diag)
{
    mcz_chunk_info c;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, &c);
    const uint8_t *view;
    int rc = mcz_src_view(r->src, c.offset, c.stored_size, &view, diag);
    if (rc != MCZ_OK && diag && diag->context < 0)
        diag->context = c.first_number;
    if (rc == MCZ_OK)
        *image = view - c.offset;
    return rc;
}

int mcz_reader_chunk_frames(const mcz_reader *r, uint64_t index, const uint8_t **frames,
                            size_t *len, mcz_diag *diag)
{
    if (!r || !frames || !len)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_reader_chunk_frames: NULL argument");
    if (index >= r->index.chunk_count)
        return mcz_diag_set(diag, MCZ_ENOTFOUND, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "no chunk %llu (the archive has %u)", (unsigned long long)index,
                            r->index.chunk_count);
    mcz_chunk_info c;
    mcz_arc_index_chunk(&r->index, (uint32_t)index, &c);
    mcz_arc_chunk_head h;
    const uint8_t *img;
    int rc = mcz_rd_chunk_bytes(r, index, &img, diag);
    if (rc == MCZ_OK)
        rc = mcz_arc_chunk_head_decode(img, r->size, c.offset, &h, diag);
    if (rc == MCZ_OK)
        rc = mcz_rd_match_index(r, index, &h, diag);
    if (rc != MCZ_OK) {
        if (diag && diag->context < 0)
            diag->context = c.first_number;
        return rc;
    }
    *frames = img + c.offset; /* inside the file: checked when the index was opened */
    *len = c.stored_size;
    return MCZ_OK;
}

void mcz_reader_drop_behind(const mcz_reader *r, uint64_t *dropped, uint64_t offset)
{
    if (r && dropped)
        mcz_src_drop_behind(r->src, dropped, offset);
}

/* The chunks [first, first+count) that exist, as ranges of the archive. */
int mcz_reader_prefetch(const mcz_reader *r, uint64_t first, uint64_t count, mcz_diag *diag)
{
    if (!r)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_reader_prefetch: NULL reader");
    if (!mcz_src_remote(r->src) || first >= r->index.chunk_count || count == 0)
        return MCZ_OK;
    uint64_t stop = count < r->index.chunk_count - first ? first + count : r->index.chunk_count;
    mcz_src_range *ranges = malloc((size_t)(stop - first) * sizeof *ranges);
    if (!ranges)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    for (uint64_t i = first; i < stop; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(&r->index, (uint32_t)i, &c);
        ranges[i - first] = (mcz_src_range){c.offset, c.stored_size};
    }
    int rc = mcz_src_prefetch(r->src, ranges, (size_t)(stop - first), diag);
    free(ranges);
    if (rc != MCZ_OK && diag && diag->context < 0) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(&r->index, (uint32_t)first, &c);
        diag->context = c.first_number;
    }
    return rc;
}
