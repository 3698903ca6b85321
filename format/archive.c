/*
 * archive.c - the on-disk codec of the .mcz archive (format/FORMAT.md). Pure byte work: no I/O,
 * no zstd. Every decode checks bounds with mcz_fits before reading and reports through mcz_fail
 * with the file offset concerned.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "layout.h"
#include "mcz_common.h"
#include "mcz_xxhash.h"

_Static_assert(MCZ_ARC_HEADER_SIZE == 44, "file header frame size");
_Static_assert(MCZ_ARC_FOOTER_SIZE == 56, "footer frame size");
_Static_assert(MCZ_ARC_CONTEXT_ENTRY == 4 + 4 + 16 + 16, "context columns");
_Static_assert(MCZ_ARC_CONTEXT_ENTRY_NO_HASHES == 4 + 4, "context columns without hashes");

uint64_t mcz_arc_xxh3(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

/* Writes a skippable frame head with its tag; payload is the size after the 8-byte head. */
static void put_frame_head(uint8_t *out, uint32_t payload, uint32_t tag)
{
    mcz_put_le32(out, MCZ_ARC_SKIP_MAGIC);
    mcz_put_le32(out + 4, payload);
    mcz_put_le32(out + 8, tag);
}

int mcz_arc_frame_check(const uint8_t *file, size_t size, uint64_t off, uint32_t tag,
                        uint32_t min_payload, const char *what, uint32_t *payload,
                        mcz_diag *diag)
{
    *payload = 0;
    if (!mcz_fits(size, off, MCZ_ARC_FRAME_HEAD + 4))
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "%s: truncated frame header", what);
    const uint8_t *p = file + off;
    if (mcz_get_le32(p) != MCZ_ARC_SKIP_MAGIC || mcz_get_le32(p + 8) != tag)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "%s: bad frame magic or tag", what);
    *payload = mcz_get_le32(p + 4);
    if (*payload < min_payload)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "%s: frame too small", what);
    if (!mcz_fits(size - off - MCZ_ARC_FRAME_HEAD, 0, *payload))
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "%s: frame of %u bytes runs past the end of the file", what, *payload);
    return MCZ_OK;
}

/* ---- File header ---- */

void mcz_arc_header_encode(const mcz_arc_header *h, uint8_t out[MCZ_ARC_HEADER_SIZE])
{
    put_frame_head(out, MCZ_ARC_HEADER_SIZE - MCZ_ARC_FRAME_HEAD, MCZ_ARC_TAG_HEADER);
    mcz_put_le32(out + 12, h->version);
    mcz_put_le32(out + 16, h->flags);
    mcz_put_le32(out + 20, (uint32_t)h->level);
    mcz_put_le32(out + 24, h->chunk_size);
    mcz_put_le32(out + 28, h->dict_id);
    mcz_put_le32(out + 32, h->jit_ee);
    mcz_put_le64(out + 36, mcz_arc_xxh3(out, 36));
}

bool mcz_arc_looks_like(const uint8_t *buf, size_t len)
{
    return len >= 12 && mcz_get_le32(buf) == MCZ_ARC_SKIP_MAGIC &&
           mcz_get_le32(buf + 4) == MCZ_ARC_HEADER_SIZE - MCZ_ARC_FRAME_HEAD &&
           mcz_get_le32(buf + 8) == MCZ_ARC_TAG_HEADER;
}

bool mcz_arc_looks_damaged(const uint8_t *buf, size_t len, bool named_mcz)
{
    if (len >= 2 && buf[0] == 'm' && buf[1] == 'c')
        return false; /* an MCH's first context */
    return named_mcz || (len >= 4 && mcz_get_le32(buf) == MCZ_ARC_SKIP_MAGIC) ||
           (len >= 12 && mcz_get_le32(buf + 8) == MCZ_ARC_TAG_HEADER) ||
           (len >= 4 && mcz_get_le32(buf + len - 4) == MCZ_ARC_END_MAGIC);
}

int mcz_arc_header_decode(const uint8_t *file, size_t size, mcz_arc_header *out, mcz_diag *diag)
{
    uint32_t payload;
    int rc = mcz_arc_frame_check(file, size, 0, MCZ_ARC_TAG_HEADER, 0, "archive header", &payload,
                              diag);
    if (rc != MCZ_OK)
        return rc;
    if (payload != MCZ_ARC_HEADER_SIZE - MCZ_ARC_FRAME_HEAD)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(4), MCZ_NO_CONTEXT,
                            "archive header: size %u, expected %u", payload,
                            MCZ_ARC_HEADER_SIZE - MCZ_ARC_FRAME_HEAD);
    if (mcz_get_le64(file + 36) != mcz_arc_xxh3(file, 36))
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset(36), MCZ_NO_CONTEXT,
                            "archive header: checksum mismatch");
    out->version = mcz_get_le32(file + 12);
    out->flags = mcz_get_le32(file + 16);
    out->level = (int32_t)mcz_get_le32(file + 20);
    out->chunk_size = mcz_get_le32(file + 24);
    out->dict_id = mcz_get_le32(file + 28);
    out->jit_ee = mcz_get_le32(file + 32);
    if (out->version < MCZ_ARC_VERSION_MIN || out->version > MCZ_ARC_VERSION)
        return mcz_diag_set(diag, MCZ_EVERSION, mcz_at_offset(12), MCZ_NO_CONTEXT,
                            "archive header: format version %u, this build "
                            "reads %u to %u",
                            out->version, MCZ_ARC_VERSION_MIN, MCZ_ARC_VERSION);
    if (out->jit_ee != 0 && !mcz_jit_ee_by_id(out->jit_ee))
        return mcz_diag_set(diag, MCZ_EVERSION, mcz_at_offset(32), MCZ_NO_CONTEXT,
                            "archive header: JIT-EE version %u is not known to this build",
                            out->jit_ee);
    if ((out->flags & ~MCZ_ARC_FLAGS_KNOWN) != 0 || (out->version == 1 && out->jit_ee != 0) ||
        (out->version < 3 && (out->flags & MCZ_ARC_FLAG_PACKETS) != 0))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(16), MCZ_NO_CONTEXT,
                            "archive header: reserved bits set (flags 0x%x)", out->flags);
    if (((out->flags & MCZ_ARC_FLAG_HAS_DICT) != 0) != (out->dict_id != 0))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(28), MCZ_NO_CONTEXT,
                            "archive header: dictionary flag and id disagree");
    return MCZ_OK;
}

