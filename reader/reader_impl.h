/*
 * reader_impl.h - internals shared by the files of reader/: the reader's structure. Chunks are
 * decoded and verified by mcz_arc_decode_chunk (format/archive.h).
 */
#ifndef MCZ_READER_IMPL_H
#define MCZ_READER_IMPL_H

#include <zstd.h>

#include "../format/archive.h"

typedef struct mcz_http mcz_http;

struct mcz_reader {
    mcz_file file;           /* owned when opened from a path */
    const uint8_t *data;     /* the archive image */
    size_t size;
    mcz_arc_header header;
    mcz_arc_dict dict;       /* size 0 when none */
    ZSTD_DDict *ddict;       /* shared read-only by every cursor */
    mcz_arc_meta meta;       /* the metadata frame's fields; empty when there is none */
    uint64_t data_start;     /* first byte after the header, dictionary and metadata frames */
    mcz_arc_index index;
    uint32_t *context_base;  /* per chunk: position of its first context in the index */
    uint64_t *raw_base;      /* per chunk: its offset in the equivalent MCH */
    mcz_http *http;          /* archive read over HTTP (owns the image); NULL otherwise */
};

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

/* ---- Archives over HTTP (source_http.c) ---- */

/* An http:// or https:// URL (any case). */
bool mcz_http_is_url(const char *path);
/* Opens the archive at url: footer, index, header and dictionary fetched with range requests,
 * validated as mcz_reader_open does; chunks fetched later by mcz_rd_need. */
mcz_reader *mcz_rd_open_http(const char *url, mcz_diag *diag);
/* Makes chunk `index` present in the image (fetching it, and the unfetched chunks after it,
 * when the archive is remote): MCZ_OK at once for a local archive. Thread-safe. */
int mcz_rd_need(const mcz_reader *r, uint64_t index, mcz_diag *diag);
/* The unfetched chunks among [first, first+count) fetched, adjacent ones in one request. */
int mcz_rd_prefetch(const mcz_reader *r, uint64_t first, uint64_t count, mcz_diag *diag);
void mcz_http_free(mcz_http *h);

/* ---- The cache of remote archives (http_cache.c) ---- */

typedef struct mcz_http_cache mcz_http_cache;
/* The cache under root of the archive version `key` names (its text: URL, length, validators,
 * footer); NULL when it cannot be used (warned once on stderr). */
mcz_http_cache *mcz_http_cache_open(const char *root, const char *key);
void mcz_http_cache_free(mcz_http_cache *c);
/* Piece [off, off+len) into dst: true when the cache held it whole and its checksum holds. */
bool mcz_http_cache_load(const mcz_http_cache *c, uint64_t off, uint8_t *dst, uint64_t len);
/* Keeps piece [off, off+len) (atomically); a failure warns once and stops writing. */
void mcz_http_cache_store(mcz_http_cache *c, uint64_t off, const uint8_t *src, uint64_t len);
/* Chunks a source walking in order asks for at once. */
#define MCZ_HTTP_READAHEAD 8

#endif /* MCZ_READER_IMPL_H */
