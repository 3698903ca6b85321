/*
 * reader_impl.h - internals shared by the files of reader/: the reader's structure and the one
 * function that decodes and verifies a chunk (cursor, verify, recovery and the chunk fuzzer).
 */
#ifndef MCZ_READER_IMPL_H
#define MCZ_READER_IMPL_H

#include <zstd.h>

#include "archive.h"

struct mcz_reader {
    mcz_file file;           /* owned when opened from a path */
    const uint8_t *data;     /* the archive image */
    size_t size;
    mcz_arc_header header;
    mcz_arc_dict dict;       /* size 0 when none */
    ZSTD_DDict *ddict;       /* shared read-only by every cursor */
    uint64_t data_start;     /* first byte after the header and dictionary frames */
    mcz_arc_index index;
    uint32_t *context_base;  /* per chunk: position of its first context in the index */
    uint64_t *raw_base;      /* per chunk: its offset in the equivalent MCH */
};

/*
 * Opens an archive held in memory (not copied: data must outlive the reader). Validates exactly
 * as mcz_reader_open does.
 */
mcz_reader *mcz_reader_open_image(const uint8_t *data, size_t size, mcz_diag *diag);

/* A growable decode buffer. */
typedef struct mcz_rd_buffer {
    uint8_t *bytes;
    size_t cap;
} mcz_rd_buffer;

/*
 * Decodes the chunk (header frame + zstd data frame) at file offset off of file[0, size): the
 * header, the data frame's dictionary id (must be dict_id, 0 for none) and content size, a
 * decode of exactly raw_size bytes into buf, the raw XXH3, and each context's container. On
 * success *head describes the chunk and buf->bytes holds its raw bytes; on failure nothing in buf
 * is meaningful. ddict may be NULL (no dictionary).
 */
int mcz_rd_decode_chunk(const uint8_t *file, size_t size, uint64_t off, ZSTD_DCtx *dctx,
                        const ZSTD_DDict *ddict, uint32_t dict_id, mcz_rd_buffer *buf,
                        mcz_arc_chunk_head *head, mcz_diag *diag);

/* Makes the cursor verify zstd's own content checksum too (deep verification: the chunks must
 * also pass the plain zstd tool). Reads normally skip it, the XXH3 covering the same bytes. */
int mcz_rd_cursor_strict(mcz_cursor *c);

#endif /* MCZ_READER_IMPL_H */