/* ---- Dictionary frame ---- */

void mcz_arc_dict_encode_head(uint32_t dict_id, const void *dict, uint32_t len,
                              uint8_t out[MCZ_ARC_DICT_HEAD])
{
    put_frame_head(out, MCZ_ARC_DICT_HEAD - MCZ_ARC_FRAME_HEAD + len, MCZ_ARC_TAG_DICT);
    mcz_put_le32(out + 12, dict_id);
    mcz_put_le32(out + 16, len);
    mcz_put_le64(out + 20, mcz_arc_xxh3(dict, len));
    mcz_put_le32(out + 28, 0);
}

int mcz_arc_dict_decode(const uint8_t *file, size_t size, uint64_t off, uint32_t expect_id,
                        mcz_arc_dict *out, mcz_diag *diag)
{
    uint32_t payload;
    int rc = mcz_arc_frame_check(file, size, off, MCZ_ARC_TAG_DICT,
                              MCZ_ARC_DICT_HEAD - MCZ_ARC_FRAME_HEAD, "dictionary", &payload, diag);
    if (rc != MCZ_OK)
        return rc;
    const uint8_t *p = file + off;
    uint32_t len = mcz_get_le32(p + 16);
    if (len != payload - (MCZ_ARC_DICT_HEAD - MCZ_ARC_FRAME_HEAD) || mcz_get_le32(p + 28) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 16), MCZ_NO_CONTEXT,
                            "dictionary: size %u does not match its frame", len);
    out->dict_id = mcz_get_le32(p + 12);
    if (out->dict_id != expect_id)
        return mcz_diag_set(diag, MCZ_EDICT, mcz_at_offset((int64_t)off + 12), MCZ_NO_CONTEXT,
                            "dictionary: id %u, the header names %u", out->dict_id, expect_id);
    out->bytes = p + MCZ_ARC_DICT_HEAD;
    out->size = len;
    out->frame_size = (uint64_t)MCZ_ARC_FRAME_HEAD + payload;
    if (mcz_get_le64(p + 20) != mcz_arc_xxh3(out->bytes, len))
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)off + 20), MCZ_NO_CONTEXT,
                            "dictionary: checksum mismatch");
    return MCZ_OK;
}

/* ---- Chunk header frame ---- */

uint64_t mcz_arc_chunk_head_size(uint32_t count)
{
    return MCZ_ARC_CHUNK_HEAD + 4 * (uint64_t)count;
}

/* The chunk tags by codec (zstd, xz) and layout (plain, packets): FORMAT.md §4. */
static const uint32_t chunk_tags[2][2] = {
    {MCZ_ARC_TAG_CHUNK, MCZ_ARC_TAG_CHUNK_P},
    {MCZ_ARC_TAG_CHUNK_XZ, MCZ_ARC_TAG_CHUNK_XZ_P},
};

bool mcz_arc_is_chunk_tag(uint32_t tag)
{
    for (int codec = 0; codec < 2; codec++)
        for (int packets = 0; packets < 2; packets++)
            if (chunk_tags[codec][packets] == tag)
                return true;
    return false;
}

void mcz_arc_chunk_head_encode(const mcz_arc_chunk_head *h, const uint32_t *lengths, uint8_t *out)
{
    size_t body = 36 + 4 * (size_t)h->count;
    uint32_t tag = chunk_tags[h->codec == MCZ_CODEC_XZ][h->packets];
    put_frame_head(out, (uint32_t)(body + 4 - MCZ_ARC_FRAME_HEAD), tag);
    mcz_put_le32(out + 12, h->first_number);
    mcz_put_le32(out + 16, h->count);
    mcz_put_le32(out + 20, h->raw_size);
    mcz_put_le32(out + 24, h->data_size);
    mcz_put_le64(out + 28, h->checksum);
    for (uint32_t i = 0; i < h->count; i++)
        mcz_put_le32(out + 36 + 4 * (size_t)i, lengths[i]);
    mcz_put_le32(out + body, (uint32_t)mcz_arc_xxh3(out, body));
}

uint64_t mcz_arc_layout_bound(const mcz_arc_chunk_head *h)
{
    return mcz_layout_bound(h->raw_size, h->count);
}

uint32_t mcz_arc_chunk_head_length(const mcz_arc_chunk_head *h, uint32_t i)
{
    return mcz_get_le32(h->lengths + 4 * (size_t)i);
}

/* The lengths must each hold a whole context and sum to the raw size. */
static int check_chunk_lengths(const mcz_arc_chunk_head *h, uint64_t off, mcz_diag *diag)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        uint32_t len = mcz_arc_chunk_head_length(h, i);
        if (len < MCZ_MC_OVERHEAD || len > MCZ_MC_MAX_SIZE)
            return mcz_diag_set(diag, MCZ_ECORRUPT,
                                mcz_at_offset((int64_t)(off + 36 + 4 * (uint64_t)i)),
                                mcz_in_context((int64_t)h->first_number + i),
                                "chunk header: context length %u", len);
        sum += len;
    }
    if (sum != h->raw_size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 20),
                            mcz_in_context(h->first_number),
                            "chunk header: lengths sum to %llu, raw size is %u",
                            (unsigned long long)sum, h->raw_size);
    return MCZ_OK;
}

