/*
 * reader_impl.h - internals shared by the files of reader/: the reader's structure. Chunks are
 * decoded and verified by mcz_arc_decode_chunk (format/archive.h).
 */
#ifndef MCZ_READER_IMPL_H
#define MCZ_READER_IMPL_H

#include <zstd.h>

#include "../format/archive.h"
#include "../io/source.h"
#include "../platform/threads.h"
#include "../superpmi/toc.h"

struct mcz_reader {
    mcz_src *src;            /* the archive's bytes, reached only through views (one reference) */
    size_t size;
    mcz_arc_header header;
    mcz_arc_dict dict;       /* size 0 when none */
    ZSTD_DDict *ddict;       /* shared read-only by every cursor */
    mcz_arc_meta meta;       /* the metadata frame's fields; empty when there is none */
    uint64_t data_start;     /* first byte after the header, dictionary and metadata frames */
    mcz_arc_index index;
    uint32_t *context_base;  /* per chunk: position of its first context in the index */
    uint64_t *raw_base;      /* per chunk: its offset in the equivalent MCH */
    struct rd_columns *columns; /* the per-context columns as read (reader.c): a lean index's
                                 * streams, the last context placed */
};

/* The stored identity and dedup key of the context at position pos (< contexts) of an archive
 * with hashes, either NULL when not wanted: MCZ_OK, or MCZ_ENOMEM. Thread-safe. */
int mcz_rd_hashes_at(const mcz_reader *r, uint64_t pos, mcz_hash128 *identity,
                     mcz_hash128 *dedup);

/* Where the context at position pos (< contexts) of chunk `chunk` lies in its chunk's raw bytes,
 * and its length, from the index without decompression: MCZ_OK, or MCZ_ENOMEM. In a walk in
 * order each is found from the one before. Thread-safe. */
int mcz_rd_place(const mcz_reader *r, uint64_t chunk, uint64_t pos, uint32_t *offset,
                 uint32_t *length);

/* Whether the reader holds column c of its lean index decoded whole, reads out of order having
 * made its stream start again too often (the lengths; either hash column: both). */
bool mcz_rd_column_whole(const mcz_reader *r, mcz_arc_column c);

/* Chunk `index`'s own lengths (h's) must be the index's: MCZ_OK, or MCZ_ECORRUPT naming the
 * first context that differs, at the chunk's offset (MCZ_ENOMEM when a lean index's lengths
 * cannot be read). Thread-safe. */
int mcz_rd_lengths_match(const mcz_reader *r, uint64_t index, const mcz_arc_chunk_head *h,
                         mcz_diag *diag);

/*
 * Opens an archive held in memory (not copied: data must outlive the reader). Validates exactly
 * as mcz_reader_open does.
 */
mcz_reader *mcz_reader_open_image(const uint8_t *data, size_t size, mcz_diag *diag);

/* Chunk `index`'s own header h must say what the index says (every field, every length):
 * MCZ_OK, or MCZ_ECORRUPT naming the chunk, at its offset. A chunk frame moved or swapped
 * inside the file, or an index entry forged, shows here. */
int mcz_rd_match_index(const mcz_reader *r, uint64_t index, const mcz_arc_chunk_head *h,
                       mcz_diag *diag);

/* Makes the cursor verify zstd's own content checksum too (deep verification: the chunks must
 * also pass the plain zstd tool). Reads normally skip it, the XXH3 covering the same bytes. */
int mcz_rd_cursor_strict(mcz_cursor *c);

/* Opens the archive in src (taking a reference of its own): the footer, then the index, then
 * the header and dictionary, each through a view, validated as mcz_reader_open does; a remote
 * archive's messages name its URL. */
mcz_reader *mcz_rd_open_src(mcz_src *src, mcz_diag *diag);
/* The stored bytes of chunk `index` present (fetched when the archive is remote), through a
 * view: *image is the archive's image origin (the view minus the chunk's offset), for the
 * decoders, which take file offsets. diag's context is the chunk's first number on failure.
 * Thread-safe. */
int mcz_rd_chunk_bytes(const mcz_reader *r, uint64_t index, const uint8_t **image, mcz_diag *diag);
/* mcz_source_open over src (taking a reference of its own); path: its name, for the .mct beside
 * it and the .mcz suffix. */
mcz_source *mcz_rd_source_open_src(mcz_src *src, const char *path, mcz_diag *diag);
/* Chunks a source walking in order asks for at once. */
#define MCZ_HTTP_READAHEAD 8

#endif /* MCZ_READER_IMPL_H */
