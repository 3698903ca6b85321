/*
 * index_testlib.h - index helpers for the archive tests: a table rebuilt from a decoded index,
 * and an archive image rewritten with its index in the raw form (FORMAT.md §5), the form the
 * tests edit entry by entry (writers compress it).
 */
#ifndef INDEX_TESTLIB_H
#define INDEX_TESTLIB_H

#include <stdlib.h>
#include <string.h>

#include "../../format/archive.h"

/* Entry pos of idx's identity or dedup column, held whole or read from a lean index's frame. */
static inline void tl_index_hash(const mcz_arc_index *idx, bool dedup, uint32_t pos, uint8_t *out)
{
    if (idx->packed) {
        mcz_arc_column_stream s = {0};
        if (mcz_arc_column_get(idx, &s, dedup ? MCZ_ARC_COL_DEDUP : MCZ_ARC_COL_IDENTITY, pos,
                               out) != MCZ_OK)
            abort();
        mcz_arc_column_free(&s);
    } else {
        memcpy(out, (dedup ? idx->dedup : idx->identity) + 16 * (size_t)pos, 16);
    }
}

/* Length pos of idx, held whole or read from a lean index's frame. */
static inline uint32_t tl_index_length(const mcz_arc_index *idx, uint32_t pos)
{
    if (!idx->packed)
        return mcz_arc_index_length(idx, pos);
    mcz_arc_column_stream s = {0};
    uint8_t out[4];
    if (mcz_arc_column_get(idx, &s, MCZ_ARC_COL_LENGTHS, pos, out) != MCZ_OK)
        abort();
    mcz_arc_column_free(&s);
    return mcz_get_le32(out);
}

/* t (zeroed by the caller, raw_index set as wanted) gets idx's chunks, lengths and hashes. */
static inline int tl_table_of_index(const mcz_arc_index *idx, mcz_arc_table *t)
{
    t->no_hashes = !idx->has_hashes;
    t->first_number = idx->first_number;
    int rc = MCZ_OK;
    for (uint32_t i = 0, base = 0; i < idx->chunk_count && rc == MCZ_OK; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(idx, i, &c);
        uint32_t *lengths = malloc(c.count * sizeof *lengths);
        mcz_hash128 *identity = malloc(c.count * sizeof *identity);
        mcz_hash128 *dedup = malloc(c.count * sizeof *dedup);
        if (!lengths || !identity || !dedup)
            abort();
        for (uint32_t k = 0; k < c.count; k++) {
            lengths[k] = tl_index_length(idx, base + k);
            if (idx->has_hashes) {
                tl_index_hash(idx, false, base + k, identity[k].bytes);
                tl_index_hash(idx, true, base + k, dedup[k].bytes);
            }
        }
        rc = mcz_arc_table_add(t, &c, lengths, t->no_hashes ? NULL : identity,
                               t->no_hashes ? NULL : dedup);
        base += c.count;
        free(lengths);
        free(identity);
        free(dedup);
    }
    return rc;
}

/* The index of the archive image *p (*size bytes, malloc'ed, must open) re-encoded in place,
 * raw (raw true) or compressed; *p and *size follow the new length. */
static inline void tl_recode_index(uint8_t **p, size_t *size, bool raw)
{
    mcz_arc_footer f;
    mcz_arc_index idx;
    if (mcz_arc_footer_decode(*p, *size, &f, NULL) != MCZ_OK ||
        mcz_arc_index_decode(*p, *size, &f, MCZ_ARC_HEADER_SIZE, &idx, NULL) != MCZ_OK)
        abort();
    mcz_arc_table t = {0};
    t.raw_index = raw;
    uint8_t *frame, footer[MCZ_ARC_FOOTER_SIZE];
    size_t len;
    if (tl_table_of_index(&idx, &t) != MCZ_OK ||
        mcz_arc_table_encode(&t, f.index_offset, &frame, &len, footer) != MCZ_OK)
        abort();
    mcz_arc_index_free(&idx);
    mcz_arc_table_free(&t);
    *size = (size_t)f.index_offset + len + MCZ_ARC_FOOTER_SIZE;
    *p = realloc(*p, *size);
    if (!*p)
        abort();
    memcpy(*p + f.index_offset, frame, len);
    memcpy(*p + f.index_offset + len, footer, MCZ_ARC_FOOTER_SIZE);
    free(frame);
}

#endif /* INDEX_TESTLIB_H */