int mcz_arc_chunk_head_decode(const uint8_t *file, size_t size, uint64_t off,
                              mcz_arc_chunk_head *out, mcz_diag *diag)
{
    uint32_t payload;
    uint32_t tag = mcz_fits(size, off, MCZ_ARC_FRAME_HEAD + 4) ? mcz_get_le32(file + off + 8) : 0;
    bool xz = tag == MCZ_ARC_TAG_CHUNK_XZ || tag == MCZ_ARC_TAG_CHUNK_XZ_P;
    bool packets = tag == MCZ_ARC_TAG_CHUNK_P || tag == MCZ_ARC_TAG_CHUNK_XZ_P;
    int rc = mcz_arc_frame_check(file, size, off, chunk_tags[xz][packets],
                              MCZ_ARC_CHUNK_HEAD - MCZ_ARC_FRAME_HEAD, "chunk header", &payload,
                              diag);
    if (rc != MCZ_OK)
        return rc;
    const uint8_t *p = file + off;
    out->first_number = mcz_get_le32(p + 12);
    out->count = mcz_get_le32(p + 16);
    out->raw_size = mcz_get_le32(p + 20);
    out->data_size = mcz_get_le32(p + 24);
    out->checksum = mcz_get_le64(p + 28);
    out->lengths = p + 36;
    out->codec = xz ? MCZ_CODEC_XZ : MCZ_CODEC_ZSTD;
    out->packets = packets;
    if (mcz_arc_chunk_head_size(out->count) != (uint64_t)MCZ_ARC_FRAME_HEAD + payload)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 16),
                            mcz_in_context(out->first_number),
                            "chunk header: count %u does not match its frame", out->count);
    size_t body = 36 + 4 * (size_t)out->count;
    if (mcz_get_le32(p + body) != (uint32_t)mcz_arc_xxh3(p, body)) /* its numbers are not */
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)(off + body)),
                            MCZ_NO_CONTEXT, /* to be believed */
                            "chunk header: checksum mismatch");
    if (out->count == 0 || out->first_number == 0 ||
        out->count - 1 > UINT32_MAX - out->first_number)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 12),
                            mcz_in_context(out->first_number),
                            "chunk header: bad numbers (first %u, count %u)", out->first_number,
                            out->count);
    return check_chunk_lengths(out, off, diag);
}

/* ---- Footer ---- */

void mcz_arc_footer_encode(const mcz_arc_footer *f, uint8_t out[MCZ_ARC_FOOTER_SIZE])
{
    put_frame_head(out, MCZ_ARC_FOOTER_SIZE - MCZ_ARC_FRAME_HEAD, MCZ_ARC_TAG_FOOTER);
    mcz_put_le32(out + 12, f->version);
    mcz_put_le64(out + 16, f->index_offset);
    mcz_put_le64(out + 24, f->index_size);
    mcz_put_le64(out + 32, f->index_checksum);
    mcz_put_le32(out + 40, f->chunk_count);
    mcz_put_le32(out + 44, f->context_count);
    mcz_put_le32(out + 48, (uint32_t)mcz_arc_xxh3(out, 48));
    mcz_put_le32(out + 52, MCZ_ARC_END_MAGIC);
}

int mcz_arc_footer_decode(const uint8_t *file, size_t size, mcz_arc_footer *out, mcz_diag *diag)
{
    if (size < MCZ_ARC_HEADER_SIZE + MCZ_ARC_FOOTER_SIZE)
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)size), MCZ_NO_CONTEXT,
                            "archive of %zu bytes is too short to hold a header and a footer",
                            size);
    uint64_t off = size - MCZ_ARC_FOOTER_SIZE;
    return mcz_arc_footer_decode_at(file + off, off, out, diag);
}

int mcz_arc_footer_decode_at(const uint8_t *p, uint64_t off, mcz_arc_footer *out,
                             mcz_diag *diag)
{
    if (mcz_get_le32(p + 52) != MCZ_ARC_END_MAGIC)
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)off + 52), MCZ_NO_CONTEXT,
                            "no footer at the end of the file: cut short or still being written "
                            "(recovering it rebuilds its index), or not an archive");
    if (mcz_get_le32(p) != MCZ_ARC_SKIP_MAGIC ||
        mcz_get_le32(p + 4) != MCZ_ARC_FOOTER_SIZE - MCZ_ARC_FRAME_HEAD ||
        mcz_get_le32(p + 8) != MCZ_ARC_TAG_FOOTER)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "footer: bad frame header");
    if (mcz_get_le32(p + 48) != (uint32_t)mcz_arc_xxh3(p, 48))
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)off + 48), MCZ_NO_CONTEXT,
                            "footer: checksum mismatch");
    out->version = mcz_get_le32(p + 12);
    out->index_offset = mcz_get_le64(p + 16);
    out->index_size = mcz_get_le64(p + 24);
    out->index_checksum = mcz_get_le64(p + 32);
    out->chunk_count = mcz_get_le32(p + 40);
    out->context_count = mcz_get_le32(p + 44);
    if (out->version < MCZ_ARC_VERSION_MIN || out->version > MCZ_ARC_VERSION)
        return mcz_diag_set(diag, MCZ_EVERSION, mcz_at_offset((int64_t)off + 12), MCZ_NO_CONTEXT,
                            "footer: format version %u, this build reads %u to %u", out->version,
                            MCZ_ARC_VERSION_MIN, MCZ_ARC_VERSION);
    if (!mcz_fits(off, out->index_offset, out->index_size) ||
        out->index_offset + out->index_size != off || out->index_offset < MCZ_ARC_HEADER_SIZE)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 16), MCZ_NO_CONTEXT,
                            "footer: its index (offset %llu, %llu bytes) does not end at the "
                            "footer "
                            "(%llu)",
                            (unsigned long long)out->index_offset,
                            (unsigned long long)out->index_size, (unsigned long long)off);
    return MCZ_OK;
}

