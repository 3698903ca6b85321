/*
 * source.h - every byte the library reads comes through one interface: a random-access source
 * of a known length that hands out views. Backends (each its own file of io/):
 *   file       a regular file, mapped (source.c; file.c does the mapping)
 *   stream     standard input ("-"), a FIFO, a character device or socket: copied once to an
 *              unlinked temporary file in $TMPDIR (or /tmp), then mapped as a file is
 *              (file.c)
 *   memory     bytes the caller holds, not copied (source.c)
 *   http       an http:// or https:// URL, read with range requests (source_http.c), the pieces
 *              kept in MCZ_CACHE_DIR when set (http_cache.c)
 * mcz_src_open chooses by name. A stream is spooled to a file, not read into memory: collections
 * run to gigabytes, and a mapped file's pages are the kernel's to reclaim (and to drop behind a
 * walk) as a regular file's are; unlinked at once, it leaves nothing behind however the process
 * ends. Only when no temporary file can be made is the stream read into memory.
 *
 * Views. mcz_src_view makes bytes [off, off+len) present (for HTTP: fetched, or read from the
 * cache, unless an earlier view or prefetch brought them) and returns a pointer to them, valid
 * until the source is closed: a file's views are its mapping, no copy. Taking the view is the
 * only way to the bytes, so no reader can use bytes that were never fetched. All views of one
 * source are slices of one image of its whole length, at their offsets (view(off) - off is the
 * same address for every view), so decoders written for an image in memory take a view and file
 * offsets; they may use only the bytes of views taken.
 *
 * Sources are shared: any number of threads may take views of one at once, and a source opened
 * before fork() is the child's as well (its mapping is inherited). mcz_src_ref adds an owner;
 * the last mcz_src_close frees it.
 */
#ifndef MCZ_IO_SOURCE_H
#define MCZ_IO_SOURCE_H

#include "mcz_common.h"

typedef struct mcz_src mcz_src;

/* A range of a source's bytes. */
typedef struct mcz_src_range {
    uint64_t off, len;
} mcz_src_range;

/* What each backend does (source.c, source_http.c); NULL members do nothing. */
typedef struct mcz_src_backend {
    /* Makes ranges[0, n) present: the ranges are what a reader reads next, each of them a unit
     * worth keeping alone (a chunk, an index), sorted by offset. */
    int (*fetch)(mcz_src *s, const mcz_src_range *ranges, size_t n, mcz_diag *diag);
    void (*drop_behind)(const mcz_src *s, uint64_t *dropped, uint64_t pos);
    uint64_t (*data_end)(const mcz_src *s, uint64_t *at);
    void (*keep)(mcz_src *s, const mcz_src_range *ranges, size_t n);
    void (*close)(mcz_src *s);
} mcz_src_backend;

struct mcz_src {
    const mcz_src_backend *backend;
    const uint8_t *image; /* size bytes; for HTTP, only the present ranges hold data */
    uint64_t size;
    char *name;           /* as opened: a path, "-", a URL */
    bool remote;          /* bytes cost a request: readers should prefetch */
    bool stream;          /* "-", or a stream's bytes spooled (mcz_file_spooled) */
    int refs;             /* atomic */
    void *impl;           /* the backend's */
};

/* Probe length a reader of a format with a trailer asks for when it opens a remote source: the
 * first request fetches the last `probe` bytes with the length (0: the default, 64). */
#define MCZ_SRC_PROBE_DEFAULT 64u

/* Opens name: "-" (standard input), an http(s) URL, or a path (a regular file is mapped; a FIFO,
 * character device or socket is spooled). probe: the trailer a remote source fetches first (see
 * above). NULL on error, diag naming name. */
mcz_src *mcz_src_open(const char *name, uint32_t probe, mcz_diag *diag);
/* A source over data[0, size), not copied: data must outlive the source. */
mcz_src *mcz_src_memory(const uint8_t *data, size_t size, const char *name, mcz_diag *diag);
mcz_src *mcz_src_ref(mcz_src *s);
void mcz_src_close(mcz_src *s); /* accepts NULL */

/* True for an http:// or https:// URL (any case). */
bool mcz_src_is_url(const char *name);

static inline uint64_t mcz_src_size(const mcz_src *s) { return s->size; }
static inline const char *mcz_src_name(const mcz_src *s) { return s->name; }
static inline bool mcz_src_remote(const mcz_src *s) { return s->remote; }
static inline bool mcz_src_stream(const mcz_src *s) { return s->stream; }

/* Bytes [off, off+len) present, *view pointing at them: MCZ_OK; MCZ_ECORRUPT (nothing fetched)
 * when the range is not inside the source, MCZ_EIO when they cannot be fetched (diag names the
 * source). A zero-length view inside the source is the image's address at off. */
int mcz_src_view(mcz_src *s, uint64_t off, uint64_t len, const uint8_t **view, mcz_diag *diag);
/* A hint: the ranges (sorted by offset, inside the source) are read next; a remote source
 * fetches the absent ones now, adjacent ones in one request. A local one does nothing. */
int mcz_src_prefetch(mcz_src *s, const mcz_src_range *ranges, size_t n, mcz_diag *diag);
/* A hint: these ranges (present) are wanted by every open of this source: a remote source keeps
 * them for the next open of the same URL in this process and in processes it forks
 * (source_http.c says how that stays safe). */
void mcz_src_keep(mcz_src *s, const mcz_src_range *ranges, size_t n);
/* mcz_file_drop_behind and mcz_file_data_end on the source's image (no effect, and the whole
 * source one extent, where the backend has no such thing). */
void mcz_src_drop_behind(const mcz_src *s, uint64_t *dropped, uint64_t pos);
uint64_t mcz_src_data_end(const mcz_src *s, uint64_t *at);

/* ---- For the backends ---- */

/* A new source of backend with impl, named name (copied), one reference; the backend sets its
 * image, size and remote. NULL on no memory. */
mcz_src *mcz_src_new(const mcz_src_backend *backend, const char *name, void *impl);
/* Opens an http(s) URL (source_http.c). */
mcz_src *mcz_src_open_http(const char *url, uint32_t probe, mcz_diag *diag);

/* The cache of remote sources (http_cache.c). */
typedef struct mcz_http_cache mcz_http_cache;
/* The cache under root of the version `key` names (its text: URL, length, validators, the
 * probe's bytes); NULL when it cannot be used (warned once on stderr). */
mcz_http_cache *mcz_http_cache_open(const char *root, const char *key);
void mcz_http_cache_free(mcz_http_cache *c);
/* Piece [off, off+len) into dst: true when the cache held it whole and its checksum holds. */
bool mcz_http_cache_load(const mcz_http_cache *c, uint64_t off, uint8_t *dst, uint64_t len);
/* Keeps piece [off, off+len) (atomically); a failure warns once and stops writing. */
void mcz_http_cache_store(mcz_http_cache *c, uint64_t off, const uint8_t *src, uint64_t len);
/* Whether pieces can still be written to c (false for NULL). */
bool mcz_http_cache_writable(const mcz_http_cache *c);
/* The file of piece [off, off+len): its bytes, then their XXH3-64 (8 bytes, little-endian), for
 * a caller that writes a piece as it arrives or maps one (a server without ranges' whole body). */
void mcz_http_cache_piece_path(const mcz_http_cache *c, uint64_t off, uint64_t len, char *out,
                               size_t cap);

#endif /* MCZ_IO_SOURCE_H */