/* ---- Index ---- */

uint64_t mcz_arc_index_size(uint32_t chunk_count, uint32_t context_count, bool hashes)
{
    uint64_t per_context = hashes ? MCZ_ARC_CONTEXT_ENTRY : MCZ_ARC_CONTEXT_ENTRY_NO_HASHES;
    return MCZ_ARC_INDEX_HEAD + (uint64_t)MCZ_ARC_CHUNK_ENTRY * chunk_count +
           per_context * context_count;
}

void mcz_arc_index_chunk(const mcz_arc_index *idx, uint32_t i, mcz_chunk_info *out)
{
    const uint8_t *e = idx->chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * i;
    out->offset = mcz_get_le64(e);
    out->stored_size = mcz_get_le32(e + 8);
    out->raw_size = mcz_get_le32(e + 12);
    out->first_number = mcz_get_le32(e + 16);
    out->count = mcz_get_le32(e + 20);
    out->checksum = mcz_get_le64(e + 24);
}

uint32_t mcz_arc_index_offset(const mcz_arc_index *idx, uint32_t i)
{
    assert(idx->offsets);
    return mcz_get_le32(idx->offsets + 4 * (size_t)i);
}

uint32_t mcz_arc_index_length(const mcz_arc_index *idx, uint32_t i)
{
    assert(idx->lengths);
    return mcz_get_le32(idx->lengths + 4 * (size_t)i);
}

/* Checks one chunk entry, at file offset `at`, against the previous one (prev_end, prev_last)
 * and the file layout. A fault is reported at the entry: the values it holds are hostile. */
static int check_chunk_entry(const mcz_chunk_info *c, uint32_t i, uint64_t prev_end,
                             uint64_t prev_last, uint64_t index_offset, int64_t at,
                             mcz_diag *diag)
{
    if (c->count == 0 || c->first_number == 0 || c->count - 1 > UINT32_MAX - c->first_number)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at), MCZ_NO_CONTEXT,
                            "index: chunk %u has bad numbers (first %u, count %u)", i,
                            c->first_number, c->count);
    if (c->first_number <= prev_last)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at), mcz_in_context(c->first_number),
                            "index: chunk %u numbers do not follow the previous chunk's", i);
    if (c->offset < prev_end || !mcz_fits(index_offset, c->offset, c->stored_size))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at), mcz_in_context(c->first_number),
                            "index: chunk %u (%u bytes at %llu) overlaps or lies outside the data",
                            i, c->stored_size, (unsigned long long)c->offset);
    uint64_t head = mcz_arc_chunk_head_size(c->count);
    if (c->stored_size <= head ||
        c->raw_size > (uint64_t)(c->stored_size - head) * MCZ_ARC_MAX_EXPANSION)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at), mcz_in_context(c->first_number),
                            "index: chunk %u sizes are impossible (stored %u, raw %u, count %u)", i,
                            c->stored_size, c->raw_size, c->count);
    return MCZ_OK;
}

/* Where a fault in the index tables is reported: the file offsets of the chunk table and of the
 * offset column of a raw index; scale 0 for a compressed one, whose tables are not in the file,
 * so every fault is reported at its zstd frame. */
typedef struct index_where {
    uint64_t table, column;
    uint64_t scale;
} index_where;

static int64_t entry_at(const index_where *w, uint32_t i)
{
    return (int64_t)(w->table + w->scale * MCZ_ARC_CHUNK_ENTRY * i);
}

static int64_t column_at(const index_where *w, uint64_t j)
{
    return (int64_t)(w->column + w->scale * 4 * j);
}

/* Where the lengths checked come from: the index's column, or for a lean index (its lengths
 * not kept) the stream s over its zstd frame at file offset at, which reads them forward once,
 * releasing the frame behind it as lean says. */
typedef struct length_source {
    mcz_arc_column_stream *s;
    const mcz_arc_lean *lean;
    uint64_t at;
} length_source;

static int length_of(const mcz_arc_index *idx, length_source *src, uint32_t pos, uint32_t *len,
                     mcz_diag *diag)
{
    if (idx->lengths) {
        *len = mcz_arc_index_length(idx, pos);
        return MCZ_OK;
    }
    uint8_t bytes[4];
    int rc = mcz_arc_column_get(idx, src->s, MCZ_ARC_COL_LENGTHS, pos, bytes);
    if (rc != MCZ_OK)
        return mcz_diag_set(diag, rc == MCZ_ENOMEM ? MCZ_ENOMEM : MCZ_ECORRUPT,
                            mcz_at_offset((int64_t)src->at), MCZ_NO_CONTEXT,
                            "index: its zstd frame: %s",
                            rc == MCZ_ENOMEM ? "out of memory" : mcz_arc_column_error(src->s));
    if (src->lean->release)
        src->lean->release(src->lean->arg, src->at + src->s->in_pos);
    *len = mcz_get_le32(bytes);
    return MCZ_OK;
}

/* Checks that the contexts [base, base+c->count) tile chunk c exactly: a raw index's stored
 * offsets, a compressed one's implied (each the sum of the lengths before it in its chunk). */
static int check_chunk_contexts(const mcz_arc_index *idx, const mcz_chunk_info *c, uint32_t base,
                                const index_where *where, length_source *src,
                                uint64_t *lengths_hash, mcz_diag *diag)
{
    uint64_t expect = 0;
    XXH3_state_t st;
    if (lengths_hash)
        XXH3_64bits_reset(&st);
    for (uint32_t j = 0; j < c->count; j++) {
        uint32_t len = 0;
        int rc = length_of(idx, src, base + j, &len, diag);
        if (rc != MCZ_OK)
            return rc;
        uint8_t le[4];
        mcz_put_le32(le, len);
        if (lengths_hash)
            XXH3_64bits_update(&st, le, sizeof le);
        uint32_t off = idx->offsets ? mcz_arc_index_offset(idx, base + j)
                       : expect > UINT32_MAX ? UINT32_MAX
                                             : (uint32_t)expect;
        if (off != expect || len < MCZ_MC_OVERHEAD || len > MCZ_MC_MAX_SIZE)
            return mcz_diag_set(diag, MCZ_ECORRUPT,
                                mcz_at_offset(column_at(where, (uint64_t)base + j)),
                                mcz_in_context((int64_t)c->first_number + j),
                                "index: context at %u (%u bytes) does not follow its predecessor "
                                "in "
                                "its chunk",
                                off, len);
        expect += len;
    }
    if (expect != c->raw_size)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(column_at(where, base)),
                            mcz_in_context(c->first_number),
                            "index: contexts cover %llu bytes of a %u-byte chunk",
                            (unsigned long long)expect, c->raw_size);
    if (lengths_hash)
        *lengths_hash = XXH3_64bits_digest(&st);
    return MCZ_OK;
}

/* Every chunk and context entry (FORMAT.md §8). */
static int check_index_tables(const mcz_arc_index *idx, uint64_t data_start,
                              uint64_t index_offset, const index_where *where,
                              length_source *src, mcz_diag *diag)
{
    uint64_t prev_end = data_start, prev_last = 0, contexts = 0, raw = 0;
    if (idx->chunk_count > 0 && mcz_get_le32(idx->chunks + 16) != idx->first_number)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)index_offset + 20),
                            mcz_in_context(idx->first_number),
                            "index: first number disagrees with the first chunk");
    for (uint32_t i = 0; i < idx->chunk_count; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(idx, i, &c);
        int64_t at = entry_at(where, i);
        int rc = check_chunk_entry(&c, i, prev_end, prev_last, index_offset, at, diag);
        if (rc != MCZ_OK)
            return rc;
        if (c.count > idx->context_count - contexts)
            return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at),
                                mcz_in_context(c.first_number),
                                "index: chunk counts exceed the %u contexts", idx->context_count);
        rc = check_chunk_contexts(idx, &c, (uint32_t)contexts, where, src,
                                  idx->chunk_lengths ? &idx->chunk_lengths[i] : NULL, diag);
        if (rc != MCZ_OK)
            return rc;
        prev_end = c.offset + c.stored_size;
        prev_last = (uint64_t)c.first_number + c.count - 1;
        contexts += c.count;
        raw += c.raw_size;
    }
    if (contexts != idx->context_count || raw != idx->raw_bytes)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)index_offset),
                            MCZ_NO_CONTEXT,
                            "index: chunks hold %llu contexts and %llu bytes, the index says %u "
                            "and "
                            "%llu",
                            (unsigned long long)contexts, (unsigned long long)raw,
                            idx->context_count, (unsigned long long)idx->raw_bytes);
    return MCZ_OK;
}

/* The index's flags word (FORMAT.md §5), read only once the fixed head lies in the file; a
 * reserved bit set, or COMPRESSED before version 4, is corruption. */
static int read_index_flags(const uint8_t *frame, uint64_t avail, const mcz_arc_footer *footer,
                            uint32_t *flags, mcz_diag *diag)
{
    uint64_t off = footer->index_offset;
    if (avail < MCZ_ARC_INDEX_HEAD)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: its %u-byte head runs past the end of the file",
                        MCZ_ARC_INDEX_HEAD);
    *flags = mcz_get_le32(frame + 32);
    if ((*flags & ~MCZ_ARC_INDEX_FLAGS_KNOWN) != 0 ||
        (footer->version < 4 && (*flags & MCZ_ARC_INDEX_COMPRESSED) != 0))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 32), MCZ_NO_CONTEXT,
                            "index: reserved flag bits set (flags 0x%x, version %u)", *flags,
                            footer->version);
    return MCZ_OK;
}

/* Views of a raw index's tables, in the file at p. */
static void raw_views(const uint8_t *p, mcz_arc_index *out)
{
    size_t n = out->context_count;
    out->chunks = p + MCZ_ARC_INDEX_HEAD;
    out->offsets = out->chunks + (size_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count;
    out->lengths = out->offsets + 4 * n;
    out->identity = out->has_hashes ? out->lengths + 4 * n : NULL;
    out->dedup = out->has_hashes ? out->identity + 16 * n : NULL;
}

#define RELEASE_STEP (1u << 20) /* a lean decode hashes and decodes its frame 1 MiB at a time */

/* The XXH3 of p[0, len), which lies at file offset off; with a lean decode's release, hashed in
 * steps, each step's bytes released once hashed. */
static uint64_t checksum_releasing(const uint8_t *p, uint64_t len, uint64_t off,
                                   const mcz_arc_lean *lean)
{
    XXH3_state_t *st = lean && lean->release ? XXH3_createState() : NULL;
    if (!st)
        return mcz_arc_xxh3(p, (size_t)len);
    XXH3_64bits_reset(st);
    for (uint64_t done = 0; done < len;) {
        size_t step = len - done < RELEASE_STEP ? (size_t)(len - done) : RELEASE_STEP;
        XXH3_64bits_update(st, p + done, step);
        done += step;
        lean->release(lean->arg, off + done);
    }
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

/* The frame's size, checksum and fixed head against the footer; fills out's counts. A raw
 * index's size follows from the counts (which it so bounds by the file size); a compressed
 * one's is bounded by mcz_arc_index_unpack. frame: avail bytes of the file from the index. */
static int check_index_frame(const uint8_t *frame, uint64_t avail, const mcz_arc_footer *footer,
                             bool packed, const mcz_arc_lean *lean, mcz_arc_index *out,
                             mcz_diag *diag)
{
    uint64_t off = footer->index_offset;
    uint64_t expect = packed ? footer->index_size
                             : mcz_arc_index_size(footer->chunk_count, footer->context_count,
                                                  out->has_hashes);
    if (footer->index_size != expect || avail < expect)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: %llu bytes, %u chunks and %u contexts need %llu",
                        (unsigned long long)footer->index_size, footer->chunk_count,
                        footer->context_count, (unsigned long long)expect);
    const uint8_t *p = frame;
    if (checksum_releasing(p, expect, off, lean) != footer->index_checksum)
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: checksum mismatch");
    uint32_t payload;
    int rc = mcz_arc_frame_check(p, (size_t)expect, 0, MCZ_ARC_TAG_INDEX, 0, "index", &payload,
                                 diag);
    if (rc != MCZ_OK) {
        if (diag)
            diag->offset = (int64_t)off; /* the frame's faults are reported where it lies */
        return rc;
    }
    out->chunk_count = mcz_get_le32(p + 12);
    out->context_count = mcz_get_le32(p + 16);
    out->first_number = mcz_get_le32(p + 20);
    out->raw_bytes = mcz_get_le64(p + 24);
    if (payload + (uint64_t)MCZ_ARC_FRAME_HEAD != expect ||
        out->chunk_count != footer->chunk_count || out->context_count != footer->context_count)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: header disagrees with the "
                            "footer");
    return MCZ_OK;
}

/* The index frame at frame (avail bytes of the file from there), at footer->index_offset. */
static int decode_index(const uint8_t *frame, uint64_t avail, const mcz_arc_footer *footer,
                        uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                        mcz_diag *diag)
{
    uint64_t off = footer->index_offset;
    uint32_t flags = 0;
    memset(out, 0, sizeof *out);
    int rc = read_index_flags(frame, avail, footer, &flags, diag);
    if (rc != MCZ_OK)
        return rc;
    out->has_hashes = (flags & MCZ_ARC_INDEX_NO_HASHES) == 0;
    bool packed = (flags & MCZ_ARC_INDEX_COMPRESSED) != 0;
    rc = check_index_frame(frame, avail, footer, packed, lean, out, diag);
    uint64_t table = off + MCZ_ARC_INDEX_HEAD;
    index_where where = {table, table + (uint64_t)MCZ_ARC_CHUNK_ENTRY * out->chunk_count, 1};
    mcz_arc_column_stream s = {0}; /* a lean index's lengths, read once for the checks */
    static const mcz_arc_lean nothing = {NULL, NULL, 0};
    length_source src = {&s, lean ? lean : &nothing, off + MCZ_ARC_INDEX_PACKED_HEAD};
    if (rc == MCZ_OK && packed) {
        rc = mcz_arc_index_unpack(frame, off, footer->index_size, data_start, lean, out, &s, diag);
        where = (index_where){src.at, src.at, 0};
    } else if (rc == MCZ_OK) {
        raw_views(frame, out);
    }
    if (rc == MCZ_OK)
        rc = check_index_tables(out, data_start, off, &where, &src, diag);
    if (rc == MCZ_OK && out->packed)
        rc = mcz_arc_index_unpack_end(out, &s, src.lean, src.at, diag);
    mcz_arc_column_free(&s);
    if (rc != MCZ_OK)
        mcz_arc_index_free(out);
    return rc;
}

static int decode_at(const uint8_t *file, size_t size, const mcz_arc_footer *footer,
                     uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                     mcz_diag *diag)
{
    uint64_t off = footer->index_offset;
    if (off > size) {
        memset(out, 0, sizeof *out);
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "index: its %u-byte head runs past the end of the file",
                            MCZ_ARC_INDEX_HEAD);
    }
    return decode_index(file + off, size - off, footer, data_start, lean, out, diag);
} 

int mcz_arc_index_decode(const uint8_t *file, size_t size, const mcz_arc_footer *footer,
                         uint64_t data_start, mcz_arc_index *out, mcz_diag *diag)
{
    return decode_at(file, size, footer, data_start, NULL, out, diag);
}

int mcz_arc_index_decode_lean(const uint8_t *file, size_t size, const mcz_arc_footer *footer,
                              uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                              mcz_diag *diag)
{
    static const mcz_arc_lean streamed = {NULL, NULL, 0};
    return decode_at(file, size, footer, data_start, lean ? lean : &streamed, out, diag);
}

int mcz_arc_index_decode_frame(const uint8_t *frame, const mcz_arc_footer *footer,
                               uint64_t data_start, mcz_arc_index *out, mcz_diag *diag)
{
    return decode_index(frame, footer->index_size, footer, data_start, NULL, out, diag);
}

void mcz_arc_index_free(mcz_arc_index *idx)
{
    if (!idx)
        return;
    free(idx->owned);
    free(idx->chunk_lengths);
    memset(idx, 0, sizeof *idx);
}

/* ---- Index under construction ---- */

/* Grows *arr (elements of size elem) to hold at least need; *cap is updated. */
static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return MCZ_OK;
    if (need > UINT32_MAX)
        return MCZ_ELIMIT;
    uint64_t next = *cap ? (uint64_t)*cap * 2 : 64;
    while (next < need)
        next *= 2;
    if (next > UINT32_MAX)
        next = UINT32_MAX;
    void *bigger = realloc(*arr, (size_t)next * elem);
    if (!bigger)
        return MCZ_ENOMEM;
    *arr = bigger;
    *cap = (uint32_t)next;
    return MCZ_OK;
}

static int grow_contexts(mcz_arc_table *t, uint64_t need)
{
    uint32_t cap = t->context_cap;
    int rc = MCZ_OK;
    if (need <= cap)
        return MCZ_OK;
    uint32_t c1 = cap, c2 = cap, c3 = cap;
    rc = grow((void **)&t->lengths, &c1, need, sizeof *t->lengths);
    if (rc == MCZ_OK && !t->no_hashes)
        rc = grow((void **)&t->identity, &c2, need, sizeof *t->identity);
    if (rc == MCZ_OK && !t->no_hashes)
        rc = grow((void **)&t->dedup, &c3, need, sizeof *t->dedup);
    if (rc == MCZ_OK)
        t->context_cap = c1;
    return rc;
}

int mcz_arc_table_add(mcz_arc_table *t, const mcz_chunk_info *chunk, const uint32_t *lengths,
                      const mcz_hash128 *identity, const mcz_hash128 *dedup)
{
    uint64_t need = (uint64_t)t->context_count + chunk->count;
    int rc = grow((void **)&t->chunks, &t->chunk_cap, (uint64_t)t->chunk_count + 1,
                  sizeof *t->chunks);
    if (rc == MCZ_OK)
        rc = grow_contexts(t, need);
    if (rc != MCZ_OK)
        return rc;
    uint32_t base = t->context_count;
    memcpy(t->lengths + base, lengths, chunk->count * sizeof *lengths);
    if (!t->no_hashes) {
        memcpy(t->identity + base, identity, chunk->count * sizeof *identity);
        memcpy(t->dedup + base, dedup, chunk->count * sizeof *dedup);
    }
    t->chunks[t->chunk_count++] = *chunk;
    t->context_count = (uint32_t)need;
    t->raw_bytes += chunk->raw_size;
    return MCZ_OK;
}

void mcz_arc_chunk_entry_encode(const mcz_chunk_info *c, uint8_t e[MCZ_ARC_CHUNK_ENTRY])
{
    mcz_put_le64(e, c->offset);
    mcz_put_le32(e + 8, c->stored_size);
    mcz_put_le32(e + 12, c->raw_size);
    mcz_put_le32(e + 16, c->first_number);
    mcz_put_le32(e + 20, c->count);
    mcz_put_le64(e + 24, c->checksum);
}

/* ---- Streaming index encoding ---- */

#define EMIT_BUFFER 4096

/* The output side of the streaming encoder: a fixed buffer and the running XXH3 of the frame. */
typedef struct index_emitter {
    mcz_arc_sink_fn sink;
    void *arg;
    int rc; /* the sink's first failure */
    size_t used;
    XXH3_state_t hash;
    uint8_t buf[EMIT_BUFFER];
} index_emitter;

static void emit_flush(index_emitter *e)
{
    if (e->rc == MCZ_OK && e->used > 0) {
        XXH3_64bits_update(&e->hash, e->buf, e->used);
        e->rc = e->sink(e->arg, e->buf, e->used);
    }
    e->used = 0;
}

/* Room for len (<= EMIT_BUFFER) more bytes of the frame; returns where they go. */
static uint8_t *emit_reserve(index_emitter *e, size_t len)
{
    if (EMIT_BUFFER - e->used < len)
        emit_flush(e);
    uint8_t *p = e->buf + e->used;
    e->used += len;
    return p;
}

/* The index's totals, from one pass over the rows. */
typedef struct index_totals {
    uint64_t contexts, raw_bytes;
    uint32_t first_number;
} index_totals;

static int sum_rows(uint32_t chunk_count, bool hashes, mcz_arc_rows_fn rows, void *arg,
                    index_totals *t)
{
    for (uint32_t i = 0; i < chunk_count; i++) {
        mcz_arc_rows r;
        rows(arg, i, &r);
        if (i == 0)
            t->first_number = r.info.first_number;
        t->contexts += r.info.count;
        t->raw_bytes += r.info.raw_size;
    }
    if (t->contexts > UINT32_MAX)
        return MCZ_ELIMIT;
    uint64_t size = mcz_arc_index_size(chunk_count, (uint32_t)t->contexts, hashes);
    return size - MCZ_ARC_FRAME_HEAD > UINT32_MAX ? MCZ_ELIMIT : MCZ_OK;
}

typedef enum index_column { COLUMN_OFFSET, COLUMN_LENGTH, COLUMN_IDENTITY, COLUMN_DEDUP } index_column;

/* One per-context column (FORMAT.md §5), chunk after chunk. */
static void emit_column(index_emitter *e, uint32_t chunk_count, mcz_arc_rows_fn rows, void *arg,
                        index_column column)
{
    for (uint32_t i = 0; i < chunk_count; i++) {
        mcz_arc_rows r;
        rows(arg, i, &r);
        uint32_t offset = 0;
        for (uint32_t j = 0; j < r.info.count; j++) {
            if (column == COLUMN_OFFSET)
                mcz_put_le32(emit_reserve(e, 4), offset);
            else if (column == COLUMN_LENGTH)
                mcz_put_le32(emit_reserve(e, 4), r.lengths[j]);
            else if (column == COLUMN_IDENTITY)
                memcpy(emit_reserve(e, 16), r.identity[j].bytes, 16);
            else
                memcpy(emit_reserve(e, 16), r.dedup[j].bytes, 16);
            offset += r.lengths[j];
        }
    }
}

int mcz_arc_index_stream(uint32_t chunk_count, uint32_t first_number, bool hashes,
                         mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                         mcz_arc_sink_fn sink, void *sink_arg)
{
    index_totals t = {0, 0, first_number};
    int rc = sum_rows(chunk_count, hashes, rows, rows_arg, &t);
    if (rc != MCZ_OK)
        return rc;
    uint64_t size = mcz_arc_index_size(chunk_count, (uint32_t)t.contexts, hashes);
    index_emitter e;
    e.sink = sink;
    e.arg = sink_arg;
    e.rc = MCZ_OK;
    e.used = 0;
    XXH3_64bits_reset(&e.hash);
    uint8_t *p = emit_reserve(&e, MCZ_ARC_INDEX_HEAD);
    put_frame_head(p, (uint32_t)(size - MCZ_ARC_FRAME_HEAD), MCZ_ARC_TAG_INDEX);
    mcz_put_le32(p + 12, chunk_count);
    mcz_put_le32(p + 16, (uint32_t)t.contexts);
    mcz_put_le32(p + 20, t.first_number);
    mcz_put_le64(p + 24, t.raw_bytes);
    mcz_put_le32(p + 32, hashes ? 0 : MCZ_ARC_INDEX_NO_HASHES);
    for (uint32_t i = 0; i < chunk_count; i++) {
        mcz_arc_rows r;
        rows(rows_arg, i, &r);
        mcz_arc_chunk_entry_encode(&r.info, emit_reserve(&e, MCZ_ARC_CHUNK_ENTRY));
    }
    index_column last = hashes ? COLUMN_DEDUP : COLUMN_LENGTH;
    for (index_column c = COLUMN_OFFSET; c <= last; c++)
        emit_column(&e, chunk_count, rows, rows_arg, c);
    emit_flush(&e);
    if (e.rc != MCZ_OK)
        return e.rc;
    uint8_t footer[MCZ_ARC_FOOTER_SIZE];
    mcz_arc_footer f = {MCZ_ARC_VERSION, index_offset, size, XXH3_64bits_digest(&e.hash),
                        chunk_count, (uint32_t)t.contexts};
    mcz_arc_footer_encode(&f, footer);
    return sink(sink_arg, footer, sizeof footer);
}

/* ---- A table encoded through the stream ---- */

/* Rows of a table; the encoder asks for them in order, so the context base is carried along. */
typedef struct table_walk {
    const mcz_arc_table *t;
    uint32_t base; /* first context of the chunk asked for next */
} table_walk;

static void table_rows(void *arg, uint32_t i, mcz_arc_rows *out)
{
    table_walk *w = arg;
    if (i == 0)
        w->base = 0;
    out->info = w->t->chunks[i];
    out->lengths = w->t->lengths + w->base;
    out->identity = w->t->no_hashes ? NULL : w->t->identity + w->base;
    out->dedup = w->t->no_hashes ? NULL : w->t->dedup + w->base;
    w->base += out->info.count;
}

/* A sink into a buffer of known capacity. */
typedef struct buffer_sink {
    uint8_t *bytes;
    size_t used, cap;
} buffer_sink;

static int buffer_append(void *arg, const void *data, size_t len)
{
    buffer_sink *b = arg;
    if (len > b->cap - b->used)
        return MCZ_ELIMIT;
    memcpy(b->bytes + b->used, data, len);
    b->used += len;
    return MCZ_OK;
}

int mcz_arc_table_encode(const mcz_arc_table *t, uint64_t index_offset, uint8_t **frame,
                         size_t *frame_len, uint8_t footer[MCZ_ARC_FOOTER_SIZE])
{
    uint64_t size = mcz_arc_index_size(t->chunk_count, t->context_count, !t->no_hashes);
    if (size - MCZ_ARC_FRAME_HEAD > UINT32_MAX || size > SIZE_MAX - MCZ_ARC_FOOTER_SIZE)
        return MCZ_ELIMIT;
    buffer_sink b = {malloc((size_t)size + MCZ_ARC_FOOTER_SIZE), 0,
                     (size_t)size + MCZ_ARC_FOOTER_SIZE};
    if (!b.bytes)
        return MCZ_ENOMEM;
    table_walk walk = {t, 0};
    int rc = mcz_arc_index_stream(t->chunk_count, t->first_number, !t->no_hashes, table_rows,
                                  &walk, index_offset, buffer_append, &b);
    if (rc == MCZ_OK && b.used != b.cap)
        rc = MCZ_ELIMIT; /* the table's counts disagree with its chunks */
    if (rc != MCZ_OK) {
        free(b.bytes);
        return rc;
    }
    memcpy(footer, b.bytes + size, MCZ_ARC_FOOTER_SIZE);
    *frame = b.bytes;
    *frame_len = (size_t)size;
    if (!t->raw_index)
        mcz_arc_index_pack(frame, frame_len, index_offset, footer);
    return MCZ_OK;
}

void mcz_arc_table_free(mcz_arc_table *t)
{
    if (!t)
        return;
    free(t->chunks);
    free(t->lengths);
    free(t->identity);
    free(t->dedup);
    memset(t, 0, sizeof *t);
}

/* ---- Hashes ---- */

void mcz_arc_context_hashes(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *identity,
                            mcz_hash128 *dedup)
{
    if (mcz_mc_identity_hash(v, mc, false, identity, NULL) != MCZ_OK)
        memset(identity->bytes, 0, sizeof identity->bytes);
    mcz_mc_dedup_key(v, mc, dedup);
}

const mcz_jit_ee *mcz_arc_hash_jit_ee(const mcz_arc_header *h)
{
    const mcz_jit_ee *v = mcz_jit_ee_by_id(h->jit_ee);
    return v ? v : mcz_jit_ee_find("B"); /* format version 1 hashed with B's table */
}

void mcz_mc_dedup_key(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *dedup)
{
    if (mcz_mc_identity_hash(v, mc, true, dedup, NULL) == MCZ_OK)
        return;
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, XXH3_128bits(mc->bytes, mc->size));
    _Static_assert(sizeof canon.digest == sizeof dedup->bytes, "XXH128 digest is 16 bytes");
    memcpy(dedup->bytes, canon.digest, sizeof dedup->bytes);
}
